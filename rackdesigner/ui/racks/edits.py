"""The Racks tab's edits: drops on the elevations and the floor, faces, Place unracked….

`RackEdits` is a mixin of `RacksPanel` (ui/racks/panel.py). Each gesture becomes one command
emitted on `command_requested`, which the window pushes on the document's one undo stack.
"""

from __future__ import annotations

from PySide6.QtWidgets import QDialog

from rackdesigner.commands.racks import (
    add_mounted,
    add_rack,
    add_side_mounted,
    mount,
    move_racks_on_floor,
    place_unracked,
    set_side_rack,
)
from rackdesigner.model.layout import natural_key
from rackdesigner.ui.plain_text import plain
from rackdesigner.ui.racks.items import RackItem
from rackdesigner.ui.racks.unracked import PlaceDialog


class RackEdits:
    """The commands `RacksPanel` asks for (a mixin: `self` is the panel)."""

    def _on_model_dropped(self, model: str, rack_id: str, u: int) -> None:
        assert self.layout_doc is not None
        command = add_mounted(self.layout_doc, model, rack_id, u, self.scene.face)
        self.command_requested.emit(self._placed(command, rack_id))
        self.refresh()

    def _on_side_dropped(self, which: str, value: str, rack_id: str) -> None:
        """A 0U model or device (a vertical PDU) to a rack's side channel, or out of its rack."""
        assert self.layout_doc is not None
        if which == "model":
            command = add_side_mounted(self.layout_doc, value, rack_id)
            self.command_requested.emit(self._placed(command, rack_id))
        else:
            self.command_requested.emit(set_side_rack(self.layout_doc, value, rack_id or None))
        self.flush()

    def _placed(self, command, rack_id: str):
        """`command` with its canvas position given by `placer` (the window's: beside the
        rack's other devices, in free space), when one is set."""
        return self.placer(command, rack_id) if self.placer is not None else command

    def _on_rack_dropped(self, model: str) -> None:
        assert self.layout_doc is not None
        self.command_requested.emit(add_rack(self.layout_doc, model))
        self.refresh()

    def _on_floor_rack_added(self, model: str, x_m: float, y_m: float) -> None:
        assert self.layout_doc is not None
        self.command_requested.emit(add_rack(self.layout_doc, model, (x_m, y_m)))
        self.refresh()  # the floor tab is shown: the plan is rebuilt too

    def _on_units_moved(self, moves: dict) -> None:
        assert self.layout_doc is not None
        placements = {unit: (rack, u, self.scene.face) for unit, (rack, u) in moves.items()}
        self.command_requested.emit(mount(self.layout_doc, placements, self.scene.index))
        self.flush()  # the units that moved and their racks, not a rebuild

    def set_face_of(self, unit_ids: list[str], face: str) -> bool:
        """Move units to the other face of their rack (same U), or out of it (face "")."""
        index = self.scene.index
        assert self.layout_doc is not None and index is not None
        placements = {}
        for unit_id in unit_ids:
            unit = index.units[unit_id]
            if not face:
                placements[unit_id] = (None, None, "front")
                continue
            why = index.check_slot(unit.height_u, unit.rack or "", unit.u or 1, face,
                                   ignore=unit_ids)
            if why is not None:
                self.message.emit(f"Cannot mount {unit.label} at the {face}: {why}")
                return False
            placements[unit_id] = (unit.rack, unit.u, face)
        self.command_requested.emit(mount(self.layout_doc, placements, index))
        self.flush()
        return True

    def _on_racks_dropped(self, moves: dict) -> None:
        assert self.layout_doc is not None
        self.command_requested.emit(move_racks_on_floor(self.layout_doc, moves))
        self.refresh()

    def place_unracked(self, racks: list[str]) -> str:
        """Fill `racks` first-fit with the unracked units; returns the report."""
        assert self.layout_doc is not None
        command, report = place_unracked(self.layout_doc, racks)
        if command is not None:
            self.command_requested.emit(command)
            self.refresh()
        lines = report.splitlines()
        where = "; ".join(line.strip() for line in lines[1:4] if "→" in line)
        self.message.emit("Place unracked: " + lines[0].rstrip(":")
                          + (f" ({where}{'; …' if len(lines) > 4 else ''})" if where else ""))
        return report

    def place_unracked_dialog(self) -> str | None:
        from PySide6.QtWidgets import QMessageBox

        index = self.scene.index
        if index is None or not index.unracked():
            self.message.emit("Nothing to place: every unit has a rack slot")
            return None
        racks = sorted(index.racks, key=natural_key)
        selected = {i.rack_id for i in self.scene.selectedItems() if isinstance(i, RackItem)}
        dialog = PlaceDialog([(r, index.rack_label(r)) for r in racks], self, selected or None)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        report = self.place_unracked(dialog.chosen())
        QMessageBox.information(self, "Place unracked", plain(report))
        return report
