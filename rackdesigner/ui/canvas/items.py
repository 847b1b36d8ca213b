"""Graphic items of the canvas: devices here; group frames in `group_item.py`, link bundles in
`bundle_item.py` (re-exported here).

Items know the id and spec of what they draw, never the document; the scene creates, updates
and destroys them from model events. Painting follows the level of detail of the current zoom:
full boxes with port rows, then boxes without text, then plain coloured rectangles.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle, QStyleOptionGraphicsItem, QWidget

from rackdesigner.catalog import DeviceSpec
from rackdesigner.ui import style
from rackdesigner.ui.canvas.blast_marks import paint_blast
from rackdesigner.ui.canvas.failure_marks import paint_failed
from rackdesigner.ui.plain_text import plain

DEVICE_TYPE = QGraphicsItem.UserType + 1


def short_title(title: str, metrics: QFontMetrics, width: int) -> str:
    """`title` as it fits in `width`: a qualifier in brackets goes before words are cut
    ("NVSwitch (third generation)" -> "NVSwitch"; the full model is in the tooltip)."""
    if metrics.horizontalAdvance(title) <= width:
        return title
    bare = re.sub(r"\s*\([^)]*\)", "", title).strip()
    if bare and bare != title and metrics.horizontalAdvance(bare) <= width:
        return bare
    return metrics.elidedText(bare or title, Qt.TextElideMode.ElideRight, width)


def device_size(spec: DeviceSpec | None) -> tuple[float, float]:
    """Width and height of a device's box (the same for every device of a model)."""
    rows = len(spec.ports) if spec is not None else 0
    return style.DEVICE_WIDTH, max(style.MIN_DEVICE_HEIGHT,
                                   style.HEADER_HEIGHT + rows * style.PORT_ROW_HEIGHT + 6)


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
        self.failed = False
        self._rect = QRectF(0, 0, *device_size(spec))
        kind = spec.kind if spec is not None else ""
        self.accent = style.KIND_COLORS.get(kind, style.UNKNOWN_COLOR)
        self.badge = style.KIND_BADGES.get(kind, "?")
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptHoverEvents(True)
        self.setZValue(10)
        self.setToolTip(plain(self._tooltip()))

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
            self.setToolTip(plain(self._tooltip()))
            self.update()

    def set_usage(self, usage: dict[str, int]) -> None:
        if usage != self.usage:
            self.usage = dict(usage)
            self.update()

    def set_wire_state(self, state: str | None) -> None:
        if state != self.wire_state:
            self.wire_state = state
            self.update()

    def hoverMoveEvent(self, event) -> None:
        """A crosshair over a port row says "drag from here to wire"."""
        if self.port_at(event.pos()) is not None:
            self.setCursor(Qt.CursorShape.CrossCursor)
        else:
            self.unsetCursor()
        super().hoverMoveEvent(event)

    def hoverLeaveEvent(self, event) -> None:
        self.unsetCursor()
        super().hoverLeaveEvent(event)

    # painting
    def set_failed(self, failed: bool) -> None:
        """Drawn greyed and hatched: failed (or inside a failed group or rack)."""
        self.failed = failed
        self.setToolTip(plain(self._tooltip() + ("\nFAILED: left out of the figures (F restores)"
                                           if failed else "")))
        self.update()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        self._paint_box(painter, option)
        if self.failed:
            paint_failed(painter, self._rect, style.lod(painter) < style.LOD_BOXES)
        if self.device_id in getattr(self.scene(), "blast_devices", ()):
            paint_blast(painter, self._rect, style.lod(painter) < style.LOD_BOXES)

    def _paint_box(self, painter: QPainter, option: QStyleOptionGraphicsItem) -> None:
        lod = style.lod(painter)
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
            # Too small for text rows: a box tinted by kind with its badge large enough to
            # read (about 8 px at 35 % zoom), so GPUs, switches and NICs still tell apart.
            tint = QColor(self.accent)
            tint.setAlpha(48)
            body = QPainterPath()
            body.addRoundedRect(rect.adjusted(8, 0.5, -0.5, -0.5), 5.5, 5.5)
            painter.fillPath(body, tint)
            painter.setPen(self.accent.darker(150))
            painter.setFont(style.font(style.BADGE_POINTS_FAR, True))
            painter.drawText(rect.adjusted(16, 0, -4, 0), Qt.AlignmentFlag.AlignVCenter
                             | Qt.AlignmentFlag.AlignLeft, self.badge)
            return
        self._paint_header(painter, rect)
        self._paint_ports(painter, rect)

    def _paint_header(self, painter: QPainter, rect: QRectF) -> None:
        # line 1: the model, full width; line 2: kind badge and the device's name
        painter.setPen(style.TEXT)
        painter.setFont(style.font(7.5, True))
        title = self.spec.model if self.spec is not None else self.model
        title = short_title(title, painter.fontMetrics(), int(rect.width() - 17))
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


from rackdesigner.ui.canvas.bundle_item import BUNDLE_TYPE, BundleItem, clip_line  # noqa: E402
from rackdesigner.ui.canvas.group_item import GROUP_TYPE, GroupItem  # noqa: E402

__all__ = ["BUNDLE_TYPE", "DEVICE_TYPE", "GROUP_TYPE", "BundleItem", "DeviceItem", "GroupItem",
           "clip_line"]
