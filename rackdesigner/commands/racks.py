"""Edits of the physical design: mounting units in rack slots, racks on the floor.

Each gesture is one undo step: a `Macro` of `MountUnits` (every part of every moved system gets
its new rack, U and face) and `FollowCables` (the cabled links of the moved devices get the
cable and length the generators' routing rules give for the new positions, so the bill of
materials follows the racks).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping

from rackdesigner.commands.base import Command, Macro
from rackdesigner.generators.cabling import (
    FLOOR_PROP,
    CablePicker,
    default_cable,
    floor_of,
    floor_spots,
)
from rackdesigner.model import Layout, LayoutError
from rackdesigner.model.racks import FACES, RackIndex, face_of, plan_unracked, with_face
from rackdesigner.vocabulary.wording import counted

Slot = tuple[str | None, int | None, str]  # (rack, u, face)


class MountUnits(Command):
    """Set rack, U and face of devices: `moves` maps device id -> (old slot, new slot).
    With `mergeable`, consecutive moves of the same devices merge (U spin-box scrubbing)."""

    def __init__(self, moves: Mapping[str, tuple[Slot, Slot]], text: str,
                 mergeable: bool = False) -> None:
        self.moves = dict(moves)
        self.text = text
        self.mergeable = mergeable

    def merge_key(self) -> Hashable | None:
        return ("mount", frozenset(self.moves)) if self.mergeable else None

    def merge(self, other: Command) -> bool:
        if not isinstance(other, MountUnits) or other.merge_key() != self.merge_key():
            return False
        self.moves = {k: (old, other.moves[k][1]) for k, (old, _) in self.moves.items()}
        return True

    def _set(self, layout: Layout, which: int) -> None:
        for device_id, slots in self.moves.items():
            rack, u, face = slots[which]
            device = layout.device(device_id)
            layout.update_device(device_id, rack=rack, u=u, props=with_face(device.props, face))

    def apply(self, layout: Layout) -> None:
        self._set(layout, 1)

    def is_noop(self) -> bool:
        return all(old == new for old, new in self.moves.values())


class FollowCables(Command):
    """Give the cabled links of `devices` the cable and length their ends' current places call
    for (`generators.cabling.default_cable`); computed when first applied."""

    text = "Follow cables"

    def __init__(self, devices: Iterable[str]) -> None:
        self.devices = sorted(set(devices))
        self._new: dict[str, tuple[str | None, float | None]] = {}

    def apply(self, layout: Layout) -> None:
        if not self._new:
            spots = floor_spots(layout)
            picker = CablePicker(layout.catalog)
            seen: set[str] = set()
            for device_id in self.devices:
                if not layout.has_device(device_id):
                    continue
                for link in layout.links_of(device_id):
                    if link.id in seen:
                        continue
                    seen.add(link.id)
                    choice = default_cable(layout, link.a, link.b, picker, spots)
                    if choice is None or choice.assumed:
                        continue
                    if (link.cable, link.length_m) != (choice.cable, choice.length_m):
                        self._new[link.id] = (choice.cable, choice.length_m)
        for link_id, (cable, length) in self._new.items():
            layout.update_link(link_id, cable=cable, length_m=length)

    def merge_key(self) -> Hashable | None:
        return ("follow", tuple(self.devices))

    def merge(self, other: Command) -> bool:
        """Absorb a later recomputation of the same devices: the latest cables win."""
        if not isinstance(other, FollowCables) or other.devices != self.devices:
            return False
        later: FollowCables = other
        self._new = {**self._new, **later._new}
        return True


def mount(layout: Layout, placements: Mapping[str, Slot], index: RackIndex | None = None,
          text: str = "", mergeable: bool = False) -> Macro:
    """One undo step putting units (system groups or devices, by unit id) at (rack, u, face);
    a rack of None takes a unit out of its rack (unracked). Slots are not checked here: the
    racks view refuses bad ones before asking (`RackIndex.check_slot`), and the design rules
    report what a file brings."""
    index = index or RackIndex(layout)
    moves: dict[str, tuple[Slot, Slot]] = {}
    for unit_id, (rack, u, face) in placements.items():
        if unit_id not in index.units:
            raise LayoutError(f"{unit_id} is not something that goes in a rack")
        if face not in FACES:
            raise LayoutError(f"face must be front or rear, got {face!r}")
        for member in index.units[unit_id].members:
            device = layout.device(member)
            old: Slot = (device.rack, device.u, face_of(device))
            new: Slot = (rack, u if rack is not None else None,
                         face if rack is not None else "front")
            moves[member] = (old, new)
    if not text:
        labels = [index.units[u].label for u in placements]
        what = labels[0] if len(labels) == 1 else counted(len(labels), "unit")
        racks = {slot[0] for slot in placements.values()}
        if racks == {None}:
            text = f"Unrack {what}"
        elif len(racks) == 1:
            rack = next(iter(racks))
            text = f"Mount {what} in {index.rack_label(rack) if rack else rack}"
        else:
            text = f"Mount {what}"
    key = ("mount", frozenset(moves)) if mergeable else None
    return Macro(text, [MountUnits(moves, text, mergeable), FollowCables(moves)], key)


def set_slot(layout: Layout, device_id: str, rack: str | None, u: int | None,
             mergeable: bool = False) -> Command:
    """The Inspector's Rack and U fields: a part of a mounted system moves the whole system
    (its parts never disagree); any other device changes alone."""
    from rackdesigner.commands.edits import change_device

    index = RackIndex(layout)
    unit_id = index.unit_of.get(device_id)
    if unit_id is None or not index.units[unit_id].is_group:
        changes = {"rack": rack, "u": u if rack is not None else None}
        return change_device(device_id, f"Set rack and U of {device_id}", mergeable, **changes)
    unit = index.units[unit_id]
    return mount(layout, {unit_id: (rack, u, unit.face)}, index, mergeable=mergeable)


def place_unracked(layout: Layout, racks: Iterable[str], units: Iterable[str] | None = None
                   ) -> tuple[Macro | None, str]:
    """`Place unracked…`: the first-fit plan as one undo step (None when nothing fits), and
    the report of what was placed and what did not fit."""
    index = RackIndex(layout)
    plan = plan_unracked(layout, racks, units, index)
    report = plan.describe(index)
    if not plan.moves:
        return None, report
    placements = {u: (rack, slot, "front") for u, (rack, slot) in plan.moves.items()}
    return mount(layout, placements, index, f"Place {counted(len(plan.moves), 'unit')}"), report


class SetFloor(Command):
    """Set the floor position prop of racks: `moves` maps rack id -> (old, new) or None."""

    def __init__(self, moves: Mapping[str, tuple[tuple[float, float] | None,
                                                 tuple[float, float] | None]],
                 text: str) -> None:
        self.moves = dict(moves)
        self.text = text

    def _set(self, layout: Layout, which: int) -> None:
        for rack_id, spots in self.moves.items():
            value = spots[which]
            device = layout.device(rack_id)
            props = [(k, v) for k, v in device.props if k != FLOOR_PROP]
            if value is not None:
                props.append((FLOOR_PROP, (round(value[0], 3), round(value[1], 3))))
            layout.update_device(rack_id, props=tuple(sorted(props)))

    def apply(self, layout: Layout) -> None:
        self._set(layout, 1)


def move_racks_on_floor(layout: Layout, moves: Mapping[str, tuple[float, float]]) -> Macro:
    """Racks to new floor positions (metres) as one undo step. Racks still placed from the
    canvas are pinned where they stand first, so moving one rack moves no other; the cabled
    links of the moved racks' devices follow (`FollowCables`)."""
    spots = floor_spots(layout)
    changes: dict[str, tuple[tuple[float, float] | None, tuple[float, float] | None]] = {}
    for rack_id, spot in spots.items():
        current = floor_of(layout.device(rack_id))
        if rack_id in moves:
            changes[rack_id] = (current, (float(moves[rack_id][0]), float(moves[rack_id][1])))
        elif current is None:
            changes[rack_id] = (None, (spot.x_m, spot.y_m))
    moved = [d.id for d in layout.devices() if d.rack in moves]
    names = [layout.device(r).label for r in moves]
    text = f"Move {names[0] if len(names) == 1 else counted(len(names), 'rack')} on the floor"
    return Macro(text, [SetFloor(changes, text), FollowCables(moved)])


def add_mounted(layout: Layout, model: str, rack: str, u: int, face: str = "front",
                pos: tuple[float, float] = (0.0, 0.0)) -> Command:
    """A palette drop into a rack slot: the model (a system arrives wired, as on the canvas)
    with every part at (rack, u, face), as one undo step."""
    import dataclasses

    from rackdesigner.commands.placing import add_model

    added = add_model(layout, model, pos)
    added.devices = [dataclasses.replace(d, rack=rack, u=u, props=with_face(d.props, face))
                     for d in added.devices]
    added.text = f"{added.text} in {layout.device(rack).label} U{u}"
    return added


def add_side_mounted(layout: Layout, model: str, rack: str,
                     pos: tuple[float, float] = (0.0, 0.0)) -> Command:
    """A palette drop of a 0U model (a vertical PDU) on a rack: the device in the rack's side
    channel (rack set, no U), as one undo step."""
    import dataclasses

    from rackdesigner.commands.placing import add_model

    added = add_model(layout, model, pos)
    added.devices = [dataclasses.replace(d, rack=rack, u=None) for d in added.devices]
    added.text = f"{added.text} in the side channel of {layout.device(rack).label}"
    return added


def set_side_rack(layout: Layout, device_id: str, rack: str | None) -> Command:
    """A 0U device to another rack's side channel, or out of its rack (`rack` None)."""
    from rackdesigner.commands.edits import change_device

    label = layout.device(device_id).label
    text = (f"Mount {label} in the side channel of {layout.device(rack).label}" if rack
            else f"Unrack {label}")
    return change_device(device_id, text, False, rack=rack, u=None)


def add_rack(layout: Layout, model: str, at: tuple[float, float] | None = None) -> Macro:
    """A new rack at floor position `at` (metres), or at the end of the last floor row; on the
    canvas right of the last rack. One undo step; racks still placed from the canvas are pinned
    where they stand first."""
    from rackdesigner.commands.placing import add_model
    from rackdesigner.generators.cabling import RACK_WIDTH_M

    racks = [d for d in layout.devices()
             if (s := layout.spec(d.id)) is not None and s.rack is not None]
    spots = floor_spots(layout)
    if racks:
        last = max(racks, key=lambda d: (d.pos[1], d.pos[0]))
        pos = (last.pos[0] + 400.0, last.pos[1])
        row_y = max(s.y_m for s in spots.values())
        x = max(s.x_m for s in spots.values() if abs(s.y_m - row_y) < 1e-6) + RACK_WIDTH_M
    else:
        pos, row_y, x = (0.0, 0.0), 0.0, 0.0
    added = add_model(layout, model, pos)
    rack_id = added.devices[0].id
    changes: dict[str, tuple[tuple[float, float] | None, tuple[float, float] | None]] = {
        r: (None, (spot.x_m, spot.y_m)) for r, spot in spots.items()
        if floor_of(layout.device(r)) is None}
    changes[rack_id] = (None, at if at is not None else (x, row_y))
    text = f"Add {layout.catalog.get(model).model}"
    return Macro(text, [added, SetFloor(changes, text)])
