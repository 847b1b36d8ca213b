"""Graphic items of the canvas: devices, group frames and collapsed groups, link bundles.

Items know the id and spec of what they draw, never the document; the scene creates, updates
and destroys them from model events. Painting follows the level of detail of the current zoom:
full boxes with port rows, then boxes without text, then plain coloured rectangles.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle, QStyleOptionGraphicsItem, QWidget

from rackdesigner.catalog import DeviceSpec
from rackdesigner.ui import style

DEVICE_TYPE = QGraphicsItem.UserType + 1
GROUP_TYPE = QGraphicsItem.UserType + 2
BUNDLE_TYPE = QGraphicsItem.UserType + 3


def _lod(painter: QPainter) -> float:
    return QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())


class DeviceItem(QGraphicsItem):
    """One device: a box with a kind badge, model, name and a row per port group."""

    def __init__(self, device_id: str, spec: DeviceSpec | None, model: str, label: str) -> None:
        super().__init__()
        self.device_id = device_id
        self.spec = spec
        self.model = model
        self.label = label
        self.usage: dict[str, int] = {}
        self.wire_state: str | None = None  # None, "ok" or "refused" while wiring
        rows = len(spec.ports) if spec is not None else 0
        height = max(style.MIN_DEVICE_HEIGHT,
                     style.HEADER_HEIGHT + rows * style.PORT_ROW_HEIGHT + 6)
        self._rect = QRectF(0, 0, style.DEVICE_WIDTH, height)
        kind = spec.kind if spec is not None else ""
        self.accent = style.KIND_COLORS.get(kind, style.UNKNOWN_COLOR)
        self.badge = style.KIND_BADGES.get(kind, "?")
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(10)
        self.setToolTip(self._tooltip())
        self.on_moved = None  # set by the scene: called with self while dragged

    def type(self) -> int:
        return DEVICE_TYPE

    def _tooltip(self) -> str:
        if self.spec is None:
            return f"{self.label}\nunknown model {self.model}"
        lines = [f"{self.label} — {self.spec.manufacturer} {self.spec.model}"]
        for group in self.spec.ports:
            name = style.PROTOCOL_LABELS.get(group.protocol, group.protocol)
            lines.append(f"{group.name}: {group.count} × {name} "
                         f"{style.format_rate(group.rate_gbps)}b/s")
        if self.spec.power.max_w:
            lines.append(f"max power {self.spec.power.max_w:g} W")
        return "\n".join(lines)

    # geometry
    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-3, -3, 3, 3)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self._rect)
        return path

    def rect(self) -> QRectF:
        return QRectF(self._rect)

    def center(self) -> QPointF:
        return self.mapToScene(self._rect.center())

    def port_at(self, local: QPointF) -> str | None:
        """The port group whose row is under `local` (item coordinates), if any."""
        if self.spec is None or not self._rect.contains(local):
            return None
        row = int((local.y() - style.HEADER_HEIGHT) // style.PORT_ROW_HEIGHT)
        if local.y() >= style.HEADER_HEIGHT and 0 <= row < len(self.spec.ports):
            return self.spec.ports[row].name
        return None

    # state
    def set_label(self, label: str) -> None:
        if label != self.label:
            self.label = label
            self.setToolTip(self._tooltip())
            self.update()

    def set_usage(self, usage: dict[str, int]) -> None:
        if usage != self.usage:
            self.usage = dict(usage)
            self.update()

    def set_wire_state(self, state: str | None) -> None:
        if state != self.wire_state:
            self.wire_state = state
            self.update()

    def itemChange(self, change, value):
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged and self.on_moved:
            self.on_moved(self)
        return super().itemChange(change, value)

    # painting
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        lod = _lod(painter)
        rect = self._rect
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if lod < style.LOD_BOXES:
            painter.fillRect(rect, style.SELECTION if selected else self.accent)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        border = QPen(style.BOX_BORDER, 1.0)
        if self.wire_state == "ok":
            border = QPen(style.WIRE_OK, 3.0)
        elif self.wire_state == "refused":
            border = QPen(style.WIRE_BAD, 3.0)
        elif selected:
            border = QPen(style.SELECTION, 2.5)
        painter.setPen(border)
        painter.setBrush(QBrush(style.BOX_FILL))
        painter.drawRoundedRect(rect, 6, 6)
        # accent stripe
        stripe = QPainterPath()
        stripe.addRoundedRect(QRectF(rect.left(), rect.top(), 8, rect.height()), 6, 6)
        painter.fillPath(stripe, self.accent)
        painter.fillRect(QRectF(rect.left() + 4, rect.top(), 4, rect.height()), self.accent)
        if lod < style.LOD_TEXT:
            painter.setPen(style.TEXT)
            painter.setFont(style.font(11, True))
            painter.drawText(rect.adjusted(12, 0, -4, 0), Qt.AlignmentFlag.AlignVCenter
                             | Qt.AlignmentFlag.AlignLeft, self.badge)
            return
        self._paint_header(painter, rect)
        self._paint_ports(painter, rect)

    def _paint_header(self, painter: QPainter, rect: QRectF) -> None:
        # line 1: the model, full width; line 2: kind badge and the device's name
        painter.setPen(style.TEXT)
        painter.setFont(style.font(7.5, True))
        title = self.spec.model if self.spec is not None else self.model
        title = painter.fontMetrics().elidedText(title, Qt.TextElideMode.ElideRight,
                                                 int(rect.width() - 17))
        painter.drawText(QRectF(rect.left() + 13, rect.top() + 3, rect.width() - 16, 15),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, title)
        badge_rect = QRectF(rect.left() + 13, rect.top() + 20, 28, 11)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.accent)
        painter.drawRoundedRect(badge_rect, 3, 3)
        painter.setPen(QColor("white"))
        painter.setFont(style.font(5.5, True))
        painter.drawText(badge_rect, Qt.AlignmentFlag.AlignCenter, self.badge)
        painter.setPen(style.TEXT_DIM)
        painter.setFont(style.font(7))
        label = painter.fontMetrics().elidedText(self.label, Qt.TextElideMode.ElideMiddle,
                                                 int(rect.width() - 52))
        painter.drawText(QRectF(rect.left() + 45, rect.top() + 18, rect.width() - 48, 15),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, label)

    def _paint_ports(self, painter: QPainter, rect: QRectF) -> None:
        if self.spec is None:
            painter.setPen(style.UNKNOWN_COLOR)
            painter.setFont(style.font(7))
            painter.drawText(QRectF(rect.left() + 13, rect.top() + style.HEADER_HEIGHT,
                                    rect.width() - 17, 14), Qt.AlignmentFlag.AlignLeft,
                             "unknown model")
            return
        painter.setFont(style.font(6.5))
        y = rect.top() + style.HEADER_HEIGHT
        for group in self.spec.ports:
            color = style.protocol_color(group.protocol)
            used = self.usage.get(group.name, 0)
            row = QRectF(rect.left() + 12, y, rect.width() - 18, style.PORT_ROW_HEIGHT - 2)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            painter.drawEllipse(QPointF(row.left() + 4, row.center().y() - 1), 3.2, 3.2)
            painter.setPen(style.TEXT)
            name = style.PROTOCOL_LABELS.get(group.protocol, group.protocol)
            painter.drawText(row.adjusted(11, -1, 0, -1), Qt.AlignmentFlag.AlignVCenter,
                             f"{name} {group.count}×{style.format_rate(group.rate_gbps)}")
            painter.setPen(style.TEXT_DIM)
            painter.drawText(row, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
                             f"{used}/{group.count}")
            # usage bar under the row: used ports filled, the rest is free
            bar = QRectF(row.left() + 11, row.bottom() - 1.5, row.width() - 11, 2.0)
            faint = QColor(color)
            faint.setAlpha(45)
            painter.fillRect(bar, faint)
            if used:
                fraction = min(1.0, used / group.count)
                painter.fillRect(QRectF(bar.left(), bar.top(), bar.width() * fraction,
                                        bar.height()),
                                 style.WIRE_BAD if used > group.count else color)
            y += style.PORT_ROW_HEIGHT


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
        self._rect = QRectF(0, 0, 10, 10)
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setZValue(-10)
        self.on_moved = None

    def type(self) -> int:
        return GROUP_TYPE

    def set_frame(self, rect: QRectF, depth: int) -> None:
        """Expanded: frame `rect` in scene coordinates (the item sits at the origin)."""
        self.prepareGeometryChange()
        self.collapsed = False
        self.setPos(0, 0)
        self._rect = QRectF(rect)
        self.setZValue(-10 - depth)
        self.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        self.update()

    def set_collapsed_box(self, top_left: QPointF, summary: list[tuple[str, int, int]],
                          device_count: int) -> None:
        self.prepareGeometryChange()
        self.collapsed = True
        self.summary = summary
        self.device_count = device_count
        height = style.HEADER_HEIGHT + max(1, len(summary)) * style.PORT_ROW_HEIGHT + 6
        self._rect = QRectF(0, 0, style.COLLAPSED_WIDTH, height)
        self.setPos(top_left)
        self.setZValue(10)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
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

    def itemChange(self, change, value):
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged and self.on_moved:
            self.on_moved(self)
        return super().itemChange(change, value)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        lod = _lod(painter)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        rect = self._rect
        accent = style.KIND_COLORS.get("system")
        if self.collapsed:
            if lod < style.LOD_BOXES:
                painter.fillRect(rect, style.SELECTION if selected else accent)
                return
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setPen(QPen(style.SELECTION if selected else accent, 2.5 if selected else 1.5))
            painter.setBrush(QColor("#f0faf7"))
            painter.drawRoundedRect(rect, 8, 8)
            painter.setPen(style.TEXT)
            painter.setFont(style.font(8 if lod >= style.LOD_TEXT else 12, True))
            painter.drawText(QRectF(rect.left() + 22, rect.top() + 3, rect.width() - 26, 16),
                             Qt.AlignmentFlag.AlignVCenter, self.label)
            self._paint_toggle(painter)
            if lod < style.LOD_TEXT:
                return
            painter.setPen(style.TEXT_DIM)
            painter.setFont(style.font(7))
            painter.drawText(QRectF(rect.left() + 8, rect.top() + 19, rect.width() - 12, 14),
                             Qt.AlignmentFlag.AlignVCenter,
                             f"{self.kind} · {self.device_count} devices")
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
        painter.setPen(QPen(style.SELECTION if selected else style.GROUP_BORDER,
                            2.0 if selected else 1.0, Qt.PenStyle.DashLine))
        painter.setBrush(style.GROUP_FILL)
        painter.drawRoundedRect(rect, 10, 10)
        if lod < style.LOD_BOXES:
            return
        painter.setPen(style.TEXT_DIM)
        painter.setFont(style.font(8 if lod >= style.LOD_TEXT else 14, True))
        painter.drawText(QRectF(rect.left() + 22, rect.top() + 2, rect.width() - 26, 18),
                         Qt.AlignmentFlag.AlignVCenter, f"{self.label}  ·  {self.kind}")
        self._paint_toggle(painter)

    def _paint_toggle(self, painter: QPainter) -> None:
        painter.setPen(style.TEXT_DIM)
        painter.setFont(style.font(8))
        painter.drawText(self.toggle_rect(), Qt.AlignmentFlag.AlignCenter,
                         "▸" if self.collapsed else "▾")


class BundleItem(QGraphicsItem):
    """All links between two visible endpoints, drawn as one line with a count."""

    def __init__(self, key: frozenset[str]) -> None:
        super().__init__()
        self.key = key
        self.link_ids: list[str] = []
        self.count = 0
        self.protocol: str | None = None
        self.bandwidth_gbps = 0.0
        self._line = QLineF()
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
        self.setToolTip(f"{count} link(s), {names}, {bandwidth_gbps / 8:g} GB/s per direction\n"
                        + ", ".join(link_ids[:8]) + (" …" if len(link_ids) > 8 else ""))
        self.update()

    def set_ends(self, a: QPointF, b: QPointF) -> None:
        line = QLineF(a, b)
        if line != self._line:
            self.prepareGeometryChange()
            self._line = line

    def width(self) -> float:
        return max(1.2, min(9.0, 1.0 + math.log2(max(1.0, self.bandwidth_gbps / 200.0)) * 1.2))

    def boundingRect(self) -> QRectF:
        pad = 14.0
        return QRectF(self._line.p1(), self._line.p2()).normalized().adjusted(-pad, -pad, pad, pad)

    def shape(self) -> QPainterPath:
        path = QPainterPath(self._line.p1())
        path.lineTo(self._line.p2())
        stroker = QPainterPathStroker()
        stroker.setWidth(max(8.0, self.width() + 4))
        return stroker.createStroke(path)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        lod = _lod(painter)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        color = QColor(style.SELECTION if selected else style.protocol_color(self.protocol))
        width = self.width()
        # Long antialiased lines are slow to rasterise: draw only the part that is exposed.
        line = clip_line(self._line, option.exposedRect.adjusted(-20, -20, 20, 20))
        if line is None:
            return
        if lod < style.LOD_BOXES:
            pen = QPen(color, 0)  # cosmetic hairline when far out
            painter.setPen(pen)
            painter.drawLine(line)
            return
        # Opaque wires: translucent wide lines cost ~5x more to rasterise, which a SuperPOD's
        # hundreds of crossing spine bundles make visible.
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        pen = QPen(color, width + (1.5 if selected else 0))
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.drawLine(line)
        if self.count > 1 and lod >= style.LOD_TEXT:
            mid = self._line.center()
            text = f"×{self.count}"
            painter.setFont(style.font(6.5, True))
            w = painter.fontMetrics().horizontalAdvance(text) + 8
            pill = QRectF(mid.x() - w / 2, mid.y() - 7, w, 14)
            painter.setPen(QPen(color, 1))
            painter.setBrush(QColor("white"))
            painter.drawRoundedRect(pill, 7, 7)
            painter.setPen(style.TEXT)
            painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)


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
