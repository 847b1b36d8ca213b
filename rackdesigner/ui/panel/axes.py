"""Shared plot furniture: the message-size axis (log2 bytes, 8 B … 16 GiB) and the plot frame.

The x coordinate of every sweep plot is log2(bytes) rather than pyqtgraph's log mode, so the
ticks can sit on powers of two and read "8 B, 1 KiB, 1 MiB, 1 GiB, 16 GiB".
"""

from __future__ import annotations

import math

from rackdesigner.ui.panel.figures import format_bytes
from rackdesigner.ui.panel.theme import TEXT_DIM, pg

X_MIN, X_MAX = 3, 34  # 8 B .. 16 GiB
MAJOR = (3, 10, 20, 30, 34)


class SizeAxisItem(pg.AxisItem):
    """Bottom axis in log2(bytes) with binary-unit labels."""

    def tickValues(self, minVal, maxVal, size):
        lo, hi = math.ceil(minVal), math.floor(maxVal)
        major = [v for v in MAJOR if lo <= v <= hi]
        if size > 420:
            major = sorted(set(major) | {v for v in (5, 15, 25) if lo <= v <= hi})
        minor = [v for v in range(lo, hi + 1) if v not in major]
        return [(1, major), (1, minor)]

    def tickStrings(self, values, scale, spacing):
        return [format_bytes(2 ** round(v)) if v == round(v) else "" for v in values]


class CategoryAxisItem(pg.AxisItem):
    """Bottom axis naming bar positions 0, 1, 2... from `labels`; with `thin`, only as many
    labels as fit (about one per 48 px)."""

    def __init__(self, thin: bool = False) -> None:
        super().__init__(orientation="bottom")
        self.labels: list[str] = []
        self.thin = thin

    def tickValues(self, minVal, maxVal, size):
        n = len(self.labels)
        step = max(1, int(n * 48 / max(size, 1)) + 1) if (n and self.thin) else 1
        return [(1, list(range(0, n, step)))]

    def tickStrings(self, values, scale, spacing):
        return [self.labels[int(v)] if 0 <= int(v) < len(self.labels) else "" for v in values]


class LogTimeAxisItem(pg.AxisItem):
    """Left axis of a log10(µs) plot labelled in ns/µs/ms/s."""

    def tickStrings(self, values, scale, spacing):
        out = []
        for v in values:
            us = 10 ** v
            if us < 1:
                out.append(f"{us * 1000:g} ns")
            elif us < 1000:
                out.append(f"{us:g} µs")
            elif us < 1e6:
                out.append(f"{us / 1000:g} ms")
            else:
                out.append(f"{us / 1e6:g} s")
        return out


def styled_plot(title: str, left: str, *, axis_items: dict | None = None) -> pg.PlotWidget:
    """A PlotWidget with the panel's look: light grid, dim axes, small fonts, no menu."""
    widget = pg.PlotWidget(axisItems=axis_items or {})
    widget.setMenuEnabled(False)
    widget.setMinimumHeight(110)
    item = widget.getPlotItem()
    item.setTitle(title, color=TEXT_DIM, size="9pt")
    item.showGrid(x=True, y=True, alpha=0.15)
    item.setLabel("left", left, color=TEXT_DIM, **{"font-size": "8pt"})
    font = pg.QtGui.QFont()
    font.setPointSizeF(7.5)
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setTickFont(font)
        axis.setTextPen(pg.mkPen(TEXT_DIM))
        axis.setPen(pg.mkPen("#b8c2cc"))
    item.hideButtons()
    item.setMouseEnabled(x=False, y=False)
    return widget


def nearest_size(x: float) -> int:
    """The sweep size (bytes) nearest to an x in log2(bytes)."""
    return 2 ** min(max(round(x), X_MIN), X_MAX)
