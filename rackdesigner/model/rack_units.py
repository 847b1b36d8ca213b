"""What a rack holds, as values: a mounted `Unit` (a system or a standalone device), a 0U
`SideDevice` in a side channel, a rack's `RackSummary`, the faces a unit is mounted on, and what
a unit is for colouring (`_role`). `RackIndex` (`racks.py`) makes them from a layout."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rackdesigner import vocabulary
from rackdesigner.catalog import DeviceSpec
from rackdesigner.model.items import Device, Group
from rackdesigner.model.power import RackBudget, over_budget

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


def kw_text(watts: float) -> str:
    """Watts as kW with one decimal ("40.8"), as the Racks view and the DOT racks view show it."""
    return f"{watts / 1000:.1f}"


def power_text(s: RackSummary) -> str:
    """"40.8 typ / 40.8 max kW of 69.0 kW": a rack's power against its budget (the Racks view's
    header line; the DOT export's rack label)."""
    budget = s.budget.watts
    of = f" of {kw_text(budget)} kW" if budget else " (no budget)"
    text = f"{kw_text(s.typical_w)} typ / {kw_text(s.max_w)} max kW{of}"
    if s.power_missing:
        text = "≥ " + text + f", {s.power_missing} without a figure"
    return text
