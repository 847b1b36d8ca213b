"""Compare: a pinned baseline result the plots and headline figures are compared against.

Pinning keeps the whole `LiveResult` (a frozen value), so the baseline survives any later edit
and can be saved as JSON in the `simulate --json` shape, with a label saying what it was.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from rackdesigner.ui.panel.export import write_result
from rackdesigner.ui.panel.live import LiveResult
from rackdesigner.ui.panel.theme import TEXT_DIM


@dataclass(frozen=True)
class Baseline:
    live: LiveResult
    label: str
    when: str = ""


class BaselineStore(QObject):
    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.baseline: Baseline | None = None

    def pin(self, live: LiveResult | None) -> bool:
        if live is None or live.result is None:
            return False
        scope = live.result.scope
        when = _dt.datetime.now().strftime("%H:%M:%S")
        self.baseline = Baseline(live, f"{scope.gpus:,} GPUs, {scope.label}, pinned {when}",
                                 when)
        self.changed.emit()
        return True

    def clear(self) -> None:
        if self.baseline is not None:
            self.baseline = None
            self.changed.emit()

    def save(self, path: str | Path) -> Path:
        if self.baseline is None or self.baseline.live.result is None:
            raise ValueError("no baseline is pinned")
        return write_result(self.baseline.live.result, path, "json")


class CompareBar(QWidget):
    """"Pin as baseline", "Clear", "Save…" and what the baseline is."""

    def __init__(self, store: BaselineStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.pin_button = QPushButton("Pin as baseline", self)
        self.pin_button.setToolTip("Keep the current figures; later edits are compared with them")
        self.clear_button = QPushButton("Clear", self)
        self.save_button = QPushButton("Save…", self)
        self.save_button.setToolTip("Save the baseline's results as JSON")
        self.label = QLabel(self)
        self.label.setStyleSheet(f"color: {TEXT_DIM}; font-size: 8pt;")
        self.label.setMinimumWidth(10)
        box = QHBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        for w in (self.pin_button, self.clear_button, self.save_button):
            box.addWidget(w)
        box.addWidget(self.label, 1)
        store.changed.connect(self._on_store_changed)
        self._on_store_changed()

    def _on_store_changed(self) -> None:
        base = self.store.baseline
        self.clear_button.setEnabled(base is not None)
        self.save_button.setEnabled(base is not None)
        self.label.setText(f"Baseline pinned {base.when} (dashed)" if base else "")
        self.label.setToolTip(f"Baseline: {base.label}" if base else "")
