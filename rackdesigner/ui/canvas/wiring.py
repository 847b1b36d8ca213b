"""`WireTool`: a rubber wire being drawn on the canvas (ui/canvas/interaction.py holds the
other tools and forwards the scene's mouse events here).

A drag that starts on a port row (or anywhere on a device or group with Alt held, or in wire
mode) draws a rubber wire; devices under the cursor turn green or red, the reason goes to
`wire_feedback`, and release emits `wire_requested` (with the link count typed while dragging:
digits, Backspace). A drag from a group (a node) onto a switch asks for bulk wiring instead
(`bulk_wire_requested`: the group's compute NICs onto the switch). The tool reads the scene's
items and layout and never edits the design: the scene's signal becomes one command.
"""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF, Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QGraphicsLineItem

from rackdesigner.commands import Refusal, plan_wire
from rackdesigner.commands.bulk import compute_nics, is_switch
from rackdesigner.model import natural_key
from rackdesigner.ui import style
from rackdesigner.ui.canvas.items import DeviceItem, GroupItem

MAX_HIGHLIGHTS = 1500  # compatible-target highlighting is limited to what a user can see
MAX_PAIRS = 5000  # device pairs tried when wiring between collapsed groups


def _item_id(item) -> str:
    return item.device_id if isinstance(item, DeviceItem) else item.group_id


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
