"""Placing unracked units: first fit from the bottom of the chosen racks, within each rack's
height and power budget (`plan_unracked`, the designer's `Place unracked…` and the CLI's), and
the plan it returns. Reads a `RackIndex` (`racks.py`)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.model.layout import Layout
from rackdesigner.model.power import over_budget

if TYPE_CHECKING:
    from rackdesigner.model.racks import RackIndex


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
    from rackdesigner.model.racks import RackIndex  # (racks.py re-exports this module's names)

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
