"""A group on the canvas: a dashed frame around its members, or one box when collapsed."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle, QStyleOptionGraphicsItem, QWidget

from rackdesigner.ui import style
from rackdesigner.ui.canvas.blast_marks import paint_blast
from rackdesigner.ui.canvas.failure_marks import paint_failed
from rackdesigner.ui.canvas.heat import heat_color
from rackdesigner.ui.plain_text import plain

GROUP_TYPE = QGraphicsItem.UserType + 2


def _mix(color: QColor, over: QColor, share: float) -> QColor:
    return QColor(round(color.red() * share + over.red() * (1 - share)),
                  round(color.green() * share + over.green() * (1 - share)),
                  round(color.blue() * share + over.blue() * (1 - share)))


BLOCK_FILL = _mix(QColor(style.KIND_COLORS["system"]), QColor(style.CANVAS_BG), 70 / 255)
BLOCK_BORDER = QColor(style.KIND_COLORS["system"]).darker(130)


class GroupItem(QGraphicsItem):
    """A group: a frame around its members, or (collapsed) one box with aggregate ports."""

    def __init__(self, group_id: str, label: str, kind: str) -> None:
        super().__init__()
        self.group_id = group_id
        self.label = label
        self.kind = kind
        self.collapsed = False
        self.summary: list[tuple[str, int, int]] = []  # (protocol, used, total)
        self.device_count = 0
        self.block = False  # an aggregate block covering the group's area (canvas.cells)
        self.stats = None  # its BlockStats
        self._rect = QRectF(0, 0, 10, 10)
        self.failed = False
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self.setZValue(-10)
        self.wire_state: str | None = None  # while wiring onto a collapsed group

    def set_wire_state(self, state: str | None) -> None:
        if state != self.wire_state:
            self.wire_state = state
            self.update()

    def type(self) -> int:
        return GROUP_TYPE

    def set_frame(self, rect: QRectF, depth: int) -> None:
        """Expanded: frame `rect` in scene coordinates (the item sits at the origin)."""
        if (not self.collapsed and self._rect == rect and self.pos().isNull()
                and self.zValue() == -10 - depth):
            return  # re-indexing a frame as large as a whole pod is not free
        self.prepareGeometryChange()
        self.collapsed = False
        self.block = False
        self.setPos(0, 0)
        self._rect = QRectF(rect)
        self.setZValue(-10 - depth)
        self.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        self.update()

    def set_collapsed_box(self, top_left: QPointF, summary: list[tuple[str, int, int]],
                          device_count: int, area: tuple[float, float] | None = None) -> None:
        """Collapsed: one box at `top_left`, as wide and tall as its port rows need, or at
        least `area` (width, height: the members' extent, `structure.AREA_KINDS`)."""
        self.prepareGeometryChange()
        self.collapsed = True
        self.block = False
        self.summary = summary
        self.device_count = device_count
        height = style.HEADER_HEIGHT + max(1, len(summary)) * style.PORT_ROW_HEIGHT + 6
        width = style.COLLAPSED_WIDTH
        if area is not None:
            width, height = max(width, area[0]), max(height, area[1])
        self._rect = QRectF(0, 0, width, height)
        self.setPos(top_left)
        self.setZValue(10)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.update()

    def set_block(self, rect: QRectF, stats) -> None:
        """An aggregate block over `rect` (scene coordinates) with its counts (`BlockStats`)."""
        if self.block and self.frame_rect() == rect:
            if self.stats != stats:  # counts only: no re-indexing of a large item
                self.stats = stats
                self.device_count = stats.devices
                self.setToolTip(plain(f"{self.label} ({self.kind})\n{stats.text()}"))
                self.update()
            return
        self.prepareGeometryChange()
        self.collapsed = True
        self.block = True
        self.stats = stats
        self.device_count = stats.devices
        self._rect = QRectF(0, 0, max(rect.width(), 1.0), max(rect.height(), 1.0))
        self.setPos(rect.topLeft())
        self.setZValue(5)
        self.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        self.setToolTip(plain(f"{self.label} ({self.kind})\n{stats.text()}"))
        self.update()

    def frame_rect(self) -> QRectF:
        return self.mapRectToScene(self._rect)

    def center(self) -> QPointF:
        return self.mapToScene(self._rect.center())

    def header_rect(self) -> QRectF:
        return QRectF(self._rect.left(), self._rect.top(), self._rect.width(), style.GROUP_HEADER)

    def toggle_rect(self) -> QRectF:
        """The ▸/▾ button (item coordinates)."""
        return QRectF(self._rect.left() + 3, self._rect.top() + 3, 16, 16)

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        if self.collapsed:
            path.addRect(self._rect)
        else:  # only the header and the border pick: clicks inside reach the members
            path.addRect(self.header_rect())
            stroker = QPainterPathStroker()
            stroker.setWidth(8)
            outline = QPainterPath()
            outline.addRect(self._rect)
            path.addPath(stroker.createStroke(outline))
        return path

    def heat(self) -> float | None:
        """The hottest utilisation of a link touching this group under the heat map shown
        (None: no heat map, or no loaded link)."""
        scene = self.scene()
        value = getattr(scene, "group_heat", {}).get(self.group_id) if scene else None
        return value if value is not None and value >= 0 else None

    def set_failed(self, failed: bool) -> None:
        self.failed = failed
        self.update()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        self._paint_group(painter, option, widget is not None)
        if self.failed and self.collapsed:
            paint_failed(painter, self._rect, style.lod(painter) < style.LOD_BOXES)
        if self.group_id in getattr(self.scene(), "blast_groups", ()):
            paint_blast(painter, self._rect, style.lod(painter) < style.LOD_BOXES)

    def _paint_group(self, painter: QPainter, option: QStyleOptionGraphicsItem,
                     on_view: bool = True) -> None:
        lod = style.lod(painter)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        rect = self._rect
        accent = style.KIND_COLORS.get("system")
        if self.block:
            exposed = option.exposedRect.adjusted(-20, -20, 20, 20)
            self._paint_block(painter, rect, selected, exposed, on_view)
            return
        if self.collapsed:
            heat = self.heat()
            hot = heat_color(heat) if heat is not None else None
            if lod < style.LOD_BOXES:
                painter.fillRect(rect, style.SELECTION if selected else hot or accent)
                return
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            pen = QPen(style.SELECTION if selected else hot or accent,
                       2.5 if selected or hot else 1.5)
            if self.wire_state is not None:
                pen = QPen(style.WIRE_OK if self.wire_state == "ok" else style.WIRE_BAD, 3.0)
            painter.setPen(pen)
            painter.setBrush(_mix(hot, QColor("#f0faf7"), 0.35) if hot else QColor("#f0faf7"))
            painter.drawRoundedRect(rect, 8, 8)
            if lod < style.LOD_TEXT:  # the view draws the name at screen size
                return
            painter.setPen(style.TEXT)
            painter.setFont(style.font(8, True))
            painter.drawText(QRectF(rect.left() + 22, rect.top() + 3, rect.width() - 26, 16),
                             Qt.AlignmentFlag.AlignVCenter, self.label)
            self._paint_toggle(painter)
            painter.setPen(style.TEXT_DIM)
            painter.setFont(style.font(7))
            painter.drawText(QRectF(rect.left() + 8, rect.top() + 19, rect.width() - 12, 14),
                             Qt.AlignmentFlag.AlignVCenter,
                             f"{self.kind} · {self.device_count} device"
                             f"{'s' * (self.device_count != 1)}")
            y = rect.top() + style.HEADER_HEIGHT
            painter.setFont(style.font(6.5))
            for protocol, used, total in self.summary:
                color = style.protocol_color(protocol)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(color)
                painter.drawEllipse(QPointF(rect.left() + 12, y + 6.5), 3.2, 3.2)
                painter.setPen(style.TEXT)
                painter.drawText(QRectF(rect.left() + 20, y, rect.width() - 28, 13),
                                 Qt.AlignmentFlag.AlignVCenter,
                                 f"{style.PROTOCOL_LABELS.get(protocol, protocol)} {total} ports")
                painter.setPen(style.TEXT_DIM)
                painter.drawText(QRectF(rect.left() + 20, y, rect.width() - 28, 13),
                                 Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
                                 f"{used} used")
                y += style.PORT_ROW_HEIGHT
            return
        pen = QPen(style.SELECTION if selected else style.GROUP_BORDER,
                   2.0 if selected else 1.0, Qt.PenStyle.DashLine)
        exposed = option.exposedRect.adjusted(-20, -20, 20, 20)
        if not _clipped_frame(painter, rect, exposed, pen):
            painter.setPen(pen)
            painter.setBrush(style.GROUP_FILL)
            painter.drawRoundedRect(rect, 10, 10)
        if lod < style.LOD_TEXT:  # the view draws the name at screen size (canvas.overlay)
            return
        painter.setPen(style.TEXT_DIM)
        painter.setFont(style.font(8, True))
        painter.drawText(QRectF(rect.left() + 22, rect.top() + 2, rect.width() - 26, 18),
                         Qt.AlignmentFlag.AlignVCenter, f"{self.label}  ·  {self.kind}")
        self._paint_toggle(painter)

    def _paint_block(self, painter: QPainter, rect: QRectF, selected: bool,
                     exposed: QRectF | None = None, on_view: bool = True) -> None:
        """A block: its area tinted, a border, and a grey band for the share of its devices
        that are down (the counts are written at screen size by the view's overlay)."""
        fill = BLOCK_FILL  # opaque: blending a whole screen of blocks costs more
        scene = self.scene()
        inset = getattr(scene, "block_inset_px", None) if scene is not None and on_view else None
        if inset and (inset[0] or inset[1]):  # narrowed for the view's lanes (far_lines)
            lod = max(style.lod(painter), 1e-9)
            rect = rect.adjusted(inset[0] / lod, inset[1] / lod, -inset[0] / lod,
                                 -inset[1] / lod)
        pen = QPen(style.SELECTION if selected else BLOCK_BORDER, 3 if selected else 0)
        heat = self.heat()
        if heat is not None:  # the heat map: the block in its hottest link's colour
            fill = _mix(heat_color(heat), BLOCK_FILL, 0.55)
            if not selected:
                pen = QPen(heat_color(heat).darker(130), 2)
        if exposed is None or not _clipped_frame(painter, rect, exposed, pen, fill):
            painter.setPen(pen)
            painter.setBrush(fill)
            painter.drawRect(rect)
        stats = self.stats
        if stats is not None and stats.failed and stats.devices:
            share = min(1.0, stats.failed / stats.devices)
            band = QRectF(rect.left(), rect.bottom() - rect.height() * max(share, 0.04),
                          rect.width(), rect.height() * max(share, 0.04))
            painter.fillRect(band, QColor(120, 120, 120, 200))

    def _paint_toggle(self, painter: QPainter) -> None:
        painter.setPen(style.TEXT_DIM)
        painter.setFont(style.font(8))
        painter.drawText(self.toggle_rect(), Qt.AlignmentFlag.AlignCenter,
                         "▸" if self.collapsed else "▾")


def _clipped_frame(painter: QPainter, rect: QRectF, exposed: QRectF, pen: QPen,
                   fill: QColor | None = None) -> bool:
    """Paint a frame much larger than what is exposed as its visible part only: the fill of
    the overlap and the straight border lines crossing it (a dashed outline of a whole
    SuperPOD at 100 % is thousands of dashes otherwise). False when `rect` is small enough to
    draw whole."""
    if rect.width() * rect.height() < 4 * exposed.width() * exposed.height():
        return False
    inside = rect.intersected(exposed)
    if inside.isEmpty():
        return True
    painter.fillRect(inside, style.GROUP_FILL if fill is None else fill)
    left, top, right, bottom = rect.left(), rect.top(), rect.right(), rect.bottom()
    x0, x1 = max(left, exposed.left()), min(right, exposed.right())
    y0, y1 = max(top, exposed.top()), min(bottom, exposed.bottom())
    width = max(pen.widthF(), 1.0)
    across = QPen(pen)
    across.setDashOffset((x0 - left) / width)  # dashes stay put while the view scrolls
    painter.setPen(across)
    for y in (top, bottom):
        if exposed.top() <= y <= exposed.bottom():
            painter.drawLine(QPointF(x0, y), QPointF(x1, y))
    down = QPen(pen)
    down.setDashOffset((y0 - top) / width)
    painter.setPen(down)
    for x in (left, right):
        if exposed.left() <= x <= exposed.right():
            painter.drawLine(QPointF(x, y0), QPointF(x, y1))
    return True
