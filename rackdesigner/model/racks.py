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
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rackdesigner import vocabulary
from rackdesigner.catalog import DeviceSpec
from rackdesigner.model.items import Device, Group
from rackdesigner.model.layout import Layout, natural_key
from rackdesigner.model.power import RackBudget, RackPower, device_draw, over_budget, rack_budget

FACE_PROP = "face"
FACES = ("front", "rear")
#: 1 W dissipated = 3.412142 BTU/h (definition of the British thermal unit per hour).
BTU_PER_W = 3.412142
#: the side channels of a rack, as the rear elevation shows them, filled in turn
SIDES = ("right", "left")


def side_mounted(spec: DeviceSpec | None) -> bool:
    """A 0U model of a kind that goes in a rack's side channel (a vertical PDU): its kind's
    `side_mount`, read from the table when asked (a kind a plugin registered included)."""
    if spec is None or (spec.u_height or 0) > 0:
        return False
    entry = vocabulary.KINDS.get(spec.kind)
    return entry is not None and entry.side_mount


@dataclass(frozen=True, slots=True)
class SideDevice:
    """A 0U device in a rack's side channel (a vertical PDU): it takes no rack unit; the
    rack's devices of a side-mounted kind fill the channels in turn, right then left (as
    seen at the rear), one lane further out each round."""

    id: str
    label: str
    model: str
    model_name: str
    kind: str
    rack: str
    side: str  # one of SIDES
    lane: int  # 0 next to the rails, 1 outside it...
    figures: str  # the kind's figures of the model: "22 kW"


@dataclass(frozen=True, slots=True)
class Unit:
    """One mountable thing: a system instance (group) or a standalone device."""

    id: str  # group id for a system, device id otherwise
    label: str
    model: str  # catalog id of the system or device
    model_name: str
    role: str  # "compute", "switch", "storage"... for colouring: see `_role`
    height_u: int
    members: tuple[str, ...]  # device ids that move with the unit
    rack: str | None
    u: int | None
    face: str
    cooling: str  # "liquid" or "air"
    weight_kg: float | None
    max_w: float
    is_group: bool
    #: True when some part has a power figure, or a system's published maximum covers it
    power_known: bool = True

    @property
    def top(self) -> int:
        return (self.u or 1) + self.height_u - 1

    @property
    def placed(self) -> bool:
        return self.rack is not None and self.u is not None


@dataclass(frozen=True, slots=True)
class RackSummary:
    """What one rack carries, as the racks view's header shows it."""

    id: str
    label: str
    model: str
    height_u: int
    cooling: str
    units: tuple[Unit, ...]
    used_u: dict[str, int]  # face -> U occupied on that face
    budget: RackBudget
    typical_w: float
    max_w: float
    weight_kg: float  # of the units with a published weight
    weight_missing: int  # units without a published weight
    static_load_kg: float | None
    power_missing: int = 0  # units none of whose parts has a published power figure

    @property
    def free_u(self) -> int:
        return self.height_u - self.used_u.get("front", 0)

    @property
    def heat_btu_h(self) -> tuple[float, float]:
        return self.typical_w * BTU_PER_W, self.max_w * BTU_PER_W

    def power_state(self) -> str:
        """"ok", "high" (max above 80 % of the budget) or "over" (max above the budget)."""
        budget = self.budget.watts
        if not budget:
            return "ok"
        if over_budget(self.max_w, budget):
            return "over"
        return "high" if self.max_w > 0.8 * budget else "ok"


def face_of(device: Device) -> str:
    for key, value in device.props:
        if key == FACE_PROP and value in FACES:
            return str(value)
    return "front"


def with_face(props: tuple, face: str) -> tuple:
    """`props` with the face set (front is the default and is not stored)."""
    kept = [(k, v) for k, v in props if k != FACE_PROP]
    if face != "front":
        kept.append((FACE_PROP, face))
    return tuple(sorted(kept))


def unit_label(group: Group) -> str:
    """A system's unit label: its group's, or "tray 9" for an unnamed part of a system."""
    if not group.name and "." in group.id:
        return re.sub(r"(\D)(\d+)$", r"\1 \2", group.id.rsplit(".", 1)[1].replace("_", " "))
    return group.label


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
        racks = Counter(d.rack for d in devices if d.rack is not None)
        rack = racks.most_common(1)[0][0] if racks else None
        us = [d.u for d in devices if d.rack == rack and d.u is not None]
        u = min(us) if us else None
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


def _role(spec: DeviceSpec, lookup) -> str:
    """What a unit is for colouring: a system that computes (has GPUs, in it or in a system it
    holds) "compute", one of NVLink switches alone "nvswitch", one with a fabric switch
    "switch", any other its catalog kind (so is any unit not a system)."""
    if spec.traits.contains == "parts" and spec.system is not None:
        parts = [s for part in spec.system.parts if (s := lookup(part.model)) is not None]
        if any(s.traits.computes or (s.traits.contains == "parts"
                                     and _role(s, lookup) == "compute") for s in parts):
            return "compute"
        if all(s.traits.nvlink_switch for s in parts):
            return "nvswitch"
        if any(s.traits.fabric_switch for s in parts):
            return "switch"
    return spec.kind


# ---- placing unracked units ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PlacementPlan:
    moves: dict[str, tuple[str, int]]  # unit id -> (rack, u)
    not_fitted: dict[str, str]  # unit id -> why

    def describe(self, index: RackIndex) -> str:
        units = "unit" if len(self.moves) == 1 else "units"
        lines = [f"{len(self.moves)} {units} placed" + (":" if self.moves else "")]
        for unit_id, (rack, u) in list(self.moves.items())[:12]:  # where each went
            unit = index.units[unit_id]
            top = u + max(unit.height_u, 1) - 1
            where = f"U{u}" if top == u else f"U{u}–{top}"
            lines.append(f"  {unit.label} → {index.rack_label(rack)}, {where}")
        if len(self.moves) > 12:
            lines.append(f"  … and {len(self.moves) - 12} more")
        if self.not_fitted:
            lines.append(f"{len(self.not_fitted)} did not fit:")
            for unit_id, why in list(self.not_fitted.items())[:12]:
                lines.append(f"  {index.units[unit_id].label}: {why}")
            if len(self.not_fitted) > 12:
                lines.append(f"  … and {len(self.not_fitted) - 12} more")
        return "\n".join(lines)


def plan_unracked(layout: Layout, racks: Iterable[str], units: Iterable[str] | None = None,
                  index: RackIndex | None = None) -> PlacementPlan:
    """First-fit from the bottom: each unracked unit (a whole system, never split) goes at the
    lowest free front slot of the first chosen rack with room for its height and its maximum
    power within the rack's budget (the rack's drawn maximum from `RackPower` plus the maxima
    of the units placed so far). Units are taken in id order so a system's siblings stay
    together; liquid-cooled units only go to liquid-cooled racks."""
    index = index or RackIndex(layout)
    chosen = [r for r in racks if r in index.racks]
    todo = [index.units[u] for u in units] if units is not None else index.unracked()
    summaries = index.summaries()
    extra: dict[str, float] = defaultdict(float)
    added: dict[str, list[tuple[int, int]]] = defaultdict(list)
    moves: dict[str, tuple[str, int]] = {}
    missed: dict[str, str] = {}
    for unit in todo:
        reasons = []
        for rack_id in chosen:
            s = summaries[rack_id]
            if unit.cooling == "liquid" and s.cooling != "liquid":
                reasons.append(f"{s.label}: air-cooled")
                continue
            budget = s.budget.watts
            if over_budget(s.max_w + extra[rack_id] + unit.max_w, budget):
                reasons.append(f"{s.label}: power budget")
                continue
            u = _first_fit(index, rack_id, unit.height_u, added[rack_id])
            if u is None:
                reasons.append(f"{s.label}: no {unit.height_u}U gap")
                continue
            moves[unit.id] = (rack_id, u)
            added[rack_id].append((u, u + unit.height_u - 1))
            extra[rack_id] += unit.max_w
            break
        else:
            missed[unit.id] = ("no rack chosen" if not chosen
                               else "; ".join(_dedupe(reasons)))
    return PlacementPlan(moves, missed)


def _dedupe(reasons: list[str]) -> list[str]:
    kinds = Counter(r.split(": ", 1)[1] for r in reasons)
    if len(reasons) > 3:
        return [f"{n} racks: {why}" for why, n in kinds.items()]
    return reasons


def _first_fit(index: RackIndex, rack_id: str, height: int,
               taken: list[tuple[int, int]]) -> int | None:
    spans = sorted([(u.u or 0, u.top) for u in index.occupied(rack_id, "front")] + taken)
    u = 1
    for low, top in spans:
        if low - u >= height:
            break
        u = max(u, top + 1)
    return u if u + height - 1 <= index.rack_height(rack_id) else None
