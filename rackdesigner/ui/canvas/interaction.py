"""What the user does on the canvas, turned into intent signals of `RackScene`, by two tool
objects with their own state: `WireTool` (a rubber wire being drawn) and `MoveTool` (the items
being dragged). The scene owns them, forwards its Qt mouse events to them, and declares the
signals they emit; the tools read the scene's items and layout, never edit the design.

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

from PySide6.QtCore import QLineF, QPointF, Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QGraphicsLineItem, QGraphicsSceneMouseEvent

from rackdesigner.commands import Refusal, plan_wire, snap
from rackdesigner.commands.bulk import compute_nics, is_switch
from rackdesigner.model import natural_key
from rackdesigner.ui import style
from rackdesigner.ui.canvas.items import DeviceItem, GroupItem

MODEL_MIME = "application/x-rackdesigner-model"
MAX_HIGHLIGHTS = 1500  # compatible-target highlighting is limited to what a user can see
MAX_PAIRS = 5000  # device pairs tried when wiring between collapsed groups


def _item_id(item) -> str:
    return item.device_id if isinstance(item, DeviceItem) else item.group_id


def top_item(scene, pos: QPointF):
    """The visible device or group frame on top at `pos`."""
    for item in scene.items(pos):
        if isinstance(item, DeviceItem | GroupItem) and item.isVisible():
            return item
    return None


class WireTool:
    """A wire being drawn from a device (or collapsed group) to another; `mode` is Wire Mode
    (any drag from a device wires)."""

    def __init__(self, scene) -> None:
        self.scene = scene
        self.mode = False
        self._wire_source: tuple[str, str | None] | None = None
        self._wire_line: QGraphicsLineItem | None = None
        self._wire_target: DeviceItem | GroupItem | None = None
        self._wire_choice: tuple[str, str] | None = None
        self._highlighted: list[DeviceItem] = []
        self.wire_count_text = ""  # digits typed while wiring: the new link's count
        self._bulk_choice: tuple[str, str] | None = None  # (group, switch) under the cursor

    @property
    def layout(self):
        return self.scene.layout

    def forget_item(self, item) -> None:
        """Drop references to an item about to be removed."""
        if item is self._wire_target:
            self._wire_target = None
        if item in self._highlighted:
            self._highlighted.remove(item)

    def start_wiring(self, device_id: str, port: str | None, at: QPointF) -> None:
        self._wire_source = (device_id, port)
        line = QGraphicsLineItem(QLineF(at, at))
        pen = QPen(style.SELECTION, 2, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        line.setPen(pen)
        line.setZValue(100)
        self.scene.addItem(line)
        self._wire_line = line
        self._highlight_targets()
        what = f"{device_id}:{port}" if port else device_id
        self.scene.wire_feedback.emit(f"Wiring from {what}: release on a highlighted device")

    def _highlight_targets(self) -> None:
        assert self._wire_source is not None
        source, port = self._wire_source
        if source not in self.scene.item_for_device:
            return  # wiring from a collapsed group: too many pairs to try up front
        area = None
        for view in self.scene.views():
            area = view.mapToScene(view.viewport().rect()).boundingRect()
        candidates = self.scene.items(area) if area is not None else self.scene.items()
        count = 0
        for item in candidates:
            if not isinstance(item, DeviceItem) or not item.isVisible():
                continue
            if item.device_id == source or count >= MAX_HIGHLIGHTS:
                continue
            if plan_wire(self.layout, source, item.device_id, port):
                item.set_wire_state("ok")
                self._highlighted.append(item)
                count += 1

    def update_wiring(self, pos: QPointF) -> None:
        assert self._wire_source is not None and self._wire_line is not None
        line = self._wire_line.line()
        line.setP2(pos)
        self._wire_line.setLine(line)
        source, port = self._wire_source
        target = self._target_at(pos, source)
        if target is self._wire_target:
            return
        if self._wire_target is not None:
            self._wire_target.set_wire_state("ok" if self._wire_target in self._highlighted
                                             else None)
        self._wire_target = target
        self._wire_choice = None
        self._bulk_choice = None
        if target is None:
            self.scene.wire_feedback.emit("")
            return
        bulk = self._bulk_pair(source, _item_id(target))
        if bulk is not None:
            self._bulk_choice = bulk
            target.set_wire_state("ok")
            self.scene.wire_feedback.emit(f"Release to connect the compute NICs of {bulk[0]} to "
                                          f"{bulk[1]} (a dialog shows what will be wired)")
            return
        a, b, plan = self._choose(source, port, _item_id(target))
        if plan:
            self._wire_choice = (a, b)
            target.set_wire_state("ok")
            self.scene.wire_feedback.emit(f"Release to wire {plan.describe()}{self._count_note()}")
        else:
            target.set_wire_state("refused")
            self.scene.wire_feedback.emit(f"Cannot wire: {plan.reason}")

    def _count_note(self) -> str:
        if self.wire_count_text:
            return f" ×{self.wire_count_text} (typed; Backspace to change)"
        return " (type a number for several ports)"

    def type_wire_count(self, text: str) -> bool:
        """A key typed while wiring: digits set the new link's count, Backspace edits it."""
        if not self.is_wiring:
            return False
        if text == "\b":
            self.wire_count_text = self.wire_count_text[:-1]
        elif text.isdigit() and len(self.wire_count_text) < 4:
            self.wire_count_text = (self.wire_count_text + text).lstrip("0")
        else:
            return False
        target = self._wire_target
        if target is not None and self._wire_choice is not None:
            plan = plan_wire(self.layout, *self._wire_choice,
                             self._wire_source[1] if self._wire_source else None)
            if plan:
                self.scene.wire_feedback.emit(
                    f"Release to wire {plan.describe()}{self._count_note()}")
                return True
        count = self.wire_count_text or "1"
        self.scene.wire_feedback.emit(f"Wiring ×{count}: release on a highlighted device")
        return True

    def _bulk_pair(self, source: str, target: str) -> tuple[str, str] | None:
        """(group, switch) when a wire goes from a group with compute NICs to a switch (from
        the switch to a collapsed group stays one wire to its first free member)."""
        assert self.layout is not None
        layout = self.layout
        if (layout.has_group(source) and layout.has_device(target) and is_switch(layout, target)
                and compute_nics(layout, source)):
            return source, target
        return None

    def _target_at(self, pos: QPointF, source: str) -> DeviceItem | GroupItem | None:
        """The device, or collapsed group, under the cursor while wiring."""
        for item in self.scene.items(pos):
            if not item.isVisible() or not isinstance(item, DeviceItem | GroupItem):
                continue
            if _item_id(item) == source:
                continue
            if isinstance(item, DeviceItem) or item.collapsed:
                return item
        return None

    def _members(self, endpoint: str) -> list[str]:
        """The devices a wiring endpoint stands for: itself, or a collapsed group's devices."""
        if endpoint in self.scene.item_for_device:
            return [endpoint]
        return sorted(self.layout.group_devices(endpoint), key=natural_key)

    def _choose(self, source: str, port: str | None, target: str):
        """(device a, device b, plan) for a wire between two endpoints: the first pair of
        devices with free compatible ports; (None, None, Refusal) when there is none."""
        sources, targets = self._members(source), self._members(target)
        if port is not None and source not in self.scene.item_for_device:
            port = None
        first_refusal = None
        tries = 0
        for a in sources:
            for b in targets:
                if a == b:
                    continue
                plan = plan_wire(self.layout, a, b, port)
                if plan:
                    return a, b, plan
                first_refusal = first_refusal or plan
                tries += 1
                if tries >= MAX_PAIRS:
                    break
        if len(sources) == 1 and len(targets) == 1 and first_refusal is not None:
            return None, None, first_refusal
        what = f"{source}:{port}" if port else source
        inside = target if len(targets) > 1 else source
        return None, None, Refusal(f"no device inside {inside} has a free port to wire "
                                   f"{what} to {target} (expand the group to see why)")

    def finish_wiring(self) -> None:
        source = self._wire_source
        target = self._wire_target
        choice = self._wire_choice
        bulk = self._bulk_choice
        count = int(self.wire_count_text or "1")
        refusal = None
        if source is not None and target is not None and choice is None and bulk is None:
            refusal = self._choose(source[0], source[1], _item_id(target))[2]
        self.cancel_wiring()
        if source is None or target is None:
            return
        if bulk is not None:
            self.scene.bulk_wire_requested.emit(*bulk)
        elif choice is not None:
            port = source[1] if choice[0] == source[0] else None
            self.scene.wire_requested.emit(choice[0], choice[1], port, count)
        elif isinstance(target, DeviceItem) and source[0] in self.scene.item_for_device:
            # let the editor refuse it, with the reason, as a keyboard-free wire would be
            self.scene.wire_requested.emit(source[0], target.device_id, source[1], count)
        elif refusal is not None:
            self.scene.wire_feedback.emit(f"Cannot wire {source[0]} to {_item_id(target)}: "
                                    f"{refusal.reason}")

    def cancel_wiring(self) -> None:
        if self._wire_line is not None:
            self.scene.removeItem(self._wire_line)
        self._wire_line = None
        for item in self._highlighted:
            item.set_wire_state(None)
        if self._wire_target is not None:
            self._wire_target.set_wire_state(None)
        self._highlighted = []
        self._wire_target = None
        self._wire_choice = None
        self._bulk_choice = None
        self._wire_source = None
        self.wire_count_text = ""

    @property
    def is_wiring(self) -> bool:
        return self._wire_source is not None

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
