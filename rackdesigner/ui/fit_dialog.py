"""Analyze ▸ Fit to Site…: `rackdesigner fit` in a window. The site (the open design's
`site:` or a SITE.yaml), a budget, a job file, the system types; the search runs on the sweep
engine in a worker thread; the plot shows every candidate within the limits and the Pareto
front of tokens/s against capex, each front point marked by the limit that binds it; a
double-clicked row opens that point's design (with the site set)."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.fit.search import Candidate, FitResult
from rackdesigner.model import Site
from rackdesigner.ui.panel.theme import pg

log = logging.getLogger(__name__)
#: The colour of a front point by the limit that binds it.
BINDING_COLORS = {"liquid": (31, 111, 209), "power": (214, 39, 40), "air": (14, 154, 167),
                  "cooling": (142, 68, 173), "floor": (183, 149, 11), "budget": (46, 158, 68)}
COLUMNS = ("Systems", "Switch", "GPUs", "Tokens/s", "Capex", "TCO", "Liquid kW",
           "Facility kW", "Binding")


class _Relay(QObject):
    progressed = Signal(int, int)
    finished = Signal(object)  # FitResult or an error text


class FitDialog(QDialog):
    """Fit a site: run the search, plot the front, open a point's design."""

    design_requested = Signal(object, object)  # Candidate, Site
    run_finished = Signal()

    def __init__(self, parent: QWidget | None = None, site: Site | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Fit to Site")
        self.result: FitResult | None = None
        self.design_site = site if site is not None and not site.empty else None
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._relay = _Relay(self)
        self._relay.progressed.connect(self._on_worker_progressed)
        self._relay.finished.connect(self._on_worker_finished)
        form = QFormLayout()
        self.site_edit = QLineEdit(self)
        self.site_edit.setPlaceholderText("the open design's site" if self.design_site
                                          else "SITE.yaml (the design has no site)")
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._on_browse_clicked)
        row = QHBoxLayout()
        row.addWidget(self.site_edit)
        row.addWidget(browse)
        form.addRow("Site", row)
        self.job_edit = QLineEdit(self)
        self.job_edit.setPlaceholderText("JOB.yaml (estimate options, e.g. model: llama3-70b, "
                                         "gbs: 1024)")
        form.addRow("Training job", self.job_edit)
        self.budget = QDoubleSpinBox(self)
        self.budget.setRange(0, 1e12)
        self.budget.setDecimals(0)
        self.budget.setSingleStep(1e6)
        self.budget.setPrefix("$")
        self.budget.setSpecialValueText("no budget")
        form.addRow("Budget", self.budget)
        self.systems = QLineEdit("gb200-nvl72,dgx-b200", self)
        form.addRow("Systems", self.systems)
        self.switches = QLineEdit("qm9700,q3400", self)
        form.addRow("Fabric switches", self.switches)
        self.scheduler = QComboBox(self)
        self.scheduler.setEditable(True)
        self.scheduler.addItems(["processes", "threads"])
        self.scheduler.setToolTip("Where the parts are measured: local processes or threads, "
                                  "or a dask.distributed address (tcp://host:8786)")
        form.addRow("Run on", self.scheduler)
        self.run_button = QPushButton("Fit", self)
        self.run_button.clicked.connect(self._on_run_clicked)
        self.progress = QProgressBar(self)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.plot = pg.PlotWidget(self)
        self.plot.setLabel("bottom", "capex", units="$")
        self.plot.setLabel("left", "training throughput", units="tokens/s")
        self.plot.getAxis("left").setWidth(60)
        self.plot.addLegend()
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.cellDoubleClicked.connect(self._on_table_cell_double_clicked)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.progress)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self.plot, 3)
        layout.addWidget(self.table, 2)
        self.resize(900, 760)

    # ---- running ---------------------------------------------------------------------------
    def _on_browse_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Site file", "",
                                              "Site files (*.yaml *.yml);;All files (*)")
        if path:
            self.site_edit.setText(path)

    def _on_run_clicked(self) -> None:
        self.start()

    def inputs(self) -> tuple[Site, Any, float | None] | str:
        """(site, job, budget) from the form, or what is wrong with it."""
        from rackdesigner.io import LayoutFileError
        from rackdesigner.io.site_read import load_site
        from rackdesigner.workload.jobfile import JobFileError, load_job

        path = self.site_edit.text().strip()
        try:
            site = load_site(path) if path else self.design_site
        except LayoutFileError as exc:
            return str(exc)
        if site is None:
            return "Give a site file: the open design states no site."
        job = None
        if self.job_edit.text().strip():
            try:
                job = load_job(self.job_edit.text().strip())
            except JobFileError as exc:
                return str(exc)
        return site, job, (self.budget.value() or None)

    def start(self) -> bool:
        """Run the search in the worker thread (results arrive in `show_result`)."""
        from rackdesigner.fit.search import FitError, fit
        from rackdesigner.sweep.runner import SweepRunError

        given = self.inputs()
        if isinstance(given, str):
            self.status.setText(given)
            self.run_finished.emit()
            return False
        site, job, budget = given
        systems = tuple(s.strip() for s in self.systems.text().split(",") if s.strip())
        switches = tuple(s.strip() for s in self.switches.text().split(",") if s.strip())
        scheduler = self.scheduler.currentText().strip() or "processes"
        self.run_button.setEnabled(False)
        self.status.setText(f"Measuring the parts on {scheduler}…")
        relay = self._relay

        def work() -> None:
            try:
                result: object = fit(site, budget=budget, job=job, systems=systems,
                                     switches=switches, scheduler=scheduler,
                                     progress=relay.progressed.emit)
            except (FitError, SweepRunError) as exc:
                result = str(exc)
            except Exception as exc:  # a bug must not take the designer down
                log.exception("fit failed")
                result = f"the fit failed ({type(exc).__name__}: {exc})"
            relay.finished.emit(result)

        self._pool.start(work)
        return True

    def _on_worker_progressed(self, done: int, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)

    def _on_worker_finished(self, result: object) -> None:
        self.run_button.setEnabled(True)
        if isinstance(result, FitResult):
            self.show_result(result)
        else:
            self.status.setText(str(result))
        self.run_finished.emit()

    # ---- results ---------------------------------------------------------------------------
    def show_result(self, result: FitResult) -> None:
        """The plot (candidates within the limits, the front by binding limit) and the table."""
        self.result = result
        self.plot.clear()
        with_job = any(c.tokens_per_s is not None for c in result.front)
        self.plot.setLabel("left", "training throughput" if with_job else "GPUs",
                           units="tokens/s" if with_job else "")
        self.plot.setLabel("bottom", result.against, units="$")

        def y(c: Candidate) -> float:
            return float(c.tokens_per_s if with_job and c.tokens_per_s is not None else c.gpus)

        inside = [c for c in result.candidates if c.feasible]
        self.plot.plot([getattr(c, result.against) for c in inside], [y(c) for c in inside],
                       pen=None, symbol="o", symbolSize=5, symbolBrush=(160, 160, 160),
                       name="within the limits")
        front = list(result.front)
        self.plot.plot([getattr(c, result.against) for c in front], [y(c) for c in front],
                       pen=pg.mkPen((90, 90, 90), width=1))
        for limit, color in BINDING_COLORS.items():
            points = [c for c in front if c.binding == limit]
            if points:
                self.plot.plot([getattr(c, result.against) for c in points],
                               [y(c) for c in points], pen=None, symbol="s", symbolSize=10,
                               symbolBrush=color, name=f"front, {limit} binds")
        self.table.setRowCount(len(front))
        for r, c in enumerate(front):
            over = ("" if c.oversubscription == 1 else f" ({c.oversubscription:g}:1)") + (
                ", pods on a core" if c.fabric == "core" else "")
            cells = (c.systems.replace(",", " + ") + over, c.switch, f"{c.gpus:,}",
                     "-" if c.tokens_per_s is None else f"{c.tokens_per_s:,.0f}",
                     f"${c.capex / 1e6:,.1f} M", f"${c.tco / 1e6:,.1f} M",
                     f"{c.liquid_w / 1000:,.0f}", f"{c.facility_w / 1000:,.0f}",
                     c.binding or "")
            for col, text in enumerate(cells):
                self.table.setItem(r, col, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        hybrids = sum(1 for c in front if len(c.counts) > 1)
        self.status.setText(f"{len(result.candidates)} candidates, {result.feasible} within "
                            f"the site; {len(front)} on the front ({hybrids} mixed). "
                            "Double-click a row to open its design.")

    def _on_table_cell_double_clicked(self, row: int, _column: int) -> None:
        self.open_point(row)

    def open_point(self, row: int) -> None:
        if self.result is not None and 0 <= row < len(self.result.front):
            self.design_requested.emit(self.result.front[row], self.result.site)


def build_point(candidate: Candidate, site: Site, catalog: Any = None):
    """A front point's design with the site set and its CDUs (what `fit --out` writes)."""
    from rackdesigner.fit.search import build_candidate

    layout = build_candidate(candidate, catalog, cdus=1)
    layout.set_meta(site=site)
    return layout


def open_fit_dialog(window: Any) -> FitDialog:
    """Analyze ▸ Fit to Site…: one dialog per main window; a chosen point opens its design."""
    existing = getattr(window, "fit_dialog", None)
    if existing is None:
        existing = FitDialog(window, window.document.layout.meta.site)
        existing.design_requested.connect(lambda c, s: _open(window, c, s))
        window.fit_dialog = existing
    site = window.document.layout.meta.site  # the open design's site, as it is now
    existing.design_site = None if site.empty else site
    existing.show()
    existing.raise_()
    return existing


def _open(window: Any, candidate: Candidate, site: Site) -> bool:
    if not window.maybe_save():
        return False
    try:
        layout = build_point(candidate, site, window.catalog)
    except (ValueError, KeyError) as exc:
        window.status_message(f"Cannot build this point: {exc}")
        return False
    window._set_document(layout, None)
    window.status_message(f"Opened fit point {candidate.systems}")
    return True
