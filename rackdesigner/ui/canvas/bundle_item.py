"""Links on the canvas: every link between two visible endpoints drawn as one bundle."""

from __future__ import annotations

import math

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle, QStyleOptionGraphicsItem, QWidget

from rackdesigner.ui import style
from rackdesigner.ui.canvas.failure_marks import FAILED_GREY
from rackdesigner.ui.canvas.heat import COLD, heat_color
from rackdesigner.ui.plain_text import plain
from rackdesigner.vocabulary.wording import counted

BUNDLE_TYPE = QGraphicsItem.UserType + 3


ARC_MIN_LENGTH = 260.0  # shorter wires stay straight
ARC_ALIGNMENT = 0.2  # |dx| below this share of the length counts as stacked
ARC_BULGE = 0.15  # sideways bulge, as a share of the length
ARC_MAX_BULGE = 1500.0
FAR_WIRE_ALPHA = 120  # of 255, wires below the boxes' level of detail


class BundleItem(QGraphicsItem):
    """All links between two visible endpoints, drawn as one line with a count.

    Endpoints stacked in a column (a rack elevation: NVL72 trays, a spine column) would draw
    their wires on top of each other, so long vertical bundles become arcs bulging to the
    right, like an arc diagram. Rows stay straight: floor layouts fan out from a leaf in a
    row, and arcs there only add clutter.
    """

    def __init__(self, key: frozenset[str]) -> None:
        super().__init__()
        self.key = key
        self.link_ids: list[str] = []
        self.count = 0
        self.protocol: str | None = None
        self.bandwidth_gbps = 0.0
        self._line = QLineF()
        self._arc: QPainterPath | None = None
        self._bounds = QRectF(-20, -20, 40, 40)  # boundingRect, kept with the geometry
        self._control = QPointF()  # the arc's quadratic control point
        self.failed = ""  # "all" / "some" of its links down, "" none
        self.heat: float | None = None  # hottest member's utilisation; -1 unloaded; None off
        self.label_t: float | None = 0.5  # where the count pill sits (see labels.py); None: none
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self.setZValue(0)

    def type(self) -> int:
        return BUNDLE_TYPE

    def set_links(self, link_ids: list[str], count: int, protocol: str | None,
                  bandwidth_gbps: float) -> None:
        self.link_ids = link_ids
        self.count = count
        self.protocol = protocol
        self.bandwidth_gbps = bandwidth_gbps
        names = style.PROTOCOL_LABELS.get(protocol or "", "mixed protocols")
        self.setToolTip(plain(f"{counted(count, 'link')}, {names}, {bandwidth_gbps / 8:g} GB/s per "
                              "direction\n" + ", ".join(link_ids[:8])
                              + (" …" if len(link_ids) > 8 else "")))
        self.update()

    def set_ends(self, a: QPointF, b: QPointF) -> None:
        line = QLineF(a, b)
        if line != self._line:
            self.prepareGeometryChange()
            self._line = line
            control = _arc_control(line)
            self._arc = None
            if control is not None:
                self._control = control
                self._arc = QPainterPath(line.p1())
                self._arc.quadTo(control, line.p2())
            self._bounds = self._compute_bounds()

    def is_arc(self) -> bool:
        return self._arc is not None

    def midpoint(self) -> QPointF:
        return self.point_at(0.5)

    def point_at(self, t: float) -> QPointF:
        """The point at parameter `t` (0..1) of the drawn wire (an arc's Bézier parameter:
        computed here, as `QPainterPath.pointAtPercent` costs ~10 µs a call)."""
        if self._arc is not None:
            a, c, b = self._line.p1(), self._control, self._line.p2()
            u = 1.0 - t
            return a * (u * u) + c * (2 * u * t) + b * (t * t)
        return self._line.pointAt(t)

    def set_label_t(self, t: float | None) -> None:
        if t != self.label_t:
            self.label_t = t
            self.update()

    def width(self) -> float:
        return max(1.2, min(9.0, 1.0 + math.log2(max(1.0, self.bandwidth_gbps / 200.0)) * 1.2))

    def boundingRect(self) -> QRectF:
        return self._bounds

    def _compute_bounds(self) -> QRectF:
        pad = 20.0  # covers the count pill on the wire (half the widest one)
        rect = (self._arc.controlPointRect() if self._arc is not None
                else QRectF(self._line.p1(), self._line.p2()).normalized())
        return rect.adjusted(-pad, -pad, pad, pad)

    def shape(self) -> QPainterPath:
        if self._arc is not None:
            path = QPainterPath(self._arc)
        else:
            path = QPainterPath(self._line.p1())
            path.lineTo(self._line.p2())
        stroker = QPainterPathStroker()
        stroker.setWidth(max(8.0, self.width() + 4))
        return stroker.createStroke(path)

    def set_heat(self, utilisation: float | None) -> None:
        self.heat = utilisation
        self.update()

    def set_failed(self, state: str) -> None:
        """"all": drawn grey and dashed; "some": dashed in its colour; "": as usual."""
        self.failed = state
        self.update()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        lod = style.lod(painter)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        color = QColor(style.SELECTION if selected else style.protocol_color(self.protocol))
        if self.heat is not None and not selected:
            color = heat_color(self.heat) if self.heat >= 0 else QColor(COLD)
        if self.failed == "all" and not selected:
            color = QColor(FAILED_GREY)
        width = self.width()
        line = None
        if self._arc is None:
            # Long antialiased lines are slow to rasterise: draw only the exposed part.
            line = clip_line(self._line, option.exposedRect.adjusted(-20, -20, 20, 20))
            if line is None:
                return
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if lod < style.LOD_BOXES:
            # cosmetic hairlines when far out, translucent so that where hundreds of wires
            # run together the density shows as a shade instead of one solid mass
            if not selected:
                color.setAlpha(FAR_WIRE_ALPHA)
            pen = QPen(color, 0)
            if self.failed:
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            self._draw(painter, line)
            return
        # Opaque wires: translucent wide lines cost ~5x more to rasterise, which a SuperPOD's
        # hundreds of crossing spine bundles make visible.
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        pen = QPen(color, width + (1.5 if selected else 0))
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        if self.failed:
            pen.setStyle(Qt.PenStyle.DashLine)
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        painter.setPen(pen)
        self._draw(painter, line)
        # the count pill is drawn by the scene over every wire (labels.paint_count_labels)

    def _draw(self, painter: QPainter, line: QLineF | None) -> None:
        if self._arc is not None:
            painter.drawPath(self._arc)
        elif line is not None:
            painter.drawLine(line)


def _arc_control(line: QLineF) -> QPointF | None:
    """The control point of a quadratic arc for a long bundle between stacked endpoints, or
    None (the wire stays straight)."""
    length = line.length()
    dx, dy = line.dx(), line.dy()
    if length < ARC_MIN_LENGTH or abs(dx) > ARC_ALIGNMENT * length:
        return None
    nx, ny = -dy / length, dx / length
    if nx < -1e-9 or (abs(nx) <= 1e-9 and ny < 0):  # always bulge right (or down)
        nx, ny = -nx, -ny
    bulge = min(ARC_MAX_BULGE, ARC_BULGE * length)
    mid = line.center()
    return QPointF(mid.x() + nx * bulge * 2, mid.y() + ny * bulge * 2)


def clip_line(line: QLineF, rect: QRectF) -> QLineF | None:
    """The part of `line` inside `rect` (Liang–Barsky), or None when it misses."""
    x0, y0, x1, y1 = line.x1(), line.y1(), line.x2(), line.y2()
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0 - rect.left()), (dx, rect.right() - x0),
                 (-dy, y0 - rect.top()), (dy, rect.bottom() - y0)):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return QLineF(x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy)
