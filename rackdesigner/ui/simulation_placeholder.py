"""Placeholder for the live simulation panel (a later issue replaces this widget).

The main window creates the "Simulation" dock around `SimulationPlaceholder`; the live panel
will take its place through `MainWindow.set_simulation_panel(widget)`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from rackdesigner.ui import style


class SimulationPlaceholder(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        label = QLabel("Live bandwidth, latency and power figures will appear here.", self)
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setStyleSheet(f"color: {style.TEXT_DIM.name()}; padding: 16px;")
        box = QVBoxLayout(self)
        box.addWidget(label)
