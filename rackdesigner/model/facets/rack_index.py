"""The rack-index facet: a state's `RackIndex`, kept per state and evolved from an earlier
state's by what changed (moved here from `model/racks_evolve.py`, which re-exports it).

Forms (`facets/protocol.Facet`, with a layout snapshot as the source: the rack index is a
layout-level value): plain (`RackIndex(layout)`, `model/racks.py`: the class also answers every
query the readers ask, so it stays there) and evolved (`_evolved` below); no NumPy form, no
degraded one (a what-if reads no rack index). `RACK_INDEX` is the facet.

The rack rules and the Racks tab read one `RackIndex`: every mounted unit, the racks, and the
power each rack draws. Built from nothing it is a pass over every device and link (0.3 s for
the units, 0.3 s for the power at 32k GPUs), after every edit. `rack_index(layout)` keeps it per
state (shared by states that differ by positions and statuses: no unit or rack reads those) and
derives a later state's from an earlier one's (`DesignState.edit_base`):

- units: those holding a changed device made again (`RackIndex.make_unit`, the same code), the
  rest kept; a changed group or rack device (labels, parents, templates, budgets) builds it
  from nothing;
- power per rack: the racks holding a changed device or a changed link's end added up again
  exactly as the full pass adds them (`RackPower.rack_sums`: their devices in design order,
  then their link ends in link order), the others kept.

tests/test_racks_evolve.py compares it with a full build after random edits, and
tests/test_facets.py the facet's evolved form with its plain one after real edits.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rackdesigner.model.facets.protocol import Facet
from rackdesigner.model.layout import Layout, natural_key
from rackdesigner.model.racks import RackIndex, Unit, unit_label
from rackdesigner.model.state import DesignState

if TYPE_CHECKING:
    from rackdesigner.model.linktable import LinkTable


def rack_index(layout: Layout) -> RackIndex:
    """The `RackIndex` of the layout's current state, built once per state (see the module
    docstring); do not change it."""

    def build(state: DesignState, hint: tuple | None) -> RackIndex:
        if hint is not None and hint[0] == "like":
            return hint[1]
        snapshot = layout.snapshot()  # the index reads its own state, not the document's
        found = state.edit_base("racks")
        if found is not None:
            evolved = _evolved(snapshot, found[0], found[1])
            if evolved is not None:
                return evolved
        return RackIndex(snapshot)

    index = layout.derived("racks", build)
    return index if index.layout.catalog is layout.catalog else RackIndex(layout)


def _evolved(layout: Layout, base: RackIndex, touched: dict[str, set]) -> RackIndex | None:
    before, after = base.layout.state, layout.state
    devices: set[str] = set()
    for device_id in touched["d"]:
        a, b = before.devices.get(device_id), after.devices.get(device_id)
        if a != b and (a is None or b is None
                       or replace(a, pos=b.pos, status=b.status) != b):
            devices.add(device_id)
    links: set[str] = set()
    for link_id in touched["l"]:
        a, b = before.links.get(link_id), after.links.get(link_id)
        if a != b and (a is None or b is None or replace(a, status=b.status) != b):
            links.add(link_id)
    for group_id in touched["g"]:
        a, b = before.groups.get(group_id), after.groups.get(group_id)
        if a != b and (a is None or b is None
                       or replace(a, collapsed=b.collapsed, status=b.status) != b):
            return None  # units, labels and covered systems may all change: build anew
    spec = base.spec_of
    for state in (before, after):
        for device_id in devices:
            device = state.devices.get(device_id)
            if device is not None and (s := spec(device.model)) is not None and s.rack:
                return None  # a rack came, went or changed
    if not devices and not links:
        return base
    new = RackIndex(layout, like=base, power=base.power_model.successor(layout, devices))

    # units: those with a changed device made again
    old_units = {base.unit_of[d] for d in devices if d in base.unit_of}
    new_ids = {u for d in devices if d in after.devices
               and (u := _unit_id(new, after.devices[d].group, d)) is not None}
    units = {k: v for k, v in base.units.items() if k not in old_units}
    unit_of = dict(base.unit_of)
    for unit_id in old_units:
        for member in base.units[unit_id].members:
            unit_of.pop(member, None)
    for device_id in devices:
        unit_of.pop(device_id, None)
    position = after.device_order.position
    for unit_id in old_units | new_ids:
        unit = _make_unit(new, unit_id, position)
        if unit is not None:
            units[unit_id] = unit
            for member in unit.members:
                unit_of[member] = unit_id
    new.units = dict(sorted(units.items(), key=lambda kv: natural_key(kv[0])))
    new.unit_of = unit_of
    new.by_rack = defaultdict(list, base.by_rack)
    racks = {r for i in old_units if (r := base.units[i].rack) is not None}
    racks |= {r for i in old_units | new_ids if (unit := new.units.get(i)) is not None
              and (r := unit.rack) is not None}
    for rack in racks:
        listed = [u for u in new.units.values() if u.rack == rack]
        if listed:
            new.by_rack[rack] = listed
        else:
            new.by_rack.pop(rack, None)

    # power: the racks with a changed device or link end added up again
    if base.power_summed:
        _power_evolved(new, base, devices, links)
    return new


def _unit_id(index: RackIndex, group: str | None, device_id: str) -> str | None:
    """The unit a device of the index's layout belongs to: its outermost mounted group, or
    itself when it is mountable on its own (as `RackIndex.__init__` decides)."""
    layout = index.layout
    outer = None
    seen = 0
    while group is not None and layout.has_group(group) and seen < 256:
        g = layout.group(group)
        s = index.spec_of(g.template)
        if s is not None and s.u_height and s.u_height > 0:
            outer = group
        group = g.parent
        seen += 1
    if outer is not None:
        return outer
    spec = index.spec_of(layout.device(device_id).model)
    if spec is None or spec.traits.container or not spec.u_height or spec.u_height <= 0:
        return None
    return device_id


def _make_unit(index: RackIndex, unit_id: str, position) -> Unit | None:
    layout = index.layout
    if layout.has_group(unit_id):
        members = [layout.device(d) for d in layout.group_devices(unit_id)]
        members = [d for d in members if _unit_id(index, d.group, d.id) == unit_id]
        if not members:
            return None
        members.sort(key=lambda d: position(d.id))
        group = layout.group(unit_id)
        template = index.spec_of(group.template)
        assert template is not None
        return index.make_unit(unit_id, unit_label(group), template, members, True)
    if not layout.has_device(unit_id) or _unit_id(index, layout.device(unit_id).group,
                                                  unit_id) != unit_id:
        return None
    device = layout.device(unit_id)
    spec = index.spec_of(device.model)
    assert spec is not None
    return index.make_unit(unit_id, device.label, spec, [device], False)


def _power_evolved(new: RackIndex, base: RackIndex, devices: set[str], links: set[str]
                   ) -> None:
    before, after = base.layout.state, new.layout.state
    racks: set[str] = set()
    for state in (before, after):
        for device_id in devices:
            device = state.devices.get(device_id)
            if device is not None and device.rack is not None:
                racks.add(device.rack)
        for link_id in links:
            link = state.links.get(link_id)
            if link is None:
                continue
            for end in (link.a.device, link.b.device):
                device = state.devices.get(end)
                if device is not None and device.rack is not None:
                    racks.add(device.rack)
    members = base.members()
    mine = dict(members)
    position = after.device_order.position
    for rack in racks:
        kept = [d for d in members.get(rack, ()) if d not in devices]
        kept += [d for d in devices if d in after.devices and after.devices[d].rack == rack]
        kept.sort(key=position)
        if kept:
            mine[rack] = kept
        else:
            mine.pop(rack, None)
    placed = [d for r in racks for d in mine.get(r, ())]
    placed.sort(key=position)
    link_ids = {i for d in placed for i in after.link_ids_of(d)}
    ordered = [after.links[i] for i in sorted(link_ids, key=after.link_order.position)]
    sums = new.power_model.rack_sums(racks, placed, ordered)
    by_rack = dict(base.power_by_rack())
    for rack in racks:
        if rack in sums:
            by_rack[rack] = sums[rack]
        else:
            by_rack.pop(rack, None)
    new.settle_power(mine, by_rack)


class RackIndexFacet:
    """Units, racks and the power each rack draws, of a layout's state (`RackIndex`). The
    source is a layout snapshot, not a `DesignIndex`: `evolved` takes the snapshot the earlier
    index was built on (`RackIndex.layout`) and the ids touched since."""

    name = "rack_index"

    def plain(self, index: Layout) -> RackIndex:
        return RackIndex(index)

    def arrays(self, index: Layout, table: LinkTable) -> None:
        """No NumPy form: a pass over the devices, once per state."""
        return None

    def evolved(self, index: Layout, base: Layout, touched: dict[str, set]
                ) -> RackIndex | None:
        """`index`'s rack index from `base`'s (kept per state: `rack_index`); None when what
        changed makes it anew (a group or a rack changed)."""
        return _evolved(index, rack_index(base), touched)

    def without(self, index: Layout, source: Layout, failed: Any) -> None:
        """No degraded form: a what-if reads no rack index."""
        return None

    def canonical(self, value: RackIndex) -> object:
        """Every fact a reader reads of it: units, their racks, racks, power and members."""
        return ({"units": list(value.units.items()), "unit_of": value.unit_of,
                 "by_rack": {r: units for r, units in value.by_rack.items() if units},
                 "racks": value.racks, "power": value.power_by_rack(),
                 "members": value.members()})


RACK_INDEX: Facet[Layout, RackIndex] = RackIndexFacet()
