"""Heat-map colours on the canvas: viridis (perceptually uniform, colour-blind safe) and its
legend item, drawn by the scene so exported images carry it too.

A bundle shows its hottest member. The scale runs from 0 to 100 % utilisation (a link above
100 % — more demand than capacity — keeps the top colour and says so in its tooltip), so two
designs' heat maps compare by eye.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QLinearGradient, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

#: viridis at 0, 1/8 ... 1 (matplotlib's published colormap values)
VIRIDIS = ("#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962",
           "#addc30", "#fde725")
_ANCHORS = [QColor(c) for c in VIRIDIS]
COLD = QColor(205, 210, 215)  # links without a routed load (NVLink, host links)


def heat_color(utilisation: float) -> QColor:
    """Viridis colour of a utilisation (0..1, clamped)."""
    u = min(max(utilisation, 0.0), 1.0) * (len(_ANCHORS) - 1)
    i = min(int(u), len(_ANCHORS) - 2)
    t = u - i
    a, b = _ANCHORS[i], _ANCHORS[i + 1]
    return QColor(round(a.red() + (b.red() - a.red()) * t),
                  round(a.green() + (b.green() - a.green()) * t),
                  round(a.blue() + (b.blue() - a.blue()) * t))


def _title_lines(title: str) -> int:
    """Lines the title takes in the legend (a training job's may take two or three)."""
    font = QFont()
    font.setPointSizeF(9)
    metrics = QFontMetricsF(font)
    box = metrics.boundingRect(QRectF(0, 0, HeatLegendItem.WIDTH - 24, 1000),
                               int(Qt.TextFlag.TextWordWrap), title)
    return max(1, min(3, round(box.height() / metrics.lineSpacing())))


def legend_height(title: str) -> float:
    return HeatLegendItem.HEIGHT + (_title_lines(title) - 1) * HeatLegendItem.LINE


class HeatLegendItem(QGraphicsItem):
    """Colour bar 0-100 % with the traffic named, placed above the design."""

    WIDTH, HEIGHT, LINE = 420.0, 70.0, 15.0

    def __init__(self, title: str) -> None:
        super().__init__()
        self.title = title
        self.setZValue(50)

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, self.WIDTH, legend_height(self.title))

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        paint_legend(painter, 0.0, 0.0, self.title)


def paint_legend(painter: QPainter, left: float, top: float, title: str) -> None:
    """The legend box (`HeatLegendItem.WIDTH` x `HEIGHT`) with its top-left at (left, top)."""
    painter.save()
    painter.translate(left, top)
    _paint_legend(painter, title)
    painter.restore()


def _paint_legend(painter: QPainter, title: str) -> None:
    if True:
        width = HeatLegendItem.WIDTH
        extra = (_title_lines(title) - 1) * HeatLegendItem.LINE
        painter.setPen(QPen(QColor(160, 160, 160), 1))
        painter.setBrush(QBrush(QColor(255, 255, 255, 235)))
        painter.drawRoundedRect(QRectF(0, 0, width, HeatLegendItem.HEIGHT + extra), 6, 6)
        bar = QRectF(12, 30 + extra, width - 24, 14)
        gradient = QLinearGradient(bar.topLeft(), bar.topRight())
        for i, c in enumerate(_ANCHORS):
            gradient.setColorAt(i / (len(_ANCHORS) - 1), c)
        painter.fillRect(bar, gradient)
        painter.setPen(QColor(40, 40, 40))
        font = QFont()
        font.setPointSizeF(9)
        painter.setFont(font)
        painter.drawText(QRectF(12, 6, width - 24, 20 + extra),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
                         | Qt.TextFlag.TextWordWrap, title)
        for frac, text in ((0.0, "0 %"), (0.5, "50 %"), (1.0, "100 % of capacity")):
            x = bar.left() + bar.width() * frac
            align = (Qt.AlignmentFlag.AlignLeft if frac == 0 else Qt.AlignmentFlag.AlignRight
                     if frac == 1 else Qt.AlignmentFlag.AlignHCenter)
            span = 160.0
            left = x if frac == 0 else x - span if frac == 1 else x - span / 2
            painter.drawText(QRectF(left, 46 + extra, span, 18), align | Qt.AlignmentFlag.AlignTop,
                             text)


class HeatMarks:
    """Mixed into `RackScene`: colours the bundles by a `HeatMap` (None: normal colours), and
    each group by the hottest link touching a device inside it (`group_heat`), so a block or
    a collapsed box shows its bottleneck at the zoom a user starts at (issue 26: fully zoomed
    out only a line label said "peak 67 %")."""

    heat = None
    heat_legend: HeatLegendItem | None = None
    group_heat: dict[str, float] = {}  # noqa: RUF012 - replaced, never mutated, per scene
    #: exported images carry the legend as a scene item above the design; the window's view
    #: paints it at screen size in a corner instead (`RackView.drawForeground`)
    legend_in_scene = False

    @property
    def heat_title(self) -> str:
        heat = self.heat
        if heat is None:
            return ""
        from rackdesigner.ui.panel.figures import format_bytes

        if heat.label:  # a training job's traffic
            return f"{heat.label}, peak {heat.peak:.0%}"
        return (f"Link utilisation: {heat.collective} {format_bytes(heat.bytes)}"
                + (f" ({heat.algorithm})" if heat.algorithm else "") + f", peak {heat.peak:.0%}")

    def set_heat(self, heat) -> None:
        """Colour every bundle by its hottest member's utilisation (None turns it off)."""
        toggled = (heat is None) != (self.heat is None)
        self.heat = heat
        self.group_heat = self._group_heat(heat)
        self.apply_heat()
        if self.heat_legend is not None:
            self.removeItem(self.heat_legend)
            self.heat_legend = None
        if heat is not None and self.legend_in_scene:
            rect = self.itemsBoundingRect()
            self.heat_legend = HeatLegendItem(self.heat_title)
            scale = max(1.0, rect.width() / 3000.0)  # readable on a whole-SuperPOD image
            self.heat_legend.setScale(scale)
            self.heat_legend.setPos(rect.left(), rect.top() - (legend_height(self.heat_title) + 30)
                                    * scale)
            self.addItem(self.heat_legend)
        for view in self.views():
            view.viewport().update()
            if toggled and hasattr(view, "legend_changed"):
                view.legend_changed()

    def _group_heat(self, heat) -> dict[str, float]:
        """Group id -> the highest utilisation of a link with an end inside the group (its
        devices, at any depth): one pass over the loaded links."""
        layout = getattr(self, "layout", None)
        if heat is None or layout is None:
            return {}
        out: dict[str, float] = {}
        for key, load in heat.loads.items():
            if not layout.has_link(key):
                continue
            link = layout.link(key)
            u = load.utilisation
            for end in (link.a.device, link.b.device):
                if not layout.has_device(end):
                    continue
                for gid in self._chain(end):
                    if u > out.get(gid, -1.0):
                        out[gid] = u
        return out

    def apply_heat(self) -> None:
        for item in self.bundles.values():
            self.heat_bundle(item)

    def heat_bundle(self, item) -> None:
        """Colour one bundle by its hottest member (new and re-filled bundles)."""
        heat = self.heat
        if heat is None:
            value = None
        else:
            loads = heat.loads
            value = max((loads[k].utilisation for k in item.link_ids if k in loads),
                        default=-1.0)
        if item.heat != value:
            item.set_heat(value)
