"""Write layouts as deterministic, diff-friendly YAML.

One line per group, device and link (a flow mapping), sections and entries in a fixed order
(natural id order: `gpu-2` before `gpu-10`), defaults omitted, `x-` extension keys last and
sorted. The same document always gives the same bytes, whatever order it was built in. The first
and last lines are the end check (`endcheck`): a file cut short cannot load as a smaller design.
Saving to a path is atomic and writes through symlinks (`atomic.write_text`).
"""

from __future__ import annotations

import functools
import io
import math
import os
import re
from pathlib import Path
from typing import IO, Any

from rackdesigner.catalog.user import EMBED_KEY
from rackdesigner.io import atomic, endcheck
from rackdesigner.io.schema import CURRENT_VERSION, PRICES_KEY
from rackdesigner.model import Device, Group, Layout, Link, Meta, natural_key
from rackdesigner.model.items import ACTIVE

_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-/:]*$")
_RESERVED = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "none", "~"}
HEADER = endcheck.HEADER


def scalar(value: Any) -> str:
    """One YAML scalar that reads back as exactly `value`."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return ".nan" if math.isnan(value) else ("-.inf" if value < 0 else ".inf")
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        text = repr(value)
        if "e" in text and "." not in text:
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{exponent}"
        return text
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _RESERVED and not text.endswith(":"):
        return text
    import yaml  # on first use: most text is plain and never needs it

    dumped = yaml.dump(text, Dumper=_dumper(), default_style='"', allow_unicode=True,
                       width=1 << 30)
    return dumped.strip().removesuffix("...").strip()


def inline(value: Any) -> str:
    """`value` as one line of flow YAML: mappings sorted by key, strings via `scalar`."""
    if isinstance(value, dict):
        pairs = sorted(((inline(k), inline(v)) for k, v in value.items()))
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(inline(v) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool | int | float | str):
        return scalar(value)
    # Other safe-loadable values (dates, !!binary, !!set): PyYAML's own form, inside a flow
    # list so that it stays on one line.
    import yaml

    dumped = yaml.dump([value], Dumper=_dumper(), default_flow_style=True, allow_unicode=True,
                       width=1 << 30, sort_keys=True).strip()
    return dumped[1:-1]


def _flow(pairs: list[tuple[str, Any]]) -> str:
    return "- {" + ", ".join(f"{key}: {inline(value)}" for key, value in pairs) + "}\n"


def _finite(value: float, what: str) -> float:
    if not math.isfinite(value):
        raise ValueError(f"{what} is {value}; only finite numbers can be saved")
    return float(value)


def _group_line(g: Group) -> str:
    pairs: list[tuple[str, Any]] = [("id", g.id)]
    if g.name:
        pairs.append(("name", g.name))
    if g.kind != "group":
        pairs.append(("kind", g.kind))
    if g.parent is not None:
        pairs.append(("parent", g.parent))
    if g.collapsed:
        pairs.append(("collapsed", True))
    if g.template is not None:
        pairs.append(("template", g.template))
    if g.status != ACTIVE:
        pairs.append(("status", g.status))
    return _flow(pairs)


def _device_line(d: Device) -> str:
    pairs: list[tuple[str, Any]] = [("id", d.id), ("model", d.model)]
    if d.name:
        pairs.append(("name", d.name))
    if d.pos != (0.0, 0.0):
        pairs.append(("pos", [_finite(v, f"device {d.id}: pos") for v in d.pos]))
    if d.rack is not None:
        pairs.append(("rack", d.rack))
    if d.u is not None:
        pairs.append(("u", d.u))
    if d.group is not None:
        pairs.append(("group", d.group))
    if d.status != ACTIVE:
        pairs.append(("status", d.status))
    pairs.extend(sorted(d.props))
    return _flow(pairs)


def _link_line(k: Link) -> str:
    pairs: list[tuple[str, Any]] = [("id", k.id), ("a", str(k.a)), ("b", str(k.b))]
    if k.count != 1:
        pairs.append(("count", k.count))
    if k.cable is not None:
        pairs.append(("cable", k.cable))
    if k.length_m is not None:
        pairs.append(("length_m", _finite(k.length_m, f"link {k.id}: length_m")))
    if k.status != ACTIVE:
        pairs.append(("status", k.status))
    return _flow(pairs)


@functools.cache
def _dumper(aliases: bool = True) -> Any:
    """PyYAML's safe dumper (the C one where built), imported on first use; `aliases=False`:
    one that writes repeated values out again (layout files refuse anchors and aliases)."""
    import yaml

    base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    if aliases:
        return base

    class _NoAliasDumper(base):  # type: ignore[misc, valid-type]
        def ignore_aliases(self, data: Any) -> bool:
            return True

    return _NoAliasDumper


def _block(key: str, value: dict) -> str:
    """A top-level mapping in block style (the user models a packed layout carries: one key
    per line diffs better than one very long line). Keys sorted, so the bytes are stable."""
    import yaml

    return yaml.dump({key: value}, Dumper=_dumper(aliases=False), sort_keys=True,
                     default_flow_style=False, allow_unicode=True, width=100)


def dump_layout_text(layout: Layout) -> str:
    """The YAML text of a layout (what `save_layout` writes): the form it was read in."""
    if getattr(layout, "source_form", None) == "compact":
        from rackdesigner.io.compact import dump_compact_text

        return dump_compact_text(layout)
    return dump_plain_text(layout)


#: Extension keys written as a block (one key per line diffs better than one long line).
BLOCK_KEYS = (EMBED_KEY, PRICES_KEY)


def head_lines(meta: Meta, header: str = HEADER) -> list[str]:
    """The file's first lines, the same in both forms but for the `header` comment: schema
    version, the document's settings and its extension keys (embedded user models as a
    block)."""
    out = [header, f"schema_version: {CURRENT_VERSION}\n"]
    if meta.name:
        out.append(f"name: {scalar(meta.name)}\n")
    if meta.description:
        out.append(f"description: {scalar(meta.description)}\n")
    if meta.sharp:  # written only when on, so older files re-save byte-identically
        out.append("sharp: true\n")
    if not meta.site.empty:  # likewise: only when the design states site limits
        out.append(f"site: {inline(meta.site.to_dict())}\n")
    for key, value in sorted(meta.extra):
        if key in BLOCK_KEYS and isinstance(value, dict):
            out.append(_block(key, value))
        else:
            out.append(f"{scalar(key)}: {inline(value)}\n")
    return out


def dump_plain_text(layout: Layout) -> str:
    """The plain form: one line per group, device and link."""
    out = head_lines(layout.meta)
    sections: tuple[tuple[str, list[Any], Any], ...] = (
        ("groups", list(layout.groups()), _group_line),
        ("devices", list(layout.devices()), _device_line),
        ("links", [*layout.links(), *layout.unresolved_links], _link_line),
    )
    for name, items, line in sections:
        if not items:
            continue
        items.sort(key=lambda item: (natural_key(item.id), item.id))  # gpu-01 vs gpu-1
        out.append(f"{name}:\n")
        out.extend(line(item) for item in items)
    counts = [len(items) for _, items, _ in sections]
    out.append(endcheck.end_line(*counts))
    return "".join(out)


def save_layout(layout: Layout, target: str | os.PathLike | IO[str], *,
                allow_read_only: bool = False) -> Path | None:
    """Write `layout` to a path (atomically, through symlinks) or to an open text file.

    Returns the file written for a path. Raises `atomic.ReadOnlyFileError` for a read-only
    target unless `allow_read_only`, and `OSError` when the system refuses the write; the
    target is then unchanged.
    """
    text = dump_layout_text(layout)
    if hasattr(target, "write"):
        binary = isinstance(target, io.RawIOBase | io.BufferedIOBase) or "b" in str(
            getattr(target, "mode", ""))
        target.write(text.encode("utf-8") if binary else text)  # type: ignore[union-attr,arg-type]
        return None
    return atomic.write_text(Path(target), text,  # type: ignore[arg-type]
                             allow_read_only=allow_read_only)
