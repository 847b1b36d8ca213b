"""The editor: turns what the user does on the canvas and in the panels into commands.

It owns no state of its own beyond the clipboard paste offset: the document holds the layout
and undo stack, the scene holds the items. Every method here ends in `Document.push`.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QGraphicsItem

from rackdesigner.commands import (
    AddItems,
    Command,
    MoveDevices,
    Refusal,
    RemoveItems,
    add_model,
    change_group,
    extract,
    group_devices,
    paste,
    ungroup,
    wire,
)
from rackdesigner.ui import placement, style
from rackdesigner.ui.canvas.items import BundleItem, DeviceItem, GroupItem
from rackdesigner.ui.canvas.scene import RackScene
from rackdesigner.ui.canvas.view import RackView
from rackdesigner.ui.document import Document
from rackdesigner.ui.plain_text import plain

log = logging.getLogger(__name__)
PASTE_STEP = 40.0
CONFIRM_ABOVE = 12  # zoomed out, deleting more devices than this asks first


class Editor(QObject):
    message = Signal(str)
    selection_set = Signal()  # a programmatic selection is complete

    def __init__(self, document: Document, scene: RackScene, view: RackView,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.scene = scene
        self.view = view
        self._paste_count = 0
        # devices asked for by id (a rack chosen in the Racks view, a finding) that the canvas
        # draws only through a collapsed group: that group is selected on the canvas, the
        # devices are what the selection means, until the selection changes otherwise
        self._stand_ins: dict[str, list[str]] = {}
        self._selecting = False
        scene.selectionChanged.connect(self._on_scene_selection_changed)
        scene.model_dropped.connect(self.drop_model)
        scene.move_finished.connect(self._on_scene_move_finished)
        scene.wire_requested.connect(self.wire)
        scene.bulk_wire_requested.connect(self.connect_group_to_switch)
        self.bulk_dialog = None  # the open bulk-wiring dialog (tests drive it)
        self.confirm_box = None  # the open delete confirmation
        scene.group_toggled.connect(self.toggle_group)
        scene.wire_feedback.connect(self.message)
        view.nudge_requested.connect(self.nudge)

    @property
    def layout(self):
        return self.document.layout

    def push(self, command: Command) -> bool:
        return self.document.push(command)

    # ---- selection -------------------------------------------------------------------------
    def selection(self) -> tuple[list[str], list[str], list[str]]:
        """Selected (devices, links, groups), devices inside collapsed groups included.

        A collapsed group selected by `select_ids` for devices it draws stands for those
        devices (the NVL72 rack device chosen in the Racks view is the rack, not its whole
        system) until the user selects something else."""
        devices: list[str] = []
        links: list[str] = []
        groups: list[str] = []
        for item in self.scene.selectedItems():
            if isinstance(item, DeviceItem):
                devices.append(item.device_id)
            elif isinstance(item, GroupItem):
                groups.append(item.group_id)
            elif isinstance(item, BundleItem):
                links.extend(item.link_ids)
        if self._stand_ins:
            meant = [i for g in groups if g in self._stand_ins for i in self._stand_ins[g]]
            groups = [g for g in groups if g not in self._stand_ins]
            has_device = self.layout.has_device
            devices = list({*devices, *(i for i in meant if has_device(i))})
            groups = list({*groups, *(i for i in meant if not has_device(i))})
        return sorted(devices), sorted(links), sorted(groups)

    def _on_scene_selection_changed(self) -> None:
        if not self._selecting:
            self._stand_ins = {}  # the user selected something else

    def select_ids(self, ids: tuple[str, ...] | list[str]) -> QGraphicsItem | None:
        """Select the items standing for these ids (devices, links, groups) and show them.
        A device (or group) drawn only through a collapsed group selects that group on the
        canvas, and `selection()` reports what was asked for (its Inspector page, not the
        outer group's)."""
        self._selecting = True
        try:
            return self._select_ids(ids)
        finally:
            self._selecting = False

    def _select_ids(self, ids: tuple[str, ...] | list[str]) -> QGraphicsItem | None:
        self.scene.clearSelection()
        self.scene.flush()
        self._stand_ins = {}
        first = None
        layout = self.layout
        asked = set(ids)
        for object_id in ids:
            # itself, or the collapsed group or aggregate block it is drawn in
            item = self.scene.item_standing_for(object_id)
            if first is None and isinstance(item, GroupItem) and item.block:
                # inside an aggregate block (zoomed far out): go to it, so it is drawn
                point = self.scene.object_point(object_id)
                if point is not None:
                    self.view.show_point(point)
                    item = self.scene.item_standing_for(object_id)
            if item is not None:
                item.setSelected(True)
                first = first or item
                if (isinstance(item, GroupItem) and item.group_id not in asked
                        and (layout.has_device(object_id) or layout.has_group(object_id))):
                    self._stand_ins.setdefault(item.group_id, []).append(object_id)
        if first is not None:
            self.view.stop_keeping_fitted()  # the user went to something: a resize keeps it
            self.view.ensureVisible(first, 60, 60)
        self.selection_set.emit()
        return first

    def select_all(self) -> None:
        for item in self.scene.items():
            if item.isVisible() and isinstance(item, DeviceItem | GroupItem | BundleItem):
                item.setSelected(True)
        self.selection_set.emit()

    # ---- adding ------------------------------------------------------------------------------
    def drop_model(self, model: str, scene_pos: tuple[float, float],
                   collapsed: bool = True) -> bool:
        """What a palette drop does: place `model` centred under the drop point, or in the
        nearest free space when something is drawn there; a system arrives `collapsed`."""
        x, y = scene_pos
        return self._place(model, x - style.DEVICE_WIDTH / 2, y - 20, collapsed) is not None

    def add_at_center(self, model: str) -> bool:
        """Place `model` at the view centre (Palette Enter / double-click), or the nearest
        free space around it, and select it."""
        center = self.view.mapToScene(self.view.viewport().rect().center())
        command = self._place(model, center.x() - style.DEVICE_WIDTH / 2, center.y() - 20)
        if command is None:
            return False
        self.select_ids([d.id for d in command.devices if d.group is None]
                        + [g.id for g in command.groups if g.parent is None])
        return True

    def _place(self, model: str, x: float, y: float, collapsed: bool = True
               ) -> AddItems | None:
        """Add `model` at (x, y) moved into free space (a system as one block unless not
        `collapsed`: expanded, a DGX fills the view)."""
        command = add_model(self.layout, model, (x, y), collapsed=collapsed)
        dx, dy = placement.free_offset(self.scene, placement.footprint(command))
        if dx or dy:
            command = placement.moved(command, dx, dy)
        return command if self.push(command) else None

    # ---- wiring -------------------------------------------------------------------------------
    def wire(self, a: str, b: str, a_port: str | None = None, count: int = 1) -> bool:
        command = wire(self.layout, a, b, a_port, count=count)
        if isinstance(command, Refusal):
            self.message.emit(f"Cannot wire {a} to {b}: {command.reason}")
            return False
        if self.push(command):
            link = command.links[0]
            times = f" ×{link.count}" if link.count > 1 else ""
            cable = f" with {link.cable}, {link.length_m:g} m" if link.cable else ""
            if link.cable and None in (self.layout.device(link.a.device).rack,
                                       self.layout.device(link.b.device).rack):
                cable += " (assumed: an end is in no rack)"
            self.message.emit(f"Wired {link.a} ↔ {link.b}{times}{cable}")
            return True
        return False

    def connect_group_to_switch(self, group_id: str, switch_id: str) -> bool:
        """Offer to connect the free compute NIC ports of a node (group) to a switch."""
        from rackdesigner.commands.bulk import plan_node_to_switch

        plan = plan_node_to_switch(self.layout, group_id, switch_id)
        label = self.layout.group(group_id).label if self.layout.has_group(group_id) else group_id
        return self._offer(plan, f"Connect {label} to {switch_id}", "Connect")

    def wire_rails(self) -> bool:
        """Rail-optimized wiring of the selected nodes onto the selected leaf switches."""
        from rackdesigner.commands.bulk import compute_nics, is_switch, plan_rails
        from rackdesigner.model import natural_key

        devices, _, groups = self.selection()
        nodes = [g for g in groups if compute_nics(self.layout, g)]
        # a selected node's members come selected with it: they are not leaves
        leaves = sorted((d for d in devices if is_switch(self.layout, d)), key=natural_key)
        return self._offer(plan_rails(self.layout, nodes, leaves), "Wire rails", "Wire")

    def _offer(self, plan, title: str, action: str) -> bool:
        from rackdesigner.commands.bulk import BulkPlan
        from rackdesigner.ui.bulk_wire import BulkWireDialog

        if not isinstance(plan, BulkPlan):
            self.message.emit(f"Cannot {title[0].lower() + title[1:]}: {plan.reason}")
            return False
        parent = self.view.window()
        dialog = BulkWireDialog(title, plan, action, parent)
        self.bulk_dialog = dialog

        def apply() -> None:
            if self.push(plan.command(f"{title} ({len(plan.links)} links)")):
                self.select_ids([link.id for link in plan.links])
                self.message.emit(f"{title}: {plan.port_count} ports wired")

        dialog.accepted.connect(apply)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return True

    # ---- moving -------------------------------------------------------------------------------
    def _on_scene_move_finished(self, moves: dict) -> None:
        self.push(MoveDevices(moves))

    def nudge(self, dx: float, dy: float) -> None:
        devices, _, groups = self.selection()
        ids = set(devices)
        for gid in groups:
            ids.update(self.layout.group_devices(gid))
        moves = {}
        for device_id in sorted(ids):
            x, y = self.layout.device(device_id).pos
            moves[device_id] = ((x, y), (x + dx, y + dy))
        if moves:
            self.push(MoveDevices(moves, nudge=True))

    # ---- removing, grouping ------------------------------------------------------------------
    def toggle_failed(self) -> bool:
        """Fail the selection, or restore it when all of it is failed (one undo step)."""
        from rackdesigner.commands.failures import toggle_failed

        devices, links, groups = self.selection()
        command = toggle_failed(self.layout, [*groups, *devices, *links])
        return command is not None and self.push(command)

    def restore_all(self) -> bool:
        from rackdesigner.commands.failures import restore_all

        command = restore_all(self.layout)
        return command is not None and self.push(command)

    def delete_selection(self) -> bool:
        """Delete the selection; zoomed out, where what is selected cannot be read, more than
        `CONFIRM_ABOVE` devices are removed only after a confirmation (`confirm_box`)."""
        devices, links, groups = self.selection()
        if not (devices or links or groups):
            return False
        command = RemoveItems(devices, links, groups)
        ids = set(devices)
        for gid in groups:
            ids.update(self.layout.group_devices(gid))
        if len(ids) > CONFIRM_ABOVE and self.view.zoom() < style.LOD_TEXT:
            return self._confirm_delete(command, ids, groups)
        return self.push(command)

    def _confirm_delete(self, command: RemoveItems, ids: set[str], groups: list[str]) -> bool:
        from PySide6.QtWidgets import QMessageBox

        links = {link.id for d in ids for link in self.layout.links_of(d)}
        chosen = set(groups)  # name what was picked, not the members selected with it
        tops = [g for g in groups if self.layout.group(g).parent not in chosen]
        names = ", ".join(self.layout.group(g).label for g in tops[:3])
        more = f" and {len(tops) - 3} more" if len(tops) > 3 else ""
        where = f" (in {names}{more})" if groups else ""
        box = QMessageBox(QMessageBox.Icon.Warning, "Delete",
                          plain(f"Delete {len(ids):,} devices and {len(links):,} links{where}?"
                                "\n\nUndo brings them back."),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                          self.view.window())
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        self.confirm_box = box

        def done(_result: int) -> None:
            if box.clickedButton() is box.button(QMessageBox.StandardButton.Yes):
                self.push(command)
            box.deleteLater()

        box.finished.connect(done)
        box.open()
        return False

    def group_selection(self) -> bool:
        devices, _, groups = self.selection()
        ids = list(devices)
        for gid in groups:
            ids.extend(self.layout.group_devices(gid, recursive=False))
        if not ids:
            self.message.emit("Select devices to group")
            return False
        return self.push(group_devices(self.layout, ids))

    def ungroup_selection(self) -> bool:
        _, _, groups = self.selection()
        if not groups:
            self.message.emit("Select a group to ungroup")
            return False
        return self.push(ungroup(self.layout, groups[0]))

    def toggle_group(self, group_id: str | None = None) -> bool:
        if group_id is None:
            groups = self.selection()[2]
            if not groups:
                self.message.emit("Select a group to collapse or expand")
                return False
            group_id = groups[0]
        group = self.layout.group(group_id)
        verb = "Expand" if group.collapsed else "Collapse"
        return self.push(change_group(group_id, f"{verb} {group.label}",
                                      collapsed=not group.collapsed))

    # ---- clipboard ----------------------------------------------------------------------------
    def copy_text(self) -> str | None:
        from rackdesigner.io import dump_layout_text

        devices, _, groups = self.selection()
        if not devices and not groups:
            return None
        return dump_layout_text(extract(self.layout, devices, groups))

    def copy(self) -> bool:
        text = self.copy_text()
        if text is None:
            self.message.emit("Nothing selected to copy")
            return False
        QGuiApplication.clipboard().setText(text)
        self._paste_count = 0
        self.message.emit("Copied the selection as YAML")
        return True

    def cut(self) -> bool:
        if self.copy():
            return self.delete_selection()
        return False

    def paste_text(self, text: str, offset: tuple[float, float] | None = None) -> bool:
        from rackdesigner.io import LayoutFileError, parse_layout_text

        try:
            clip = parse_layout_text(text, "clipboard", self.layout.catalog)
        except LayoutFileError as exc:
            self.message.emit(f"The clipboard does not hold a layout: {exc}")
            return False
        if clip.device_count() == 0:
            self.message.emit("The clipboard layout is empty")
            return False
        if offset is None:
            self._paste_count += 1
            offset = (PASTE_STEP * self._paste_count, PASTE_STEP * self._paste_count)
        command = paste(self.layout, clip, offset)
        if self.push(command):
            self.select_ids([d.id for d in command.devices if d.group is None]
                            + [g.id for g in command.groups if g.parent is None])
            return True
        return False

    def paste(self) -> bool:
        return self.paste_text(QGuiApplication.clipboard().text())

    def duplicate(self) -> bool:
        devices, _, groups = self.selection()
        if not devices and not groups:
            self.message.emit("Nothing selected to duplicate")
            return False
        command = paste(self.layout, extract(self.layout, devices, groups),
                        (PASTE_STEP, PASTE_STEP), text="Duplicate")
        if self.push(command):
            self.select_ids([d.id for d in command.devices if d.group is None]
                            + [g.id for g in command.groups if g.parent is None])
            return True
        return False

