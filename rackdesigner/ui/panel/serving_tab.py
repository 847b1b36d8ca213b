"""The Workload tab's Serving mode: the serving curve of a model on the design, live.

Pick a model (bundled or an alias such as deepseek-r1), precision, ISL/OSL, aggregated,
disaggregated or the better of both, and a target interactivity; the view draws the Pareto curve
of output tokens/s per GPU against tokens/s per user (log axes: both span decades), marks the
point at the target and says its configuration, TTFT, $ per million tokens and tokens/s per MW.
"Pin as baseline" keeps the curve, so the next design's is drawn beside it (dashed). Estimates
follow the design's edits on the shared `BackgroundJob` (debounced, on a snapshot, newest only),
only while the view is on screen. `flush()` runs what is pending and waits, for tests.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.model import Layout
from rackdesigner.ui.jobs import BackgroundJob, JobResult
from rackdesigner.ui.panel.axes import styled_plot
from rackdesigner.ui.panel.forms import option_grid, status_label
from rackdesigner.ui.panel.theme import TEXT_DIM, pg
from rackdesigner.ui.plain_text import plain

log = logging.getLogger(__name__)
DEBOUNCE_MS = 250
CURVE = "#76b900"
BASELINE = "#7b8794"


@dataclass(frozen=True)
class ServeRequest:
    model: str
    precision: str
    isl: int
    osl: int
    mode: str = "best"
    interactivity: float | None = None
    stack: str | None = None
    pue: float | None = None
    scope: str | tuple[str, ...] | None = None  # the panel's scope: a group id or GPU ids


@dataclass(frozen=True)
class ServeOutcome:
    result: Any  # serving.ServeResult, or None with `error`
    error: str = ""


def serve_snapshot(snapshot: Layout | None, req: ServeRequest | None) -> ServeOutcome:
    """The worker's job: serve `req` on the snapshot; never raises (errors become text)."""
    if snapshot is None or req is None:
        return ServeOutcome(None, "no design open")
    from rackdesigner.serving import ServeError, serve

    scope = req.scope
    try:
        result = serve(snapshot, req.model, precision=req.precision, isl=req.isl,
                       osl=req.osl, mode=req.mode, interactivity=req.interactivity,
                       stack=req.stack, pue=req.pue, usd_per_gpu_hour=_per_gpu_hour(snapshot,
                                                                                    req.pue),
                       group=scope if isinstance(scope, str) else None,
                       gpu_ids=scope if isinstance(scope, tuple) else None)
    except ServeError as exc:
        return ServeOutcome(None, exc.worded(lambda name: name.upper() if len(name) == 3
                                             else name))
    except ValueError as exc:
        return ServeOutcome(None, str(exc))
    return ServeOutcome(result)


def _per_gpu_hour(snapshot: Layout, pue: float | None) -> float | None:
    """The design's $/GPU-hour with the price book in effect (None when it cannot be had)."""
    from rackdesigner.cost import Assumptions, design_cost, find_price_book

    try:
        book = find_price_book(snapshot)
        return design_cost(snapshot, book, Assumptions() if pue is None
                           else Assumptions(pue=pue)).usd_per_gpu_hour
    except ValueError:  # a bad price book: the Cost tab says why; the curve stands without $
        return None


def _curve(result: Any) -> tuple[list[float], list[float]]:
    pts = [] if result is None else list(result.pareto)
    return [p.per_user for p in pts], [p.output_per_gpu for p in pts]


class ServingView(QWidget):
    def __init__(self, parent: QWidget | None = None, *,
                 debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.job = BackgroundJob(serve_snapshot, self, debounce_ms=debounce_ms)
        self.job.result_ready.connect(self._on_job_result_ready)
        self.current: ServeOutcome | None = None
        self.baseline: Any = None  # a pinned ServeResult
        self._unsubscribe: Any = None
        self._active = False
        self._stale = False
        self._pue: float | None = None
        self._scope: str | tuple[str, ...] | None = None
        self._build()
        self._on_option_changed()

    # ---- construction ------------------------------------------------------------------------
    def _build(self) -> None:
        from rackdesigner.serving.shapes import ALIASES
        from rackdesigner.serving.stacks import stacks
        from rackdesigner.workload import bundled_ids

        self.model_combo = QComboBox(self)
        self.model_combo.addItems(sorted({*bundled_ids(), *ALIASES}))
        self.model_combo.setCurrentText("llama3.3-70b")
        self.precision_combo = QComboBox(self)
        self.precision_combo.addItems(["fp8", "bf16", "fp4"])
        self.mode_combo = QComboBox(self)
        self.mode_combo.addItems(["best", "aggregated", "disaggregated"])
        self.stack_combo = QComboBox(self)
        self.stack_combo.addItems(list(stacks()))
        self.isl = QSpinBox(self)
        self.osl = QSpinBox(self)
        for box, value, what in ((self.isl, 1024, "input"), (self.osl, 1024, "output")):
            box.setRange(1, 1_000_000)
            box.setValue(value)
            box.setToolTip(plain(f"{what} tokens per request"))
        self.target = QDoubleSpinBox(self)
        self.target.setRange(0.0, 10_000.0)
        self.target.setValue(50.0)
        self.target.setSpecialValueText("none")
        self.target.setSuffix(" tok/s/user")
        self.target.setToolTip("Target interactivity: the best point giving each user this")
        for combo in (self.model_combo, self.precision_combo, self.mode_combo,
                      self.stack_combo):
            combo.currentIndexChanged.connect(self._on_option_changed)
        for box in (self.isl, self.osl, self.target):
            box.valueChanged.connect(self._on_option_changed)
        grid = option_grid(self, (("Model", self.model_combo),
                                  ("Precision", self.precision_combo), ("ISL", self.isl),
                                  ("OSL", self.osl), ("Mode", self.mode_combo),
                                  ("Stack", self.stack_combo), ("Target", self.target)))
        self.status = status_label(self)
        self.point_label = QLabel("–", self)
        self.point_label.setWordWrap(True)
        self.point_label.setStyleSheet("font-size: 9pt; font-weight: 600;")
        self.pin_button = QPushButton("Pin as baseline", self)
        self.pin_button.setEnabled(False)
        self.pin_button.clicked.connect(self.pin_baseline)
        self.clear_button = QPushButton("Clear", self)
        self.clear_button.setEnabled(False)
        self.clear_button.clicked.connect(self.clear_baseline)
        self.plot = styled_plot("Output tokens/s per GPU vs tokens/s per user", "tok/s/GPU")
        item = self.plot.getPlotItem()
        item.setLogMode(x=True, y=True)
        item.setLabel("bottom", "tokens/s per user", color=TEXT_DIM, **{"font-size": "8pt"})
        self.baseline_curve = pg.PlotDataItem([], [], pen=pg.mkPen(BASELINE, width=1.5,
                                                                  style=pg.QtCore.Qt.DashLine))
        self.curve = pg.PlotDataItem([], [], pen=pg.mkPen(CURVE, width=2), symbol="o",
                                     symbolSize=4, symbolBrush=CURVE, symbolPen=None)
        self.chosen = pg.ScatterPlotItem([], [], size=11, brush=pg.mkBrush("#c0392b"),
                                         pen=pg.mkPen("w", width=1))
        for part in (self.baseline_curve, self.curve, self.chosen):
            item.addItem(part)
        buttons = QHBoxLayout()
        buttons.addWidget(self.pin_button)
        buttons.addWidget(self.clear_button)
        buttons.addStretch(1)
        box = QVBoxLayout(self)
        box.setContentsMargins(2, 2, 2, 2)
        box.setSpacing(4)
        box.addLayout(grid)
        box.addWidget(self.status)
        box.addWidget(self.point_label)
        box.addLayout(buttons)
        box.addWidget(self.plot, 1)

    # ---- inputs ------------------------------------------------------------------------------
    def request(self) -> ServeRequest:
        target = self.target.value()
        return ServeRequest(self.model_combo.currentText(), self.precision_combo.currentText(),
                            self.isl.value(), self.osl.value(), self.mode_combo.currentText(),
                            target if target > 0 else None, self.stack_combo.currentText(),
                            self._pue, self._scope)

    def set_layout(self, layout: Layout | None) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._scope = None
        self.job.set_params(self.request())
        self.job.set_layout(layout)
        if layout is not None:
            self._unsubscribe = layout.subscribe(self._on_layout_event)
        self._ask()

    def set_scope(self, scope: str | tuple[str, ...] | None) -> None:
        self._scope = scope
        self._on_option_changed()

    def set_pue(self, pue: float | None) -> None:
        self._pue = pue
        self._on_option_changed()

    def _on_option_changed(self, *_args: Any) -> None:
        self.job.set_params(self.request())
        self._ask()

    def _on_layout_event(self, event: Any) -> None:
        if getattr(event, "affects_simulation", True):
            self._ask()

    def _ask(self) -> None:
        if not self._active:
            self._stale = True
            return
        self._stale = False
        self.job.request()

    def set_active(self, active: bool) -> None:
        self._active = active
        if active and self._stale:
            self._ask()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.set_active(True)

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self.set_active(False)

    def flush(self, timeout_ms: int = 60_000) -> ServeOutcome | None:
        """Run what is pending now (even while hidden) and wait for the newest result."""
        if self._stale:
            self._stale = False
            self.job.request(immediate=True)
        self.job.flush(timeout_ms)
        return self.current

    def close_view(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.job.close()

    # ---- results -----------------------------------------------------------------------------
    def _on_job_result_ready(self, result: JobResult) -> None:
        if result.ok:
            self.current = result.value
        else:
            self.current = ServeOutcome(None, f"the serving estimate failed ({result.error})")
        self._redraw()

    def pin_baseline(self) -> bool:
        if self.current is None or self.current.result is None:
            return False
        self.baseline = self.current.result
        self._redraw()
        return True

    def clear_baseline(self) -> None:
        self.baseline = None
        self._redraw()

    def _redraw(self) -> None:
        outcome = self.current
        r = None if outcome is None else outcome.result
        self.pin_button.setEnabled(bool(r is not None and r.pareto))
        self.clear_button.setEnabled(self.baseline is not None)
        self.curve.setData(*_curve(r))
        self.baseline_curve.setData(*_curve(self.baseline))
        chosen = None if r is None else r.basis
        self.chosen.setData([math.log10(chosen.per_user)] if chosen else [],
                            [math.log10(chosen.output_per_gpu)] if chosen else [])
        if outcome is None:
            self.status.setText(" ")
        elif r is None:
            self.status.setText(f"Cannot estimate: {outcome.error}")
        elif not r.pareto:
            self.status.setText(r.notes[0] if r.notes else "nothing fits")
        else:
            self.status.setText(f"{r.title} on {r.gpus:,} × {r.gpu_model}, {r.precision}: "
                                f"{len(r.pareto)} points on the curve")
        self.point_label.setText(self.point_text())

    def point_text(self) -> str:
        """What the marked point is: the target's (or max load's) figures and layout."""
        r = None if self.current is None else self.current.result
        p = None if r is None else r.basis
        if p is None:
            return "–"
        where = "at target" if r.at is not None else "at max load"
        c = p.config
        layout = c["label"] + (f" (prefill {c['prefill']['label']}, decode "
                               f"{c['decode']['label']})" if p.mode == "disaggregated" else "")
        money = r.usd_per_million_tokens
        text = (f"{where}: {p.output_per_gpu:,.0f} tok/s/GPU at {p.per_user:,.1f} tok/s/user, "
                f"TTFT {p.ttft_s * 1000:,.0f} ms — {p.mode} {layout}, batch {c['batch']:,}"
                + (f" — ${money:,.3f}/M tokens" if money is not None else "")
                + (f", {r.tokens_per_s_per_mw:,.0f} tok/s/MW" if r.tokens_per_s_per_mw else ""))
        if self.baseline is not None and self.baseline.basis is not None:
            ratio = p.output_per_gpu / self.baseline.basis.output_per_gpu
            text += f" ({ratio:.2f}× the baseline)"
        return text


__all__ = ["ServeOutcome", "ServeRequest", "ServingView", "serve_snapshot"]
