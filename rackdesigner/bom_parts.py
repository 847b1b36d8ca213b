"""The parts `bill_of_materials` (`bom.py`) is computed with: spec and port-group lookups made
once per model, the top-level group a part is filed under, the default cable of a link left
without one, and the transceiver that fills a cable's connector cage. Below `bom.py` in the
layer contract: it knows nothing of the bill's values."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rackdesigner.catalog import Catalog, DeviceSpec, PortGroup
from rackdesigner.model import Layout, Link, PortRef

if TYPE_CHECKING:
    from rackdesigner.generators.cabling import CablePicker, FloorSpot

NO_GROUP = "(no group)"
BETWEEN_GROUPS = "(between groups)"


class _Specs:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._cache: dict[str, DeviceSpec | None] = {}

    def __call__(self, model: str) -> DeviceSpec | None:
        if model not in self._cache:
            self._cache[model] = self.catalog.get(model) if model in self.catalog else None
        return self._cache[model]



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
