"""`SimulationPanel`: the live panel composed from its parts (headline, plots, compare, export).

It follows the `Document` (`follow_document`: its `changed` and `replaced` signals) — or,
standalone, a `Layout` — through `LiveSimulation`, and shows each result it delivers; the window
tells it the selection (`set_selection`) so the "Selection only" toggle can limit the scope.
Invalid or partial designs show the engine's warnings in a banner and its notes in a quiet
"n notes" line (`notes.NotesBar`), never an exception.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.analysis.heat import from_result
from rackdesigner.commands import Command
from rackdesigner.model import Layout
from rackdesigner.simulation import WARNING, Message
from rackdesigner.ui.panel.bandwidth import BandwidthPlot
from rackdesigner.ui.panel.compare import BaselineStore, CompareBar
from rackdesigner.ui.panel.cost_tab import CostTab, cost_figures
from rackdesigner.ui.panel.export import PanelExport
from rackdesigner.ui.panel.failures import FailureBar
from rackdesigner.ui.panel.figures import (
    DEFAULT_REFERENCE,
    Figure,
    headline,
)
from rackdesigner.ui.panel.headline import HeadlineWidget
from rackdesigner.ui.panel.heat_tab import HeatTab
from rackdesigner.ui.panel.latency import LatencyPlot
from rackdesigner.ui.panel.live import LiveResult, LiveSimulation, Scope
from rackdesigner.ui.panel.notes import NotesBar
from rackdesigner.ui.panel.options import (
    METRICS,
    PUE_AUTO,
    PUE_AUTO_TEXT,
    PUE_MAX,
    PUE_MIN,
    PUE_STEP,
    PanelOptions,
)
from rackdesigner.ui.panel.power import PowerPlot
from rackdesigner.ui.panel.reliability_tab import ReliabilityTab
from rackdesigner.ui.panel.scroll import FigureScroll, PlotTabs, ScrollContent
from rackdesigner.ui.panel.serving_tab import ServingView
from rackdesigner.ui.panel.workload import WorkloadTab
from rackdesigner.ui.panel.workload_modes import WorkloadModes
from rackdesigner.ui.wheel_guard import guard_wheel

log = logging.getLogger(__name__)
DEFAULT_SHOWN = ("all_reduce", "all_gather", "all_to_all")
WAITING = "Computing the loads of this design…"  # the Heat tab while a file opens
TABS = ("bandwidth", "latency", "power", "workload", "cost")


class SimulationPanel(PanelOptions, PanelExport, QWidget):
    shown = Signal(object)  # the LiveResult now on screen
    message = Signal(str)  # outcome of an export, for the status bar
    heat_changed = Signal(object)  # HeatMap for the canvas, or None (heat map off)
    blast_changed = Signal(object)  # GPU ids the selected part's fault stops, or None

    def __init__(self, layout: Layout | None = None, parent: QWidget | None = None, *,
                 debounce_ms: int | None = None) -> None:
        super().__init__(parent)
        kw = {} if debounce_ms is None else {"debounce_ms": debounce_ms}
        self._debounce_ms = debounce_ms
        self.live = LiveSimulation(None, self, **kw)
        self.store = BaselineStore(self)
        self.reference = DEFAULT_REFERENCE
        self.collectives: list[str] = list(DEFAULT_SHOWN)
        self._selection_scope: Scope = None
        self._selection_label = ""
        self.current: LiveResult | None = None
        self._workload_heat: tuple | None = None  # ("workload", classes, job) being drawn
        #: where the SHARP switch's command goes: the window sets its document's undo stack
        #: (`Document.push`); a panel on its own applies the command to the layout directly
        self.command_sink: Callable[[Command], object] | None = None
        self._build()
        self.live.result_ready.connect(self._on_live_result_ready)
        self.live.busy_changed.connect(self._on_live_busy_changed)
        self.store.changed.connect(self._redraw)
        if layout is not None:
            self.set_layout(layout)

    # ---- construction ------------------------------------------------------------------------
    def _build(self) -> None:
        rows = self._build_options()

        self.notes_bar = NotesBar(self)
        self.banner = self.notes_bar.warning  # the warnings (tests and callers read it)
        self.headline = HeadlineWidget(self)
        keep = self.headline.sizePolicy()  # hidden while a file opens, it keeps its place: the
        keep.setRetainSizeWhenHidden(True)  # tabs under it do not jump up and back (issue 26)
        self.headline.setSizePolicy(keep)
        self.failure_bar = FailureBar(self)
        self.heat_tab = HeatTab(self)
        self.heat_tab.heat_requested.connect(self._on_heat_tab_heat_requested)
        self.compare = CompareBar(self.store, self)
        self.compare.pin_button.clicked.connect(self.pin_baseline)
        self.compare.clear_button.clicked.connect(self.store.clear)
        self.compare.message.connect(self.message)

        self.bandwidth = BandwidthPlot(self)
        self.latency = LatencyPlot(self)
        self.power = PowerPlot(self)
        pue_label = QLabel("PUE", self)
        pue_label.setToolTip(self.pue_spin.toolTip())
        self.tabs = PlotTabs(self)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self._page(self.bandwidth, self.collectives_button, self.metric_combo),
                         "Bandwidth")
        self.tabs.addTab(self.latency, "Latency")
        self.tabs.addTab(self._page(self.power, pue_label, self.pue_spin), "Power")
        self.workload = WorkloadTab(self, **({} if self._debounce_ms is None
                                             else {"debounce_ms": self._debounce_ms}))
        self.serving = ServingView(self, **({} if self._debounce_ms is None
                                            else {"debounce_ms": self._debounce_ms}))
        self.workload_modes = WorkloadModes(self.workload, self.serving, self)
        self.tabs.addTab(self.workload_modes, "Workload")
        self.workload.job_changed.connect(self._on_workload_job_changed)
        self.cost_tab = CostTab(self, **({} if self._debounce_ms is None
                                         else {"debounce_ms": self._debounce_ms}))
        self.cost_tab.command_sink = self._push_command
        self.cost_tab.changed.connect(self._show_headline)
        self.cost_tab.message.connect(self.message)
        self.tabs.addTab(self.cost_tab, "Cost")
        self.tabs.addTab(self.heat_tab, "Heat")
        self.reliability_tab = ReliabilityTab(self, **({} if self._debounce_ms is None
                                                       else {"debounce_ms": self._debounce_ms}))
        self.tabs.addTab(self.reliability_tab, "Reliability")
        self.reliability_tab.blast_changed.connect(self.blast_changed)
        self.reliability_tab.message.connect(self.message)
        self.cost_tab.changed.connect(lambda: self.reliability_tab.set_cost(self.cost_tab.report()))

        # The controls stay put; figures and plots scroll when the dock is short, so the panel
        # never forces a minimum height on the window (laptop screens).
        content = ScrollContent(self)
        inner = QVBoxLayout(content)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.setSpacing(4)
        inner.addWidget(self.notes_bar)
        inner.addWidget(self.failure_bar)
        inner.addWidget(self.headline)
        inner.addWidget(self.compare)
        inner.addWidget(self.tabs, 1)
        self.scroll = FigureScroll(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(content)
        box = QVBoxLayout(self)
        box.setContentsMargins(6, 4, 6, 4)
        box.setSpacing(4)
        for row in rows:
            box.addLayout(row)
        box.addWidget(self.scroll, 1)
        # the wheel scrolls the panel; a drop-down, spin box or tab bar takes it only when
        # focused (scrolling past one must not change it)
        self._wheel_guard = guard_wheel(self, fallback=self.scroll)

    def _page(self, body: QWidget, *tools: QWidget) -> QWidget:
        """A tab page: a row of `tools` above `body`."""
        page = QWidget(self)
        box = QVBoxLayout(page)
        box.setContentsMargins(2, 2, 2, 2)
        row = QHBoxLayout()
        for tool in tools:
            row.addWidget(tool)
        row.addStretch(1)
        box.addLayout(row)
        box.addWidget(body, 1)
        return page

    def show_tab(self, kind: str) -> None:
        """Bring the "bandwidth", "latency", "power", "workload" or "cost" tab to the front."""
        self.tabs.setCurrentIndex(TABS.index(kind))

    # ---- inputs ------------------------------------------------------------------------------
    def follow_document(self, document) -> None:
        """Follow a `Document` through its `changed` and `replaced` signals only."""
        document.changed.connect(self.live.on_event)
        document.changed.connect(self.cost_tab.on_event)
        document.changed.connect(self.reliability_tab.on_event)
        document.replaced.connect(lambda layout: self._follow(document, layout))
        self._follow(document, document.layout)

    def _follow(self, document, layout: Layout) -> None:
        path = document.path
        self.set_layout(layout, path.name if path is not None else (layout.meta.name or "Untitled"),
                        str(path.parent) if path is not None else "", subscribe=False)

    def set_layout(self, layout: Layout | None, name: str | None = None,
                   folder: str = "", *, subscribe: bool = True) -> None:
        """Follow `layout` (a document was opened); the scope returns to the whole design.

        `name` (the file name) labels baselines pinned from now on; a baseline pinned on a
        design of another name stays, but its label says it is another design's. Standalone
        (no Document), `subscribe` listens to the Layout's own events."""
        if name is not None:
            self.compare.set_design(name, folder)
        self._selection_scope = None
        self._selection_label = ""
        self.scope_button.blockSignals(True)
        self.scope_button.setChecked(False)
        self.scope_button.blockSignals(False)
        self.scope_button.setEnabled(False)
        self.sharp_check.blockSignals(True)
        self.sharp_check.setChecked(bool(layout is not None and layout.meta.sharp))
        self.sharp_check.blockSignals(False)
        if layout is not self.live.layout:  # a file opened: nothing of the previous design
            self.current = None           # stays on screen until the new one's figures come
            self._redraw()
        self.live.set_layout(layout, subscribe=subscribe)
        self.workload.set_layout(layout)
        self.serving.set_layout(layout)
        self.cost_tab.set_layout(layout, folder)
        self.reliability_tab.set_layout(layout)
        if layout is not None and subscribe:
            layout.subscribe(self.cost_tab.on_event)
            layout.subscribe(self.reliability_tab.on_event)
        self._update_scope_label()

    # ---- results -----------------------------------------------------------------------------
    def flush(self) -> LiveResult | None:
        """Compute what is pending now and show it (tests, export, benchmarks): the
        simulation's figures and the Cost tab's."""
        live = self.live.flush()
        self.cost_tab.flush()
        return live

    def _on_live_busy_changed(self, busy: bool) -> None:
        self.busy_label.setVisible(busy)

    def _on_live_result_ready(self, live: LiveResult) -> None:
        self.current = live
        layout = self.live.layout
        if layout is not None and self.sharp_check.isChecked() != layout.meta.sharp:
            self.sharp_check.blockSignals(True)  # follow the design (undo, file opened)
            self.sharp_check.setChecked(layout.meta.sharp)
            self.sharp_check.blockSignals(False)
        self._redraw()
        self.shown.emit(live)

    def figures(self) -> list[Figure]:
        result = self.current.result if self.current is not None else None
        return headline(result, self.reference) if result is not None else []

    def _redraw(self) -> None:
        live = self.current
        result = live.result if live is not None else None
        base_live = self.store.baseline.live if self.store.baseline is not None else None
        baseline = base_live.result if base_live is not None else None
        impact = live.impact if live is not None else None
        if impact is not None:  # failures marked: compare with the intact design, always
            baseline = impact.intact
        self.failure_bar.show_impact(impact, result, self.reference)
        heat = None
        if live is None and self.live.layout is not None:  # a file opened: no other's loads
            self.heat_tab.show_heat(None, WAITING if self.heat_tab.enabled_check.isChecked()
                                    else "")
            self.heat_changed.emit(None)
        elif self.heat_tab.enabled_check.isChecked() and self.heat_tab.workload_chosen():
            if (live is not None and live.heat_for == self._workload_heat
                    and (live.heat is not None or live.heat_error)):
                self.heat_tab.show_heat(live.heat, live.heat_error)
                self.heat_changed.emit(live.heat)
        elif result is not None and self.heat_tab.enabled_check.isChecked():
            heat = from_result(result)
            if heat is not None and (heat.collective, heat.bytes) != self.heat_tab.traffic():
                heat = None  # a run for other traffic: the one asked for is on its way
        if not self.heat_tab.workload_chosen() and (
                heat is not None or not self.heat_tab.enabled_check.isChecked()):
            self.heat_tab.show_heat(heat)
            self.heat_changed.emit(heat)
        messages = list(result.classified()) if result is not None else []
        if live is not None and live.error:
            messages.insert(0, Message("cannot_simulate", WARNING,
                                       f"Cannot simulate: {live.error}"))
        if live is None and self.live.layout is not None:
            self.notes_bar.hold()
        else:
            self.notes_bar.show_messages(messages)
        self.compare.pin_button.setEnabled(result is not None)
        self._show_headline()
        self.bandwidth.show_results(result, baseline, self.collectives)
        self.latency.show_results(result, baseline, self.collectives)
        self.power.show_results(result, live.rack_split if live is not None else {}, baseline)

    def _show_headline(self) -> None:
        """The headline tiles: the simulation's figures and the Cost tab's, with their deltas
        to the baseline (or, with failures marked, to the intact design)."""
        live = self.current
        result = live.result if live is not None else None
        impact = live.impact if live is not None else None
        base = self.store.baseline
        baseline = base.live.result if base is not None else None
        base_cost = base.cost if base is not None and impact is None else None
        against = self.compare.against()
        if impact is not None:
            baseline, against = impact.intact, "intact"
        self.cost_tab.set_baseline(base_cost)
        if result is not None:
            self.headline.show_figures(
                headline(result, self.reference) + self.cost_tab.figures(),
                headline(baseline, self.reference) + cost_figures(base_cost)
                if baseline else None, against)
        self.headline.setVisible(result is not None)

    # ---- heat map --------------------------------------------------------------------------------
    def set_heat_enabled(self, on: bool) -> None:
        """View ▸ Heat map: colour the canvas by the Heat tab's traffic (and show the tab)."""
        self.heat_tab.enabled_check.setChecked(on)
        if on:
            self.tabs.setCurrentWidget(self.heat_tab)

    def _on_heat_tab_heat_requested(self, traffic, immediate: bool = True) -> None:
        self._workload_heat = None
        if traffic is not None and traffic[0] == "workload":  # the Workload tab's job
            req, why = self.workload.heat_job()
            if req is None:
                self.live.set_heat(None)
                self.heat_tab.show_heat(None, why)
                self.heat_changed.emit(None)
                return
            traffic = self._workload_heat = ("workload", traffic[1], req)
        self.live.set_heat(traffic, immediate=immediate)
        if traffic is None:
            self.heat_tab.show_heat(None)
            self.heat_changed.emit(None)

    def _on_workload_job_changed(self) -> None:
        job, _why = self.workload.found_job_spec()
        self.cost_tab.set_training(job)
        self.reliability_tab.set_training(job)
        if self.heat_tab.enabled_check.isChecked() and self.heat_tab.workload_chosen():
            self._on_heat_tab_heat_requested(self.heat_tab.traffic(), immediate=False)

    # ---- compare -----------------------------------------------------------------------------
    def pin_baseline(self) -> bool:
        return self.store.pin(self.current, self.compare.design, cost=self.cost_tab.report())

    def load_baseline(self, path: str | Path) -> bool:
        """Compare against the result saved in `path` (False, and a message, if it is not one)."""
        return self.compare.load(path)

    def close_panel(self) -> None:
        """Stop following the layout and wait for a run in flight (the window is closing)."""
        self.live.close()
        self.workload.close_tab()
        self.serving.close_view()
        self.cost_tab.close_tab()
        self.reliability_tab.close_tab()


__all__ = ["METRICS", "PUE_AUTO", "PUE_AUTO_TEXT", "PUE_MAX", "PUE_MIN", "PUE_STEP",
           "SimulationPanel"]
