"""The racks view: zoom and pan like the canvas; palette drops and unit drags into U slots.

While something is dragged over a rack, a ghost shows where it would land (green) or why it
cannot (red, with the reason in `message`), as the canvas's wiring tool does. A release emits
one request (`model_dropped`, `units_moved`) that the panel turns into one undo step.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPen, QWheelEvent
from PySide6.QtWidgets import QFrame, QGraphicsRectItem, QGraphicsView

from rackdesigner.ui.racks.drops import BAD, OK, UNIT_MIME, RackDrops
from rackdesigner.ui.racks.items import SideItem, UnitItem
from rackdesigner.ui.racks.scene import RacksScene

MIN_ZOOM, MAX_ZOOM = 0.02, 4.0


class RacksView(RackDrops, QGraphicsView):
    message = Signal(str)
    model_dropped = Signal(str, str, int)  # model, rack, u
    rack_dropped = Signal(str)  # a rack model: add one at the end of the last row
    units_moved = Signal(object)  # {unit id: (rack, u)}
    #: a 0U model ("model", catalog id) or device ("device", id) to a rack's side channel
    #: (rack "" takes the device out of its rack)
    side_dropped = Signal(str, str, str)
    face_requested = Signal(object, str)  # unit ids, "front" / "rear" / "" (take out of racks)
    zoom_changed = Signal(float)

    def __init__(self, scene: RacksScene, parent=None) -> None:
        super().__init__(scene, parent)
        self.racks = scene
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAcceptDrops(True)
        self._ghosts: list[QGraphicsRectItem] = []
        self._drag: dict | None = None
        self._pan_from: QPointF | None = None
        self.last_refusal = ""

    # ---- zoom and pan -----------------------------------------------------------------------
    def zoom(self) -> float:
        return self.transform().m11()

    def _on_zoomed(self) -> None:
        # far out, racks are columns of axis-aligned bars: antialiasing only costs time
        self.setRenderHint(QPainter.RenderHint.Antialiasing, self.zoom() >= 0.3)
        self.zoom_changed.emit(self.zoom())

    def set_zoom(self, factor: float) -> None:
        current = self.zoom()
        target = max(MIN_ZOOM, min(MAX_ZOOM, current * factor))
        self.scale(target / current, target / current)
        self._on_zoomed()

    def zoom_in(self) -> None:
        self.set_zoom(1.25)

    def zoom_out(self) -> None:
        self.set_zoom(1 / 1.25)

    def fit(self) -> None:
        rect = self.racks.itemsBoundingRect()
        if not rect.isEmpty():
            self.fitInView(rect.adjusted(-20, -20, 20, 20), Qt.AspectRatioMode.KeepAspectRatio)
            self._on_zoomed()

    def wheelEvent(self, event: QWheelEvent) -> None:
        self.set_zoom(1.15 ** (event.angleDelta().y() / 120))

    # ---- ghosts -----------------------------------------------------------------------------
    def _clear_ghosts(self) -> None:
        for ghost in self._ghosts:
            if ghost.scene() is not None:
                self.racks.removeItem(ghost)
        self._ghosts = []

    def _show(self, spans: list[tuple[str, int, int]], ok: bool) -> None:
        self._clear_ghosts()
        for rack_id, u, height in spans:
            if rack_id not in self.racks.item_for_rack:
                continue
            rect = self.racks.slot_rect(rack_id, max(1, u), height)
            ghost = QGraphicsRectItem(rect)
            ghost.setBrush(OK if ok else BAD)
            ghost.setPen(QPen(QColor("#27ae60" if ok else "#c0392b"), 2))
            ghost.setZValue(50)
            self.racks.addItem(ghost)
            self._ghosts.append(ghost)

    def _refuse(self, reason: str) -> None:
        self.last_refusal = reason
        self.message.emit(f"Cannot place here: {reason}")

    # ---- moving mounted units ---------------------------------------------------------------
    def _unit_at(self, pos) -> UnitItem | None:
        for item in self.items(pos):
            if isinstance(item, UnitItem) and not item.ghost:
                return item
        return None

    def _side_at(self, pos) -> SideItem | None:
        for item in self.items(pos):
            if isinstance(item, SideItem) and not item.ghost:
                return item
        return None

    def _select_pressed(self, item, event: QMouseEvent) -> None:
        """A press on an item selects it (Ctrl adds it to the selection)."""
        if not item.isSelected():
            if not event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                self.racks.clearSelection()
            item.setSelected(True)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = event.position()
            return
        left = event.button() == Qt.MouseButton.LeftButton
        side = self._side_at(event.position().toPoint())
        if left and side is not None:
            self._select_pressed(side, event)
            self._drag = {"side": side.device, "target": None}
            return
        item = self._unit_at(event.position().toPoint())
        if left and item is not None:
            self._select_pressed(item, event)
            slot = self.racks.slot_at(self.mapToScene(event.position().toPoint()))
            self._drag = {"anchor": item.unit, "start": slot, "target": None, "moved": False}
            return
        super().mousePressEvent(event)

    def _plan_move(self, slot: tuple[str, int]) -> tuple[dict, str | None, list]:
        assert self._drag is not None and self.racks.index is not None
        index = self.racks.index
        anchor = self._drag["anchor"]
        start_rack, start_u = self._drag["start"]
        rack_id, u = slot
        delta = u - start_u
        units = [i.unit for i in self.racks.selectedItems() if isinstance(i, UnitItem)]
        moving = {x.id for x in units}
        moves, spans, why = {}, [], None
        for unit in units:
            target_rack = rack_id if unit.rack == anchor.rack else (
                unit.rack if rack_id == start_rack else rack_id)
            new_u = (unit.u or 1) + delta
            moves[unit.id] = (target_rack, new_u)
            spans.append((target_rack, new_u, unit.height_u))
            reason = index.check_slot(unit.height_u, target_rack, new_u, self.racks.face,
                                      ignore=moving)
            if why is None and reason is not None:
                why = reason if len(units) == 1 else f"{unit.label}: {reason}"
        # the moved units must not overlap each other either
        taken: dict[str, list[tuple[int, int, str]]] = {}
        for unit_id, (r, nu) in moves.items():
            h = index.units[unit_id].height_u
            for low, top, other in taken.get(r, []):
                if why is None and nu <= top and low <= nu + h - 1:
                    why = f"{index.units[unit_id].label} would overlap {index.units[other].label}"
            taken.setdefault(r, []).append((nu, nu + h - 1, unit_id))
        return moves, why, spans

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None:
            delta = event.position() - self._pan_from
            self._pan_from = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
            return
        if self._drag is not None and "side" in self._drag:  # a strip to another rack
            slot = self.racks.slot_at(self.mapToScene(event.position().toPoint()))
            self._clear_ghosts()
            device = self._drag["side"]
            self._drag["target"] = None
            if slot is not None and slot[0] != device.rack:
                self._drag["target"] = slot[0]
                self._side_ghost(slot[0], device.id)
            return
        if self._drag is not None:
            slot = self.racks.slot_at(self.mapToScene(event.position().toPoint()))
            if slot is None or self._drag["start"] is None:
                self._clear_ghosts()
                self._drag["target"] = None
                return
            self._drag["moved"] = True
            moves, why, spans = self._plan_move(slot)
            self._drag["target"] = (moves, why)
            self._show(spans, why is None)
            if why is not None:
                self._refuse(why)
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None and event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = None
            return
        if self._drag is not None and "side" in self._drag:
            drag, self._drag = self._drag, None
            self._clear_ghosts()
            if drag["target"] is not None:
                self.side_dropped.emit("device", drag["side"].id, drag["target"])
            return
        if self._drag is not None:
            drag, self._drag = self._drag, None
            self._clear_ghosts()
            target = drag.get("target")
            if drag["moved"] and target is not None:
                moves, why = target
                if why is not None:
                    self._refuse(why)
                elif any(self.racks.index.units[k].rack != r  # type: ignore[union-attr]
                         or self.racks.index.units[k].u != u  # type: ignore[union-attr]
                         for k, (r, u) in moves.items()):
                    self.units_moved.emit(moves)
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:
        """Up/Down move the selected units one U; a move that does not fit is refused with
        the reason."""
        step = {Qt.Key.Key_Up: 1, Qt.Key.Key_Down: -1}.get(Qt.Key(event.key()))
        units = [i.unit for i in self.racks.selectedItems() if isinstance(i, UnitItem)]
        if step is None or not units or self.racks.index is None:
            super().keyPressEvent(event)
            return
        ids = {u.id for u in units}
        for unit in units:
            why = self.racks.index.check_slot(unit.height_u, unit.rack or "",
                                              (unit.u or 1) + step, self.racks.face, ids)
            if why is not None:
                self._refuse(f"{unit.label}: {why}")
                return
        self.units_moved.emit({u.id: (u.rack, (u.u or 1) + step) for u in units})

    def contextMenuEvent(self, event) -> None:
        from PySide6.QtWidgets import QMenu

        side = self._side_at(event.pos())
        if side is not None:
            menu = QMenu(self)
            menu.addAction("Take out of the rack (Unracked)",
                           lambda: self.side_dropped.emit("device", side.device_id, ""))
            menu.exec(event.globalPos())
            return
        item = self._unit_at(event.pos())
        if item is None:
            return
        if not item.isSelected():
            self.racks.clearSelection()
            item.setSelected(True)
        ids = sorted(i.unit_id for i in self.racks.selectedItems() if isinstance(i, UnitItem))
        menu = QMenu(self)
        other = "rear" if self.racks.face == "front" else "front"
        menu.addAction(f"Mount at the {other}",
                       lambda: self.face_requested.emit(ids, other))
        menu.addAction("Take out of the rack (Unracked)",
                       lambda: self.face_requested.emit(ids, ""))
        menu.exec(event.globalPos())


__all__ = ["BAD", "MAX_ZOOM", "MIN_ZOOM", "OK", "UNIT_MIME", "RacksView"]
