"""Wires drawn in one pass when zoomed out below `style.LOD_BOXES`.

Far out every bundle is a cosmetic hairline. Painted item by item, a 4,000-GPU SuperPOD in the
overview spends ~0.1 ms per bundle in Python and in antialiased translucent line rasterising:
over a second for a frame. Instead the bundles then carry `ItemHasNoContents` (they stay
selectable, hoverable and pickable) and the scene draws the ones meeting the exposed area
under the boxes, grouped by pen: one `drawLines` call per colour, opaque and without
antialiasing. Selected bundles are drawn on top in the selection colour. Bundles between two
aggregate blocks are left to the view, which routes them through the gutters between the
blocks (`canvas.far_lines`, `RackScene.routed_keys`).
"""

from __future__ import annotations

from collections import defaultdict

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene

from rackdesigner.ui import style
from rackdesigner.ui.canvas.bundle_item import BUNDLE_TYPE, FAR_WIRE_ALPHA, BundleItem
from rackdesigner.ui.canvas.failure_marks import FAILED_GREY
from rackdesigner.ui.canvas.heat import COLD, heat_color

NO_CONTENTS = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents


def wire_color(bundle: BundleItem) -> QColor:
    """A bundle's colour as its own painting chooses it (heat, failure, protocol)."""
    if bundle.failed == "all":
        return QColor(FAILED_GREY)
    if bundle.heat is not None:
        return heat_color(bundle.heat) if bundle.heat >= 0 else QColor(COLD)
    return QColor(style.protocol_color(bundle.protocol))


def _faded(color: QColor) -> QColor:
    """`color` mixed with the canvas background as the items' translucent hairlines look
    (opaque: blending costs ~7x more to rasterise than plain lines)."""
    a = FAR_WIRE_ALPHA / 255.0
    bg = QColor(style.CANVAS_BG)
    return QColor(round(color.red() * a + bg.red() * (1 - a)),
                  round(color.green() * a + bg.green() * (1 - a)),
                  round(color.blue() * a + bg.blue() * (1 - a)))


def set_batched(bundles, on: bool) -> None:
    """Let the scene draw these bundles (`on`) or let them paint themselves."""
    for bundle in bundles:
        bundle.setFlag(NO_CONTENTS, on)


def paint_far_wires(scene: QGraphicsScene, painter: QPainter, rect: QRectF,
                    skip_routed: bool = True) -> int:
    """Draw every batched bundle meeting `rect` (but those the view routes itself, unless
    not `skip_routed`: an export or the overview map draws them all); returns how many."""
    groups: dict[tuple[int, bool], list] = defaultdict(list)
    arcs: dict[tuple[int, bool], list] = defaultdict(list)
    selected = []
    routed = getattr(scene, "routed_keys", ()) if skip_routed else ()  # canvas.far_lines
    for item in scene.items(rect, Qt.ItemSelectionMode.IntersectsItemBoundingRect):
        if item.type() != BUNDLE_TYPE or not item.flags() & NO_CONTENTS:
            continue
        if routed and item.key in routed:
            continue
        if item.isSelected():
            selected.append(item)
            continue
        color = wire_color(item)
        key = (color.rgb(), bool(item.failed))
        if item.is_arc():
            arcs[key].append(item)
        else:
            groups[key].append(item._line)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    for key in set(groups) | set(arcs):
        rgb, dashed = key
        pen = QPen(_faded(QColor.fromRgb(rgb)), 0)
        if dashed:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        if groups.get(key):
            painter.drawLines(groups[key])
        for item in arcs.get(key, ()):
            painter.drawPath(item._arc)
    if selected:
        painter.setPen(QPen(style.SELECTION, 2))
        for item in selected:
            if item.is_arc():
                painter.drawPath(item._arc)
            else:
                painter.drawLine(item._line)
    painter.restore()
    return sum(len(v) for v in groups.values()) + sum(len(v) for v in arcs.values()) + len(
        selected)
