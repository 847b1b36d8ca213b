"""The Racks tab's Unracked list (units dragged from it onto an elevation) and the dialog of
Place unracked… (which racks to fill)."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
)

from rackdesigner.ui.racks.view import UNIT_MIME


class UnrackedList(QListWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setDragEnabled(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)

    def mimeData(self, items) -> QMimeData:
        mime = QMimeData()
        if items:
            mime.setData(UNIT_MIME, items[0].data(Qt.ItemDataRole.UserRole).encode())
        return mime

    def mimeTypes(self) -> list[str]:
        return [UNIT_MIME]


class PlaceDialog(QDialog):
    """Choose the racks `Place unracked…` fills (the selected racks checked, or all)."""

    def __init__(self, racks: list[tuple[str, str]], parent=None,
                 checked: set[str] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Place unracked units")
        self.setMinimumWidth(380)  # wide enough for its title in common window managers
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Fill these racks first-fit from the bottom, keeping each "
                                "system whole and each rack within its U and power budget:"))
        self.list = QListWidget(self)
        for rack_id, label in racks:
            item = QListWidgetItem(label, self.list)
            item.setData(Qt.ItemDataRole.UserRole, rack_id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if checked is None or rack_id in checked
                               else Qt.CheckState.Unchecked)
        layout.addWidget(self.list)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, parent=self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.buttons = buttons

    def chosen(self) -> list[str]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())
                if self.list.item(i).checkState() == Qt.CheckState.Checked]
