"""Latency: collective time against message size (log-log) and the GPU-to-GPU histogram.

The histogram has one bar per path class the engine reports (NVLink, leaf, spine, …): its
height is the share of GPU pairs on such paths, its label the one-way latency of the class.
Classes whose devices have no published latency are drawn hatched-grey and say "n/a".
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from rackdesigner.simulation import SimulationResult
from rackdesigner.ui.panel.axes import CategoryAxisItem, LogTimeAxisItem, styled_plot
from rackdesigner.ui.panel.figures import format_us
from rackdesigner.ui.panel.sweep_plot import SweepPlot
from rackdesigner.ui.panel.theme import BASELINE_ALPHA, pg
from rackdesigner.ui.plain_text import plain


class LatencyHistogram(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.axis = CategoryAxisItem()
        self.plot = styled_plot("GPU-to-GPU latency (share of GPU pairs)", "% of pairs",
                                axis_items={"bottom": self.axis})
        self.plot.setMinimumHeight(90)
        self.item = self.plot.getPlotItem()
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.55, brush="#1f6fd1", pen=None)
        base = pg.mkColor("#1f6fd1")
        base.setAlpha(BASELINE_ALPHA // 2)
        self.baseline_bars = pg.BarGraphItem(x=[], height=[], width=0.55, brush=None,
                                             pen=pg.mkPen(base, width=1.5,
                                                          style=Qt.PenStyle.DashLine))
        self.item.addItem(self.bars)
        self.item.addItem(self.baseline_bars)
        self.readout = QLabel(" ", self)
        self.readout.setStyleSheet("color: #3e4c59; font-size: 8pt;")
        self.readout.setWordWrap(True)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        box.addWidget(self.plot, 1)
        box.addWidget(self.readout)
        self._classes: list = []
        self._proxy = pg.SignalProxy(self.plot.scene().sigMouseMoved, rateLimit=30,
                                     slot=self._on_scene_mouse_moved)

    def show_results(self, result: SimulationResult | None,
                     baseline: SimulationResult | None) -> None:
        classes = list(result.latency.histogram) if result is not None else []
        self._classes = classes
        total = sum(c.pairs for c in classes) or 1
        self.axis.labels = [f"{c.name} {format_us(c.latency_us) if c.latency_us else 'n/a'}"
                            for c in classes]
        brushes = [pg.mkBrush("#1f6fd1" if c.latency_us is not None else "#b8c2cc")
                   for c in classes]
        self.bars.setOpts(x=list(range(len(classes))),
                          height=[100.0 * c.pairs / total for c in classes], brushes=brushes)
        base_classes = {c.name: c for c in baseline.latency.histogram} if baseline else {}
        base_total = sum(c.pairs for c in base_classes.values()) or 1
        xs, hs = [], []
        for i, c in enumerate(classes):
            if c.name in base_classes:
                xs.append(i)
                hs.append(100.0 * base_classes[c.name].pairs / base_total)
        self.baseline_bars.setOpts(x=xs, height=hs)
        self.item.setXRange(-0.6, max(len(classes), 1) - 0.4, padding=0)
        self.item.enableAutoRange(axis="y")
        self.axis.picture = None
        self.axis.update()
        if not classes:
            self.readout.setText(plain("No GPU pairs to measure." if result is not None else " "))
        else:
            self.readout.setText(plain(self.describe(0)))

    def describe(self, index: int) -> str:
        if not 0 <= index < len(self._classes):
            return ""
        c = self._classes[index]
        total = sum(k.pairs for k in self._classes) or 1
        lat = format_us(c.latency_us) if c.latency_us is not None else "no published latency"
        note = "" if c.complete else " (some devices on the path have no latency figure)"
        return (f"{c.name}: {lat}, {c.hops} hops, {c.pairs:,} GPU pairs "
                f"({100 * c.pairs / total:.1f}%){note}")

    def _on_scene_mouse_moved(self, args) -> None:
        pos = args[0]
        if self.item.sceneBoundingRect().contains(pos):
            x = self.item.vb.mapSceneToView(QPointF(pos)).x()
            text = self.describe(round(x))
            if text:
                self.readout.setText(plain(text))


class LatencyPlot(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.sweep = SweepPlot("Collective time vs message size", "time",
                               lambda p: p.time_us, format_us, log_y=True,
                               left_axis=LogTimeAxisItem(orientation="left"), parent=self)
        self.histogram = LatencyHistogram(self)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.sweep, 3)
        box.addWidget(self.histogram, 2)

    def show_results(self, result, baseline, shown) -> None:
        self.sweep.show_results(result, baseline, shown)
        self.histogram.show_results(result, baseline)


__all__ = ["LatencyHistogram", "LatencyPlot", "math"]
