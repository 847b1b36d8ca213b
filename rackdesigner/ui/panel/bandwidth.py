"""Bandwidth plot: busbw (or algbw) against message size, the algorithm regions shaded.

The regions follow the first collective shown (all_reduce by default): where NCCL's model
switches from tree to ring or NVLS, the band changes colour and is labelled.
"""

from __future__ import annotations

import math

from PySide6.QtWidgets import QWidget

from rackdesigner.simulation import SimulationResult
from rackdesigner.ui.panel.figures import algorithm_spans, format_bw
from rackdesigner.ui.panel.sweep_plot import SweepPlot
from rackdesigner.ui.panel.theme import ALGORITHM_COLORS, TEXT_DIM, pg

MAX_REGIONS = 8


class BandwidthPlot(SweepPlot):
    # not "metric": an attribute of that name shadows QWidget.metric() and crashes Qt
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Bus bandwidth vs message size", "GB/s", self._metric_value,
                         format_bw, parent=parent)
        self.quantity = "busbw"
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
        return point.busbw_GBps if self.quantity == "busbw" else point.algbw_GBps

    def set_quantity(self, quantity: str) -> None:
        self.quantity = quantity
        title = "Bus bandwidth" if quantity == "busbw" else "Algorithm bandwidth"
        self.item.setTitle(f"{title} vs message size", color=TEXT_DIM, size="9pt")
        self.show_results(self._result, self._baseline, self._shown)

    def show_results(self, result: SimulationResult | None, baseline: SimulationResult | None,
                     shown) -> None:
        super().show_results(result, baseline, shown)
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
