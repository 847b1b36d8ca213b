"""The racks scene: every rack as an elevation, laid out by floor row, mirroring the layout.

The scene is rebuilt from the layout (one `RackIndex` and one power pass); the Racks panel
debounces the rebuilds after changes and skips them while hidden. It knows where each rack
and U is, so the view can turn a point into a slot.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGraphicsScene

from rackdesigner.generators.cabling import floor_spots
from rackdesigner.model import Layout
from rackdesigner.model.cooling import CoolingReport, cooling_report
from rackdesigner.model.failures import closure
from rackdesigner.model.items import Link
from rackdesigner.model.layout import natural_key
from rackdesigner.model.power import over_budget
from rackdesigner.model.racks import RackIndex, Unit
from rackdesigner.model.racks_evolve import rack_index
from rackdesigner.model.rules import Finding, check_racks
from rackdesigner.model.site_rules import RACK_SITE_CODES, SITE_LEVEL_CODES
from rackdesigner.ui.racks.items import (
    HEADER_H,
    RACK_W,
    SCALE_W,
    SIDE_GAP,
    SIDE_W,
    U_PX,
    RackItem,
    SideItem,
    UnitItem,
    side_rect,
)

#: between racks: room for two lanes of side-channel strips on each side (0U PDUs)
RACK_GAP = 4 * (SIDE_W + SIDE_GAP) + 6.0
ROW_GAP = 70.0

RACK_PROBLEM_CODES = ("rack-overlap", "rack-height", "rack-power", "rack-load",
                      "liquid-in-air-rack", "rack-air-limit", "cdu-capacity",
                      "cdu-serves-missing", *RACK_SITE_CODES)
#: design-level findings the Racks view shows in its site line (no rack to mark)
SITE_CODES = ("site-power", "site-cooling", *SITE_LEVEL_CODES)


def rack_marks(layout: Layout, index: RackIndex) -> tuple[CoolingReport, list[Finding]]:
    """The racks' heat and the rack rules' findings (what the elevations mark)."""
    cooling = cooling_report(layout, index.power_model, index.power_by_rack())
    return cooling, check_racks(layout, index, cooling)


class RacksScene(QGraphicsScene):
    def __init__(self, parent=None, per_row: int | None = None) -> None:
        super().__init__(parent)
        self.layout: Layout | None = None
        self.face = "front"
        self.per_row = per_row  # print layout: this many racks per row, floor rows ignored
        self.index: RackIndex | None = None
        self.item_for_rack: dict[str, RackItem] = {}
        self.item_for_unit: dict[str, UnitItem] = {}
        #: the 0U side-channel strips that can be selected (the rear's), by device id
        self.item_for_side: dict[str, SideItem] = {}
        self.rack_order: list[str] = []
        self.problem_units: set[str] = set()
        self.cooling: CoolingReport | None = None
        self.site_findings: list[Finding] = []
        self._unit_items: dict[str, UnitItem] = {}  # every unit item, the other face's too
        self._side_items: dict[str, SideItem] = {}  # every strip, the front's outlines too
        self.setBackgroundBrush(QColor("#f4f6f8"))

    def set_layout(self, layout: Layout | None) -> None:
        self.layout = layout
        self.rebuild()

    def set_face(self, face: str) -> None:
        self.face = face
        self.rebuild()

    def rebuild(self) -> None:
        selected = {i.unit_id for i in self.selectedItems() if isinstance(i, UnitItem)}
        selected |= {i.device_id for i in self.selectedItems() if isinstance(i, SideItem)}
        selected_racks = {i.rack_id for i in self.selectedItems() if isinstance(i, RackItem)}
        blocker = self.blockSignals(True)
        self.clear()
        self.item_for_rack, self.item_for_unit, self.rack_order = {}, {}, []
        self.item_for_side, self._side_items = {}, {}
        layout = self.layout
        if layout is None:
            self.blockSignals(blocker)
            return
        index = self.index = rack_index(layout)  # kept per state, evolved by each edit
        summaries = index.summaries()
        cooling, every = rack_marks(layout, index)
        self._take_marks(cooling, every)
        self._unit_items = {}
        down = closure(layout).devices  # the same failure closure the simulation reads
        if self.per_row:
            order = list(summaries)
            rows = [order[i:i + self.per_row] for i in range(0, len(order), self.per_row)]
        else:
            rows = rack_rows(layout, index)
        y = HEADER_H
        for row in rows:
            x = SCALE_W
            tallest = 0.0
            for rack_id in row:
                summary = summaries[rack_id]
                rack = RackItem(summary, self.face, int(rack_id in self.problem_units),
                                cooling.racks.get(rack_id))
                rack.setPos(x, y)
                self.addItem(rack)
                self.item_for_rack[rack_id] = rack
                self.rack_order.append(rack_id)
                rack.setSelected(rack_id in selected_racks)
                for unit in summary.units:
                    self._add_unit(rack, unit, down, selected)
                self._add_side(rack, down, selected)
                x += RACK_W + SCALE_W + RACK_GAP
                tallest = max(tallest, summary.height_u * U_PX)
            y += tallest + HEADER_H + ROW_GAP
        self.setSceneRect(self.itemsBoundingRect().adjusted(-40, -40, 40, 40))
        self.blockSignals(blocker)

    def _add_unit(self, rack: RackItem, unit: Unit, down: frozenset[str] | set[str],
                  selected: set[str]) -> None:
        if unit.u is None:
            return
        item = UnitItem(unit, unit.id in self.problem_units, ghost=unit.face != self.face,
                        failed=bool(down) and all(m in down for m in unit.members))
        pos = rack.pos()
        item.setPos(pos.x(), pos.y() + (rack.summary.height_u - unit.top) * U_PX)
        self.addItem(item)
        self._unit_items[unit.id] = item
        if not item.ghost:
            self.item_for_unit[unit.id] = item
            item.setSelected(unit.id in selected)

    def _add_side(self, rack: RackItem, down: frozenset[str] | set[str],
                  selected: set[str]) -> None:
        """The rack's 0U devices as strips in its side channels: selectable at the rear,
        outlines from the front (they hang at the back of the rack)."""
        assert self.index is not None
        for device in self.index.side_mounted(rack.rack_id):
            item = SideItem(device, side_rect(device, rack.frame_h), ghost=self.face != "rear",
                            failed=device.id in down)
            item.setPos(rack.pos())
            self.addItem(item)
            self._side_items[device.id] = item
            if not item.ghost:
                self.item_for_side[device.id] = item
                item.setSelected(device.id in selected)

    def _drop_side(self, rack_ids: set[str]) -> None:
        """Take the side strips of these racks out (they are drawn again)."""
        for device_id, item in list(self._side_items.items()):
            if item.device.rack in rack_ids:
                del self._side_items[device_id]
                self.item_for_side.pop(device_id, None)
                self.removeItem(item)

    def _take_marks(self, cooling: CoolingReport, every: list[Finding]) -> None:
        self.cooling = cooling
        self.site_findings = [f for f in every if f.code in SITE_CODES]
        findings = [f for f in every if f.code in RACK_PROBLEM_CODES]
        self.problem_units = {o for f in findings for o in f.objects}
        self.rack_codes = defaultdict(set)  # rack or unit id -> its rack problems' codes
        for finding in findings:
            for oid in finding.objects:
                self.rack_codes[oid].add(finding.code)

    def set_marks(self, cooling: CoolingReport, every: list[Finding]) -> None:
        """The rack rules' marks and the racks' heat, checked off the GUI thread after an edit
        that moved units (`rack_marks` on a worker): only the items whose mark changed."""
        self._take_marks(cooling, every)
        for rack_id, item in self.item_for_rack.items():
            problems = int(rack_id in self.problem_units)
            heat = cooling.racks.get(rack_id)
            if problems != item.problems or heat != item.heat:
                item.heat = heat
                item.set_summary(item.summary, problems)
        for unit_id, item in self._unit_items.items():
            problem = unit_id in self.problem_units
            if problem != item.problem:
                item.problem = problem
                item.update()

    def apply_unit_changes(self, device_ids: set[str]) -> bool:
        """Devices mounted elsewhere (rack, U, face): their units leave their old racks and
        appear in their new ones, those racks' headers follow (the state's `RackIndex`,
        evolved by the edit); the rest of the elevations stays (a rebuild took 2.4 s at 32k
        GPUs). The rack marks follow later (`set_marks`); False when a rebuild was needed
        instead (a rack itself changed)."""
        old, layout = self.index, self.layout
        if old is None or layout is None:
            return False
        new = rack_index(layout)
        if new.racks != old.racks or any(d in new.racks for d in device_ids):
            self.rebuild()
            return False
        units = {u for d in device_ids for u in (old.unit_of.get(d), new.unit_of.get(d))
                 if u is not None}
        racks = {u.rack for i in units for u in (old.units.get(i), new.units.get(i))
                 if u is not None and u.rack is not None}
        # a device outside every unit may be a 0U one: the racks it left and went to
        loose = {r for d in device_ids if d not in old.unit_of and d not in new.unit_of
                 for index in (old, new) if index.layout.has_device(d)
                 and (r := index.layout.device(d).rack) is not None}
        racks |= loose
        self.index = new
        blocker = self.blockSignals(True)
        selected = {i.unit_id for i in self.selectedItems() if isinstance(i, UnitItem)}
        selected |= {i.device_id for i in self.selectedItems() if isinstance(i, SideItem)}
        self._drop_side(loose)
        for unit_id in units:
            item = self._unit_items.pop(unit_id, None)
            self.item_for_unit.pop(unit_id, None)
            if item is not None:
                self.removeItem(item)
        summaries = new.summaries()
        down = closure(layout).devices
        for rack_id in racks:
            rack = self.item_for_rack.get(rack_id)
            if rack is None:
                continue
            rack.set_summary(summaries[rack_id], rack.problems)
        for unit_id in units:
            unit = new.units.get(unit_id)
            rack = self.item_for_rack.get(unit.rack) if unit is not None and unit.rack else None
            if unit is not None and rack is not None:
                self._add_unit(rack, unit, down, selected)
        for rack_id in loose:
            if rack_id in self.item_for_rack:
                self._add_side(self.item_for_rack[rack_id], down, selected)
        self.blockSignals(blocker)
        return True

    def apply_link_changes(self, changes: list[tuple[Link, int]]) -> None:
        """Links added (+1) or removed (-1): only the power of the racks at their ends
        changes here (cables and optics draw there), with its power-budget mark; the rest
        of the elevations stays (a rebuild took 1.4 s at 32k GPUs). The figures are the
        state's `RackIndex`'s, evolved by the edit (those racks added up again)."""
        if self.index is None or self.layout is None:
            return
        touched: set[str] = set()
        devices = self.layout.state.devices
        for link, _ in changes:
            for end in (link.a.device, link.b.device):
                device = devices.get(end)
                if device is not None and device.rack is not None:
                    touched.add(device.rack)
        index = self.index = rack_index(self.layout)
        power = index.power_by_rack()
        for rack_id in touched:
            item = self.item_for_rack.get(rack_id)
            if item is None:
                continue
            typical, peak = power.get(rack_id, (0.0, 0.0))
            summary = replace(item.summary, typical_w=typical, max_w=peak)
            codes = self.rack_codes[rack_id]
            codes.discard("rack-power")
            if over_budget(peak, summary.budget.watts):
                codes.add("rack-power")
            heat = item.heat
            if heat is not None:  # link ends (optics, cables) draw, and heat, on the air side
                heat = replace(heat, air_w=max(0.0, peak - heat.liquid_w))
                codes.discard("rack-air-limit")
                if heat.over_air_limit:
                    codes.add("rack-air-limit")
                item.heat = heat
            if codes:
                self.problem_units.add(rack_id)
            else:
                self.problem_units.discard(rack_id)
            item.set_summary(summary, int(bool(codes)))

    def refresh_failures(self) -> None:
        """Only the failed marks of the units (after a Fail / Restore, which changes nothing
        else the elevations show: not a rebuild, 2.4 s at 32k GPUs)."""
        if self.layout is None:
            return
        down = closure(self.layout).devices
        for item in self.item_for_unit.values():
            item.set_failed(bool(down) and all(m in down for m in item.unit.members))
        for side in self.item_for_side.values():
            side.set_failed(side.device_id in down)

    # ---- geometry ---------------------------------------------------------------------------
    def slot_at(self, pos: QPointF) -> tuple[str, int] | None:
        """(rack, U) under a scene point, or None outside every rack's frame column."""
        for rack_id, item in self.item_for_rack.items():
            local = item.mapFromScene(pos)
            if 0 <= local.x() <= RACK_W and -HEADER_H <= local.y() <= item.frame_h + U_PX * 4:
                return rack_id, item.u_at(local.y())
        return None

    def slot_rect(self, rack_id: str, u: int, height_u: int) -> QRectF:
        item = self.item_for_rack[rack_id]
        top = u + height_u - 1
        origin = item.mapToScene(QPointF(0, (item.summary.height_u - top) * U_PX))
        return QRectF(origin.x(), origin.y(), RACK_W, height_u * U_PX)

    def racks_rect(self, rack_ids: list[str]) -> QRectF:
        rect = QRectF()
        for rack_id in rack_ids:
            rect = rect.united(self.item_for_rack[rack_id].sceneBoundingRect())
        return rect.adjusted(-10, -10, 10, 10)  # the items hold their headers


def rack_rows(layout: Layout, index: RackIndex | None = None) -> list[list[str]]:
    """Rack ids by floor row (front row first), left to right: the floor model of the
    generators (`generators.cabling.floor_spots`), so the racks view shows the floor's order."""
    spots = floor_spots(layout)
    index = index or RackIndex(layout)
    rows: dict[float, list[tuple[float, str]]] = defaultdict(list)
    for rack_id in index.racks:
        spot = spots.get(rack_id)
        y, x = (spot.y_m, spot.x_m) if spot is not None else (1e9, 0.0)
        rows[round(y, 3)].append((x, rack_id))
    return [[r for _, r in sorted(row, key=lambda t: (t[0], natural_key(t[1])))]
            for _, row in sorted(rows.items())]
