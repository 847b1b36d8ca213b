"""The canvas view: zoom (wheel, Ctrl +/-, Ctrl+0 fit), pan (middle button, space+drag),
rubber-band selection, arrow-key nudges, and the overview switch when zoomed far out.

Fitting needs the viewport's real size, which a window only has once it is shown and its docks
are laid out. `request_fit()` (opening a file) therefore fits now if the view is visible and
keeps the design fitted through the resizes that follow (first show, dock layout, the user
resizing the window) until the user zooms, pans or clicks into the canvas.
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
    QResizeEvent,
    QShowEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QFrame, QGraphicsItem, QGraphicsView, QMenu

from rackdesigner.ui import style
from rackdesigner.ui.canvas.block_zoom import open_block_at
from rackdesigner.ui.canvas.cells import MAX_OPEN_CELLS
from rackdesigner.ui.canvas.far_lines import FarLines
from rackdesigner.ui.canvas.heat import legend_height, paint_legend
from rackdesigner.ui.canvas.minimap import MiniMap
from rackdesigner.ui.canvas.overlay import forget_selection, paint_overlay
from rackdesigner.ui.canvas.scene import RackScene

MIN_ZOOM = 0.01
MAX_ZOOM = 4.0
GRID = 20.0
FIT_MARGIN = 40.0  # scene units around the design when fitting
MODIFIER_KEYS = (Qt.Key.Key_Control, Qt.Key.Key_Shift, Qt.Key.Key_Alt, Qt.Key.Key_Meta,
                 Qt.Key.Key_AltGr)
LEGEND_MARGIN_PX = 10.0  # the heat map's legend from the viewport's bottom-left corner
TITLE_ROOM_PX = 24  # fitted zoomed out: room above the design for its outermost name
OVERVIEW_MIN_DEVICES = 200  # smaller designs never switch to the overview
FAR_ZOOM = 0.04  # below: SUs and switch tiers are aggregate blocks (canvas.cells)
SHOW_ZOOM = 0.5  # going to an object selected inside a block: at least this close
EMPTY_HINT = ("Drag a GPU, a switch or a whole system from the Palette to start.\n"
              "Wire devices by dragging from a port row to another device.")


class RackView(QGraphicsView):
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
        self._selection_rects = None  # the overlay's outlines, until the selection changes
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

    # ---- zoom -----------------------------------------------------------------------------
    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, zoom: float, anchor_under_mouse: bool = False) -> None:
        self.stop_keeping_fitted()
        self._set_zoom(zoom, anchor_under_mouse)

    def _set_zoom(self, zoom: float, anchor_under_mouse: bool = False) -> None:
        zoom = max(MIN_ZOOM, min(MAX_ZOOM, zoom))
        factor = zoom / self.zoom()
        if abs(factor - 1.0) < 1e-9:
            return
        previous = self.transformationAnchor()
        if not anchor_under_mouse:
            self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.scale(factor, factor)
        self.setTransformationAnchor(previous)
        self._zoom_changed()

    def show_point(self, point: QPointF, zoom: float = SHOW_ZOOM) -> None:
        """Centre on `point` at `zoom` or closer, with what is there drawn (a selection made
        in a table while the design is aggregate blocks)."""
        self.set_zoom(max(self.zoom(), zoom))
        self.centerOn(point)
        self.rack_scene().request_area(self.visible_scene_rect(), self.zoom())
        self.rack_scene().flush()

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom() * 1.25)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom() / 1.25)

    def design_rect(self) -> QRectF:
        """The scene rectangle of everything drawn (top-level visible items), unpadded."""
        scene = self.rack_scene()
        scene.flush(cells=False)  # blocks cover their area: the bounds are right meanwhile
        rect = QRectF()
        for item in scene.items():
            if item.isVisible() and item.parentItem() is None:
                rect = rect.united(item.sceneBoundingRect())
        return rect

    def fit(self) -> None:
        """Fit the whole design in the view (Ctrl+0), never above 100 %."""
        for _ in range(2):
            rect = self.design_rect()
            if rect.isEmpty():
                rect = QRectF(-200, -150, 400, 300)
            m = FIT_MARGIN
            self.fitInView(rect.adjusted(-m, -m, m, m), Qt.AspectRatioMode.KeepAspectRatio)
            # the names at screen size: the design's own above it, covering none of the
            # others; the heat map's legend under it, covering no block (at 32k GPUs it hid
            # the last row of SU names)
            top = TITLE_ROOM_PX if self.zoom() < style.LOD_TEXT else 0.0
            bottom = self._legend_room()
            if top or bottom:
                self._fit_between(rect.adjusted(-m, -m, m, m), top, bottom)
            if self.zoom() > 1.0:
                self._set_zoom(1.0)
            self._zoom_changed()
            # the level of detail of the new zoom draws frames where blocks were (or the
            # reverse), a little larger or smaller: fit once more to what is now drawn
            self.rack_scene().flush()
            if rect.contains(self.design_rect().adjusted(m / 2, m / 2, -m / 2, -m / 2)):
                break

    def _fit_between(self, rect: QRectF, top: float, bottom: float) -> None:
        """Fit `rect` in the viewport less `top` and `bottom` pixels (fitInView's margins);
        again if a scroll bar came or went meanwhile (the viewport changed size)."""
        for _ in range(2):
            shown = self.viewport().rect()
            area = shown.adjusted(2, 2, -2, -2)
            height = max(area.height() - top - bottom, 20.0)
            zoom = min(area.width() / max(rect.width(), 1.0),
                       height / max(rect.height(), 1.0))
            self.resetTransform()
            self.scale(zoom, zoom)
            centre = rect.center()
            centre.setY(centre.y() - (top - bottom) / 2 / zoom)
            wanted = QRectF(0, 0, shown.width() / zoom, shown.height() / zoom)
            wanted.moveCenter(centre)
            self.rack_scene()._grow_scene_rect(wanted)  # far out, 2,000 units are ~27 px
            self.centerOn(centre)
            if self.viewport().rect() == shown:
                break

    def _legend_room(self) -> float:
        """Viewport pixels the heat map's legend takes at the bottom (0 with no heat map)."""
        scene = self.rack_scene()
        if scene.heat is None or scene.legend_in_scene:
            return 0.0
        return legend_height(scene.heat_title) + 2 * LEGEND_MARGIN_PX

    def legend_changed(self) -> None:
        """The heat map was turned on or off: a design kept fitted makes room for its legend."""
        self._fit_if_kept()

    def request_fit(self) -> None:
        """Fit the design once the view has its real size, and keep it fitted through the
        resizes that follow until the user zooms, pans or clicks (see the module docstring)."""
        self._keep_fitted = True
        if self.isVisible():
            self.fit()
        else:
            self._fit_timer.stop()

    def stop_keeping_fitted(self) -> None:
        self._keep_fitted = False
        self._fit_timer.stop()

    def _fit_if_kept(self) -> None:
        if self._keep_fitted and self.isVisible():
            self.fit()

    def scrollContentsBy(self, dx: int, dy: int) -> None:  # Qt override
        super().scrollContentsBy(dx, dy)
        self.minimap.follow_view()
        self._report_area()

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()

    def _report_area(self) -> None:
        """Tell the scene what is on screen: it opens the aggregate blocks there (debounced
        to the next `flush`, so a pan opens them once it pauses)."""
        if isinstance(self.scene(), RackScene):  # None while the window closes
            self.rack_scene().request_area(self.visible_scene_rect(), self.zoom())

    def level_for_zoom(self, zoom: float) -> str:
        """The scene's level of detail at `zoom` (see `RackScene.set_level`)."""
        scene = self.rack_scene()
        layout = scene.layout
        if layout is None or layout.device_count() <= OVERVIEW_MIN_DEVICES:
            return "detail"
        if scene.cells() and (zoom < FAR_ZOOM or scene.cells_meeting(
                self.visible_scene_rect()) > MAX_OPEN_CELLS):
            return "far"
        return "overview" if zoom < style.OVERVIEW_ZOOM else "detail"

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.minimap.follow_view()
        self._report_area()
        if self._keep_fitted:
            self._fit_timer.start()  # once per burst of resizes (window and docks settling)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._keep_fitted:
            self._fit_timer.start()

    def _zoom_changed(self) -> None:
        scene = self.rack_scene()
        scene.set_batched_wires(self.zoom() < style.LOD_BOXES)
        scene.request_area(self.visible_scene_rect(), self.zoom())
        level = self.level_for_zoom(self.zoom())
        if level != scene.level:
            scene.set_level(level)  # opens the blocks on screen now, the area with it
        self.minimap.follow_view()
        self.zoom_changed.emit(self.zoom())

    def wheelEvent(self, event: QWheelEvent) -> None:
        self.stop_keeping_fitted()
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            super().wheelEvent(event)
            return
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.set_zoom(self.zoom() * (1.15 ** steps), anchor_under_mouse=True)
        event.accept()

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
