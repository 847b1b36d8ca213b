"""Compare: a pinned baseline result the plots and headline figures are compared against.

Pinning keeps the whole `LiveResult` (a frozen value), so the baseline survives any later edit
and can be saved as JSON in the `simulate --json` shape, with a label saying what it was. Such a
file — or any `simulate --json` output — loads back as the baseline (`BaselineStore.load`), so
an alternative saved last week, or computed on the command line, can be compared while editing.
A file that is not a result raises `ResultFormatError` with a readable reason (never a bare
KeyError), which the panel shows as a message.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.simulation.readback import load_result
from rackdesigner.ui.panel.export import write_result
from rackdesigner.ui.panel.live import LiveResult
from rackdesigner.ui.panel.theme import DOWN, TEXT_DIM
from rackdesigner.ui.plain_text import plain


@dataclass(frozen=True)
class Baseline:
    live: LiveResult
    label: str
    when: str = ""
    source: str = ""  # the file it was loaded from ("" when pinned in this session)
    design: str = ""  # the design (file name) that was open when it was pinned
    cost: Any = None  # the Cost tab's CostReport when pinned (None: loaded, or not costed)

    @property
    def origin(self) -> str:
        if self.source:
            return f"from {Path(self.source).name}"
        return f"{self.design}, pinned {self.when}" if self.design else f"pinned {self.when}"


class BaselineStore(QObject):
    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.baseline: Baseline | None = None

    def pin(self, live: LiveResult | None, design: str = "", cost: Any = None) -> bool:
        """Keep `live` as the baseline; `design` names the document it was computed on and
        `cost` is its cost report (the Cost tab's), compared against too."""
        if live is None or live.result is None:
            return False
        scope = live.result.scope
        when = _dt.datetime.now().strftime("%H:%M:%S")
        of = f" of {design}" if design else ""
        self.baseline = Baseline(live, f"{scope.gpus:,} GPUs{of}, {scope.label}, pinned {when}",
                                 when, design=design, cost=cost)
        self.changed.emit()
        return True

    def clear(self) -> None:
        if self.baseline is not None:
            self.baseline = None
            self.changed.emit()

    def load(self, path: str | Path) -> Baseline:
        """Make the result saved in `path` the baseline; `ResultFormatError` if it is not one."""
        result = load_result(path)
        live = LiveResult(request=-1, revision=-1, scope=None, algorithm=result.algorithm,
                          result=result)
        name = Path(path).name
        self.baseline = Baseline(live, f"{result.scope.gpus:,} GPUs, {result.scope.label}, "
                                 f"loaded from {name}", "", str(path))
        self.changed.emit()
        return self.baseline

    def save(self, path: str | Path) -> Path:
        if self.baseline is None or self.baseline.live.result is None:
            raise ValueError("no baseline is pinned")
        return write_result(self.baseline.live.result, path, "json")


def _button(text: str, parent: QWidget) -> QToolButton:
    """Tool buttons, not push buttons: four of these fit a narrow dock (push buttons have a
    large minimum width in most styles)."""
    button = QToolButton(parent)
    button.setText(text)
    return button


class CompareBar(QWidget):
    """"Pin as baseline", "Clear", "Save…", "Load…" and what the baseline is; the file
    buttons ask for a file and report the outcome through `message` (never a dialog)."""

    message = Signal(str)

    def __init__(self, store: BaselineStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.pin_button = _button("Pin as baseline", self)
        self.pin_button.setToolTip("Keep the current figures; later edits are compared with them")
        self.clear_button = _button("Clear", self)
        self.save_button = _button("Save…", self)
        self.save_button.setToolTip("Save the baseline's results as JSON")
        self.load_button = _button("Load…", self)
        self.load_button.setToolTip("Load a baseline saved before, or the output of "
                                    "'rackdesigner simulate --json', to compare against")
        self.design = ""  # the open design's name (`set_design`), to flag another design's
        self.folder = ""  # where the open design lives: file dialogs start there
        # The whole label on its own line, wrapped: a truncated "Baseline pinned 08:20:4…"
        # hides which design and time it is.
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.label.setMinimumWidth(10)
        self.label.setVisible(False)
        self.error = QLabel(self)  # why a file could not be loaded: wrapped, under the buttons
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {DOWN}; font-size: 8pt;")
        self.error.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.error.setMinimumWidth(10)
        self.error.setVisible(False)
        row = QHBoxLayout()
        row.setSpacing(4)
        for w in (self.pin_button, self.clear_button, self.save_button, self.load_button):
            row.addWidget(w)
        row.addStretch(1)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        box.addLayout(row)
        box.addWidget(self.label)
        box.addWidget(self.error)
        store.changed.connect(self._on_store_changed)
        self.save_button.clicked.connect(self._on_save_button_clicked)
        self.load_button.clicked.connect(self._on_load_button_clicked)
        self._on_store_changed()

    def _on_store_changed(self) -> None:
        base = self.store.baseline
        self.clear_button.setEnabled(base is not None)
        self.save_button.setEnabled(base is not None)
        self.error.setVisible(False)
        self._show_label()

    def set_design(self, name: str, folder: str = "") -> None:
        """The open design's name (a baseline pinned on another design says so) and folder."""
        self.design = name
        self.folder = folder
        self._show_label()

    def beside(self, name: str) -> str:
        """`name` in the open design's folder: file dialogs start next to the design."""
        return str(Path(self.folder) / name) if self.folder else name

    def is_other_design(self) -> bool:
        base = self.store.baseline
        return bool(base is not None and base.design and self.design
                    and base.design != self.design)

    def against(self) -> str:
        """What the headline deltas are "vs": the baseline, or the other design's file."""
        base = self.store.baseline
        return base.design if base is not None and self.is_other_design() else "baseline"

    def _show_label(self) -> None:
        base = self.store.baseline
        text = f"Baseline (dashed): {base.origin}" if base else ""
        color = TEXT_DIM
        if self.is_other_design():
            text += f" — another design than {self.design}"
            color = DOWN
        self.label.setText(plain(text))
        self.label.setStyleSheet(f"color: {color}; font-size: 8pt;")
        self.label.setToolTip(plain(f"Baseline: {base.label}" if base else ""))
        self.label.setVisible(base is not None)

    def load(self, path: str | Path) -> bool:
        """Load `path` as the baseline; a bad file is said under the buttons and in `message`,
        and the current baseline stays."""
        try:
            base = self.store.load(path)
        except (OSError, ValueError) as exc:
            text = f"Cannot load the baseline: {exc}"
            self.error.setText(plain(text))
            self.error.setVisible(True)
            self.message.emit(text)
            return False
        self.message.emit(f"Loaded the baseline ({base.label})")
        return True

    def _on_load_button_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load baseline", self.beside(""),
                                              "Simulation results (*.json);;All files (*)")
        if path:
            self.load(path)

    def _on_save_button_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save baseline", self.beside("baseline.json"),
                                              "JSON (*.json)")
        if not path:
            return
        try:
            self.store.save(path)
        except (OSError, ValueError) as exc:
            self.message.emit(f"Cannot save the baseline: {exc}")
            return
        self.message.emit(f"Saved the baseline to {path}")
