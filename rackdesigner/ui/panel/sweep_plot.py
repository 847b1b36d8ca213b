"""`SweepPlot`: curves of a sweep figure (busbw or time) per collective, current and baseline.

Used by the bandwidth and latency plots. Items are made once per collective and updated with
`setData`; hidden collectives get empty data. Hover moves a cursor line and writes the exact
values at the nearest message size into a read-out label under the plot.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from rackdesigner.simulation import Point, SimulationResult
from rackdesigner.ui.panel.axes import X_MAX, X_MIN, SizeAxisItem, nearest_size, styled_plot
from rackdesigner.ui.panel.figures import format_bytes
from rackdesigner.ui.panel.theme import COLLECTIVE_COLORS, COLLECTIVE_LABELS, collective_pen, pg

Value = Callable[[Point], float]


class SweepPlot(QWidget):
    """A plot of `value(point)` against message size for the chosen collectives."""

    def __init__(self, title: str, left: str, value: Value, fmt: Callable[[float], str], *,
                 log_y: bool = False, left_axis: pg.AxisItem | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._value = value
        self._fmt = fmt
        self._log_y = log_y
        axes = {"bottom": SizeAxisItem(orientation="bottom")}
        if left_axis is not None:
            axes["left"] = left_axis
        self.plot = styled_plot(title, left, axis_items=axes)
        self.item = self.plot.getPlotItem()
        self.item.setXRange(X_MIN - 0.6, X_MAX + 1.2, padding=0)
        # no x grid: with a grid, pyqtgraph clips the end labels (8 B, 16 GiB) to the axis
        self.item.showGrid(x=False, y=True, alpha=0.15)
        self.item.getAxis("bottom").setStyle(hideOverlappingLabels=40)
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.baseline_curves: dict[str, pg.PlotDataItem] = {}
        for name in COLLECTIVE_COLORS:
            self.baseline_curves[name] = self.item.plot([], [], pen=collective_pen(
                name, baseline=True))
            self.curves[name] = self.item.plot([], [], pen=collective_pen(name),
                                               name=COLLECTIVE_LABELS[name])
        self.cursor = pg.InfiniteLine(angle=90, movable=False,
                                      pen=pg.mkPen("#9aa5b1", style=Qt.PenStyle.DotLine))
        self.cursor.setVisible(False)
        self.item.addItem(self.cursor, ignoreBounds=True)
        self.legend = QLabel(" ", self)
        self.legend.setObjectName("legend")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setStyleSheet("color: #3e4c59; font-size: 8pt;")
        self.readout = QLabel(" ", self)
        self.readout.setObjectName("readout")
        self.readout.setWordWrap(True)
        self.readout.setTextFormat(Qt.TextFormat.RichText)
        self.readout.setStyleSheet("color: #3e4c59; font-size: 8pt;")
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        box.addWidget(self.legend)
        box.addWidget(self.plot, 1)
        box.addWidget(self.readout)
        self._result: SimulationResult | None = None
        self._baseline: SimulationResult | None = None
        self._shown: tuple[str, ...] = ("all_reduce",)
        self._proxy = pg.SignalProxy(self.plot.scene().sigMouseMoved, rateLimit=30,
                                     slot=self._on_scene_mouse_moved)

    def _xy(self, points: Sequence[Point]) -> tuple[list[float], list[float]]:
        xs, ys = [], []
        for p in points:
            y = self._value(p)
            if self._log_y:
                if y <= 0:
                    continue
                y = math.log10(y)
            xs.append(math.log2(p.bytes))
            ys.append(y)
        return xs, ys

    def show_results(self, result: SimulationResult | None, baseline: SimulationResult | None,
                     shown: Sequence[str]) -> None:
        self._result, self._baseline, self._shown = result, baseline, tuple(shown)
        for name, curve in self.curves.items():
            visible = name in self._shown
            points = result.collective(name) if (result is not None and visible) else ()
            curve.setData(*self._xy(points))
            base = baseline.collective(name) if (baseline is not None and visible) else ()
            self.baseline_curves[name].setData(*self._xy(base))
        self.item.enableAutoRange(axis="y")
        self.item.setXRange(X_MIN - 0.6, X_MAX + 1.2, padding=0)
        self.legend.setText(self._legend_html(result is not None, baseline is not None))
        if self.cursor.isVisible():
            self.hover_at(self.cursor.value())

    def _legend_html(self, current: bool, baseline: bool) -> str:
        if not current or not self._shown:
            return " "
        parts = [f"<span style='color:{COLLECTIVE_COLORS[n]}'>━</span> {COLLECTIVE_LABELS[n]}"
                 for n in self._shown]
        if baseline:
            parts.append("<span style='color:#7b8794'>┅ baseline</span>")
        return " &nbsp; ".join(parts)

    def visible_curves(self) -> dict[str, int]:
        """Points drawn per curve ("name" and "name (baseline)"): what tests look at."""
        out = {}
        for name, curve in self.curves.items():
            n = len(curve.getData()[0] if curve.getData()[0] is not None else [])
            if n:
                out[name] = n
            b = self.baseline_curves[name].getData()[0]
            if b is not None and len(b):
                out[f"{name} (baseline)"] = len(b)
        return out

    def _point_text(self, p: Point) -> str:
        """The hover read-out's value for one point (subclasses may show more)."""
        return self._fmt(self._value(p))

    def _on_scene_mouse_moved(self, args) -> None:
        pos = args[0]
        if not self.item.sceneBoundingRect().contains(pos):
            return
        x = self.item.vb.mapSceneToView(QPointF(pos)).x()
        self.hover_at(x)

    def hover_at(self, x: float) -> str:
        """Show the exact values at the sweep size nearest to `x` (log2 bytes)."""
        size = nearest_size(x)
        self.cursor.setValue(math.log2(size))
        self.cursor.setVisible(True)
        parts = [f"<b>{format_bytes(size)}</b>"]
        for name in self._shown:
            for result, tag in ((self._result, ""), (self._baseline, " (baseline)")):
                p = result.point_at(name, size) if result is not None else None
                if p is None or p.bytes != size:  # a curve without this size (a shorter one)
                    continue
                color = COLLECTIVE_COLORS[name]
                parts.append(f"<span style='color:{color}'>■</span> {COLLECTIVE_LABELS[name]}"
                             f"{tag} {self._point_text(p)} "
                             f"<span style='color:#7b8794'>{p.algorithm}/{p.protocol}</span>")
        text = " · ".join(parts)
        self.readout.setText(text)
        return text
