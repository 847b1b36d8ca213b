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
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner import vocabulary
from rackdesigner.catalog import Catalog, DeviceSpec, PortGroup
from rackdesigner.model import Layout, Link, PortRef

if TYPE_CHECKING:
    from rackdesigner.generators.cabling import CablePicker, FloorSpot

#: links that stay inside a system (no cable to buy): every protocol but the network's
INTERNAL_PROTOCOLS = tuple(p for p in vocabulary.PROTOCOL_NAMES
                           if p not in vocabulary.protocols_of("network"))
KIND_ORDER = vocabulary.KIND_NAMES  # the kind registry is in bill-of-materials order
UNSPECIFIED = "unspecified"
NO_GROUP = "(no group)"
BETWEEN_GROUPS = "(between groups)"


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


class _Specs:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._cache: dict[str, DeviceSpec | None] = {}

    def __call__(self, model: str) -> DeviceSpec | None:
        if model not in self._cache:
            self._cache[model] = self.catalog.get(model) if model in self.catalog else None
        return self._cache[model]


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


def _filed(filed: dict, group: str) -> tuple[Counter, Counter, Counter]:
    if group not in filed:
        filed[group] = (Counter(), Counter(), Counter())
    return filed[group]


class _TopGroups:
    """The group a part is filed under: the top-level groups of the design, or, while there is
    only one (a pod holding everything), that group's children (its SUs and spine tier) unless
    they are system instances (a node's DGX boxes stay filed under the node's group)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        children: dict[str | None, list[str]] = {}
        for g in layout.groups():
            parent = g.parent if g.parent is not None and layout.has_group(g.parent) else None
            children.setdefault(parent, []).append(g.id)
        level = children.get(None, [])
        while len(level) == 1 and children.get(level[0]) and not any(
                layout.group(c).template for c in children[level[0]]):
            level = children[level[0]]
        self.roots = set(level)
        self._top: dict[str | None, str] = {None: NO_GROUP}
        self._device: dict[str, str] = {}

    def __call__(self, group: str | None) -> str:
        if group in self._top:
            return self._top[group]
        trail: list[str] = []
        g = group
        while g is not None and g not in self._top and g not in self.roots \
                and self.layout.has_group(g) and len(trail) < 256:
            trail.append(g)
            g = self.layout.group(g).parent
        if g is not None and g in self.roots:
            result = g
        elif g is not None and g in self._top:
            result = self._top[g]
        else:  # the chain ended above the filing level (a part of the single top group)
            result = trail[-1] if trail else NO_GROUP
        for t in trail:
            self._top[t] = result
        self._top[group] = result
        return result

    def of_device(self, device: str) -> str:
        if device not in self._device:
            self._device[device] = self(self.layout.device(device).group
                                        if self.layout.has_device(device) else None)
        return self._device[device]


class _Ports:
    """The port group at a link end, looked up once per (model, group): a design has few
    models and many links (a pass over 150,000 links spent most of its time here)."""

    def __init__(self, layout: Layout, specs: _Specs) -> None:
        self.specs = specs
        self.model = {d.id: d.model for d in layout.devices()}
        self._groups: dict[tuple[str, str], PortGroup | None] = {}

    def __call__(self, end: PortRef) -> PortGroup | None:
        model = self.model.get(end.device)
        if model is None:
            return None
        key = (model, end.group)
        if key not in self._groups:
            spec = self.specs(model)
            self._groups[key] = (spec.port(end.group) if spec is not None
                                 and spec.has_port(end.group) else None)
        return self._groups[key]


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


def _link_group(top: _TopGroups, link: Link) -> str:
    a, b = top.of_device(link.a.device), top.of_device(link.b.device)
    return a if a == b else BETWEEN_GROUPS


class _DefaultCables:
    """The default cable of a link whose ends are both in racks (floor read once)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._spots: dict[str, FloorSpot] | None = None
        self._picker: CablePicker | None = None

    def __call__(self, link: Link):
        from rackdesigner.generators.cabling import CablePicker, default_cable, floor_spots

        layout = self.layout
        if not (layout.has_device(link.a.device) and layout.has_device(link.b.device)):
            return None
        if self._spots is None or self._picker is None:
            self._spots, self._picker = floor_spots(layout), CablePicker(layout.catalog)
        spots = self._spots
        if (layout.device(link.a.device).rack not in spots
                or layout.device(link.b.device).rack not in spots):
            return None
        return default_cable(layout, link.a, link.b, self._picker, spots)


def _add_cages(cages: dict, picks: dict, specs: _Specs, link: Link, end: PortRef,
               port: PortGroup | None, cable: DeviceSpec) -> None:
    assert cable.cable is not None and cable.cable.transceiver
    per = port.ports_per_connector if port is not None else 1
    rate = port.rate_gbps if port is not None else cable.cable.rate_gbps
    model = _transceiver_for(picks, specs, cable, rate, per)
    if end.index is not None or (port is not None and port.count == 1):
        first = end.index or 0
        for index in range(first, first + link.count):
            cages[(end.device, end.group, index // per)] = model
    else:  # ports not named: assume the link's lanes fill whole cages of their own
        for k in range(-(-link.count // per)):
            cages[(end.device, end.group, f"{link.id}/{k}")] = model


def _transceiver_for(picks: dict, specs: _Specs, cable: DeviceSpec, rate: float, per: int) -> str:
    assert cable.cable is not None and cable.cable.transceiver
    key = (cable.id, rate, per)
    if key in picks:
        return picks[key]
    default = specs(cable.cable.transceiver)
    chosen = cable.cable.transceiver
    if default is not None and default.transceiver is not None:
        family = default.transceiver.media.split()[0]
        for spec in specs.catalog.doing("media", "optics"):
            t = spec.transceiver
            if (t is not None and t.media.split()[0] == family
                    and t.reach_m == default.transceiver.reach_m
                    and t.rate_gbps == rate * per):
                chosen = spec.id
                break
    picks[key] = chosen
    return chosen


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
