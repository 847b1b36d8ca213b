"""Bandwidth plot: busbw, algbw or both against message size, the algorithm regions shaded.

The regions follow the first collective shown (all_reduce by default): where NCCL's model
switches from tree to ring or NVLS, the band changes colour and is labelled. "both" keeps busbw
as the solid curve (the figure nccl-tests users compare) and adds algbw dotted in the same
colour — algbw is the data size over time, so the gap between the two is the collective's
busbw factor (2(n−1)/n for all_reduce).
"""

from __future__ import annotations

import math

from PySide6.QtWidgets import QWidget

from rackdesigner.simulation import Point, SimulationResult
from rackdesigner.ui.panel.figures import algorithm_spans, format_bw
from rackdesigner.ui.panel.sweep_plot import SweepPlot
from rackdesigner.ui.panel.theme import (
    ALGORITHM_COLORS,
    BASELINE_ALPHA,
    COLLECTIVE_COLORS,
    TEXT_DIM,
    pg,
)

MAX_REGIONS = 8
QUANTITIES = ("busbw", "algbw", "both")
TITLES = {"busbw": "Bus bandwidth vs message size",
          "algbw": "Algorithm bandwidth vs message size",
          # short: pyqtgraph keeps a plot at least as wide as its title (narrow docks)
          "both": "busbw (solid) and algbw (dotted) vs size"}


def algbw_pen(name: str, *, baseline: bool = False) -> pg.QtGui.QPen:
    """algbw next to busbw: dotted, the collective's colour (fainter for the baseline)."""
    color = pg.mkColor(COLLECTIVE_COLORS.get(name, "#52606d"))
    if baseline:
        color.setAlpha(BASELINE_ALPHA)
    return pg.mkPen(color, width=1.4 if baseline else 2.0,
                    style=pg.QtCore.Qt.PenStyle.DotLine)


class BandwidthPlot(SweepPlot):
    # not "metric": an attribute of that name shadows QWidget.metric() and crashes Qt
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Bus bandwidth vs message size", "GB/s", self._metric_value,
                         format_bw, parent=parent)
        self.quantity = "busbw"
        self.algbw_curves: dict[str, pg.PlotDataItem] = {}
        self.algbw_baseline_curves: dict[str, pg.PlotDataItem] = {}
        for name in COLLECTIVE_COLORS:  # used by "both" only
            self.algbw_baseline_curves[name] = self.item.plot([], [], pen=algbw_pen(
                name, baseline=True))
            self.algbw_curves[name] = self.item.plot([], [], pen=algbw_pen(name))
        self.regions: list[pg.LinearRegionItem] = []
        self.region_labels: list[pg.TextItem] = []
        for _ in range(MAX_REGIONS):
            region = pg.LinearRegionItem(movable=False, pen=pg.mkPen(None))
            region.setZValue(-20)
            region.setVisible(False)
            self.item.addItem(region, ignoreBounds=True)
            label = pg.TextItem("", color=TEXT_DIM, anchor=(0.5, 0))
            label.setFont(pg.QtGui.QFont(label.textItem.font().family(), 7))
            label.setVisible(False)
            self.item.addItem(label, ignoreBounds=True)
            self.regions.append(region)
            self.region_labels.append(label)
        self.item.getViewBox().sigYRangeChanged.connect(self._on_view_y_range_changed)

    def _metric_value(self, point) -> float:
        return point.algbw_GBps if self.quantity == "algbw" else point.busbw_GBps

    def set_quantity(self, quantity: str) -> None:
        """"busbw", "algbw" or "both" (busbw solid, algbw dotted)."""
        if quantity not in QUANTITIES:
            raise ValueError(f"unknown quantity {quantity!r}")
        self.quantity = quantity
        self.item.setTitle(TITLES[quantity], color=TEXT_DIM, size="9pt")
        self.show_results(self._result, self._baseline, self._shown)

    def _show_algbw(self) -> None:
        both = self.quantity == "both"
        for name, curve in self.algbw_curves.items():
            shown = both and name in self._shown
            for result, item in ((self._result, curve),
                                 (self._baseline, self.algbw_baseline_curves[name])):
                points = result.collective(name) if (shown and result is not None) else ()
                item.setData([math.log2(p.bytes) for p in points],
                             [p.algbw_GBps for p in points])

    def _point_text(self, p: Point) -> str:
        if self.quantity != "both":
            return super()._point_text(p)
        return f"{format_bw(p.busbw_GBps)} busbw, {format_bw(p.algbw_GBps)} algbw"

    def _legend_html(self, current: bool, baseline: bool) -> str:
        html = super()._legend_html(current, baseline)
        if current and self._shown and self.quantity == "both":
            html += " &nbsp; <span style='color:#7b8794'>━ busbw &nbsp;┈ algbw</span>"
        return html

    def visible_curves(self) -> dict[str, int]:
        out = super().visible_curves()
        for name, curve in self.algbw_curves.items():
            for item, key in ((curve, f"{name} algbw"),
                              (self.algbw_baseline_curves[name], f"{name} algbw (baseline)")):
                xs = item.getData()[0]
                if xs is not None and len(xs):
                    out[key] = len(xs)
        return out

    def show_results(self, result: SimulationResult | None, baseline: SimulationResult | None,
                     shown) -> None:
        super().show_results(result, baseline, shown)
        self._show_algbw()
        spans = []
        if result is not None and self._shown:
            spans = algorithm_spans(result.collective(self._shown[0]))
        for i, region in enumerate(self.regions):
            label = self.region_labels[i]
            if i < len(spans):
                algorithm, first, last = spans[i]
                points = result.collective(self._shown[0])
                lo = math.log2(points[first].bytes) - (0.5 if first else 0)
                hi = math.log2(points[last].bytes) + (0.5 if last < len(points) - 1 else 0)
                region.setRegion((lo, hi))
                region.setBrush(pg.mkBrush(ALGORITHM_COLORS.get(algorithm, (120, 120, 120, 20))))
                region.setVisible(True)
                label.setText(algorithm)
                label.setPos((lo + hi) / 2, 0)
                label.setVisible(hi - lo >= 2)
            else:
                region.setVisible(False)
                label.setVisible(False)
        self._on_view_y_range_changed()

    def region_names(self) -> list[str]:
        pairs = zip(self.region_labels, self.regions, strict=True)
        return [label.toPlainText() for label, region in pairs if region.isVisible()]

    def _on_view_y_range_changed(self, *args) -> None:
        top = self.item.getViewBox().viewRange()[1][1]
        for label in self.region_labels:
            label.setY(top)
