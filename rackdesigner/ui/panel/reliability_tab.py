"""The live panel's Reliability tab: how often the design stops a job spanning it, its causes as
a bar chart, and the ETTR against the checkpoint interval as a curve with the interval in use
marked (docs/reliability.md) — assessed on a worker after each edit (`BackgroundJob`).

The checkpoint interval ("optimum": Daly's) and the spare GPUs ("auto": the job takes every
GPU, a spare assumed at hand) are settings of the view, not of the design; the rates are the
bundled failure library's.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.model import Layout
from rackdesigner.ui.jobs import BackgroundJob, JobResult
from rackdesigner.ui.panel.axes import CategoryAxisItem, styled_plot
from rackdesigner.ui.panel.reliability_text import job_html, summary_html
from rackdesigner.ui.panel.theme import DOWN, TEXT, TEXT_DIM, pg

DEBOUNCE_MS = 250
#: the curve's checkpoint intervals: 1 minute to 24 hours, log-spaced
CURVE_MINUTES = tuple(round(10 ** (k / 20), 3) for k in range(0, 64))
BAR_COLOR = "#1f6fd1"
GPU_COLOR = "#76b900"


@dataclass(frozen=True)
class ReliabilityOutcome:
    assessment: Any = None  # reliability.Assessment
    error: str = ""
    layout: Layout | None = None  # the snapshot assessed
    job_error: str = ""  # why the Workload tab's job could not be counted


def _assess(snapshot: Layout | None, params: tuple) -> ReliabilityOutcome:
    from rackdesigner.reliability import LibraryError, ReliabilityError, assess, load_library
    from rackdesigner.workload import EstimateError, ModelFileError
    from rackdesigner.workload.reliability_job import job_figures

    interval_min, spares, spec = params
    if snapshot is None:
        return ReliabilityOutcome(None, "no design open")
    job, job_error = None, ""
    if spec is not None:
        try:
            job = job_figures(snapshot, spec)
        except (EstimateError, ModelFileError, ValueError) as exc:
            job_error = f"the Workload tab's job cannot run here: {exc}"
    try:
        library = load_library()
        return ReliabilityOutcome(assess(snapshot, library, job=job, spares=spares,
                                         interval_s=None if interval_min is None
                                         else interval_min * 60), layout=snapshot,
                                  job_error=job_error)
    except (LibraryError, ReliabilityError) as exc:
        return ReliabilityOutcome(None, str(exc))


class ReliabilityTab(QWidget):
    #: the GPU ids one fault of the selected part stops (the canvas marks them), or None
    blast_changed = Signal(object)
    #: the status line of the blast radius shown ("A fault here stops 72 GPUs (...)")
    message = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, debounce_ms: int = DEBOUNCE_MS
                 ) -> None:
        super().__init__(parent)
        self.job = BackgroundJob(_assess, self, debounce_ms=debounce_ms)
        self.job.result_ready.connect(self._on_job_result_ready)
        self.current: ReliabilityOutcome | None = None
        self.stale = False
        self.selected: tuple[str, ...] = ()
        self.blast: Any = None  # the reliability.blast.BlastRadius of the selection
        self.training: Any = None  # the Workload tab's job (a JobSpec), or None
        self.cost: Any = None  # the Cost tab's CostReport (its $/GPU-hour), or None
        self._build()

    def _build(self) -> None:
        self.interval_spin = QDoubleSpinBox(self)
        self.interval_spin.setRange(0, 1440)
        self.interval_spin.setDecimals(1)
        self.interval_spin.setSingleStep(5)
        self.interval_spin.setSuffix(" min")
        self.interval_spin.setSpecialValueText("optimum")
        self.interval_spin.setToolTip("Minutes of training between checkpoints (optimum: Daly's "
                                      "for the design's MTBF and checkpoint write time)")
        self.interval_spin.setKeyboardTracking(False)
        self.spares_spin = QSpinBox(self)
        self.spares_spin.setRange(-1, 1_000_000)
        self.spares_spin.setSpecialValueText("auto")
        self.spares_spin.setValue(-1)
        self.spares_spin.setToolTip("Hot-spare GPUs held back from the job (auto: the job takes "
                                    "every GPU and a spare is assumed at hand for each fault)")
        self.spares_spin.setKeyboardTracking(False)
        self.interval_spin.valueChanged.connect(lambda _v: self.request(immediate=True))
        self.spares_spin.valueChanged.connect(lambda _v: self.request(immediate=True))
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setStyleSheet(f"color: {TEXT}; font-size: 9pt;")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.job_line = QLabel(self)
        self.job_line.setWordWrap(True)
        self.job_line.setTextFormat(Qt.TextFormat.RichText)
        self.job_line.setStyleSheet(f"color: {TEXT}; font-size: 9pt;")
        self.job_line.setToolTip("The Workload tab's job with the work failures lose: "
                                 "tokens/s x the time that trains; dollars at the Cost tab's "
                                 "$/GPU-hour")
        self.part = QLabel(self)
        self.part.setWordWrap(True)
        self.part.setStyleSheet(f"color: {TEXT}; font-size: 8pt;")
        self.part.setTextFormat(Qt.TextFormat.RichText)
        self.part.setToolTip("What one fault of the part selected on the canvas stops")
        self.blast_check = QCheckBox("Show blast radius of the selection", self)
        self.blast_check.setToolTip("Mark on the canvas the GPUs one fault of the selected part "
                                    "stops: its NVLink domain, its node or a leaf's nodes")
        self.blast_check.toggled.connect(lambda _on: self._show_part())
        self.basis = QLabel(self)
        self.basis.setWordWrap(True)
        self.basis.setStyleSheet(f"color: {TEXT_DIM}; font-size: 8pt;")
        self.error = QLabel(self)
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {DOWN}; font-size: 8pt;")
        self.error.setVisible(False)
        self.axis = CategoryAxisItem(thin=True)
        self.causes_plot = styled_plot("Causes of interruptions", "share, %",
                                       axis_items={"bottom": self.axis})
        self.causes_plot.setMinimumHeight(140)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.7, brushes=[])
        self.causes_plot.getPlotItem().addItem(self.bars)
        self.curve_plot = styled_plot("ETTR against the checkpoint interval", "ETTR, %")
        self.curve_plot.setMinimumHeight(140)
        item = self.curve_plot.getPlotItem()
        item.setLogMode(x=True, y=False)
        item.setLabel("bottom", "minutes between checkpoints", color=TEXT_DIM,
                      **{"font-size": "8pt"})
        self.curve = item.plot([], [], pen=pg.mkPen(BAR_COLOR, width=2))
        self.marker = item.plot([], [], pen=None, symbol="o", symbolSize=8,
                                symbolBrush=pg.mkBrush(GPU_COLOR))

        row = QHBoxLayout()
        row.setSpacing(4)
        for text, w in (("Checkpoint every", self.interval_spin), ("Spares", self.spares_spin)):
            label = QLabel(text, self)
            label.setStyleSheet(f"color: {TEXT_DIM}; font-size: 8pt;")
            row.addWidget(label)
            row.addWidget(w)
        row.addStretch(1)
        box = QVBoxLayout(self)
        box.setContentsMargins(2, 2, 2, 2)
        box.setSpacing(4)
        box.addLayout(row)
        box.addWidget(self.error)
        box.addWidget(self.summary)
        box.addWidget(self.job_line)
        box.addWidget(self.blast_check)
        box.addWidget(self.part)
        box.addWidget(self.causes_plot, 1)
        box.addWidget(self.curve_plot, 1)
        box.addWidget(self.basis)

    # ---- inputs ----------------------------------------------------------------------------
    # The tab is assessed while it is shown; edits made while it is hidden are assessed when
    # it is shown again (no worker time for a view nobody is looking at).
    def set_layout(self, layout: Layout | None) -> None:
        self.job.set_layout(layout)
        self.current = None
        self._show()
        self._when_shown(immediate=True)

    def on_event(self, event: Any) -> None:
        self._when_shown()

    def _when_shown(self, *, immediate: bool = False) -> None:
        if self.isVisible():
            self.request(immediate=immediate)
        else:
            self.stale = True

    def showEvent(self, event) -> None:  # Qt override: assess what changed while hidden
        super().showEvent(event)
        if self.stale:
            self.request(immediate=True)

    def request(self, *, immediate: bool = False) -> None:
        self.stale = False
        interval = self.interval_spin.value() or None
        spares = self.spares_spin.value()
        self.job.set_params((interval, None if spares < 0 else spares, self.training))
        self.job.request(immediate=immediate)

    def set_training(self, job: Any) -> None:
        """The Workload tab's job (a `JobSpec`, or None): its tokens/s, days and dollars with
        the work failures lose. Assessed again now, or when the tab is next shown."""
        if job != self.training:
            self.training = job
            self._when_shown(immediate=True)

    def set_cost(self, report: Any) -> None:
        """The Cost tab's report: its $/GPU-hour prices the days to train."""
        self.cost = report
        self._show_job()

    def set_selection(self, devices: list[str] | tuple[str, ...],
                      links: list[str] | tuple[str, ...] = (),
                      groups: list[str] | tuple[str, ...] = ()) -> None:
        """The canvas selection: one selected part (a device, a group such as a tray or a
        node, or else one cable) gets a line saying what its fault stops."""
        self.selected = (*devices, *groups) or tuple(links[:1])
        self._show_part()

    def flush(self, timeout_ms: int = 60_000) -> ReliabilityOutcome | None:
        self.job.flush(timeout_ms)
        return self.current

    def close_tab(self) -> None:
        self.job.close()

    # ---- results ---------------------------------------------------------------------------
    def _on_job_result_ready(self, result: JobResult) -> None:
        if result.error:
            self.current = ReliabilityOutcome(None, f"the assessment failed ({result.error})")
        else:
            self.current = result.value
        self._show()

    def assessment(self) -> Any:
        return self.current.assessment if self.current is not None else None

    def _show(self) -> None:
        outcome = self.current
        a = self.assessment()
        self.error.setVisible(bool(outcome is not None and outcome.error))
        self.error.setText(outcome.error if outcome is not None else "")
        if a is None:
            self.summary.setText("")
            self.job_line.setText("")
            self.basis.setText("")
            self.bars.setOpts(x=[], height=[], brushes=[])
            self.curve.setData([], [])
            self.marker.setData([], [])
            return
        self.summary.setText(summary_html(a))
        self._show_job()
        self._show_part()
        self.basis.setText(f"Checkpoint: {a.checkpoint.basis}. Rates: {a.library}."
                           + "".join(f" {n}." for n in a.notes))
        self._draw_causes(a)
        self._draw_curve(a)

    def _show_job(self) -> None:
        outcome = self.current
        a = self.assessment()
        if a is None or outcome is None:
            self.job_line.setText("")
        elif outcome.job_error:
            self.job_line.setText(escape(outcome.job_error))
        elif a.job is None:
            self.job_line.setText("No job in the Workload tab: figures for a job spanning the "
                                  "design")
        else:
            self.job_line.setText(job_html(a, self.cost))

    def _show_part(self) -> None:
        from rackdesigner.reliability.blast import blast_radius

        a = self.assessment()
        snapshot = self.current.layout if self.current is not None else None
        b = None
        if a is not None and snapshot is not None:
            b = blast_radius(a, snapshot, self.selected)
        self.blast = b
        if b is None:
            self.part.setText("")
        elif not b.causes:
            self.part.setText(escape(b.sentence()))
        else:
            names = ", ".join(label.split(" (")[0] for label in b.causes)
            what = (f"stops <b>{b.count:,}</b> GPU{'s' * (b.count != 1)} ({escape(b.scope)})"
                    if b.count else "stops no GPU (bandwidth only)")
            via = f", through {escape(b.via)}" if b.via else ""
            self.part.setText(f"A fault of {escape(b.part)} ({escape(names)}{via}) {what}")
        shown = self.blast_check.isChecked() and b is not None and bool(b.causes)
        self.blast_changed.emit(frozenset(b.gpus) if shown and b is not None else None)
        if shown and b is not None:
            self.message.emit(b.sentence())

    def cause_bars(self) -> list[tuple[str, float]]:
        """(cause label, share %) of the bars drawn, largest first."""
        a = self.assessment()
        if a is None:
            return []
        labels = {c.name: c.label for c in a.causes}
        return [(labels[name], share * 100) for name, share in a.by_cause().items()]

    def _draw_causes(self, a: Any) -> None:
        rows = self.cause_bars()
        gpu_side = {c.name for c in a.causes if c.per == "gpu"}
        names = list(a.by_cause())
        self.axis.labels = [name[:9] for name in names]  # the library's short cause names
        self.bars.setOpts(x=list(range(len(rows))), height=[v for _, v in rows],
                          brushes=[pg.mkBrush(GPU_COLOR if n in gpu_side else BAR_COLOR)
                                   for n in names])
        item = self.causes_plot.getPlotItem()
        item.setXRange(-0.6, max(len(rows), 1) - 0.4, padding=0)
        item.setYRange(0, max((v for _, v in rows), default=1) * 1.1, padding=0)
        self.axis.picture = None
        self.axis.update()

    def curve_points(self) -> list[tuple[float, float]]:
        """(minutes, ETTR %) of the curve drawn."""
        a = self.assessment()
        if a is None:
            return []
        return [(t / 60, e * 100) for t, e in a.ettr_curve([m * 60 for m in CURVE_MINUTES])]

    def _draw_curve(self, a: Any) -> None:
        points = self.curve_points()
        self.curve.setData([p[0] for p in points], [p[1] for p in points])
        self.marker.setData([a.checkpoint.interval_s / 60], [a.ettr * 100])
        low = min((p[1] for p in points), default=0)
        self.curve_plot.getPlotItem().setYRange(max(0.0, low), 100, padding=0.02)


__all__ = ["CURVE_MINUTES", "ReliabilityOutcome", "ReliabilityTab"]
