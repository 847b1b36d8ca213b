"""The Workload tab's page: Training (the step-time estimate, `WorkloadTab`) or Serving (the
serving curve, `ServingView`), one at a time, chosen by a mode switch at the top. The two views
keep their own options; the hidden one computes nothing (each runs only while shown)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from rackdesigner.ui.panel.theme import TEXT_DIM

MODES = ("Training", "Serving")


class WorkloadModes(QWidget):
    def __init__(self, training: QWidget, serving: QWidget,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.training, self.serving = training, serving
        self.mode_combo = QComboBox(self)
        self.mode_combo.addItems(MODES)
        self.mode_combo.setToolTip("Training: step time of a training job; Serving: tokens/s "
                                   "per GPU against tokens/s per user (docs/serving.md)")
        self.stack = QStackedWidget(self)
        self.stack.addWidget(training)
        self.stack.addWidget(serving)
        self.mode_combo.currentIndexChanged.connect(self.stack.setCurrentIndex)
        label = QLabel("Mode", self)
        label.setStyleSheet(f"color: {TEXT_DIM}; font-size: 8pt;")
        row = QHBoxLayout()
        row.addWidget(label)
        row.addWidget(self.mode_combo)
        row.addStretch(1)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        box.addLayout(row)
        box.addWidget(self.stack, 1)

    def set_mode(self, mode: str) -> None:
        """"Training" or "Serving"."""
        self.mode_combo.setCurrentIndex(MODES.index(mode))


__all__ = ["MODES", "WorkloadModes"]
