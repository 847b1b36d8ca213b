"""What the user does on the canvas, turned into intent signals of `RackScene`, by two tool
objects with their own state: `WireTool` (a rubber wire being drawn: ui/canvas/wiring.py)
and `MoveTool` (the items being dragged). The scene owns them, forwards its Qt mouse events
to them, and declares the signals they emit; the tools read the scene's items and layout,
never edit the design.

Moves: Qt moves the selected items live; on release the scene reports one `move_finished`
mapping (device id → (old, new) snapped positions), which becomes one undo step. Wiring: a drag
that starts on a port row (or anywhere on a device or group with Alt held, or in wire mode)
draws a rubber wire; devices under the cursor turn green or red, the reason goes to
`wire_feedback`, and release emits `wire_requested` (with the link count typed while dragging:
digits, Backspace). A drag from a group (a node) onto a switch asks for bulk wiring instead
(`bulk_wire_requested`: the group's compute NICs onto the switch). Drops of palette entries
emit `model_dropped`.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QGraphicsSceneMouseEvent

from rackdesigner.commands import snap
from rackdesigner.ui import style
from rackdesigner.ui.canvas.items import DeviceItem, GroupItem
from rackdesigner.ui.canvas.wiring import MAX_HIGHLIGHTS, MAX_PAIRS, WireTool

MODEL_MIME = "application/x-rackdesigner-model"


def top_item(scene, pos: QPointF):
    """The visible device or group frame on top at `pos`."""
    for item in scene.items(pos):
        if isinstance(item, DeviceItem | GroupItem) and item.isVisible():
            return item
    return None


class MoveTool:
    """Items being dragged: where they were when the button went down; on release, one
    `move_finished` mapping (device id → (old, new) snapped positions) = one undo step."""

    def __init__(self, scene) -> None:
        self.scene = scene
        self.press_positions: dict = {}

    def forget_item(self, item) -> None:
        self.press_positions.pop(item, None)

    def pressed(self, pos: QPointF) -> None:
        """After Qt handled a left press: remember the selection's positions."""
        scene = self.scene
        item = top_item(scene, pos)
        if isinstance(item, GroupItem) and not item.collapsed and item.isSelected():
            self.select_group_members(item.group_id)
        self.press_positions = {it: it.pos() for it in scene.selectedItems()
                                if isinstance(it, DeviceItem | GroupItem)}

    def dragged(self) -> None:
        for item in self.press_positions:  # wires follow the dragged items
            self.scene._on_item_moved(item)

    def released(self) -> None:
        moves = self._collect_moves()
        groups = [it.group_id for it in self.press_positions if isinstance(it, GroupItem)]
        self.press_positions = {}
        if moves:
            self.scene.move_finished.emit(moves)
        self.scene.restore_frames(groups)

    def _collect_moves(self) -> dict[str, tuple[tuple[float, float], tuple[float, float]]]:
        layout = self.scene.layout
        assert layout is not None
        moves: dict = {}
        for item, start in self.press_positions.items():
            if item.scene() is not self.scene or item.pos() == start:
                continue
            if isinstance(item, DeviceItem):
                old = layout.device(item.device_id).pos
                moves[item.device_id] = (old, snap((item.pos().x(), item.pos().y())))
        for item, start in self.press_positions.items():
            if isinstance(item, GroupItem) and item.collapsed and item.pos() != start:
                dx, dy = item.pos().x() - start.x(), item.pos().y() - start.y()
                for device_id in layout.group_devices(item.group_id):
                    if device_id not in moves:
                        old = layout.device(device_id).pos
                        moves[device_id] = (old, snap((old[0] + dx, old[1] + dy)))
        return {k: v for k, v in moves.items() if v[0] != v[1]}

    def select_group_members(self, group_id: str) -> None:
        scene = self.scene
        assert scene.layout is not None
        for device_id in scene.layout.group_devices(group_id):
            item = scene.item_for_device.get(device_id)
            if item is not None and item.isVisible():
                item.setSelected(True)
        for child in scene.layout.group_children(group_id):
            child_item = scene.item_for_group.get(child)
            if child_item is not None and child_item.isVisible() and child_item.collapsed:
                child_item.setSelected(True)


class CanvasTools:
    """The scene's mouse and drag-and-drop handling: which tool a gesture belongs to.

    Each handler returns True when it consumed the event (the scene then skips Qt's default
    handling); `after_*` run after Qt's default handling."""

    def __init__(self, scene) -> None:
        self.scene = scene
        self.wire = WireTool(scene)
        self.move = MoveTool(scene)

    def forget_item(self, item) -> None:
        self.wire.forget_item(item)
        self.move.forget_item(item)

    def press(self, event: QGraphicsSceneMouseEvent) -> bool:
        scene, pos = self.scene, event.scenePos()
        if event.button() != Qt.MouseButton.LeftButton or scene.layout is None:
            return False
        item = top_item(scene, pos)
        if isinstance(item, GroupItem) and item.toggle_rect().contains(item.mapFromScene(pos)):
            scene.group_toggled.emit(item.group_id)
            event.accept()
            return True
        mods = event.modifiers()
        # Alt+drag, or Ctrl+Shift+drag where the window manager takes Alt+drag (it moves
        # windows in Xfce, KDE, Openbox...)
        alt = bool(mods & Qt.KeyboardModifier.AltModifier) or (
            bool(mods & Qt.KeyboardModifier.ControlModifier)
            and bool(mods & Qt.KeyboardModifier.ShiftModifier))
        if not (alt or self.wire.mode) and self._view_zoom() < style.LOD_BOXES:
            group = self._group_at(pos)
            if group is not None:  # not the hairline wire or 3-pixel box under the cursor
                self._select_group_at_overview(group, event.modifiers())
                event.accept()
                return True
        if isinstance(item, DeviceItem):
            port = item.port_at(item.mapFromScene(pos))
            if port is not None or alt or self.wire.mode:
                self.wire.start_wiring(item.device_id, port, pos)
                event.accept()
                return True
        if isinstance(item, GroupItem) and (alt or self.wire.mode):
            self.wire.start_wiring(item.group_id, None, pos)
            event.accept()
            return True
        return False

    def _view_zoom(self) -> float:
        views = self.scene.views()
        return views[0].transform().m11() if views else 1.0

    def _group_at(self, pos: QPointF) -> GroupItem | None:
        """The innermost visible group whose frame holds `pos` (zoomed far out, a click means
        the group under the cursor: its boxes are specks and its wires hairlines)."""
        best, depth = None, -1
        for gid, item in self.scene.item_for_group.items():
            if not item.isVisible() or not item.frame_rect().contains(pos):
                continue
            d = self.scene._group_depth(gid)
            if d > depth:
                best, depth = item, d
        return best

    def _select_group_at_overview(self, item: GroupItem, modifiers) -> None:
        scene = self.scene
        if not modifiers & (Qt.KeyboardModifier.ControlModifier
                            | Qt.KeyboardModifier.ShiftModifier):
            scene.clearSelection()
        item.setSelected(True)
        if not item.collapsed:
            self.move.select_group_members(item.group_id)
        name = scene.layout.group(item.group_id).label if scene.layout is not None else ""
        scene.wire_feedback.emit(f"Selected {name} (zoom in to pick what is inside)")

    def after_press(self, event: QGraphicsSceneMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.move.pressed(event.scenePos())

    def move_event(self, event: QGraphicsSceneMouseEvent) -> bool:
        if self.wire.is_wiring:
            self.wire.update_wiring(event.scenePos())
            event.accept()
            return True
        return False

    def after_move(self, event: QGraphicsSceneMouseEvent) -> None:
        if self.move.press_positions and event.buttons() & Qt.MouseButton.LeftButton:
            self.move.dragged()

    def release(self, event: QGraphicsSceneMouseEvent) -> bool:
        if self.wire.is_wiring:
            self.wire.finish_wiring()
            event.accept()
            return True
        return False

    def after_release(self, event: QGraphicsSceneMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.move.press_positions:
            self.move.released()

    @staticmethod
    def accepts_drag(event) -> bool:
        if event.mimeData().hasFormat(MODEL_MIME):
            event.acceptProposedAction()
            return True
        event.ignore()
        return False

    def drop(self, event) -> None:
        if not event.mimeData().hasFormat(MODEL_MIME):
            event.ignore()
            return
        model = bytes(event.mimeData().data(MODEL_MIME)).decode()
        event.acceptProposedAction()
        pos = event.scenePos()
        self.scene.model_dropped.emit(model, (pos.x(), pos.y()))


__all__ = ["MAX_HIGHLIGHTS", "MAX_PAIRS", "MODEL_MIME", "CanvasTools", "MoveTool", "WireTool",
           "top_item"]
