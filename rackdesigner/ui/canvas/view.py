"""The canvas view: zoom (wheel, Ctrl +/-, Ctrl+0 fit), pan (middle button, space+drag),
rubber-band selection, arrow-key nudges, and the overview switch when zoomed far out.

Fitting needs the viewport's real size, which a window only has once it is shown and its docks
are laid out. `request_fit()` (opening a file) therefore fits now if the view is visible and
keeps the design fitted through the resizes that follow (first show, dock layout, the user
resizing the window) until the user zooms, pans or clicks into the canvas (the zoom and the
fitting live in ui/canvas/view_zoom.py).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QContextMenuEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPixmap,
)
from PySide6.QtWidgets import QFrame, QGraphicsItem, QGraphicsView, QMenu

from rackdesigner.ui import style
from rackdesigner.ui.canvas.block_zoom import open_block_at
from rackdesigner.ui.canvas.far_lines import FarLines
from rackdesigner.ui.canvas.heat import legend_height, paint_legend
from rackdesigner.ui.canvas.minimap import MiniMap
from rackdesigner.ui.canvas.overlay import forget_selection, paint_overlay
from rackdesigner.ui.canvas.scene import RackScene
from rackdesigner.ui.canvas.view_zoom import (
    FAR_ZOOM,
    FIT_MARGIN,
    LEGEND_MARGIN_PX,
    MAX_ZOOM,
    MIN_ZOOM,
    OVERVIEW_MIN_DEVICES,
    SHOW_ZOOM,
    TITLE_ROOM_PX,
    ViewZoom,
)

GRID = 20.0
MODIFIER_KEYS = (Qt.Key.Key_Control, Qt.Key.Key_Shift, Qt.Key.Key_Alt, Qt.Key.Key_Meta,
                 Qt.Key.Key_AltGr)
EMPTY_HINT = ("Drag a GPU, a switch or a whole system from the Palette to start.\n"
              "Wire devices by dragging from a port row to another device.")


class RackView(ViewZoom, QGraphicsView):
    zoom_changed = Signal(float)
    nudge_requested = Signal(float, float)

    def __init__(self, scene: RackScene, parent=None) -> None:
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setOptimizationFlags(QGraphicsView.OptimizationFlag.DontSavePainterState)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._space_down = False
        self._pan_from: QPointF | None = None
        self._grid_brush: QBrush | None = None
        self._keep_fitted = False
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(0)
        self._fit_timer.timeout.connect(self._fit_if_kept)
        self.minimap = MiniMap(self)
        self.selection_outlines = None  # the overlay's outlines, until the selection changes
        self.far_lines = FarLines()  # lines between blocks, routed along the gutters
        scene.lazy = True  # only the blocks on screen get items (canvas.cells)
        scene.selectionChanged.connect(self._on_scene_selection_changed)
        scene.changed.connect(self._on_scene_selection_changed)

    def _on_scene_selection_changed(self, *args) -> None:
        forget_selection(self)

    def rack_scene(self) -> RackScene:
        scene = self.scene()
        assert isinstance(scene, RackScene)
        return scene

    # ---- pan and keys ------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key not in MODIFIER_KEYS:  # Ctrl of Ctrl+Shift+H (heat map) is not the user moving
            self.stop_keeping_fitted()
        if key == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space_down = True
            self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
            event.accept()
            return
        arrows = {Qt.Key.Key_Left: (-1, 0), Qt.Key.Key_Right: (1, 0), Qt.Key.Key_Up: (0, -1),
                  Qt.Key.Key_Down: (0, 1)}
        if key in arrows and self.rack_scene().selectedItems():
            step = 1.0 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 10.0
            dx, dy = arrows[key]
            self.nudge_requested.emit(dx * step, dy * step)
            event.accept()
            return
        scene = self.rack_scene()
        if key == Qt.Key.Key_Escape and scene.is_wiring:
            scene.cancel_wiring()
            return
        if scene.is_wiring and (key == Qt.Key.Key_Backspace or event.text().isdigit()):
            scene.type_wire_count("\b" if key == Qt.Key.Key_Backspace else event.text())
            event.accept()
            return
        super().keyPressEvent(event)

    def event(self, event: QEvent) -> bool:  # Qt override
        # While wiring, digits and Backspace type the link count: they must not trigger the
        # window's shortcuts (Backspace deletes the selection).
        if (event.type() == QEvent.Type.ShortcutOverride and self.rack_scene().is_wiring
                and isinstance(event, QKeyEvent)
                and (event.key() == Qt.Key.Key_Backspace or event.text().isdigit())):
            event.accept()
            return True
        return super().event(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space_down = False
            self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
            event.accept()
            return
        super().keyReleaseEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.stop_keeping_fitted()
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = event.position()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # Qt override: into a block
        if not open_block_at(self, event):
            super().mouseDoubleClickEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None:
            delta = event.position() - self._pan_from
            self._pan_from = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.MiddleButton and self._pan_from is not None:
            self._pan_from = None
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # Qt override
        """Fail / Restore, Restore All and Delete on what is under the cursor (selecting it
        first when it is not selected yet)."""
        actions = getattr(self, "context_actions", None)
        if not actions:
            super().contextMenuEvent(event)
            return
        item = self.itemAt(event.pos())
        while item is not None and not (item.flags()
                                        & QGraphicsItem.GraphicsItemFlag.ItemIsSelectable):
            item = item.parentItem()
        if item is not None and not item.isSelected():
            self.scene().clearSelection()
            item.setSelected(True)
        menu = QMenu(self)
        for action in actions:
            if action is None:
                menu.addSeparator()
            else:
                menu.addAction(action)
        self.context_menu = menu  # kept for tests; popup() does not block
        menu.popup(event.globalPos())
        event.accept()

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        """The scene's foreground (count pills); an empty design tells a first-time user where
        to start."""
        super().drawForeground(painter, rect)
        layout = self.rack_scene().layout
        if layout is not None and layout.device_count():
            paint_overlay(self, painter)
            if self.rack_scene().heat is not None:  # the heat map's legend, bottom left
                painter.save()
                painter.resetTransform()
                title = self.rack_scene().heat_title
                paint_legend(painter, LEGEND_MARGIN_PX, self.viewport().height()
                             - legend_height(title) - LEGEND_MARGIN_PX, title)
                painter.restore()
            return
        painter.save()
        painter.resetTransform()
        painter.setPen(style.TEXT_DIM)
        painter.setFont(style.font(11))
        painter.drawText(self.viewport().rect(), Qt.AlignmentFlag.AlignCenter, EMPTY_HINT)
        painter.restore()

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        painter.fillRect(rect, style.CANVAS_BG)
        self.far_lines.update(self)  # before the wires and blocks are painted
        if self.zoom() < 0.5:
            self.rack_scene().paint_batched_wires(painter, rect, on_view=True)
            return
        if self._grid_brush is None:
            # One dot per grid cell as a texture: the painter's transform scales it with the
            # zoom, and filling is one call instead of thousands of points.
            tile = QPixmap(int(GRID), int(GRID))
            tile.fill(Qt.GlobalColor.transparent)
            tile_painter = QPainter(tile)
            tile_painter.fillRect(QRectF(0, 0, 1.2, 1.2), style.GRID_DOT)
            tile_painter.end()
            self._grid_brush = QBrush(tile)
        painter.fillRect(rect, self._grid_brush)


__all__ = ["EMPTY_HINT", "FAR_ZOOM", "FIT_MARGIN", "GRID", "LEGEND_MARGIN_PX", "MAX_ZOOM",
           "MIN_ZOOM", "MODIFIER_KEYS", "OVERVIEW_MIN_DEVICES", "SHOW_ZOOM", "TITLE_ROOM_PX",
           "RackView"]
