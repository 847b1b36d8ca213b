"""The what-if bar: shown while anything is marked failed, above the headline figures.

It says what is failed and what that costs in GPUs (failed with their nodes, stranded without a
path to the rest, degraded with fewer NICs or NVLinks), and that the figures below are compared
with the intact design — the same deltas as a pinned baseline, but automatic. "Restore all"
asks the window to restore every failure (one undo step).
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

from rackdesigner.analysis.whatif import DEFAULT_SIZE, MarkedImpact, figures
from rackdesigner.simulation import SimulationResult
from rackdesigner.ui.panel.theme import DOWN

MAX_NAMED = 4


class FailureBar(QWidget):
    restore_all_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.label.setMinimumWidth(10)
        self.restore_button = QToolButton(self)
        self.restore_button.setText("Restore all")
        self.restore_button.setToolTip("Bring every failed device, link and group back "
                                       "(one undo step)")
        self.restore_button.clicked.connect(self.restore_all_requested)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.restore_button)
        self.setVisible(False)

    def show_impact(self, impact: MarkedImpact | None, result: SimulationResult | None = None,
                    size: int = DEFAULT_SIZE) -> None:
        if impact is None:
            self.setVisible(False)
            return
        names = escape(", ".join(impact.marked[:MAX_NAMED]))
        if len(impact.marked) > MAX_NAMED:
            names += f" and {len(impact.marked) - MAX_NAMED} more"
        state = ("<b>the design is partitioned</b>: " if impact.partitioned else "")
        a2a = ""
        if result is not None:
            before = figures(impact.intact, size)["all_to_all_busbw_GBps"]
            after = figures(result, size)["all_to_all_busbw_GBps"]
            if before:
                a2a = f", all_to_all busbw {((after or 0.0) - before) / before * 100:+.1f}%"
        self.label.setText(
            f"<span style='color:{DOWN}'><b>What-if:</b> {names} failed</span> — {state}"
            f"GPUs failed {impact.failed_gpus:,}, stranded {impact.stranded_gpus:,}, "
            f"degraded {impact.degraded_gpus:,}{a2a}; figures below are compared with the intact "
            "design")
        self.setVisible(True)
