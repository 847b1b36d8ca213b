"""Read layout YAML: safe parse → migrate → validate shapes → build a `Layout`.

Every problem raises `LayoutFileError` naming the file, the line (and column where YAML gives
one), what is wrong and what was expected. Design-rule problems (unknown models, links to
missing devices, overfull racks...) are *not* load errors: the file loads and the rules report.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable
from typing import Any

import yaml

from rackdesigner.catalog import Catalog
from rackdesigner.io import safety
from rackdesigner.io.errors import LayoutFileError
from rackdesigner.io.schema import (
    CURRENT_VERSION,
    DEVICE_KEYS,
    GROUP_KEYS,
    LINK_KEYS,
    TOP_KEYS,
    migrate,
)
from rackdesigner.model import Device, Group, Layout, LayoutError, Link, Meta, PortRef
from rackdesigner.model.items import GROUP_KINDS, is_valid_id

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Entry(dict):
    """A mapping that remembers the line it started on."""

    __slots__ = ("line",)


class _LineLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe loader that records mapping lines and refuses anchors/aliases."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        if node in self.constructed_objects or node in self.recursive_objects:
            raise yaml.constructor.ConstructorError(
                None, None, "anchors and aliases (&, *) are not allowed in layout files",
                node.start_mark)
        return super().construct_object(node, deep)

    def construct_yaml_map(self, node: yaml.MappingNode):  # type: ignore[override]
        data = _Entry()
        data.line = node.start_mark.line + 1
        yield data
        data.update(self.construct_mapping(node))


_LineLoader.add_constructor("tag:yaml.org,2002:map", _LineLoader.construct_yaml_map)


def parse_text(raw: str | bytes, path: str, catalog: Catalog | None = None) -> Layout:
    """Build a Layout from YAML text or bytes; `path` labels messages."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if len(data) > safety.MAX_BYTES:
        raise LayoutFileError(path, f"file is {len(data) / 2**20:.0f} MiB; layouts larger than "
                              f"{safety.MAX_BYTES // 2**20} MiB are refused")
    if b"\x00" in data[:8192]:
        raise LayoutFileError(path, "this is a binary file, not a YAML layout")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LayoutFileError(path, "not UTF-8 text (a YAML layout was expected)", line) from None
    try:
        if safety.might_nest_deeply(data, text):
            too_deep, line = safety.exact_depth_exceeds(text)
            if too_deep:
                raise LayoutFileError(path, f"structure nested more than {safety.MAX_DEPTH} "
                                      "levels deep; a layout has at most 4", line)
        doc = yaml.load(text, Loader=_LineLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or str(exc)
        if exc.context:
            problem = f"{exc.context}: {problem}"
        if "could not determine a constructor" in (exc.problem or ""):
            problem = (f"unsupported YAML tag ({exc.problem.split('tag ')[-1]}); layout files "
                       "hold plain mappings, lists, strings and numbers only")
        raise LayoutFileError(path, f"invalid YAML: {problem}",
                              mark.line + 1 if mark else None,
                              mark.column + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise LayoutFileError(path, f"invalid YAML: {exc}") from None
    except (ValueError, OverflowError) as exc:  # e.g. integers beyond Python's digit limit
        raise LayoutFileError(path, f"invalid value: {exc}") from None
    except RecursionError:
        raise LayoutFileError(path, "structure nested too deeply") from None
    return _Builder(path, catalog).build(doc)


class _Builder:
    def __init__(self, path: str, catalog: Catalog | None) -> None:
        self.path = path
        self.catalog = catalog
        self.lines: dict[str, int] = {}

    def fail(self, line: int | None, message: str) -> LayoutFileError:
        return LayoutFileError(self.path, message, line)

    def build(self, doc: Any) -> Layout:
        if doc is None:
            raise self.fail(None, "the file is empty; expected a layout mapping starting with "
                            f"'schema_version: {CURRENT_VERSION}'")
        if not isinstance(doc, dict):
            raise self.fail(None, f"expected a mapping at the top (schema_version, devices, "
                            f"links...), got {_kind(doc)}")
        line = getattr(doc, "line", 1)
        version = doc.get("schema_version")
        if version is None:
            raise self.fail(line, f"missing 'schema_version' (expected schema_version: "
                            f"{CURRENT_VERSION})")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise self.fail(line, f"schema_version must be a whole number >= 1, got {version!r}")
        if version > CURRENT_VERSION:
            raise self.fail(line, f"this file uses schema_version {version}, written by a newer "
                            f"RackDesigner; this version reads up to {CURRENT_VERSION}. "
                            "Upgrade RackDesigner to open it")
        doc = migrate(doc, version)
        self._check_keys(doc, TOP_KEYS, "layout", line)
        meta = Meta(name=self._opt_str(doc, "name", line),
                    description=self._opt_str(doc, "description", line),
                    extra=tuple(sorted((k, v) for k, v in doc.items() if k.startswith("x-"))))
        layout = Layout(self.catalog, meta)
        groups = [self._group(e) for e in self._entries(doc, "groups", line)]
        devices = [self._device(e) for e in self._entries(doc, "devices", line)]
        links = [self._link(e) for e in self._entries(doc, "links", line)]
        for group in _parents_first(groups, self):
            self._add(layout.add_group, group)
        for device in devices:
            if device.group is not None and not layout.has_group(device.group):
                raise self.fail(self.lines[device.id], f"device {device.id}: group "
                                f"{device.group!r} is not defined{_close(device.group, layout)}")
            self._add(layout.add_device, device)
        for link in links:
            if layout.has_device(link.a.device) and layout.has_device(link.b.device):
                self._add(layout.add_link, link)
            else:
                if layout.has_id(link.id):
                    raise self.fail(self.lines[link.id], f"id {link.id!r} is used twice")
                layout.add_unresolved_link(link)
        layout.source_path = self.path
        layout.source_lines = self.lines
        layout.revision = 0
        return layout

    def _add(self, adder: Callable[[Any], Any], item: Device | Link | Group) -> None:
        try:
            adder(item)
        except LayoutError as exc:
            raise self.fail(self.lines.get(item.id), str(exc)) from None

    # ---- entries -------------------------------------------------------------------------
    def _entries(self, doc: dict, key: str, line: int) -> list[_Entry]:
        value = doc.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(line, f"'{key}' must be a list of mappings, got {_kind(value)}")
        for item in value:
            if not isinstance(item, dict):
                raise self.fail(line, f"each entry of '{key}' must be a mapping, got "
                                f"{_kind(item)}: {_short(item)}")
        return value

    def _check_keys(self, entry: dict, allowed: tuple[str, ...], what: str, line: int) -> None:
        for key in entry:
            if not isinstance(key, str):
                raise self.fail(line, f"{what}: keys must be names, got {_short(key)}")
            if key not in allowed and not key.startswith("x-"):
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise self.fail(line, f"{what}: unknown key {key!r}{hint} (known keys: "
                                f"{', '.join(allowed)})")

    def _id(self, entry: _Entry, what: str) -> str:
        line = entry.line
        value = entry.get("id")
        if value is None:
            raise self.fail(line, f"{what} without 'id' (expected e.g. id: gpu-1)")
        if not is_valid_id(value):
            raise self.fail(line, f"{what} id {value!r} is invalid: expected letters, digits and "
                            ". _ - (starting with a letter or digit)")
        if value in self.lines:
            raise self.fail(line, f"id {value!r} is used twice (first on line "
                            f"{self.lines[value]})")
        self.lines[value] = line
        return value

    def _group(self, e: _Entry) -> Group:
        gid = self._id(e, "group")
        self._check_keys(e, GROUP_KEYS, f"group {gid}", e.line)
        kind = self._opt_str(e, "kind", e.line) or "group"
        if kind not in GROUP_KINDS:
            raise self.fail(e.line, f"group {gid}: kind {kind!r} is not one of "
                            f"{', '.join(GROUP_KINDS)}")
        return Group(gid, self._opt_str(e, "name", e.line), kind,
                     self._opt_ref(e, "parent"), self._opt_bool(e, "collapsed"),
                     self._opt_ref(e, "template"))

    def _device(self, e: _Entry) -> Device:
        did = self._id(e, "device")
        self._check_keys(e, DEVICE_KEYS, f"device {did}", e.line)
        model = e.get("model")
        if not isinstance(model, str) or not model:
            raise self.fail(e.line, f"device {did}: 'model' must name a catalog model "
                            f"(e.g. h100-sxm5), got {_short(model)}")
        pos = e.get("pos", (0.0, 0.0))
        if (not isinstance(pos, list | tuple) or len(pos) != 2
                or not all(_is_number(v) and math.isfinite(v) for v in pos)):
            raise self.fail(e.line, f"device {did}: 'pos' must be [x, y] with two finite "
                            f"numbers, got {_short(pos)}")
        u = e.get("u")
        if u is not None and (isinstance(u, bool) or not isinstance(u, int) or not 0 < u < 10**4):
            raise self.fail(e.line, f"device {did}: 'u' must be a whole number of rack units "
                            f"(1 = bottom), got {_short(u)}")
        return Device(did, model, self._opt_str(e, "name", e.line), (pos[0], pos[1]),
                      self._opt_ref(e, "rack"), u, self._opt_ref(e, "group"))

    def _link(self, e: _Entry) -> Link:
        lid = self._id(e, "link")
        self._check_keys(e, LINK_KEYS, f"link {lid}", e.line)
        ends = []
        for side in ("a", "b"):
            value = e.get(side)
            try:
                ends.append(PortRef.parse(value))
            except ValueError as exc:
                raise self.fail(e.line, f"link {lid}: '{side}': {exc}") from None
        count = e.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 10**6:
            raise self.fail(e.line, f"link {lid}: 'count' must be a whole number >= 1, got "
                            f"{_short(count)}")
        length = e.get("length_m")
        if length is not None and not (_is_number(length) and 0 <= length < 1e6):
            raise self.fail(e.line, f"link {lid}: 'length_m' must be a number of metres, got "
                            f"{_short(length)}")
        return Link(lid, ends[0], ends[1], count, self._opt_ref(e, "cable"), length)

    # ---- scalars -------------------------------------------------------------------------
    def _opt_str(self, e: dict, key: str, line: int) -> str:
        value = e.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.fail(line, f"'{key}' must be text, got {_short(value)}")
        return value

    def _opt_ref(self, e: _Entry, key: str) -> str | None:
        value = e.get(key)
        if value is None:
            return None
        if not is_valid_id(value):
            raise self.fail(e.line, f"'{key}' must be an id (letters, digits, . _ -), got "
                            f"{_short(value)}")
        return value

    def _opt_bool(self, e: _Entry, key: str) -> bool:
        value = e.get(key, False)
        if not isinstance(value, bool):
            raise self.fail(e.line, f"'{key}' must be true or false, got {_short(value)}")
        return value


def _parents_first(groups: list[Group], builder: _Builder) -> list[Group]:
    by_id = {g.id: g for g in groups}
    ordered: list[Group] = []
    state: dict[str, int] = {}
    for group in groups:
        chain = []
        current: Group | None = group
        while current is not None and state.get(current.id) != 2:
            if state.get(current.id) == 1:
                raise builder.fail(builder.lines[current.id],
                                   f"group {current.id} is inside itself (parent cycle)")
            state[current.id] = 1
            chain.append(current)
            parent = current.parent
            if parent is not None and parent not in by_id:
                raise builder.fail(builder.lines[current.id], f"group {current.id}: parent "
                                   f"{parent!r} is not defined")
            current = by_id.get(parent) if parent is not None else None
        for item in reversed(chain):
            state[item.id] = 2
            ordered.append(item)
    return ordered


def _close(name: str, layout: Layout) -> str:
    close = difflib.get_close_matches(name, [g.id for g in layout.groups()], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "text", int: "a number", float: "a number",
            bool: "true/false"}.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
