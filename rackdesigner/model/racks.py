"""Rack occupancy: what is mounted where, what a rack carries, and where a unit may go.

Pure functions of a layout (no Qt), so the racks view, the design rules, the CLI's rack
drawings and `Place unracked…` agree, and so they can move into the shared derived index.

A **mounted unit** is what occupies rack units: a system instance (a group whose `template` is
a catalog system with a `u_height`, e.g. a DGX H100 or one GB200 compute tray) with all its
parts, or a device whose own model has a `u_height` (a switch) outside such a system. The parts
of a system share the system's `rack`, `u` and `face`; moving a unit moves all its parts.

Faces: a unit is mounted at the `front` (default) or the `rear` (device key `face: rear`, e.g.
a rear-mounted switch or a PDU). RackDesigner has no depth figures, so the two faces are
checked separately for overlaps (a model assumption, stated in docs/designer.md).

The values a rack holds are `rack_units.py`, placing unracked units `rack_placement.py`; this
module keeps `RackIndex`. Every name is still imported from here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

from rackdesigner import vocabulary
from rackdesigner.catalog import DeviceSpec
from rackdesigner.model.items import Device
from rackdesigner.model.layout import Layout, natural_key
from rackdesigner.model.power import RackPower, device_draw, rack_budget
from rackdesigner.model.rack_placement import PlacementPlan, plan_unracked
from rackdesigner.model.rack_units import (
    BTU_PER_W,
    FACE_PROP,
    FACES,
    SIDES,
    RackSummary,
    SideDevice,
    Unit,
    _role,
    face_of,
    side_mounted,
    unit_label,
    with_face,
)

__all__ = ["BTU_PER_W", "FACES", "FACE_PROP", "SIDES", "PlacementPlan", "RackIndex",
           "RackSummary", "SideDevice", "Unit", "face_of", "plan_unracked", "side_mounted",
           "unit_label", "with_face"]


class RackIndex:
    """Units, racks and occupancy of one layout revision (build once, query many times)."""

    #: model id -> its spec (None: not in the catalog), looked up once
    spec_of: Callable[[str | None], DeviceSpec | None]
    racks: dict[str, DeviceSpec]  # rack device id -> its spec
    units: dict[str, Unit]
    unit_of: dict[str, str]  # device id -> the unit holding it
    by_rack: dict[str, list[Unit]]

    def __init__(self, layout: Layout, like: RackIndex | None = None,
                 power: RackPower | None = None) -> None:
        """Built from nothing; or, with `like` (an index of an earlier state with the same
        racks and groups), its spec lookup, racks and units taken as they are and `power`
        used, for `racks_evolve.py` to make again the units that changed."""
        self.layout = layout
        self._by_rack: dict[str, tuple[float, float]] | None = None
        self._members: dict[str, list[str]] | None = None
        if like is not None:
            self.spec_of = like.spec_of
            self._power = power if power is not None else RackPower(layout)
            self.racks = like.racks
            self.units = like.units  # shared, never changed: replaced by the caller
            self.unit_of = like.unit_of
            self.by_rack = like.by_rack
            return
        catalog = layout.catalog
        specs: dict[str, DeviceSpec | None] = {}

        def spec(model: str | None) -> DeviceSpec | None:
            if model is None:
                return None
            if model not in specs:
                specs[model] = catalog.get(model) if model in catalog else None
            return specs[model]

        self.spec_of = spec
        self._power = RackPower(layout)
        self.racks = {}
        for device in layout.devices():
            s = spec(device.model)
            if s is not None and s.rack is not None:
                self.racks[device.id] = s
        mounted_groups: dict[str, DeviceSpec] = {}
        for group in layout.groups():
            s = spec(group.template)
            if s is not None and s.u_height and s.u_height > 0:
                mounted_groups[group.id] = s
        # the outermost mounted group of each device
        owner: dict[str, str] = {}
        outer_of: dict[str, str | None] = {}

        def outer(group_id: str | None) -> str | None:
            """The outermost mounted group containing `group_id` (itself included)."""
            if group_id is None or not layout.has_group(group_id):
                return None
            if group_id not in outer_of:
                outer_of[group_id] = None  # guards against a cycle in a broken file
                above = outer(layout.group(group_id).parent)
                outer_of[group_id] = above or (group_id if group_id in mounted_groups
                                               else None)
            return outer_of[group_id]

        members: dict[str, list[Device]] = defaultdict(list)
        units: list[Unit] = []
        for device in layout.devices():
            g = outer(device.group)
            if g is not None:
                owner[device.id] = g
                members[g].append(device)
                continue
            s = spec(device.model)
            if s is None or s.traits.container or not s.u_height or s.u_height <= 0:
                continue
            units.append(self.make_unit(device.id, device.label, s, [device], False))
        for group_id, devices in members.items():
            units.append(self.make_unit(group_id, unit_label(layout.group(group_id)),
                                    mounted_groups[group_id], devices, True))
        units.sort(key=lambda u: natural_key(u.id))
        self.units = {u.id: u for u in units}
        self.unit_of = dict(owner)
        for u in units:
            if not u.is_group:
                self.unit_of[u.id] = u.id
        self.by_rack = defaultdict(list)
        for u in units:
            if u.rack is not None:
                self.by_rack[u.rack].append(u)

    def make_unit(self, unit_id: str, label: str, spec: DeviceSpec, devices: list[Device],
                  is_group: bool) -> Unit:
        """The unit `unit_id` (a mounted group, or a device mounted on its own) of `devices`
        with `spec` (the group's template, or the device's own)."""
        # the most common rack and face; a system's parts all in one rack, none with a face
        # set, is the common case, answered without counting (100k GPUs: 16,528 units)
        in_racks = {d.rack for d in devices}
        in_racks.discard(None)
        if len(in_racks) <= 1:
            rack = next(iter(in_racks), None)
        else:
            rack = Counter(d.rack for d in devices if d.rack is not None).most_common(1)[0][0]
        us = [d.u for d in devices if d.rack == rack and d.u is not None]
        u = min(us) if us else None
        if not any(d.props for d in devices):
            face = "front"
        else:
            faces = Counter(face_of(d) for d in devices)
            face = faces.most_common(1)[0][0] if faces else "front"
        cooling = spec.cooling or ""
        peak = 0.0
        for d in devices:
            s = self.spec_of(d.model)
            if s is None or s.traits.container:
                continue
            cooling = cooling or s.cooling
            peak += device_draw(s)[1]
        if not cooling and is_group and self.layout.group(unit_id).parent:
            parent = self.layout.group(unit_id).parent
            ps = self.spec_of(self.layout.group(parent).template) if parent else None
            cooling = ps.cooling if ps is not None else ""
        known = peak > 0 or any(self._power.covered(d.id) for d in devices[:1])
        return Unit(unit_id, label, spec.id, spec.model, _role(spec, self.spec_of),
                    max(1, round(spec.u_height)), tuple(sorted(d.id for d in devices)),
                    rack, u, face, cooling or "air", spec.weight_kg, peak, is_group, known)

    # ---- queries ------------------------------------------------------------------------------
    @property
    def power_model(self) -> RackPower:
        """The `RackPower` the index reads its racks' draw from (shared with cooling)."""
        return self._power

    def members(self) -> dict[str, list[str]]:
        """Rack id -> the devices placed in it (`rack` set), in the design's order."""
        if self._members is None:
            members: dict[str, list[str]] = {}
            for device_id, (_, rack, _) in self._power.device_table().items():
                if rack is not None:
                    members.setdefault(rack, []).append(device_id)
            self._members = members
        return self._members

    @property
    def power_summed(self) -> bool:
        """Whether `power_by_rack` has been worked out (an evolved index then sums only the
        racks that changed)."""
        return self._by_rack is not None

    def settle_power(self, members: dict[str, list[str]],
                     by_rack: dict[str, tuple[float, float]]) -> None:
        """File what `members` and `power_by_rack` would give, worked out incrementally
        (`racks_evolve.py`: the same sums, for the racks that changed)."""
        self._members = members
        self._by_rack = by_rack

    def power_by_rack(self) -> dict[str, tuple[float, float]]:
        """(typical, max) W per rack from `RackPower` (the power report's figures), once."""
        if self._by_rack is None:
            self._by_rack = self._power.by_rack()
        return self._by_rack

    def side_mounted(self, rack_id: str) -> tuple[SideDevice, ...]:
        """The 0U devices in the rack's side channels, in design order (see `SideDevice`)."""
        out: list[SideDevice] = []
        layout = self.layout
        for device_id in self.members().get(rack_id, ()):
            if device_id in self.unit_of:
                continue
            device = layout.device(device_id)
            spec = self.spec_of(device.model)
            if spec is None or not side_mounted(spec):
                continue
            n = len(out)
            out.append(SideDevice(device.id, device.label, spec.id, spec.model, spec.kind,
                                  rack_id, SIDES[n % len(SIDES)], n // len(SIDES),
                                  " · ".join(vocabulary.fact_figures(spec.kind, spec.fact))))
        return tuple(out)

    def unracked_side(self) -> list[Device]:
        """Devices of a side-mounted kind (vertical PDUs) in no rack, in design order."""
        layout = self.layout
        counts, _ = layout.index().counts()
        if not any(n and (k := vocabulary.KINDS.get(name)) is not None and k.side_mount
                   for name, n in counts.items()):
            return []
        out = []
        for device in layout.devices():
            spec = self.spec_of(device.model) if device.rack is None else None
            if side_mounted(spec):
                out.append(device)
        return out

    def unracked(self) -> list[Unit]:
        return [u for u in self.units.values() if not u.placed]

    def rack_height(self, rack_id: str) -> int:
        spec = self.racks.get(rack_id)
        return spec.rack.height_u if spec is not None and spec.rack is not None else 0

    def occupied(self, rack_id: str, face: str, ignore: Iterable[str] = ()) -> list[Unit]:
        skip = set(ignore)
        return sorted((u for u in self.by_rack.get(rack_id, ())
                       if u.face == face and u.u is not None and u.id not in skip),
                      key=lambda u: u.u or 0)

    def check_slot(self, height_u: int, rack_id: str, u: int, face: str = "front",
                   ignore: Iterable[str] = ()) -> str | None:
        """Why a unit `height_u` tall cannot go at U`u` of `rack_id`, or None when it can."""
        if rack_id not in self.racks:
            return f"{rack_id} is not a rack"
        top_u = self.rack_height(rack_id)
        top = u + height_u - 1
        if u < 1:
            return f"U{u} is below U1"
        occupants = self.occupied(rack_id, face, ignore)
        for other in occupants:
            if other.u is not None and other.u <= top and u <= other.top:
                return (f"U{u}–U{top} overlaps {other.label} (U{other.u}–U{other.top}) in "
                        f"{self.rack_label(rack_id)}")
        if top > top_u:
            if u > top_u:
                return f"U{u} is beyond the top of {self.rack_label(rack_id)} (U1–U{top_u})"
            gap = top_u - u + 1
            return (f"{height_u}U does not fit: only {gap}U free from U{u} to the top of "
                    f"{self.rack_label(rack_id)} (U{top_u})")
        return None

    def rack_label(self, rack_id: str) -> str:
        if not self.layout.has_device(rack_id):
            return rack_id
        return self.layout.device(rack_id).label

    def first_free(self, height_u: int, rack_id: str, face: str = "front",
                   ignore: Iterable[str] = ()) -> int | None:
        """The lowest U where a unit `height_u` tall fits, or None."""
        u = 1
        for other in self.occupied(rack_id, face, ignore):
            assert other.u is not None
            if other.u - u >= height_u:
                break
            u = max(u, other.top + 1)
        return u if u + height_u - 1 <= self.rack_height(rack_id) else None

    def summaries(self, power: dict[str, tuple[float, float]] | None = None
                  ) -> dict[str, RackSummary]:
        """A `RackSummary` per rack, in natural id order (power from `RackPower`)."""
        if power is None:
            power = self.power_by_rack()
        out: dict[str, RackSummary] = {}
        for rack_id in sorted(self.racks, key=natural_key):
            spec = self.racks[rack_id]
            assert spec.rack is not None
            units = tuple(sorted(self.by_rack.get(rack_id, ()), key=lambda u: u.u or 0))
            used = {f: sum(u.height_u for u in units if u.face == f and u.u is not None)
                    for f in FACES}
            typical, peak = power.get(rack_id, (0.0, 0.0))
            weight = sum(u.weight_kg or 0.0 for u in units)
            missing = sum(1 for u in units if u.weight_kg is None)
            if spec.weight_kg is not None:
                weight += spec.weight_kg
            out[rack_id] = RackSummary(
                rack_id, self.rack_label(rack_id), spec.id, spec.rack.height_u,
                spec.cooling or "air", units, used,
                rack_budget(self.layout.device(rack_id), spec), typical, peak, weight, missing,
                spec.rack.static_load_kg, sum(1 for u in units if not u.power_known))
        return out
