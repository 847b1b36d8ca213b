"""Checking a sweep spec's YAML nodes into a `SweepSpec`, every error located (file:line).

Works on the composed node tree (`yaml.compose`), so every key and value knows its line; values
are converted with the safe constructor. Template options are checked against the generators'
own option table, so a new template or option needs no change here.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import yaml

from rackdesigner.io.reader import value_kind
from rackdesigner.sweep.spec import (
    DEFAULT_SIZE,
    EDIT_KINDS,
    MAX_POINTS,
    OUTPUT_KEYS,
    SPEC_VERSION,
    TOP_KEYS,
    Edit,
    SweepSpec,
    SweepSpecError,
    parse_size,
)


class SpecReader:
    def __init__(self, label: str, folder: Path) -> None:
        self.label = label
        self.folder = folder

    def fail(self, node: yaml.Node | None, message: str) -> SweepSpecError:
        line = node.start_mark.line + 1 if node is not None else None
        return SweepSpecError(self.label, message, line)

    def plain(self, node: yaml.Node) -> Any:
        """A node as plain data (scalars resolved as YAML 1.1 would); no tags beyond the core."""
        if isinstance(node, yaml.MappingNode):
            return {self.plain(k): self.plain(v) for k, v in node.value}
        if isinstance(node, yaml.SequenceNode):
            return [self.plain(v) for v in node.value]
        from rackdesigner.inputs import scalar_value

        try:
            value = scalar_value(node)
            if isinstance(value, float) and value != value:
                raise ValueError("NaN")
            return value
        except ValueError:
            raise self.fail(node, f"unsupported value {node.value!r} (plain text, numbers "
                            "and true/false only)") from None

    def mapping(self, node: yaml.Node, what: str) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping (key: value), got "
                            f"{value_kind(self.plain(node))}")
        out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key, value in node.value:
            name = self.plain(key)
            if not isinstance(name, str):
                raise self.fail(key, f"{what}: keys must be names, got {name!r}")
            out[name] = (key, value)
        return out

    def check_keys(self, entries: dict[str, tuple[yaml.Node, yaml.Node]],
                   allowed: tuple[str, ...], what: str) -> None:
        for name, (key, _) in entries.items():
            if name not in allowed:
                close = difflib.get_close_matches(name, allowed, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise self.fail(key, f"{what}: unknown key {name!r}{hint} (known keys: "
                                f"{', '.join(allowed)})")

    def read(self, node: yaml.Node) -> SweepSpec:
        top = self.mapping(node, "the sweep spec")
        self.check_keys(top, TOP_KEYS, "sweep spec")
        lines = {name: key.start_mark.line + 1 for name, (key, _) in top.items()}
        if "schema_version" not in top:
            raise self.fail(node, f"missing 'schema_version' (expected schema_version: "
                            f"{SPEC_VERSION} as the first key)")
        vnode = top["schema_version"][1]
        version = self.plain(vnode)
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise self.fail(vnode, f"schema_version must be a whole number (expected "
                            f"{SPEC_VERSION}), got {version!r}")
        if version > SPEC_VERSION:
            raise self.fail(vnode, f"this spec uses schema_version {version}, written for a "
                            f"newer RackDesigner; this version reads up to {SPEC_VERSION}")
        name = self.text(top, "name", "")
        if ("generate" in top) == ("base" in top):
            raise self.fail(node, "a sweep spec names either 'generate: TEMPLATE' (a "
                            "`rackdesigner generate` template) or 'base: FILE.yaml' (a layout "
                            "to edit), not both and not neither")
        template = None
        base_text = None
        base_label = ""
        if "generate" in top:
            template = self.template(top["generate"][1])
            if "edits" in top:
                raise self.fail(top["edits"][0], "'edits' apply to a 'base' layout; with "
                                "'generate', vary the template's options instead")
        else:
            base_label, base_text = self.base(top["base"][1])
        fixed = self.params(top["fixed"][1], "fixed") if "fixed" in top else ()
        grid = self.grid(top["grid"][1]) if "grid" in top else ()
        listed = self.points(top["points"][1]) if "points" in top else ()
        if not grid and not listed and template is not None and not fixed:
            raise self.fail(node, "nothing to sweep: give 'grid: {option: [values]}' or "
                            "'points: [{option: value}, ...]'")
        collectives, sizes, algorithm = self.outputs(top["outputs"][1]) if "outputs" in top \
            else (("all_reduce",), (DEFAULT_SIZE,), "auto")
        edits = self.edits(top["edits"][1]) if "edits" in top else ()
        workload = None
        if "workload" in top:
            from rackdesigner.sweep.estimate import check_workload

            problem = check_workload(self.plain(top["workload"][1]))
            if problem:
                raise self.fail(top["workload"][0], problem)
            workload = self.plain(top["workload"][1])
        cost: tuple = ()
        prices_text, prices_label = None, ""
        if "cost" in top:
            from rackdesigner.sweep.cost import check_cost

            problem, cost, prices_text, prices_label = check_cost(
                self.plain(top["cost"][1]), self.folder)
            if problem:
                raise self.fail(top["cost"][0], problem)
        serving = None
        if "serve" in top:
            from rackdesigner.sweep.serve import check_serve

            problem = check_serve(self.plain(top["serve"][1]))
            if problem:
                raise self.fail(top["serve"][0], problem)
            serving = self.plain(top["serve"][1])
        spec = SweepSpec(self.label, name, template, fixed, grid, listed, collectives, sizes,
                         algorithm, base_text, base_label, edits, workload, lines, cost,
                         prices_text, prices_label, serving)
        if spec.count() > MAX_POINTS:
            counted = top.get("grid", top.get("points"))
            raise self.fail(counted[0] if counted is not None else None,
                            f"{spec.count():,} points; "
                            f"a sweep may have at most {MAX_POINTS:,}")
        if template is not None:
            self.check_options(spec, top)
        else:
            self.check_edit_params(spec, top)
        return spec

    # ---- pieces --------------------------------------------------------------------------
    def text(self, top: dict, key: str, default: str) -> str:
        if key not in top:
            return default
        value = self.plain(top[key][1])
        if not isinstance(value, str):
            raise self.fail(top[key][1], f"'{key}' must be text, got {value_kind(value)}")
        return value

    def template(self, node: yaml.Node) -> str:
        from rackdesigner.generators import TEMPLATES

        value = self.plain(node)
        if not isinstance(value, str) or value not in TEMPLATES:
            close = difflib.get_close_matches(str(value), list(TEMPLATES), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise self.fail(node, f"unknown template {value!r}{hint}; expected one of: "
                            f"{', '.join(TEMPLATES)}")
        return value

    def base(self, node: yaml.Node) -> tuple[str, str]:
        from rackdesigner.io import LayoutFileError, load_layout

        value = self.plain(node)
        if not isinstance(value, str) or not value:
            raise self.fail(node, f"'base' must be a layout file path, got {value!r}")
        path = Path(value) if Path(value).is_absolute() else self.folder / value
        try:
            load_layout(path)  # refuse a broken base now, with the loader's own message
            return str(path), path.read_text(encoding="utf-8")
        except LayoutFileError as exc:
            raise self.fail(node, f"base layout cannot be read: {exc}") from None
        except OSError as exc:
            raise self.fail(node, f"base layout {path}: {exc.strerror or exc}") from None

    def params(self, node: yaml.Node, what: str) -> tuple[tuple[str, Any], ...]:
        out = []
        for name, (_key, value) in self.mapping(node, f"'{what}'").items():
            plain = self.plain(value)
            if isinstance(plain, dict | list):
                raise self.fail(value, f"'{what}': {name} must be a single value, got "
                                f"{value_kind(plain)}")
            out.append((name, plain))
        return tuple(out)

    def grid(self, node: yaml.Node) -> tuple[tuple[str, tuple[Any, ...]], ...]:
        out = []
        for name, (_, value) in self.mapping(node, "'grid'").items():
            plain = self.plain(value)
            if not isinstance(plain, list) or not plain:
                raise self.fail(value, f"'grid': {name} must be a non-empty list of values "
                                f"(e.g. {name}: [1, 2, 4]), got {plain!r}")
            for item, item_node in zip(plain, value.value, strict=True):
                if isinstance(item, dict | list):
                    raise self.fail(item_node, f"'grid': {name}: each value must be a single "
                                    f"value, got {value_kind(item)}")
            out.append((name, tuple(plain)))
        return tuple(out)

    def points(self, node: yaml.Node) -> tuple[tuple[tuple[str, Any], ...], ...]:
        if not isinstance(node, yaml.SequenceNode) or not node.value:
            raise self.fail(node, "'points' must be a non-empty list of mappings "
                            "(- {option: value, ...})")
        return tuple(self.params(item, "points") for item in node.value)

    def outputs(self, node: yaml.Node) -> tuple[tuple[str, ...], tuple[int, ...], str]:
        from rackdesigner.simulation import ALGORITHM_CHOICES, COLLECTIVES

        entries = self.mapping(node, "'outputs'")
        self.check_keys(entries, OUTPUT_KEYS, "outputs")
        collectives: tuple[str, ...] = ("all_reduce",)
        sizes: tuple[int, ...] = (DEFAULT_SIZE,)
        algorithm = "auto"
        if "collectives" in entries:
            value = entries["collectives"][1]
            names = self.plain(value)
            names = [names] if isinstance(names, str) else names
            if not isinstance(names, list) or not names or any(
                    n not in COLLECTIVES for n in names):
                raise self.fail(value, f"outputs: collectives must be a list of "
                                f"{', '.join(COLLECTIVES)}; got {self.plain(value)!r}")
            collectives = tuple(dict.fromkeys(names))
        if "sizes" in entries:
            value = entries["sizes"][1]
            items = self.plain(value)
            items = [items] if not isinstance(items, list) else items
            parsed = [parse_size(i) for i in items]
            if not items or any(p is None for p in parsed):
                raise self.fail(value, "outputs: sizes must be a list of message sizes that "
                                "nccl-tests reports (powers of two from 8 B to 16 GiB, "
                                f"e.g. [1GiB, 16MiB, 8KiB]); got {items!r}")
            sizes = tuple(dict.fromkeys(p for p in parsed if p is not None))
        if "algorithm" in entries:
            value = entries["algorithm"][1]
            algorithm = self.plain(value)
            if algorithm not in ALGORITHM_CHOICES:
                raise self.fail(value, f"outputs: algorithm must be one of "
                                f"{', '.join(ALGORITHM_CHOICES)}, got {algorithm!r}")
        return collectives, sizes, algorithm

    def edits(self, node: yaml.Node) -> tuple[Edit, ...]:
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, "'edits' must be a list (- {remove: 'spine-1'}, "
                            "- {set_model: {match: 'leaf-*', model: qm9700}})")
        out = []
        for item in node.value:
            entries = self.mapping(item, "an edit")
            self.check_keys(entries, EDIT_KINDS, "edit")
            if len(entries) != 1:
                raise self.fail(item, f"each edit is one of {', '.join(EDIT_KINDS)}")
            ((kind, (_, value)),) = entries.items()
            if kind == "remove":
                globs = self.plain(value)
                globs = [globs] if isinstance(globs, str) else globs
                if not isinstance(globs, list) or not globs or not all(
                        isinstance(g, str) for g in globs):
                    raise self.fail(value, "remove: expected a device id pattern or a list of "
                                    "them (spine-1, 'spine-[1-4]', 'dgx-*')")
                out.append(Edit("remove", tuple(globs)))
            else:
                body = self.mapping(value, "set_model")
                self.check_keys(body, ("match", "model"), "set_model")
                match = self.plain(body["match"][1]) if "match" in body else None
                model = self.plain(body["model"][1]) if "model" in body else None
                if not isinstance(match, str) or not isinstance(model, str):
                    raise self.fail(value, "set_model: expected {match: ID-PATTERN, "
                                    "model: CATALOG-ID}")
                out.append(Edit("set_model", (match,), model))
        return tuple(out)

    def check_options(self, spec: SweepSpec, top: dict) -> None:
        """Every parameter is an option of the template, of the option's type."""
        from rackdesigner.generators import TEMPLATES

        assert spec.template is not None
        options = {o.name: o for o in TEMPLATES[spec.template].options}
        sources = [("fixed", k, v) for k, v in spec.fixed]
        sources += [("grid", k, v) for k, values in spec.grid for v in values]
        sources += [("points", k, v) for point in spec.listed for k, v in point]
        for section, name, value in sources:
            node = _key_node(top[section][1], name)
            option = options.get(name)
            if option is None:
                takes = ", ".join(options) or "no options"
                close = difflib.get_close_matches(name, list(options), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise self.fail(node, f"template {spec.template!r} has no option "
                                f"{name!r}{hint} (it takes: {takes})")
            if isinstance(value, bool) or (option.type is not str and isinstance(value, str)):
                raise self.fail(node, f"{section}: {name} expects "
                                f"{option.type.__name__}, got {value!r}")
            try:
                option.type(value)
            except (TypeError, ValueError):
                raise self.fail(node, f"{section}: {name} expects {option.type.__name__}, "
                                f"got {value!r}") from None
        given = set(spec.parameter_names())
        missing = [o.name for o in options.values() if o.required and o.name not in given]
        if missing:
            raise self.fail(top["generate"][0], f"template {spec.template!r} needs "
                            f"{', '.join(missing)} (in 'fixed', 'grid' or 'points')")

    def check_edit_params(self, spec: SweepSpec, top: dict) -> None:
        """Every `{name}` an edit uses is a parameter."""
        names = set(spec.parameter_names())
        for edit in spec.edits:
            for text in (*edit.match, edit.model):
                for field_name in _fields(text):
                    if field_name not in names:
                        raise self.fail(top["edits"][0], f"edit uses {{{field_name}}}, which "
                                        f"is not a parameter (parameters: "
                                        f"{', '.join(sorted(names)) or 'none'})")


def _fields(text: str) -> list[str]:
    import string

    try:
        return [f for _, f, _, _ in string.Formatter().parse(text) if f]
    except ValueError:
        return []


def _key_node(mapping: yaml.Node, name: str) -> yaml.Node:
    """The node of `name` in a mapping (or in any mapping of a list of them)."""
    nodes = mapping.value if isinstance(mapping, yaml.SequenceNode) else [mapping]
    for node in nodes:
        if isinstance(node, yaml.MappingNode):
            for key, _ in node.value:
                if getattr(key, "value", None) == name:
                    return key
    return mapping


