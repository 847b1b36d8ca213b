"""Bill of materials of a layout: parts per catalog model, cables by type and length, optics.

- Items: every device counted per catalog model; systems (DGX, NVL72 rack, compute tray) are
  counted once per group that instantiates them (`Group.template`). `in_systems` says how many
  of an item's count are parts of a system (a DGX's GPUs are bought with the DGX), so a buyer
  orders `count - in_systems` of it separately.
- Cables: per catalog cable and length, one per link lane (a bundle of 4 counts 4). Links inside
  a system (NVLink, PCIe, C2C board connections) are not cables. A network link without a cable
  whose ends are both in racks is counted with the cable the designer would give it
  (`generators.cabling.default_cable`: copper inside a rack, optics between racks); one with an
  end in no rack is listed as `unspecified`.
- Transceivers: optical cables that need them (fibre, not AOC) get one per connector cage at
  each end: a twin-port OSFP cage carrying two 400G ports takes one 800G twin-port transceiver.
  The model is the catalog transceiver of the cable's family (same medium and reach) whose rate
  fills the cage (port rate x ports per connector); the cable's own transceiver otherwise.
- Per group (`split=True`, what the cost breakdown reads): the same counts filed under each
  part's top-level group (a pod, an SU, a fabric; `NO_GROUP` outside any), items as bought
  (count less those in systems), a cable under its ends' group or `BETWEEN_GROUPS` when its ends
  lie in two, a transceiver under the group of the device whose cage holds it. The groups'
  counts add up to the totals.

The lookups and picks the bill is made with are `bom_parts.py`; every name is still imported
from here.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass

from rackdesigner import vocabulary
from rackdesigner.bom_parts import (
    BETWEEN_GROUPS,
    NO_GROUP,
    _add_cages,
    _DefaultCables,
    _filed,
    _link_group,
    _Ports,
    _Specs,
    _TopGroups,
    _transceiver_for,
)
from rackdesigner.model import Layout

__all__ = ["BETWEEN_GROUPS", "INTERNAL_PROTOCOLS", "KIND_ORDER", "NO_GROUP", "UNSPECIFIED",
           "Bom", "BomCable", "BomGroup", "BomItem", "BomTransceiver", "_Specs", "_length",
           "_table", "_transceiver_for", "bill_of_materials", "format_csv", "format_table"]


#: links that stay inside a system (no cable to buy): every protocol but the network's
INTERNAL_PROTOCOLS = tuple(p for p in vocabulary.PROTOCOL_NAMES
                           if p not in vocabulary.protocols_of("network"))
KIND_ORDER = vocabulary.KIND_NAMES  # the kind registry is in bill-of-materials order
UNSPECIFIED = "unspecified"


@dataclass(frozen=True, slots=True)
class BomItem:
    model: str
    kind: str
    count: int
    in_systems: int = 0
    description: str = ""


@dataclass(frozen=True, slots=True)
class BomCable:
    type: str
    media: str
    length_m: float | None
    count: int


@dataclass(frozen=True, slots=True)
class BomTransceiver:
    model: str
    count: int


@dataclass(frozen=True, slots=True)
class BomGroup:
    """What one top-level group holds (`bill_of_materials(split=True)`): items to buy per
    model, cables per (type, media, length), transceivers per model."""

    group: str
    items: dict[str, int]
    cables: dict[tuple[str, str, float | None], int]
    transceivers: dict[str, int]


@dataclass(frozen=True, slots=True)
class Bom:
    items: tuple[BomItem, ...]
    cables: tuple[BomCable, ...]
    transceivers: tuple[BomTransceiver, ...]
    groups: tuple[BomGroup, ...] = ()

    def to_json(self) -> dict:
        return {
            "items": [{"model": i.model, "kind": i.kind, "count": i.count,
                       "in_systems": i.in_systems} for i in self.items],
            "cables": [{"type": c.type, "length_m": c.length_m, "count": c.count}
                       for c in self.cables],
            "transceivers": [{"model": t.model, "count": t.count} for t in self.transceivers],
        }

    def count(self, model: str) -> int:
        return sum(i.count for i in self.items if i.model == model)

    def cable_count(self, cable: str | None = None) -> int:
        return sum(c.count for c in self.cables if cable is None or c.type == cable)


def _kind_key(kind: str) -> int:
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


def bill_of_materials(layout: Layout, *, split: bool = False) -> Bom:
    """The layout's bill of materials; with `split`, also per top-level group (`Bom.groups`)."""
    specs = _Specs(layout.catalog)
    in_system: dict[str | None, bool] = {None: False}

    def inside(group_id: str | None) -> bool:
        """Whether a group is, or is inside, a system instance."""
        if group_id in in_system:
            return in_system[group_id]
        chain = []
        g: str | None = group_id
        while g is not None and g not in in_system:
            chain.append(g)
            group = layout.group(g) if layout.has_group(g) else None
            if group is None:
                in_system[g] = False
                break
            spec = specs(group.template) if group.template else None
            if spec is not None and spec.system is not None:
                in_system[g] = True
                break
            g = group.parent
        result = in_system.get(g, False) if g is not None else False
        for c in chain:
            in_system.setdefault(c, result)
        return in_system[group_id]

    counts: Counter[str] = Counter()
    nested: Counter[str] = Counter()
    top = _TopGroups(layout) if split else None
    bought: Counter[tuple[str, str]] = Counter()
    for group in layout.groups():
        spec = specs(group.template) if group.template else None
        if spec is None or spec.system is None:
            continue
        counts[spec.id] += 1
        if inside(group.parent):
            nested[spec.id] += 1
        elif top is not None:
            bought[(top(group.id), spec.id)] += 1
    for device in layout.devices():
        counts[device.model] += 1
        spec = specs(device.model)
        if (spec is None or spec.traits.contains != "units") and inside(device.group):
            nested[device.model] += 1
        elif top is not None:
            bought[(top(device.group), device.model)] += 1
    items = []
    for model, count in counts.items():
        spec = specs(model)
        kind = spec.kind if spec is not None else "unknown"
        items.append(BomItem(model, kind, count, nested[model],
                             spec.model if spec is not None else ""))
    items.sort(key=lambda i: (_kind_key(i.kind), i.model))
    filed: dict[str, tuple[Counter, Counter, Counter]] | None = None
    if top is not None:
        filed = {}
        for (gid, model), n in bought.items():
            _filed(filed, gid)[0][model] += n
    cables, transceivers = _cables(layout, specs, top, filed)
    groups = () if filed is None else tuple(
        BomGroup(g, dict(i), dict(c), dict(t)) for g, (i, c, t) in sorted(filed.items()))
    return Bom(tuple(items), cables, transceivers, groups)


def _cables(layout: Layout, specs: _Specs, top: _TopGroups | None = None,
            filed: dict | None = None
            ) -> tuple[tuple[BomCable, ...], tuple[BomTransceiver, ...]]:
    cables: Counter[tuple[str, str, float | None]] = Counter()
    cages: dict[tuple[str, str, int | str], str] = {}
    picks: dict[tuple[str, float, int], str] = {}
    defaults = _DefaultCables(layout)
    port_of = _Ports(layout, specs)
    for link in layout.links():
        spec = specs(link.cable) if link.cable else None
        if spec is not None and spec.cable is not None and spec.cable.media == "pcb":
            continue
        ports = [port_of(link.a), port_of(link.b)]
        length = link.length_m
        if spec is None and link.cable is None:
            if all(p is not None and p.protocol in INTERNAL_PROTOCOLS for p in ports):
                continue
            choice = defaults(link)
            if choice is not None:
                spec, length = specs(choice.cable), choice.length_m
        if spec is None or spec.cable is None:
            if all(p is not None and p.protocol in INTERNAL_PROTOCOLS for p in ports):
                continue
            key = (link.cable or UNSPECIFIED, "", link.length_m)
            cables[key] += link.count
            if top is not None and filed is not None:
                _filed(filed, _link_group(top, link))[1][key] += link.count
            continue
        cables[(spec.id, spec.cable.media, length)] += link.count
        if top is not None and filed is not None:
            _filed(filed, _link_group(top, link))[1][(spec.id, spec.cable.media, length)] \
                += link.count
        if spec.cable.transceiver:
            for end, port in zip((link.a, link.b), ports, strict=True):
                _add_cages(cages, picks, specs, link, end, port, spec)
    cable_rows = tuple(BomCable(t, m, length, n) for (t, m, length), n in
                       sorted(cables.items(), key=lambda kv: (kv[0][0], kv[0][2] or 0.0)))
    optics = Counter(cages.values())
    if top is not None and filed is not None:
        for (device, _, _), model in cages.items():
            _filed(filed, top.of_device(device))[2][model] += 1
    return cable_rows, tuple(BomTransceiver(m, n) for m, n in sorted(optics.items()))


# ---- text forms ------------------------------------------------------------------------------
def _length(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def format_table(bom: Bom) -> str:
    out = io.StringIO()
    rows: list[tuple[str, ...]] = [("MODEL", "KIND", "COUNT", "IN SYSTEMS")]
    rows += [(i.model, i.kind, str(i.count), str(i.in_systems) if i.in_systems else "")
             for i in bom.items]
    _table(out, rows)
    out.write("\n")
    rows = [("CABLE", "MEDIA", "LENGTH (m)", "COUNT")]
    rows += [(c.type, c.media, _length(c.length_m), str(c.count)) for c in bom.cables]
    _table(out, rows)
    out.write("\n")
    rows = [("TRANSCEIVER", "COUNT")]
    rows += [(t.model, str(t.count)) for t in bom.transceivers]
    _table(out, rows)
    return out.getvalue()


def _table(out: io.StringIO, rows: list[tuple[str, ...]]) -> None:
    from rackdesigner.io.sanitize import shown

    rows = [tuple(shown(cell) for cell in row) for row in rows]  # a model id is one line
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(w) if c == 0 or not cell.isdigit() else cell.rjust(w)
                 for c, (cell, w) in enumerate(zip(row, widths, strict=True))]
        out.write("  ".join(cells).rstrip() + "\n")


def format_csv(bom: Bom) -> str:
    from rackdesigner.io.sanitize import csv_text

    return csv_text([["section", "model", "kind", "length_m", "count", "in_systems"],
                     *(["item", i.model, i.kind, "", i.count, i.in_systems] for i in bom.items),
                     *(["cable", c.type, c.media, _length(c.length_m), c.count, ""]
                       for c in bom.cables),
                     *(["transceiver", t.model, "transceiver", "", t.count, ""]
                       for t in bom.transceivers)])
