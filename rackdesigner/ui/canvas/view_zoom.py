"""The canvas view's zoom: wheel and Ctrl +/- steps, fitting the design (and keeping it fitted
through the resizes after a file opens), the level of detail each zoom shows, and the visible
area the lazy scene builds items for.

Fitting needs the viewport's real size, which a window only has once it is shown and its docks
are laid out. `request_fit()` (opening a file) therefore fits now if the view is visible and
keeps the design fitted through the resizes that follow (first show, dock layout, the user
resizing the window) until the user zooms, pans or clicks into the canvas. `ViewZoom` is a
mixin of `RackView` (ui/canvas/view.py).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QResizeEvent, QShowEvent, QWheelEvent
from PySide6.QtWidgets import QGraphicsView

from rackdesigner.ui import style
from rackdesigner.ui.canvas.cells import MAX_OPEN_CELLS
from rackdesigner.ui.canvas.heat import legend_height
from rackdesigner.ui.canvas.scene import RackScene

MIN_ZOOM = 0.01
MAX_ZOOM = 4.0
FIT_MARGIN = 40.0  # scene units around the design when fitting
LEGEND_MARGIN_PX = 10.0  # the heat map's legend from the viewport's bottom-left corner
TITLE_ROOM_PX = 24  # fitted zoomed out: room above the design for its outermost name
OVERVIEW_MIN_DEVICES = 200  # smaller designs never switch to the overview
FAR_ZOOM = 0.04  # below: SUs and switch tiers are aggregate blocks (canvas.cells)
SHOW_ZOOM = 0.5  # going to an object selected inside a block: at least this close


class ViewZoom:
    """Zoom and fit of `RackView` (a mixin: `self` is the view)."""

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
