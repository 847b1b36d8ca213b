"""The Racks tab: elevations (front/rear) and the floor plan, the Unracked list, Place unracked….

The panel mirrors the document (rebuilds after its change signal, debounced) and turns user
intent into commands pushed on the document's one undo stack. Selection is exchanged with the
window as id lists (`selection_requested` out, `select_ids` in).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QLabel,
    QListWidgetItem,
    QSplitter,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.model import Layout
from rackdesigner.model.items import Link
from rackdesigner.model.layout import natural_key
from rackdesigner.ui.jobs import BackgroundJob, JobResult
from rackdesigner.ui.plain_text import plain
from rackdesigner.ui.racks.edits import RackEdits
from rackdesigner.ui.racks.floor import FloorScene, FloorView
from rackdesigner.ui.racks.follow import FULL, LINKS, UNITS, link_changes, racks_scope
from rackdesigner.ui.racks.items import RackItem, SideItem, UnitItem
from rackdesigner.ui.racks.scene import RacksScene, rack_marks
from rackdesigner.ui.racks.unracked import PlaceDialog, UnrackedList
from rackdesigner.ui.racks.view import RacksView


def _marks(snapshot: Layout | None, params: object = None) -> tuple | None:
    """The worker's job: the racks' heat and the rack rules' findings of a snapshot (from its
    `RackIndex`, evolved by the edit: what the elevations mark)."""
    if snapshot is None:
        return None
    from rackdesigner.model.racks_evolve import rack_index

    return rack_marks(snapshot, rack_index(snapshot))


class RacksPanel(RackEdits, QWidget):
    command_requested = Signal(object)
    message = Signal(str)
    selection_requested = Signal(object)  # ids selected here (units and racks)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.layout_doc: Layout | None = None
        #: (command, rack id) -> the command placed on the canvas (set by the window)
        self.placer: Callable[[Any, str], Any] | None = None
        self.scene = RacksScene(self)
        self.view = RacksView(self.scene, self)
        self.floor_scene = FloorScene(self)
        self.floor_view = FloorView(self.floor_scene, self)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.view, "Elevations")
        self.tabs.addTab(self.floor_view, "Floor")
        # a tool bar, not buttons: it folds into a menu when the tab is narrow
        self.toolbar = QToolBar(self)
        self.rear_action = QAction("Rear", self)
        self.rear_action.setCheckable(True)
        self.rear_action.setToolTip("Show the rear of the racks (PDUs, rear-mounted switches)")
        self.fit_action = QAction("Fit", self)
        self.fit_action.setToolTip("Show every rack")
        self.place_action = QAction("Place unracked…", self)
        self.place_action.setToolTip("Fill chosen racks with the unracked units, first-fit "
                                     "from the bottom, within their U and power budgets")
        for action in (self.rear_action, self.fit_action, self.place_action):
            self.toolbar.addAction(action)
        self.rear_button = self.toolbar.widgetForAction(self.rear_action)
        self.unracked = UnrackedList(self)
        self.unracked.setMinimumWidth(60)
        self.unracked_label = QLabel("Unracked", self)
        side = QWidget(self)
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.unracked_label)
        side_layout.addWidget(self.unracked)
        split = QSplitter(self)
        split.addWidget(self.tabs)
        split.addWidget(side)
        split.setStretchFactor(0, 5)
        split.setStretchFactor(1, 1)
        split.setSizes([800, 150])
        # heat to liquid and air, and the site's share: red when over a site limit
        self.site_label = QLabel(self)
        self.site_label.setWordWrap(True)
        self.site_label.setVisible(False)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.toolbar)
        outer.addWidget(self.site_label)
        outer.addWidget(split)
        self._syncing = False
        self._fitted = False
        self._dirty = False
        self._floor_dirty = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(120)
        self._timer.timeout.connect(self._on_timer)
        self._rebuild_pending = self._failures_pending = False
        self._link_changes: list[tuple[Link, int]] = []  # (link, +1 added / -1 removed)
        self._unit_changes: set[str] = set()  # devices mounted elsewhere
        # the rack marks after units moved, checked off the GUI thread (0.5 s at 32k GPUs)
        self._marks = BackgroundJob(_marks, self, debounce_ms=1, follow_revision=True)
        self._marks.result_ready.connect(self._on_marks_result_ready)
        self.rear_action.toggled.connect(self._on_rear_toggled)
        self.fit_action.triggered.connect(lambda checked=False: self.fit())
        self.place_action.triggered.connect(lambda checked=False: self.place_unracked_dialog())
        self.view.model_dropped.connect(self._on_model_dropped)
        self.view.units_moved.connect(self._on_units_moved)
        self.view.side_dropped.connect(self._on_side_dropped)
        self.view.rack_dropped.connect(self._on_rack_dropped)
        self.view.face_requested.connect(self.set_face_of)
        self.view.message.connect(self.message)
        self.scene.selectionChanged.connect(self._on_scene_selection)
        self.floor_scene.racks_dropped.connect(self._on_racks_dropped)
        self.floor_scene.rack_added.connect(self._on_floor_rack_added)
        self.tabs.currentChanged.connect(self._on_tab_changed)

    # ---- document ---------------------------------------------------------------------------
    # The panel builds only while it is shown: a hidden Racks tab costs an edit nothing.
    def set_layout(self, layout: Layout) -> None:
        self.layout_doc = layout
        self._marks.set_layout(layout)
        self.scene.layout = layout
        self.floor_scene.layout = layout
        self._dirty = True
        self._fitted = False
        if self.isVisible():
            self.fit()

    # What an edit changes here (`racks_scope`): nothing (a move on the canvas, a link's
    # status), the failed marks (Fail / Restore), or the elevations (a rebuild).
    def on_model_event(self, event=None) -> None:
        scope = racks_scope(event)
        if scope is None:
            return
        if scope == FULL:
            self._rebuild_pending = True
        elif scope == LINKS:
            self._link_changes.extend(link_changes(event))
        elif scope == UNITS:
            self._unit_changes.add(event.new.id)
        else:
            self._failures_pending = True
        if self.isVisible():
            self._timer.start()
        else:
            self._dirty = True

    def flush(self) -> None:
        if self._timer.isActive():
            self._on_timer()
        elif self._dirty and self.isVisible():
            self.refresh()
        if self._marks.busy:
            self._marks.flush()

    def close_panel(self) -> None:
        """Stop the marks' worker (the window is closing)."""
        self._marks.close()

    def _on_marks_result_ready(self, result: JobResult) -> None:
        if result.ok and result.value is not None and not self._rebuild_pending:
            self.scene.set_marks(*result.value)

    def _on_timer(self) -> None:
        if self._rebuild_pending or (self._link_changes
                                     and self.tabs.currentWidget() is self.floor_view):
            self.refresh()  # the floor plan draws the cables: rebuilt with the elevations
            return
        self._timer.stop()
        changes, self._link_changes = self._link_changes, []
        if changes:
            self.scene.apply_link_changes(changes)
            self._floor_dirty = True
        moved, self._unit_changes = self._unit_changes, set()
        if moved:
            incremental = self.scene.apply_unit_changes(moved)
            self._refresh_unracked()
            self._floor_dirty = True
            if incremental:  # after this pass: the worker would hold the GIL meanwhile
                self._marks.request()
        if self._failures_pending:
            self._failures_pending = False
            self.scene.refresh_failures()

    def refresh(self) -> None:
        self._timer.stop()
        self._dirty = self._rebuild_pending = self._failures_pending = False
        self._link_changes = []
        self._unit_changes = set()
        self.scene.rebuild()
        self._show_site()
        if self.tabs.currentWidget() is self.floor_view:
            self.floor_scene.rebuild()
        else:
            self._floor_dirty = True
        self._refresh_unracked()

    def _show_site(self) -> None:
        """The design's heat to liquid and to air, its racks over their air limit, and the
        site's share ("uses 71 % of the site's 5 MW"), red with the site rules' findings."""
        report = self.scene.cooling
        if report is None or not self.scene.item_for_rack:
            self.site_label.setVisible(False)
            return
        parts = [f"Heat {report.liquid_w / 1e3:,.1f} kW to liquid, "
                 f"{report.air_w / 1e3:,.1f} kW to air"]
        if report.racks_over_air_limit:
            parts.append(f"over their air limit: {', '.join(report.racks_over_air_limit)}")
        if report.cdus_over_capacity:
            parts.append(f"CDUs over capacity: {', '.join(report.cdus_over_capacity)}")
        problems = self.scene.site_findings
        site = report.site.headline()
        if site and not problems:  # a site rule's message already gives the share
            parts.append(site)
        text = " · ".join(parts)
        if problems:
            text += " — " + "; ".join(f.message for f in problems)
        self.site_label.setText(plain(text))
        red = problems or report.racks_over_air_limit or report.cdus_over_capacity
        self.site_label.setStyleSheet(f"color: {'#c62828' if red else '#616e7c'}; "
                                      "font-size: 8pt; padding: 2px 6px;")
        self.site_label.setVisible(True)

    def _refresh_unracked(self) -> None:
        self.unracked.clear()
        index = self.scene.index
        if index is None:
            return
        units = index.unracked()
        self.unracked_label.setText(plain(f"Unracked ({len(units)})"))
        for unit in units:
            item = QListWidgetItem(f"{unit.label} · {unit.height_u}U", self.unracked)
            item.setData(Qt.ItemDataRole.UserRole, unit.id)
            item.setToolTip(plain(f"{unit.model_name}: drag into a rack slot"))
        loose = index.unracked_side()
        for device in loose:
            item = QListWidgetItem(f"{device.label} · 0U", self.unracked)
            item.setData(Qt.ItemDataRole.UserRole, device.id)
            item.setToolTip(plain(f"{self.layout_doc.spec(device.id).model}: drag onto a rack "
                                  "(its side channel)" if self.layout_doc is not None else ""))
        if loose:
            self.unracked_label.setText(plain(f"Unracked ({len(units) + len(loose)})"))

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._dirty:
            self.refresh()
        if not self._fitted:
            self.fit()

    def _on_tab_changed(self, index: int) -> None:
        if self.tabs.widget(index) is self.floor_view and self._floor_dirty:
            self._floor_dirty = False
            self.floor_scene.rebuild()
            self.floor_view.fit()

    def fit(self) -> None:
        self.flush()
        self._fitted = True
        self.view.fit()
        if not self._floor_dirty:
            self.floor_view.fit()

    def _on_rear_toggled(self, rear: bool) -> None:
        self.scene.set_face("rear" if rear else "front")

    # ---- selection --------------------------------------------------------------------------
    def selected_ids(self) -> list[str]:
        out = []
        for item in self.scene.selectedItems():
            if isinstance(item, UnitItem):
                out.append(item.unit_id)
            elif isinstance(item, SideItem):
                out.append(item.device_id)
            elif isinstance(item, RackItem):
                out.append(item.rack_id)
        return sorted(out, key=natural_key)

    def _on_scene_selection(self) -> None:
        if not self._syncing:
            self.selection_requested.emit(self.selected_ids())

    def select_ids(self, devices: list[str], groups: list[str]) -> None:
        """Follow the canvas: select the units (and racks) among these ids."""
        index = self.scene.index
        if index is None or self._dirty:
            return
        wanted = set(groups) | set(devices)
        units = {index.unit_of.get(d) for d in devices} | (set(groups) & set(index.units))
        before = set(self.selected_ids())
        self._syncing = True
        try:
            self.scene.clearSelection()
            for unit_id in units:
                item = self.scene.item_for_unit.get(unit_id or "")
                if item is not None:
                    item.setSelected(True)
            for device_id in devices:
                side = self.scene.item_for_side.get(device_id)
                if side is not None:
                    side.setSelected(True)
            for rack_id in wanted & set(self.scene.item_for_rack):
                self.scene.item_for_rack[rack_id].setSelected(True)
            chosen = self.scene.selectedItems()
            if chosen and self.isVisible() and set(self.selected_ids()) != before:
                self.view.ensureVisible(chosen[0], 40, 40)
        finally:
            self._syncing = False


__all__ = ["PlaceDialog", "RacksPanel"]
