"""The topology as Graphviz DOT: boxes (units.py) and the cables between them.

A whole design's 30,000 NVLink and PCIe links make an unreadable drawing, so the graph is the
physical one: one node per unit (a DGX, a switch, a compute tray) labelled with its model, one
edge per pair of units labelled (`xlabel`) with the cable count and type; units in a rack are
drawn in a `cluster_` subgraph named after the rack. `level="devices"` gives one node per device
and one edge per link instead; `level="racks"` one node per rack (dot_racks.py). Syntax: the
DOT language (graphviz.org/doc/info/lang.html); every ID is a double-quoted string with `"` and
`\\` escaped.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from rackdesigner.interop.base import ExportReport, write_atomic
from rackdesigner.interop.sanitize import one_line
from rackdesigner.interop.units import cables, inventory
from rackdesigner.model import Layout, natural_key

#: the drawings `write` makes: one node per unit (the default), per device, per rack
LEVELS = ("units", "devices", "racks")
SHAPES = {"host": "box3d", "switch": "box", "nvswitch-tray": "box", "other": "ellipse"}


def quote(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, a newline as `\\n`, other
    control characters as spaces (nothing can end the string or the line)."""
    lines = [one_line(part, 10_000) for part in str(text).split("\n")]
    return '"' + "\\n".join(x.replace("\\", "\\\\").replace('"', '\\"') for x in lines) + '"'


def write(layout: Layout, path: Path, *, level: str = "units") -> ExportReport:
    lines = [f"graph {quote(layout.meta.name or 'design')} {{",
             "  graph [rankdir=TB, overlap=false, splines=true];",
             "  node [fontname=Helvetica, fontsize=10];"]
    if level == "devices":
        nodes, edges = _devices(layout, lines)
    elif level == "racks":
        from rackdesigner.interop.dot_racks import write_racks

        nodes, edges = write_racks(layout, inventory(layout), lines, quote)
    else:
        nodes, edges = _units(layout, lines)
    lines.append("}")
    write_atomic(path, "\n".join(lines) + "\n")
    return ExportReport([path], [], f"{path}: {nodes} nodes, {edges} edges (DOT, {level})")


def _units(layout: Layout, lines: list[str]) -> tuple[int, int]:
    inv = inventory(layout)
    by_rack: dict[str | None, list] = defaultdict(list)
    for unit in inv.units.values():
        by_rack[unit.rack].append(unit)
    for n, rack in enumerate(sorted(by_rack, key=lambda r: natural_key(r or "")), 1):
        units = sorted(by_rack[rack], key=lambda u: natural_key(u.id))
        indent = "  "
        if rack is not None:
            lines.append(f"  subgraph {quote(f'cluster_{n}')} {{")
            lines.append(f"    label={quote(inv.racks.get(rack, rack))};")
            indent = "    "
        for u in units:
            label = f"{u.id}\n{u.model or 'custom'}"
            lines.append(f"{indent}{quote(u.id)} [label={quote(label)}, "
                         f"shape={SHAPES.get(u.kind, 'ellipse')}];")
        if rack is not None:
            lines.append("  }")
    pairs: Counter = Counter()
    for c in cables(inv):
        a, b = sorted((c.a_unit, c.b_unit), key=natural_key)
        pairs[a, b, c.cable or "unspecified"] += 1
    for (a, b, cable), count in sorted(pairs.items(), key=lambda kv: (
            natural_key(kv[0][0]), natural_key(kv[0][1]), kv[0][2])):
        # `xlabel`, not `label`: dot makes every edge label a node of its own in the rank
        # between the edge's ends, so a SuperPOD's 1,024 host-to-leaf labels made one row
        # 200,000 pt wide (and 5x the layout time); an xlabel is placed after the layout
        lines.append(f"  {quote(a)} -- {quote(b)} [xlabel={quote(f'{count} x {cable}')}, "
                     f"weight={count}];")
    return len(inv.units), len(pairs)


def _devices(layout: Layout, lines: list[str]) -> tuple[int, int]:
    devices = sorted(layout.devices(), key=lambda d: natural_key(d.id))
    for d in devices:
        label = d.label + "\n" + d.model
        lines.append(f"  {quote(d.id)} [label={quote(label)}];")
    links = sorted(layout.links(), key=lambda k: natural_key(k.id))
    for k in links:
        label = f"{k.a.port} - {k.b.port}" + (f" x{k.count}" if k.count > 1 else "")
        lines.append(f"  {quote(k.a.device)} -- {quote(k.b.device)} [label={quote(label)}];")
    return len(devices), len(links)
