"""`MiniMap`: the whole design small in a corner of the canvas, with the viewport's rectangle.

Shown while the view shows only part of the design (zoomed in on one SU of a SuperPOD), so the
user sees where they are; a click or drag on it moves the view there. The design is drawn
once into a cached pixmap (group frames and device boxes, no wires: a few ms on a 1,000-GPU
SuperPOD) and redrawn after the scene changes, debounced; the viewport rectangle is painted on
top at every scroll or zoom, which costs nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRect, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QFrame, QGraphicsView, QWidget

from rackdesigner.ui import style

SIZE = QSize(220, 160)
MARGIN = 10
REFRESH_MS = 400
FRAME_COLOR = QColor("#d32f2f")


class MiniMap(QFrame):
    def __init__(self, view: QGraphicsView, parent: QWidget | None = None) -> None:
        super().__init__(parent or view)
        self.view = view
        self.enabled_by_user = True
        self.setFrameShape(QFrame.Shape.Box)
        self.setStyleSheet("MiniMap { background: rgba(255, 255, 255, 230);"
                           " border: 1px solid #9aa5b1; }")
        self.setFixedSize(SIZE)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Overview: click or drag to move the view (View → Overview Map)")
        self.design = QRectF()
        self._pixmap: QPixmap | None = None
        self._dirty = True
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        view.scene().changed.connect(self._on_scene_changed)
        self.hide()

    # ---- state -------------------------------------------------------------------------------
    def _on_scene_changed(self, *args) -> None:
        # the design's bounds are read again at the next `follow_view`; the picture is redrawn
        # (debounced) only while the map is shown
        self._dirty = True
        if self.isVisible():
            self._timer.start()

    def forget(self) -> None:
        """Another design was opened: drop the previous one's picture at once (it is drawn
        again for the new design once that is laid out), never show it under the new title."""
        self._timer.stop()
        self._pixmap = None
        self._dirty = True
        self.design = QRectF()
        self.hide()

    def set_enabled_by_user(self, on: bool) -> None:
        self.enabled_by_user = on
        self.follow_view()

    def flush(self) -> None:
        """Redraw now if a redraw is pending (tests)."""
        if self._timer.isActive():
            self.refresh()
        self.follow_view()

    def refresh(self) -> None:
        """Draw the design into the cached pixmap."""
        self._timer.stop()
        if self.view.scene() is None:
            return
        design = self.view.design_rect()
        self.design = design
        self._dirty = False
        if design.isEmpty():
            self._pixmap = None
            self.follow_view()
            return
        target = self._target()
        pixmap = QPixmap(target.size().toSize())
        pixmap.fill(style.CANVAS_BG)
        painter = QPainter(pixmap)
        self._draw_design(painter, target.width() / design.width())
        painter.end()
        self._pixmap = pixmap
        self._dirty = False
        self.follow_view()
        self.update()

    def _draw_design(self, painter: QPainter, scale: float) -> None:
        """Group frames and device boxes as plain rectangles in their kind's colour; wires
        are left out (thousands of hairlines would make a blue smear and cost 200 ms)."""
        scene = self.view.scene()
        painter.scale(scale, scale)
        painter.translate(-self.design.left(), -self.design.top())
        pen = QPen(style.GROUP_BORDER, 0)
        painter.setPen(pen)
        painter.setBrush(style.GROUP_FILL)
        for item in scene.item_for_group.values():
            if item.isVisible() and not item.collapsed:
                painter.drawRect(item.frame_rect())
        painter.setPen(Qt.PenStyle.NoPen)
        for item in scene.item_for_group.values():
            if item.isVisible() and item.collapsed:
                painter.fillRect(item.frame_rect(), style.KIND_COLORS["system"])
        for item in scene.item_for_device.values():
            if item.isVisible():
                painter.fillRect(item.sceneBoundingRect(), item.accent)

    def _should_show(self) -> bool:
        if not self.enabled_by_user or self.design.isEmpty():
            return False
        visible = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        return not visible.contains(self.design.adjusted(10, 10, -10, -10))

    def follow_view(self) -> None:
        """Show (at the bottom-right of the viewport) or hide; repaint the view rectangle."""
        if self.view.scene() is None:  # the window is closing
            return
        if self._dirty and self.enabled_by_user:
            self._dirty = False
            self.design = self.view.design_rect()
            self._pixmap = None if self.design.isEmpty() else self._pixmap
        show = self._should_show()
        if show and (self._pixmap is None or self._dirty) and not self._timer.isActive():
            self._timer.start()
        if show:
            viewport = self.view.viewport().geometry()
            self.move(viewport.right() - SIZE.width() - MARGIN,
                      viewport.bottom() - SIZE.height() - MARGIN)
            self.raise_()
        self.setVisible(show)
        if show:
            self.update()

    # ---- geometry ----------------------------------------------------------------------------
    def _target(self) -> QRectF:
        """Where the design is drawn inside the widget (aspect kept, centred)."""
        inner = QRectF(self.contentsRect()).adjusted(2, 2, -2, -2)
        if self.design.isEmpty():
            return inner
        scale = min(inner.width() / self.design.width(), inner.height() / self.design.height())
        w, h = self.design.width() * scale, self.design.height() * scale
        return QRectF(inner.center().x() - w / 2, inner.center().y() - h / 2, w, h)

    def to_scene(self, point: QPointF) -> QPointF:
        target = self._target()
        sx = self.design.width() / target.width()
        sy = self.design.height() / target.height()
        return QPointF(self.design.left() + (point.x() - target.left()) * sx,
                       self.design.top() + (point.y() - target.top()) * sy)

    def from_scene(self, rect: QRectF) -> QRectF:
        target = self._target()
        sx = target.width() / self.design.width()
        sy = target.height() / self.design.height()
        return QRectF(target.left() + (rect.left() - self.design.left()) * sx,
                      target.top() + (rect.top() - self.design.top()) * sy,
                      rect.width() * sx, rect.height() * sy)

    def view_rect(self) -> QRectF:
        """The viewport's rectangle in widget coordinates."""
        visible = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        return self.from_scene(visible)

    # ---- Qt overrides ------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        painter = QPainter(self)
        if self._pixmap is not None:
            painter.drawPixmap(self._target().topLeft(), self._pixmap)
        if not self.design.isEmpty():
            painter.setPen(QPen(FRAME_COLOR, 2))
            painter.setBrush(QColor(211, 47, 47, 30))
            rect = self.view_rect().intersected(QRectF(self.contentsRect()))
            painter.drawRect(rect.toAlignedRect() if rect.width() > 4 else QRect(
                int(rect.center().x()) - 2, int(rect.center().y()) - 2, 4, 4))
        painter.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._go(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._go(event)

    def _go(self, event: QMouseEvent) -> None:
        if self.design.isEmpty():
            return
        stop = getattr(self.view, "stop_keeping_fitted", None)
        if stop is not None:
            stop()
        self.view.centerOn(self.to_scene(event.position()))
        event.accept()


__all__ = ["MiniMap"]
