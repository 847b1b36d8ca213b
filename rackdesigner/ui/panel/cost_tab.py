"""The live panel's Cost tab: the design's capex, TCO, $/GPU-hour and heat, where the money
goes, and what is unpriced — recomputed on a worker after each edit (`CostLive`).

The price book, years, $/kWh, utilisation and power basis are set here (PUE follows the panel's
Power tab); "Embed in the design" and "Site limits…" are document edits, pushed as one undo
step each through `command_sink`. With a pinned baseline that carries a cost, the figures show
their change against it; `figures()` gives the headline tiles (capex, $/GPU-hour) the panel
shows beside the bandwidth figures.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from rackdesigner.commands import Command
from rackdesigner.cost import Assumptions, CostReport
from rackdesigner.cost.capex import CATEGORIES
from rackdesigner.model import Layout
from rackdesigner.ui.panel.axes import CategoryAxisItem, styled_plot
from rackdesigner.ui.panel.cost_edits import CostEdits
from rackdesigner.ui.panel.cost_live import CostLive, CostOutcome
from rackdesigner.ui.panel.cost_more import TornadoChart, bill_html, fill_lines, make_lines_tree
from rackdesigner.ui.panel.cost_text import change_text, cooling_text, cost_figures, summary_html
from rackdesigner.ui.panel.figures import Figure
from rackdesigner.ui.panel.theme import DOWN, TEXT, TEXT_DIM, pg
from rackdesigner.ui.plain_text import plain

#: From this many devices (a design of ~4,000 GPUs and up), edits made while the tab is hidden
#: are priced when it is shown: a full pricing costs ~1.5 s of worker time at 16k GPUs, which
#: every edit would otherwise pay for a tab nobody is looking at.
LAZY_DEVICES = 20_000

CATEGORY_COLORS = {"compute": "#76b900", "network": "#1f6fd1", "storage": "#b7950b",
                   "facility": "#2c3e50", "services": "#8e44ad", "other": "#b8c2cc"}
VIEWS = (("by category", "category"), ("by kind", "kind"), ("by group", "group"))
FACILITY_CHOICES = (("as the book says", None), ("built", "build"),
                    ("colocation", "colocation"), ("left out", "none"))


def _spin(parent: QWidget, low: float, high: float, step: float, decimals: int, value: float,
          tip: str, suffix: str = "") -> QDoubleSpinBox:
    spin = QDoubleSpinBox(parent)
    spin.setRange(low, high)
    spin.setSingleStep(step)
    spin.setDecimals(decimals)
    spin.setValue(value)
    spin.setSuffix(suffix)
    spin.setToolTip(plain(tip))
    spin.setKeyboardTracking(False)
    return spin


class CostTab(CostEdits, QWidget):
    message = Signal(str)  # outcome of a file or design action, for the status bar
    changed = Signal()  # new figures (the panel refreshes its headline tiles)
    book_chosen = Signal(object)  # a price book file the user chose (None: the default)

    def __init__(self, parent: QWidget | None = None, *, debounce_ms: int | None = None) -> None:
        super().__init__(parent)
        self.live = CostLive(self, **({} if debounce_ms is None else
                                      {"debounce_ms": debounce_ms}))
        self.live.outcome_ready.connect(self._on_live_outcome_ready)
        self.command_sink: Callable[[Command], object] | None = None
        self.baseline: CostReport | None = None
        self.current: CostOutcome | None = None
        self.folder = ""
        self.stale = False  # edits arrived while hidden on a large design: price when shown
        self._build()

    # ---- construction ----------------------------------------------------------------------
    def _build(self) -> None:
        a = Assumptions()
        self.book_label = QLabel("Prices: —", self)
        self.book_label.setWordWrap(True)
        self.book_label.setStyleSheet(f"color: {TEXT_DIM}; font-size: 8pt;")
        self.book_button = QToolButton(self)
        self.book_button.setText("Price book")
        self.book_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.book_button)
        self.use_file_action = menu.addAction("Use a price book file…")
        self.use_file_action.triggered.connect(self._on_use_file_triggered)
        self.use_default_action = menu.addAction("Use the default book")
        self.use_default_action.triggered.connect(lambda: self.use_book(None))
        menu.addSeparator()
        self.embed_action = menu.addAction("Embed this book in the design")
        self.embed_action.triggered.connect(self._on_embed_triggered)
        self.unembed_action = menu.addAction("Remove the embedded book")
        self.unembed_action.triggered.connect(self._on_unembed_triggered)
        self.book_button.setMenu(menu)
        self.site_button = QToolButton(self)
        self.site_button.setText("Site limits…")
        self.site_button.setToolTip("The site's power and cooling (kW): the design is checked "
                                    "against them (rules site-power, site-cooling)")
        self.site_button.clicked.connect(self._on_site_button_clicked)
        self.years_spin = _spin(self, 1, 20, 1, 0, a.years, "Years of operation for TCO and "
                                "$ per GPU-hour", " y")
        self.kwh_spin = _spin(self, 0, 2, 0.005, 4, a.kwh_price, "Electricity price per kWh in "
                              "the book's currency (default: 2023 US industrial average, EIA)")
        self.util_spin = _spin(self, 0, 100, 5, 0, a.utilisation * 100, "Share of the year the "
                               "design draws its power (a model assumption)", " %")
        self.basis_combo = QComboBox(self)
        self.basis_combo.addItems(["typical", "max"])
        self.basis_combo.setToolTip("Draw the energy is computed from")
        self.pue = a.pue
        for w in (self.years_spin, self.kwh_spin, self.util_spin):
            w.valueChanged.connect(self._on_assumption_changed)
        self.basis_combo.currentTextChanged.connect(self._on_assumption_changed)
        self.facility_combo = QComboBox(self)
        for text, key in FACILITY_CHOICES:
            self.facility_combo.addItem(text, key)
        self.facility_combo.setToolTip("The building: as the price book says, built (capex per "
                                       "MW of IT by cooling), colocated (per kW-month) or left out")
        self.facility_combo.currentIndexChanged.connect(self._on_assumption_changed)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setStyleSheet(f"color: {TEXT}; font-size: 9pt;")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cooling = QLabel(self)
        self.cooling.setWordWrap(True)
        self.cooling.setStyleSheet(f"color: {TEXT_DIM}; font-size: 8pt;")
        self.error = QLabel(self)
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {DOWN}; font-size: 8pt;")
        self.error.setVisible(False)
        self.view_combo = QComboBox(self)
        for text, key in VIEWS:
            self.view_combo.addItem(text, key)
        self.view_combo.setToolTip("Where the capital cost goes")
        self.view_combo.currentIndexChanged.connect(lambda _i: self._draw_chart())
        self.axis = CategoryAxisItem()
        self.chart = styled_plot("Capex", "capex, M", axis_items={"bottom": self.axis})
        self.chart.setMinimumHeight(150)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.7, brushes=[])
        self.chart.getPlotItem().addItem(self.bars)
        self.bill = QLabel(self)  # facility, PUE, renting
        self.bill.setWordWrap(True)
        self.bill.setTextFormat(Qt.TextFormat.RichText)
        self.bill.setStyleSheet(f"color: {TEXT}; font-size: 8pt;")
        self.tornado = TornadoChart()
        self.unpriced = make_lines_tree(self)  # unpriced lines, then derived ones

        row1 = QHBoxLayout()
        row1.addWidget(self.book_label, 1)
        row1.addWidget(self.book_button)
        row1.addWidget(self.site_button)
        rows = []
        for pairs in ((("Years", self.years_spin), ("$/kWh", self.kwh_spin)),
                      (("Utilisation", self.util_spin), ("of", self.basis_combo)),
                      (("Facility", self.facility_combo),)):
            row = QHBoxLayout()  # two short rows: the tab fits a narrow dock
            row.setSpacing(4)
            for text, w in pairs:
                label = QLabel(text, self)
                label.setStyleSheet(f"color: {TEXT_DIM}; font-size: 8pt;")
                row.addWidget(label)
                row.addWidget(w)
            row.addStretch(1)
            rows.append(row)
        # the charts and the lines to check share one place, each at the full height the dock
        # leaves (a narrow dock cannot stack three plots and a list readably)
        capex_page = QWidget(self)
        row3 = QVBoxLayout(capex_page)
        row3.setContentsMargins(0, 2, 0, 0)
        row3.addWidget(self.view_combo, 0, Qt.AlignmentFlag.AlignLeft)
        row3.addWidget(self.chart, 1)
        self.views = QTabWidget(self)
        self.views.setDocumentMode(True)
        self.views.addTab(capex_page, "Capex")
        self.views.addTab(self.tornado.widget, "Sensitivity")
        self.views.addTab(self.unpriced, "To check")
        self.views.setMinimumHeight(230)
        box = QVBoxLayout(self)
        box.setContentsMargins(2, 2, 2, 2)
        box.setSpacing(4)
        box.addLayout(row1)
        for row in rows:
            box.addLayout(row)
        box.addWidget(self.error)
        box.addWidget(self.summary)
        box.addWidget(self.bill)
        box.addWidget(self.cooling)
        box.addWidget(self.views, 1)

    # ---- inputs ----------------------------------------------------------------------------
    def set_layout(self, layout: Layout | None, folder: str = "") -> None:
        self.folder = folder
        self.stale = False
        self.live.set_layout(layout)

    def on_event(self, event: Any) -> None:
        """A design edit: recompute, or on a large design while hidden, when shown again."""
        layout = self.live.layout
        if (not self.isVisible() and layout is not None
                and layout.device_count() >= LAZY_DEVICES):
            self.stale = True
            return
        self.live.on_event(event)

    def showEvent(self, event) -> None:  # Qt override: price what changed while hidden
        super().showEvent(event)
        self._fit_height()
        if self.stale:
            self.stale = False
            self.live.request(immediate=True)

    def set_pue(self, pue: float | None) -> None:
        self.pue = pue
        self._on_assumption_changed()

    def set_training(self, job: Any) -> None:
        """The Workload tab's job (a `JobSpec`, or None): adds the cost to train."""
        self.live.set_inputs(training=job)

    def set_baseline(self, report: CostReport | None) -> None:
        self.baseline = report
        self._show()

    def use_book(self, path: str | None) -> None:
        """Price with the book in `path` (None: the book in effect for the design); the
        choice is announced (`book_chosen`) so the app can remember it between sessions."""
        self.live.set_inputs(book_path=path)
        self.book_chosen.emit(path)
        self.live.request(immediate=True)

    def assumptions(self) -> Assumptions:
        return Assumptions(years=self.years_spin.value(), kwh_price=self.kwh_spin.value(),
                           pue=self.pue, utilisation=self.util_spin.value() / 100,
                           power_basis=self.basis_combo.currentText(),
                           facility=self.facility_combo.currentData())

    def _on_assumption_changed(self, *_args: Any) -> None:
        try:
            assumptions = self.assumptions()
        except ValueError as exc:
            self.message.emit(str(exc))
            return
        self.live.set_inputs(assumptions=assumptions)

    def flush(self) -> CostOutcome | None:
        return self.live.flush()

    def report(self) -> CostReport | None:
        return self.current.report if self.current is not None else None

    # ---- results ---------------------------------------------------------------------------
    def _on_live_outcome_ready(self, outcome: CostOutcome) -> None:
        self.current = outcome
        self._show()
        self.changed.emit()

    def _show(self) -> None:
        outcome = self.current
        report = outcome.report if outcome is not None else None
        self.error.setText(plain(outcome.error if outcome is not None else ""))
        self.error.setVisible(bool(outcome is not None and outcome.error))
        layout = self.live.layout
        from rackdesigner.cost.locate import EMBED_KEY

        embedded = layout is not None and EMBED_KEY in dict(layout.meta.extra)
        self.unembed_action.setEnabled(embedded)
        self.embed_action.setEnabled(report is not None)
        if report is None:
            self.summary.setText("")
            self.cooling.setText("")
            self.bill.setText("")
            self.unpriced.clear()
            self._draw_chart()
            self.tornado.show(None)
            return
        self.book_label.setText(plain(f"Prices: {report.book.describe()}"))
        self.book_label.setToolTip(plain("\n".join(report.notes)))
        self.summary.setText(summary_html(report, outcome.job_error, self.baseline))
        self.cooling.setText(plain(cooling_text(report)))
        self.bill.setText(bill_html(report))
        fill_lines(self.unpriced, report)
        count = self.unpriced.topLevelItemCount()
        self.views.setTabText(2, f"To check ({count})" if count else "To check")
        self.views.setTabEnabled(2, count > 0)
        if report.capex.unpriced:  # a lower bound: what it leaves out comes first
            self.views.setCurrentWidget(self.unpriced)
        self._draw_chart()
        self.tornado.show(report)
        self._fit_height()

    def _fit_height(self) -> None:
        """Ask for the height the wrapped text really takes at this width, so the charts and
        the list below it keep theirs (the panel's tabs report no height-for-width)."""
        box = self.layout()
        if box is not None and box.hasHeightForWidth() and self.isVisible():
            self.setMinimumHeight(box.totalHeightForWidth(max(self.width(), 200)))

    def hideEvent(self, event) -> None:  # Qt override: the other tabs keep their own height
        super().hideEvent(event)
        self.setMinimumHeight(0)

    def resizeEvent(self, event) -> None:  # Qt override: wrapped text changes with the width
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit_height()

    def breakdown(self) -> list[tuple[str, float]]:
        """(label, capex) of the chart's bars, largest first."""
        r = self.report()
        if r is None:
            return []
        view = self.view_combo.currentData()
        if view == "category":
            data = {k: v for k, v in r.capex.by_category().items() if v > 0}
            order = sorted(data, key=lambda k: (CATEGORIES.index(k) if k in CATEGORIES else 99))
            return [(k, data[k]) for k in order]
        if view == "kind":
            items = r.capex.by_kind().items()
        else:
            names = r.capex.group_names
            items = [(names.get(g, g), v) for g, v in r.capex.by_group.items()]
        return sorted(((k, v) for k, v in items if v > 0), key=lambda kv: -kv[1])[:12]

    def _draw_chart(self) -> None:
        rows = self.breakdown()
        r = self.report()
        total = r.capex.total if r is not None and r.capex.total else 1.0
        self.axis.labels = [f"{label[:12]} {100 * v / total:.0f}%" for label, v in rows]
        view = self.view_combo.currentData()
        brushes = [CATEGORY_COLORS.get(label if view == "category" else
                                       _category(label, view), "#1f6fd1") for label, _ in rows]
        self.bars.setOpts(x=list(range(len(rows))), height=[v / 1e6 for _, v in rows],
                          brushes=[pg.mkBrush(b) for b in brushes])
        item = self.chart.getPlotItem()
        item.setXRange(-0.6, max(len(rows), 1) - 0.4, padding=0)
        item.setYRange(0, max([v / 1e6 for _, v in rows] or [1.0]), padding=0.05)
        sym = r.book.symbol.strip() if r is not None else "$"
        item.setLabel("left", f"capex, {sym} M (labels: share)", color=TEXT_DIM,
                      **{"font-size": "8pt"})
        self.axis.picture = None
        self.axis.update()

    # ---- headline tiles --------------------------------------------------------------------
    def figures(self) -> list[Figure]:
        """The headline tile: capex, with $ per GPU-hour under it (lower is better); "—"
        while there is no report (a bad price book: no figure rather than a stale one). One
        tile, so the headline keeps its four rows of three."""
        report = self.report()
        if report is None or self.stale:
            why = ("the design changed: the Cost tab prices it when shown" if self.stale
                   else self.current.error if self.current is not None else "computing…")
            return [Figure("capex", "Capex", None, "—", "see the Cost tab" if self.stale
                           else "", False, why)]
        return cost_figures(report)

    def close_tab(self) -> None:
        self.live.close()


def _category(label: str, view: str) -> str:
    from rackdesigner.cost.capex import category_of

    return category_of(label) if view == "kind" else "compute"


__all__ = ["CostTab", "change_text", "cost_figures"]
