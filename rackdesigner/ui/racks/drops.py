"""Drops on the racks view: palette models and Unracked units into U slots, 0U devices into a
rack's side channel, rack models onto the view.

While something is dragged over a rack, a ghost shows where it would land (green) or why it
cannot (red, the reason in `message`); a release emits one request (`model_dropped`,
`units_moved`, `side_dropped`, `rack_dropped`) that the panel turns into one undo step.
`RackDrops` is a mixin of `RacksView` (ui/racks/view.py).
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsRectItem

from rackdesigner.model.racks import SIDES, SideDevice, side_mounted
from rackdesigner.ui.canvas.interaction import MODEL_MIME
from rackdesigner.ui.racks.items import side_rect

UNIT_MIME = "application/x-rackdesigner-unit"
OK = QColor(39, 174, 96, 90)
BAD = QColor(231, 76, 60, 90)


class RackDrops:
    """Drag-and-drop of `RacksView` (a mixin: `self` is the view)."""

    def _payload(self, event) -> tuple[str, str] | None:
        mime = event.mimeData()
        if mime.hasFormat(UNIT_MIME):
            return "unit", bytes(mime.data(UNIT_MIME)).decode()
        if mime.hasFormat(MODEL_MIME):
            return "model", bytes(mime.data(MODEL_MIME)).decode()
        return None

    def _height(self, kind: str, value: str) -> tuple[int, str | None]:
        index = self.racks.index
        layout = self.racks.layout
        if kind == "unit":
            if index is None or value not in index.units:
                return 0, f"{value} is not a rack unit"
            return index.units[value].height_u, None
        assert layout is not None
        if value not in layout.catalog:
            return 0, f"unknown model {value}"
        spec = layout.catalog.get(value)
        if spec.traits.contains == "units":
            return 0, "rack"
        if not spec.u_height or spec.u_height <= 0:
            return 0, (f"{spec.model} has no rack height: it goes inside a system "
                       "(drop it on the canvas)")
        return max(1, round(spec.u_height)), None

    def _side_payload(self, payload: tuple[str, str] | None) -> tuple[str, str] | None:
        """("model", id) or ("device", id) when what is dragged goes in a side channel (a 0U
        model or device of a side-mounted kind: a vertical PDU)."""
        layout = self.racks.layout
        if payload is None or layout is None:
            return None
        kind, value = payload
        if kind == "model":
            spec = layout.catalog.get(value) if value in layout.catalog else None
            which = "model"
        else:
            spec = layout.spec(value) if layout.has_device(value) else None
            which = "device"
        if not side_mounted(spec):
            return None
        return which, value

    def _side_ghost(self, rack_id: str, device_id: str | None) -> None:
        """Outline the lane a 0U device dropped on `rack_id` takes (the next free one)."""
        index = self.racks.index
        rack = self.racks.item_for_rack.get(rack_id)
        if index is None or rack is None:
            return
        n = sum(1 for d in index.side_mounted(rack_id) if d.id != device_id)
        spot = SideDevice("", "", "", "", "", rack_id, SIDES[n % len(SIDES)], n // len(SIDES),
                          "")
        ghost = QGraphicsRectItem(side_rect(spot, rack.frame_h).translated(rack.pos()))
        ghost.setBrush(OK)
        ghost.setPen(QPen(QColor("#27ae60"), 2))
        ghost.setZValue(50)
        self.racks.addItem(ghost)
        self._ghosts.append(ghost)
        self.message.emit(f"{spot.side} side channel of {index.rack_label(rack_id)} (0U, rear)")

    def _drop_target(self, event) -> tuple[str, int, int, str | None] | None:
        payload = self._payload(event)
        if payload is None or self._side_payload(payload) is not None:
            return None
        height, why = self._height(*payload)
        slot = self.racks.slot_at(self.mapToScene(event.position().toPoint()))
        if slot is None:
            return None
        rack_id, u = slot
        u = max(1, u - height // 2)  # the pointer holds the middle of what is dragged
        if why is None and self.racks.index is not None:
            ignore = [payload[1]] if payload[0] == "unit" else []
            why = self.racks.index.check_slot(height, rack_id, u, self.racks.face, ignore)
        return rack_id, u, max(1, height), why

    def dragEnterEvent(self, event) -> None:
        if self._payload(event) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def _is_rack(self, event) -> bool:
        payload = self._payload(event)
        layout = self.racks.layout
        return (payload is not None and payload[0] == "model" and layout is not None
                and payload[1] in layout.catalog
                and layout.catalog.get(payload[1]).traits.contains == "units")

    def dragMoveEvent(self, event) -> None:
        if self._payload(event) is None:
            event.ignore()
            return
        if self._is_rack(event):  # a new rack goes at the end of the last row, wherever dropped
            event.acceptProposedAction()
            self.message.emit("Drop to add the rack at the end of the last row")
            return
        side = self._side_payload(self._payload(event))
        if side is not None:  # a vertical PDU: the rack's side channel, no U
            event.acceptProposedAction()
            self._clear_ghosts()
            slot = self.racks.slot_at(self.mapToScene(event.position().toPoint()))
            if slot is not None:
                self._side_ghost(slot[0], side[1] if side[0] == "device" else None)
            return
        target = self._drop_target(event)
        event.acceptProposedAction()
        if target is None:
            self._clear_ghosts()
            return
        rack_id, u, height, why = target
        self._show([(rack_id, u, height)], why is None)
        if why is not None:
            self._refuse(why)
        else:
            self.message.emit(f"U{u}–U{u + height - 1} of "
                              f"{self.racks.index.rack_label(rack_id)}")  # type: ignore[union-attr]

    def dragLeaveEvent(self, event) -> None:
        self._clear_ghosts()

    def dropEvent(self, event) -> None:
        if self._is_rack(event):
            event.acceptProposedAction()
            self.rack_dropped.emit(self._payload(event)[1])  # type: ignore[index]
            return
        payload = self._payload(event)
        side = self._side_payload(payload)
        if side is not None:
            self._clear_ghosts()
            slot = self.racks.slot_at(self.mapToScene(event.position().toPoint()))
            if slot is None:
                event.ignore()
                return
            event.acceptProposedAction()
            self.side_dropped.emit(side[0], side[1], slot[0])
            return
        target = self._drop_target(event) if payload is not None else None
        self._clear_ghosts()
        if payload is None or target is None:
            event.ignore()
            return
        event.acceptProposedAction()
        rack_id, u, _height, why = target
        if why is not None:
            self._refuse(why)
            return
        if payload[0] == "model":
            self.model_dropped.emit(payload[1], rack_id, u)
        else:
            self.units_moved.emit({payload[1]: (rack_id, u)})
