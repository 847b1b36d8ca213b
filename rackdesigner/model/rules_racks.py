"""The rack rules: units that overlap or leave the rack, devices mounted in something that
is not a rack, rack power over its budget, members of a rack group placed outside it. A family
of `rules.py` (the Racks view marks these, `check_racks`)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from rackdesigner.model.layout import Layout, natural_key
from rackdesigner.model.power import over_budget, rack_budget
from rackdesigner.model.racks import RackIndex, Unit

if TYPE_CHECKING:
    pass
from rackdesigner.model.rule_finding import ERROR, WARNING, Finding, _Specs


def _check_racks(layout: Layout, specs: _Specs, index: RackIndex | None = None
                 ) -> list[Finding]:
    out: list[Finding] = []
    index = index or RackIndex(layout)
    for device in layout.devices():
        if device.rack is None:
            continue
        rack_spec = specs(device.rack)
        if rack_spec is None or rack_spec.rack is None:
            what = "no such device" if not layout.has_device(device.rack) else "not a rack"
            out.append(Finding(ERROR, "bad-rack",
                               f"device {device.id}: rack {device.rack!r} is {what}",
                               (device.id,)))
    rack_groups = _rack_groups(layout)
    spans: dict[tuple[str, str], list[tuple[int, int, Unit]]] = defaultdict(list)
    for unit in index.units.values():
        anchors = _anchors(unit, specs)
        if unit.rack is None or unit.rack not in index.racks:
            group = _in_rack_group(layout, unit, rack_groups)
            if unit.rack is None and group is not None:
                out.append(Finding(WARNING, "no-rack-slot",
                                   f"{unit.label} is in rack group {group} but has no slot "
                                   f"(no rack and U): place it in the Racks view",
                                   (unit.id, *anchors)))
            continue
        if unit.u is None:
            out.append(Finding(WARNING, "no-u-position",
                               f"{unit.label} is in rack {unit.rack} without a U position",
                               (unit.id, *anchors)))
            continue
        rack_spec = index.racks[unit.rack]
        assert rack_spec.rack is not None
        height = rack_spec.rack.height_u
        if unit.u < 1 or unit.top > height:
            out.append(Finding(ERROR, "rack-height",
                               f"{unit.label} occupies U{unit.u}-U{unit.top}, outside rack "
                               f"{unit.rack} (U1-U{height})", (unit.id, *anchors, unit.rack)))
        if unit.cooling == "liquid" and rack_spec.cooling != "liquid":
            out.append(Finding(ERROR, "liquid-in-air-rack",
                               f"{unit.label} ({unit.model_name}) is liquid-cooled but rack "
                               f"{unit.rack} ({rack_spec.id}) is air-cooled: put it in a "
                               f"liquid-cooled rack (e.g. rack-48u)",
                               (unit.id, *anchors, unit.rack)))
        spans[(unit.rack, unit.face)].append((unit.u, unit.top, unit))
    for (rack_id, face), items in spans.items():
        items.sort(key=lambda t: (t[0], t[1], natural_key(t[2].id)))
        reach_top, reach = 0, None
        for low, top, unit in items:
            if low <= reach_top and reach is not None:
                at = "" if face == "front" else " (rear)"
                out.append(Finding(ERROR, "rack-overlap",
                                   f"{reach.label} and {unit.label} overlap in rack {rack_id}"
                                   f"{at} at U{low}",
                                   (reach.id, unit.id, *_anchors(reach, specs),
                                    *_anchors(unit, specs), rack_id)))
            if top > reach_top:
                reach_top, reach = top, unit
    for rack_id, summary in index.summaries({}).items():
        load = summary.static_load_kg
        if load is not None and summary.weight_kg > load:
            out.append(Finding(ERROR, "rack-load",
                               f"rack {rack_id} carries {summary.weight_kg:.0f} kg, above its "
                               f"static load rating of {load:.0f} kg", (rack_id,)))
    # the same "power drawn in a rack" as the simulation: devices, plus the cables and optics
    # at the link ends in the rack (model/power.py)
    for rack_id, (_, watts) in sorted(index.power_by_rack().items(),
                                      key=lambda item: natural_key(item[0])):
        rack_spec = specs(rack_id)
        if rack_spec is None or rack_spec.rack is None or not layout.has_device(rack_id):
            continue  # reported as bad-rack above
        budget = rack_budget(layout.device(rack_id), rack_spec)
        if budget.watts is not None and over_budget(watts, budget.watts):
            out.append(Finding(ERROR, "rack-power",
                               f"rack {rack_id} draws up to {watts / 1000:.1f} kW, above its "
                               f"{budget.watts / 1000:.1f} kW budget ({budget.basis})",
                               (rack_id,)))
    return out


def _anchors(unit: Unit, specs: _Specs) -> tuple[str, ...]:
    """The member devices that carry a unit's height (a system's chassis), for selection."""
    if not unit.is_group:
        return ()
    out = []
    for member in unit.members:
        spec = specs(member)
        if spec is not None and spec.u_height and spec.u_height > 0:
            out.append(member)
    return tuple(out)


def _rack_groups(layout: Layout) -> set[str]:
    return {g.id for g in layout.groups() if g.kind == "rack"}


def _in_rack_group(layout: Layout, unit: Unit, rack_groups: set[str]) -> str | None:
    """The rack group a unit belongs to (through its parents), if any."""
    start = unit.id if unit.is_group else layout.device(unit.id).group
    group = layout.group(unit.id).parent if unit.is_group else start
    seen = 0
    while group is not None and layout.has_group(group) and seen < 64:
        if group in rack_groups:
            return layout.group(group).label
        group = layout.group(group).parent
        seen += 1
    return None
