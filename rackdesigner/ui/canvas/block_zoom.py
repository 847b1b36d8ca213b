"""Double-click on an aggregate block (the far zoom's SU or switch tier) zooms into it: the view
fits the block's area, so it opens there and shows what it holds. Before, a double-click only
selected the block, and the way in was the wheel (issue 38 item 12).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QGraphicsView

from rackdesigner.ui.canvas.group_item import GroupItem

MARGIN = 0.05  # of the block's size, around it once zoomed in
STEP, STEPS = 1.25, 40  # closer by this much at a time while the block stays a block


def block_at(view: QGraphicsView, pos: QPoint) -> GroupItem | None:
    """The aggregate block under viewport point `pos`, if any (the topmost)."""
    for item in view.items(pos):
        if isinstance(item, GroupItem) and item.isVisible() and item.block:
            return item
    return None


def zoom_into(view, item: GroupItem, at: QPointF | None = None) -> None:
    """Fit the view to the block's area (never past 100 %), then closer while that still
    draws it as a block (an SU as wide as the design: its fit is the design's), centred on
    `at` (the point double-clicked, default the block's centre); open what is on screen."""
    rect = QRectF(item.frame_rect())
    centre = at if at is not None and rect.contains(at) else rect.center()
    m = max(rect.width(), rect.height()) * MARGIN
    view.stop_keeping_fitted()
    view.fitInView(rect.adjusted(-m, -m, m, m), Qt.AspectRatioMode.KeepAspectRatio)
    view.centerOn(centre)
    view.set_zoom(min(1.0, view.zoom()))
    view._zoom_changed()
    scene = view.rack_scene()
    for _ in range(STEPS):  # a block opens once its level of detail is no longer "far"
        if scene.level != "far" or view.zoom() >= 1.0:
            break
        view.set_zoom(min(1.0, view.zoom() * STEP))
        view.centerOn(centre)
    scene.request_area(view.visible_scene_rect(), view.zoom())
    scene.flush()


def open_block_at(view, event: QMouseEvent) -> bool:
    """A double-click: zoom into the block under it (the event accepted); False when it is
    not the left button or there is no block there."""
    if event.button() != Qt.MouseButton.LeftButton:
        return False
    item = block_at(view, event.position().toPoint())
    if item is None:
        return False
    zoom_into(view, item, view.mapToScene(event.position().toPoint()))
    event.accept()
    return True


__all__ = ["block_at", "open_block_at", "zoom_into"]
