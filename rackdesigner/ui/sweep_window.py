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

import html
import logging
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QPointF, QThreadPool, Signal
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
    FAILED,
    INVALID,
    ResultsError,
    SweepResult,
    SweepRunError,
    SweepSpec,
    SweepSpecError,
    load_spec,
    pareto_front,
    read_results,
    run_sweep,
    write_results,
)
from rackdesigner.sweep.pareto import lower_is_better
from rackdesigner.sweep.point import HEADLINE
from rackdesigner.ui.panel.theme import pg
from rackdesigner.ui.plain_text import markup, plain
from rackdesigner.vocabulary.wording import counted

log = logging.getLogger(__name__)
SPEC_FILTER = "Sweep specs (*.yaml *.yml);;All files (*)"
RESULTS_FILTER = "Sweep results (*.json *.csv);;All files (*)"
SAVE_FILTER = "CSV (*.csv);;JSON (*.json);;Parquet (*.parquet)"
DEFAULT_X = "power_max_w"
DEFAULT_Y = "all_reduce_busbw_GBps"
NOT_AXES = ("point", "status", "error", "capex_complete")
PALETTE = ((31, 111, 209), (46, 158, 68), (224, 123, 22), (142, 68, 173), (14, 154, 167),
           (192, 57, 43), (123, 135, 148), (183, 149, 11))
FRONT_COLOR = "#d62728"


class _Relay(QObject):
    progressed = Signal(int, int)
    finished = Signal(object)  # SweepResult or an error text


class SweepWindow(QDialog):
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

    # ---- results ------------------------------------------------------------------------------
    def show_rows(self, columns: list[str], rows: list[dict[str, Any]]) -> None:
        """Plot rows (from a run or a results file) and list the failed points."""
        self.columns, self.rows = columns, rows
        numeric = [c for c in columns if c not in NOT_AXES and any(
            isinstance(r.get(c), int | float) and not isinstance(r.get(c), bool) for r in rows)]
        for combo, default in ((self.x_axis, DEFAULT_X), (self.y_axis, DEFAULT_Y)):
            keep = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(numeric)
            choice = keep if keep in numeric else default if default in numeric else ""
            if choice:
                combo.setCurrentText(choice)
            combo.blockSignals(False)
        self._set_directions()
        params = _parameters(columns)
        varied = [c for c in params if 1 < len({repr(r.get(c)) for r in rows}) <= len(PALETTE)]
        self.colour_by.blockSignals(True)
        self.colour_by.clear()
        self.colour_by.addItems(["", *params])
        self.colour_by.setCurrentText(varied[0] if varied else "")
        self.colour_by.blockSignals(False)
        failed = [r for r in rows if r.get("status") == FAILED]
        self.failures.setText(plain(
            "" if not failed else f"{counted(len(failed), 'failed point')}: " + "; ".join(
            f"point {r.get('point')} ({self._params_text(r)}): {r.get('error')}"
            for r in failed[:8]) + (" …" if len(failed) > 8 else "")))
        self.redraw()

    def _set_directions(self) -> None:
        for combo, box in ((self.x_axis, self.x_lower), (self.y_axis, self.y_lower)):
            box.blockSignals(True)
            box.setChecked(lower_is_better(combo.currentText()))
            box.blockSignals(False)

    def redraw(self) -> None:
        x, y = self.x_axis.currentText(), self.y_axis.currentText()
        for combo, side in ((self.x_axis, "bottom"), (self.y_axis, "left")):
            name = combo.currentText()
            units = "W" if name.endswith("_w") else None  # SI prefixes: kW, MW
            self.plot.setLabel(side, html.escape(name), units=units)  # pyqtgraph takes HTML
        for item in self.scatters:
            self.plot.removeItem(item)
        self.scatters = []
        colour = self.colour_by.currentText()
        categories: dict[Any, list[dict[str, Any]]] = {}
        xs: list[float | None] = []
        ys: list[float | None] = []
        for index, row in enumerate(self.rows):
            vx, vy = _number(row.get(x)), _number(row.get(y))
            xs.append(vx)
            ys.append(vy)
            if vx is None or vy is None:
                continue
            categories.setdefault(row.get(colour) if colour else None, []).append(
                {"pos": (vx, vy), "data": index, "hollow": row.get("status") == INVALID})
        for k, (category, spots) in enumerate(categories.items()):
            rgb = PALETTE[k % len(PALETTE)]
            for spot in spots:
                spot["pen"] = pg.mkPen(rgb, width=1.5)
                spot["brush"] = pg.mkBrush(None) if spot.pop("hollow") else pg.mkBrush(*rgb, 170)
            name = html.escape(f"{colour} = {category}") if colour else "designs"  # HTML
            item = pg.ScatterPlotItem(spots, size=9, hoverable=True, tip=self._tip, name=name,
                                      pen=pg.mkPen(rgb, width=1.5), brush=pg.mkBrush(*rgb, 170))
            item.sigClicked.connect(self._on_scatter_clicked)
            self.plot.addItem(item)
            self.scatters.append(item)
        self.front = pareto_front(xs, ys, maximize_x=not self.x_lower.isChecked(),
                                  maximize_y=not self.y_lower.isChecked()) if x and y else []
        self.front_line.setData([xs[i] for i in self.front], [ys[i] for i in self.front])
        self.plot.getPlotItem().enableAutoRange()
        self._keep_room_for_legend()

    def _keep_room_for_legend(self) -> None:
        """Lay the legend out in rows of up to three entries and make the plot's top margin
        as tall as it is."""
        entries = len(self.scatters) + 1  # and the Pareto front
        self.legend.setColumnCount(min(3, entries))
        self.legend.updateSize()
        height = self.legend.boundingRect().height()
        self.plot.getPlotItem().layout.setContentsMargins(0, height + 4, 0, 0)

    def drawn(self) -> int:
        """How many designs are drawn."""
        return sum(len(item.points()) for item in self.scatters)

    def point_scene_pos(self, index: int) -> QPointF:
        """Where row `index` is drawn, in the plot's scene (tests click there)."""
        row = self.rows[index]
        x = _number(row.get(self.x_axis.currentText()))
        y = _number(row.get(self.y_axis.currentText()))
        return self.plot.getPlotItem().vb.mapViewToScene(QPointF(x or 0.0, y or 0.0))

    def _on_axis_changed(self, _index: int) -> None:
        self._set_directions()
        self.redraw()

    def _on_direction_toggled(self, _checked: bool) -> None:
        self.redraw()

    def _params_text(self, row: dict[str, Any]) -> str:
        names = (self.spec.parameter_names() if self.spec is not None
                 else _parameters(self.columns))
        return ", ".join(f"{n}={row.get(n)}" for n in names)

    def _tip(self, x: float, y: float, data: Any) -> str:
        """A hovered point (pyqtgraph joins up to three into one tooltip): always escaped
        markup, so the join renders as text whichever comes first."""
        row = self.rows[data]
        return markup(f"point {row.get('point')}: {self._params_text(row)}\n"
                      f"{self.x_axis.currentText()} = {x:g}\n"
                      f"{self.y_axis.currentText()} = {y:g}\n"
                      f"status: {row.get('status')}"
                      + ("" if self.spec is None else "\nclick to open this design"))

    def _on_scatter_clicked(self, _item: Any, points: Any, *args: Any) -> None:
        if not len(points) or self.spec is None:
            if self.spec is None:
                self.status.setText("Results opened from a file: run the spec to open designs.")
            return
        row = self.rows[points[0].data()]
        params = {n: row.get(n) for n in self.spec.parameter_names()}
        self.status.setText(plain(f"Opening point {row.get('point')} ({self._params_text(row)})…"))
        self.design_requested.emit(self.spec, params)

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


def _parameters(columns: list[str]) -> list[str]:
    """A results table's parameter columns: after `point`, before the first figure."""
    end = next((i for i, c in enumerate(columns) if c in HEADLINE), len(columns))
    return [c for c in columns[:end] if c not in NOT_AXES]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value == value else None
