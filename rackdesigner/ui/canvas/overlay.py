"""What the view draws over a zoomed-out design at screen size: group names and the selection.

Below `style.LOD_TEXT` the items' own text is too small to read (a group title is 14 pt in
scene units, 4 px at 30 %), so the view paints, in viewport pixels:

- the lines between aggregate blocks, routed along the gutters between them so that each
  block's line is visibly its own (`far_lines`);
- the group names, and in each aggregate block its counts and the link count and capacity of
  each line leaving it (`names` decides which, where and in what form);
- an outline around every selected item (or their common bounds when thousands are selected),
  two pixels wide whatever the zoom, since a selected box of 3 px is otherwise invisible.

The names are placed once per view transform and scene change, the lines' routes once per
change of the blocks; on the 4-SU SuperPOD (171 groups) the overlay costs about 1 ms per frame
next to the scene's own ~50 ms zoomed out (`benchmarks/overview_cost.py`); the outlines are
computed once per selection change.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsView

from rackdesigner.ui import style
from rackdesigner.ui.canvas.far_lines import paint_far_lines
from rackdesigner.ui.canvas.far_wires import wire_color
from rackdesigner.ui.canvas.name_forms import label_font, short_forms, short_name
from rackdesigner.ui.canvas.names import (
    LABEL_BELOW_ZOOM,
    LINK_MARK,
    Label,
    bundle_labels,
    group_labels,
    place_labels,
    screen_rect,
)

MAX_OUTLINES = 400  # more selected items: one outline around all of them
PILL = QColor(255, 255, 255, 215)


def paint_overlay(view: QGraphicsView, painter: QPainter) -> None:
    """Routed lines between blocks, group names and selection outlines, in viewport pixels
    (call from drawForeground)."""
    if view.transform().m11() >= LABEL_BELOW_ZOOM:
        return
    painter.save()
    painter.resetTransform()
    far = getattr(view, "far_lines", None)
    if far is not None and far.plan is not None:
        paint_far_lines(view, painter, far)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    _paint_selection(view, painter)
    for label in place_labels(view):
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(PILL)
        painter.drawRoundedRect(label.rect, 3, 3)
        font, metrics = label_font("small" if label.small else label.kind)
        painter.setFont(font)
        height = metrics.height()
        top = label.rect.top() + 1
        linked = {i: b for first, last, b in label.links for i in range(first, last + 1)}
        for i, text in enumerate(label.lines):
            row = QRect(label.rect.left(), top + i * height, label.rect.width(), height)
            bundle = linked.get(i)
            if bundle is not None:  # a line leaving the block: a dash in its colour before it
                left = row.center().x() - metrics.horizontalAdvance(text) // 2 - LINK_MARK
                painter.fillRect(QRect(left, row.center().y() - 1, LINK_MARK - 4, 3),
                                 wire_color(bundle))
            painter.setPen(style.TEXT)
            painter.drawText(row, Qt.AlignmentFlag.AlignCenter, text)
    painter.restore()


def selection_rects(view: QGraphicsView) -> list[QRectF]:
    """Scene rectangles to outline: each selected item's, or one around all when there are
    more than `MAX_OUTLINES`. Kept on the view until the selection or the scene changes
    (`forget_selection`): panning and zooming a select-all SuperPOD reuses it."""
    cached = getattr(view, "selection_outlines", None)
    if cached is not None:
        return cached
    selected = [item for item in view.scene().selectedItems() if item.isVisible()]
    if len(selected) > MAX_OUTLINES:
        bounds = QRectF()
        for item in selected:
            bounds = bounds.united(item.sceneBoundingRect())
        rects = [bounds]
    else:
        rects = [item.sceneBoundingRect() for item in selected]
    view.selection_outlines = rects
    return rects


def forget_selection(view: QGraphicsView) -> None:
    view.selection_outlines = None


def _paint_selection(view: QGraphicsView, painter: QPainter) -> None:
    rects = selection_rects(view)
    if not rects:
        return
    painter.setPen(QPen(style.SELECTION, 2))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    pad = 3 if len(rects) == 1 else 2
    for rect in rects:
        painter.drawRect(screen_rect(view, rect).adjusted(-pad, -pad, pad, pad))


__all__ = ["Label", "bundle_labels", "forget_selection", "group_labels", "paint_overlay",
           "place_labels", "selection_rects", "short_forms", "short_name"]
