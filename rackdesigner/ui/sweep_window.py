"""Analyze ▸ Sweep…: run a sweep spec on Dask and plot its results.

The window runs `rackdesigner.sweep.run_sweep` on a worker thread (the points themselves run on
Dask: local processes, threads, or a scheduler address typed into the scheduler box), shows its
progress, and draws one point per design in a pyqtgraph scatter. The axes are any two numeric
columns; the Pareto front of the two (each axis "higher is better" or "lower is better",
defaulting by what the column is) is drawn over them in red. Points are coloured by a
parameter (the first that varies, or one the user picks); points whose design has rule errors
are drawn hollow; failed points cannot be drawn and are listed under the plot with their
error. Clicking a point emits `design_requested(spec, params)`: the main window opens that design
(the generators are deterministic, so it is the design that was measured). A results file
(.csv/.json) can be opened to plot it again without running anything.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.sweep import (
    ResultsError,
    SweepResult,
    SweepRunError,
    SweepSpec,
    SweepSpecError,
    load_spec,
    read_results,
    run_sweep,
    write_results,
)
from rackdesigner.ui.panel.theme import pg
from rackdesigner.ui.plain_text import plain
from rackdesigner.ui.sweep_scatter import (
    DEFAULT_X,
    DEFAULT_Y,
    FRONT_COLOR,
    NOT_AXES,
    PALETTE,
    SweepScatter,
)

log = logging.getLogger(__name__)
SPEC_FILTER = "Sweep specs (*.yaml *.yml);;All files (*)"
RESULTS_FILTER = "Sweep results (*.json *.csv);;All files (*)"
SAVE_FILTER = "CSV (*.csv);;JSON (*.json);;Parquet (*.parquet)"


class _Relay(QObject):
    progressed = Signal(int, int)
    finished = Signal(object)  # SweepResult or an error text


class SweepWindow(SweepScatter, QDialog):
    """Run a spec, plot the results, open a point's design."""

    design_requested = Signal(object, object)  # SweepSpec, the point's parameters (dict)
    run_finished = Signal()  # results shown (or the error) — tests wait on it

    def __init__(self, parent: QWidget | None = None, spec_path: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Design sweep")
        self.resize(900, 640)
        self.spec: SweepSpec | None = None
        self.columns: list[str] = []
        self.rows: list[dict[str, Any]] = []
        self.front: list[int] = []
        self.result: SweepResult | None = None
        self._cancel: threading.Event | None = None
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._relay = _Relay(self)
        self._relay.progressed.connect(self._on_worker_progressed)
        self._relay.finished.connect(self._on_worker_finished)
        self._build(spec_path)

    # ---- widgets ------------------------------------------------------------------------------
    def _build(self, spec_path: str) -> None:
        self.spec_edit = QLineEdit(spec_path, self)
        self.spec_edit.setPlaceholderText("sweep spec (.yaml), see docs/sweeps.md")
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._on_browse_clicked)
        self.scheduler = QComboBox(self)
        self.scheduler.setEditable(True)
        self.scheduler.addItems(["processes", "threads"])
        self.scheduler.setToolTip("Where the points run: local processes or threads, or the "
                                  "address of a dask.distributed scheduler (tcp://host:8786)")
        self.run_button = QPushButton("Run", self)
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        open_button = QPushButton("Open Results…", self)
        open_button.clicked.connect(self._on_open_results_clicked)
        self.save_button = QPushButton("Save Results…", self)
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self._on_save_results_clicked)
        top = QGridLayout()
        top.addWidget(QLabel("Spec:"), 0, 0)
        top.addWidget(self.spec_edit, 0, 1, 1, 3)
        top.addWidget(browse, 0, 4)
        top.addWidget(QLabel("Scheduler:"), 1, 0)
        top.addWidget(self.scheduler, 1, 1)
        top.addWidget(self.run_button, 1, 2)
        top.addWidget(self.cancel_button, 1, 3)
        buttons = QHBoxLayout()
        buttons.addWidget(open_button)
        buttons.addWidget(self.save_button)
        top.addLayout(buttons, 1, 4)
        self.progress = QProgressBar(self)
        self.progress.setFormat("%v / %m points")
        self.progress.setValue(0)
        self.status = QLabel("Choose a spec and press Run, or open a results file.", self)
        self.status.setWordWrap(True)

        self.x_axis = QComboBox(self)
        self.y_axis = QComboBox(self)
        self.x_lower = QCheckBox("lower is better", self)
        self.y_lower = QCheckBox("lower is better", self)
        axes = QHBoxLayout()
        for label, combo, lower in (("X:", self.x_axis, self.x_lower),
                                    ("Y:", self.y_axis, self.y_lower)):
            axes.addWidget(QLabel(label))
            axes.addWidget(combo, 1)
            axes.addWidget(lower)
            combo.currentIndexChanged.connect(self._on_axis_changed)
            lower.toggled.connect(self._on_direction_toggled)

        self.colour_by = QComboBox(self)
        self.colour_by.setToolTip("Colour the designs by one parameter")
        self.colour_by.currentIndexChanged.connect(self._on_axis_changed)
        axes.addWidget(QLabel("Colour:"))
        axes.addWidget(self.colour_by)

        self.plot = pg.PlotWidget(self)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.getPlotItem().setMenuEnabled(False)
        # the legend sits above the plotting area, in a margin kept for it, so it never covers
        # a design's point (inside the view box it hid one, issue 26)
        self.legend = self.plot.addLegend(offset=(-10, -10))
        self.legend.setParentItem(self.plot.getPlotItem())
        self.legend.anchor(itemPos=(1, 0), parentPos=(1, 0), offset=(-8, 2))
        self.scatters: list[pg.ScatterPlotItem] = []
        self.front_line = pg.PlotDataItem(pen=pg.mkPen(FRONT_COLOR, width=2),
                                          symbol="o", symbolSize=14, symbolPen=FRONT_COLOR,
                                          symbolBrush=None, name="Pareto front")
        self.front_line.setZValue(-1)
        self.plot.addItem(self.front_line)
        self.failures = QLabel(self)
        self.failures.setWordWrap(True)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addLayout(axes)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.failures)

    # ---- running ------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start(self) -> bool:
        """Read the spec and start the sweep on the worker; False (and why) if it cannot."""
        if self.running:
            return False
        path = self.spec_edit.text().strip()
        if not path:
            self.status.setText("Choose a sweep spec first.")
            return False
        try:
            spec = load_spec(path)
        except SweepSpecError as exc:
            self.status.setText(plain(str(exc)))
            self.run_finished.emit()
            return False
        self.spec = spec
        scheduler = self.scheduler.currentText().strip() or "processes"
        self._cancel = cancel = threading.Event()
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setRange(0, spec.count())
        self.progress.setValue(0)
        self.status.setText(plain(f"Running {spec.count()} points on {scheduler}…"))
        relay = self._relay

        def job() -> None:
            try:
                result: object = run_sweep(spec, scheduler, cancel=cancel,
                                           progress=relay.progressed.emit)
            except SweepRunError as exc:
                result = str(exc)
            except Exception as exc:  # a bug must not take the designer down
                log.exception("sweep failed")
                result = f"the sweep failed ({type(exc).__name__}: {exc})"
            relay.finished.emit(result)

        self._pool.start(job)
        return True

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
            self.status.setText("Cancelling (points already running finish first)…")

    def _on_worker_progressed(self, done: int, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)

    def _on_worker_finished(self, result: object) -> None:
        self._cancel = None
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        if isinstance(result, SweepResult):
            self.result = result
            self.save_button.setEnabled(True)
            self.show_rows(list(result.columns), list(result.rows))
            bad = len(result.not_ok())
            self.status.setText(plain(f"{len(result.rows)} points in {result.elapsed_s:.1f} s on "
                                      f"{result.scheduler}" + (f"; {bad} not ok" if bad else "")
                                      + ". Click a point to open its design."))
        else:
            self.status.setText(plain(str(result)))
        self.run_finished.emit()

    def wait(self) -> None:
        """Block until a running sweep has finished (closing, tests)."""
        self._pool.waitForDone()

    def done(self, code: int) -> None:  # closing the window stops the sweep
        self.cancel()
        self.wait()
        super().done(code)

    # ---- files --------------------------------------------------------------------------------
    def _on_browse_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Sweep spec", self.spec_edit.text(),
                                              SPEC_FILTER)
        if path:
            self.spec_edit.setText(path)

    def _on_open_results_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open sweep results", "", RESULTS_FILTER)
        if path:
            self.open_results(path)

    def open_results(self, path: str) -> bool:
        try:
            columns, rows, meta = read_results(path)
        except ResultsError as exc:
            self.status.setText(plain(str(exc)))
            return False
        self.spec = None
        spec_path = meta.get("spec")
        if isinstance(spec_path, str) and Path(spec_path).is_file():
            try:
                self.spec = load_spec(spec_path)
                self.spec_edit.setText(spec_path)
            except SweepSpecError:
                self.spec = None
        self.show_rows(columns, rows)
        self.status.setText(plain(f"{Path(path).name}: {len(rows)} points"
                                  + ("" if self.spec is None else
                                     ". Click a point to open its design.")))
        return True

    def _on_save_results_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save sweep results", "sweep.csv",
                                              SAVE_FILTER)
        if path and self.result is not None:
            try:
                write_results(self.result, path)
                self.status.setText(plain(f"Saved {Path(path).name}"))
            except ResultsError as exc:
                self.status.setText(plain(str(exc)))


__all__ = ["DEFAULT_X", "DEFAULT_Y", "FRONT_COLOR", "NOT_AXES", "PALETTE", "SweepWindow"]
