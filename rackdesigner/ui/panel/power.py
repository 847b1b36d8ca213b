"""Power plot: per-rack stacked bars by device category, each rack's budget, the total.

One `BarGraphItem` per category is stacked with `y0`; the budget is one line item drawn as
separate segments over each bar; a pinned baseline shows as dashed outlines of its racks'
totals. Hover gives the figures of the rack under the cursor.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from rackdesigner.simulation import SimulationResult
from rackdesigner.ui.panel.axes import CategoryAxisItem, styled_plot
from rackdesigner.ui.panel.figures import format_watts
from rackdesigner.ui.panel.theme import (
    BUDGET_COLOR,
    POWER_CATEGORIES,
    POWER_COLORS,
    POWER_LABELS,
    TEXT_DIM,
    pg,
)

BAR_WIDTH = 0.7


class PowerPlot(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.axis = CategoryAxisItem(thin=True)
        self.plot = styled_plot("Power per rack (max) and budget", "kW",
                                axis_items={"bottom": self.axis})
        self.item = self.plot.getPlotItem()
        self.bars: dict[str, pg.BarGraphItem] = {}
        for category in POWER_CATEGORIES:
            bar = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH,
                                  brush=POWER_COLORS[category], pen=pg.mkPen("w", width=0.5))
            self.item.addItem(bar)
            self.bars[category] = bar
        self.baseline_bars = pg.BarGraphItem(
            x=[], height=[], width=BAR_WIDTH + 0.12, brush=None,
            pen=pg.mkPen("#52606d", width=1.2, style=Qt.PenStyle.DashLine))
        self.item.addItem(self.baseline_bars)
        self.budget = pg.PlotDataItem([], [], connect="pairs",
                                      pen=pg.mkPen(BUDGET_COLOR, width=2))
        self.item.addItem(self.budget)
        self.legend = QLabel(self._legend_html(), self)
        self.legend.setWordWrap(True)
        self.legend.setStyleSheet(f"color: {TEXT_DIM}; font-size: 8pt;")
        self.total = QLabel(" ", self)
        self.total.setStyleSheet("color: #1f2933; font-size: 9pt;")
        self.total.setWordWrap(True)
        self.readout = QLabel(" ", self)
        self.readout.setStyleSheet("color: #3e4c59; font-size: 8pt;")
        self.readout.setWordWrap(True)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        box.addWidget(self.total)
        box.addWidget(self.legend)
        box.addWidget(self.plot, 1)
        box.addWidget(self.readout)
        self._racks: list[str] = []
        self._result: SimulationResult | None = None
        self._split: dict[str, dict[str, float]] = {}
        self._proxy = pg.SignalProxy(self.plot.scene().sigMouseMoved, rateLimit=30,
                                     slot=self._on_scene_mouse_moved)

    def show_results(self, result: SimulationResult | None, split: dict[str, dict[str, float]],
                     baseline: SimulationResult | None) -> None:
        self._result, self._split = result, split
        racks = list(result.power.by_rack) if result is not None else []
        self._racks = racks
        self.axis.labels = racks
        xs = list(range(len(racks)))
        bottom = [0.0] * len(racks)
        for category, bar in self.bars.items():
            heights = [split.get(r, {}).get(category, 0.0) / 1000 for r in racks]
            bar.setOpts(x=xs, height=heights, y0=list(bottom))
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        seg_x, seg_y = [], []
        for i, rack in enumerate(racks):
            budget = result.power.by_rack[rack].budget_w
            if budget:
                seg_x += [i - BAR_WIDTH / 2 - 0.08, i + BAR_WIDTH / 2 + 0.08]
                seg_y += [budget / 1000] * 2
        self.budget.setData(seg_x, seg_y)
        bx, bh = [], []
        if baseline is not None:
            for i, rack in enumerate(racks):
                info = baseline.power.by_rack.get(rack)
                if info is not None:
                    bx.append(i)
                    bh.append(info.max_w / 1000)
        self.baseline_bars.setOpts(x=bx, height=bh)
        self.item.setXRange(-0.6, max(len(racks), 1) - 0.4, padding=0)
        self.item.enableAutoRange(axis="y")
        # now, not at the next paint: after an empty panel (a file just opened) the bars'
        # new bounds would otherwise wait for a repaint to reach the y range
        self.item.getViewBox().updateAutoRange()
        self.axis.picture = None
        self.axis.update()
        if result is None:
            self.total.setText(" ")
            self.readout.setText(" ")
            return
        p = result.power
        bound = "" if p.complete else "≥ "
        text = (f"<b>Total {bound}{format_watts(p.total_max_w)}</b> max · "
                f"{bound}{format_watts(p.total_typical_w)} typical · facility "
                f"{bound}{format_watts(p.facility_w)} at PUE {p.pue:.3g}")
        if not p.complete:
            text += (f" · <span style='color:{BUDGET_COLOR}'>"
                     f"{escape(p.headline.partition(', ')[2])} "
                     f"({escape(', '.join(p.without_power))})</span>")
        if baseline is not None:
            diff = p.total_max_w - baseline.power.total_max_w
            sign = "+" if diff >= 0 else "−"
            text += f" · baseline {format_watts(baseline.power.total_max_w)} ({sign}" \
                    f"{format_watts(abs(diff))})"
        self.total.setText(text)
        unracked = p.total_max_w - sum(v.max_w for v in p.by_rack.values())
        note = f"{format_watts(unracked)} of devices not placed in a rack. " \
            if unracked > 1 else ""
        self.readout.setText(note + ("Hover a bar for its figures." if racks else
                                     "No racks in scope: place devices in racks to see them."))

    @staticmethod
    def _legend_html() -> str:
        parts = [f"<span style='color:{POWER_COLORS[c]}'>■</span> {POWER_LABELS[c]}"
                 for c in POWER_CATEGORIES]
        parts.append(f"<span style='color:{BUDGET_COLOR}'>━</span> rack budget")
        parts.append("<span style='color:#52606d'>┅</span> baseline")
        return " &nbsp; ".join(parts)

    def describe(self, index: int) -> str:
        if self._result is None or not 0 <= index < len(self._racks):
            return ""
        rack = self._racks[index]
        info = self._result.power.by_rack[rack]
        parts = [f"<b>{escape(rack)}</b> {format_watts(info.max_w)} max, "
                 f"{format_watts(info.typical_w)} typical"]
        if info.budget_w:
            source = {"rack": "set on the rack", "model": "model default"}.get(
                info.budget_source, "")
            parts.append(f"budget {format_watts(info.budget_w)}"
                         + (f" ({source})" if source else "")
                         + f": {100 * info.max_w / info.budget_w:.0f}%"
                         + (" <b>over</b>" if info.over_budget else ""))
        split = self._split.get(rack, {})
        parts += [f"{POWER_LABELS[c]} {format_watts(split[c])}" for c in POWER_CATEGORIES
                  if split.get(c)]
        return " · ".join(parts)

    def _on_scene_mouse_moved(self, args) -> None:
        pos = args[0]
        if self.item.sceneBoundingRect().contains(pos):
            x = self.item.vb.mapSceneToView(QPointF(pos)).x()
            text = self.describe(round(x))
            if text:
                self.readout.setText(text)
