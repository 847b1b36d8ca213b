"""What the view draws over a zoomed-out design at screen size: group names and the selection.

Below `style.LOD_TEXT` the items' own text is too small to read (a group title is 14 pt in
scene units, 4 px at 30 %), so the view paints, in viewport pixels:

- the names of the groups whose frame is large enough on screen to hold them — the pod and the
  scalable units when fully zoomed out, then racks and tiers, then nodes — outermost first, each
  on a light pill, never overlapping a name already drawn (so the readable level wins);
- in the far level, the link count and total capacity of each bundle between aggregate
  blocks (and its hottest member's load under a heat map), and each block's counts under its
  name (GPUs, devices, failed, power);
- an outline around every selected item (or their common bounds when thousands are selected),
  two pixels wide whatever the zoom, since a selected box of 3 px is otherwise invisible.

Both are computed per frame from the groups on screen, in viewport coordinates: on the 4-SU
SuperPOD (171 groups) about 1 ms per frame next to the scene's own ~50 ms zoomed out
(`benchmarks/overview_cost.py`); the outlines are computed once per selection change.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QGraphicsView

from rackdesigner.ui import style

LABEL_BELOW_ZOOM = style.LOD_TEXT
MAX_OUTLINES = 400  # more selected items: one outline around all of them
PILL = QColor(255, 255, 255, 215)
LABEL_PAD = 3
MIN_LABEL_PX = 36  # a frame narrower than this on screen gets no name (it would be "R…")
KIND_SIZES = {"pod": 11.0, "fabric": 10.0, "su": 10.0, "rack": 9.0, "bundle": 8.0}  # others 8.5
MAX_BUNDLE_LABELS = 2000  # more bundles far out: no counts drawn on them


_FONTS: dict[str, tuple[QFont, QFontMetrics]] = {}


def _font(kind: str) -> tuple[QFont, QFontMetrics]:
    """The label font of a group kind and its metrics (made once: a QFontMetrics per group
    per frame was most of the overlay's cost)."""
    found = _FONTS.get(kind)
    if found is None:
        font = style.font(KIND_SIZES.get(kind, 8.5), True)
        found = _FONTS[kind] = (font, QFontMetrics(font))
    return found


def short_name(label: str) -> str:
    """A label too long for its box, by its initials and its number ("Scalable unit 12" ->
    "SU 12"), or the label itself when it does not end in a number."""
    words = label.split()
    if len(words) < 2 or not any(c.isdigit() for c in words[-1]):
        return label
    return "".join(w[0].upper() for w in words[:-1]) + " " + words[-1]


def _screen(view: QGraphicsView, rect: QRectF) -> QRect:
    return view.viewportTransform().mapRect(rect).toAlignedRect()


def _beside(view: QGraphicsView, box: QRect, label: str, metrics, height: int,
            placed: list[QRect]) -> tuple[QRect, str] | None:
    """A label right of (or else left of) a small block, clear of the labels placed."""
    text = label if metrics.horizontalAdvance(label) <= 220 else short_name(label)
    width = metrics.horizontalAdvance(text) + 2 * LABEL_PAD
    viewport = view.viewport().rect()
    for left in (box.right() + 6, box.left() - 6 - width):
        rect = QRect(left, box.center().y() - height // 2, width, height)
        if viewport.contains(rect) and not any(rect.intersects(p) for p in placed):
            return rect, text
    return None


def group_labels(view: QGraphicsView) -> list[tuple[QRect, str, str]]:
    """(viewport rect, text, kind) of the group names readable at the current zoom."""
    scene = view.scene()
    layout = getattr(scene, "layout", None)
    if layout is None or view.transform().m11() >= LABEL_BELOW_ZOOM:
        return []
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    candidates = []
    # screen boxes first: a frame smaller than the smallest name cannot hold one
    for gid, item in scene.item_for_group.items():
        if not item.isVisible():
            continue
        frame = item.frame_rect()
        if frame.isEmpty() or not frame.intersects(visible):
            continue
        candidates.append((scene._group_depth(gid), gid, item, frame))
    candidates.sort(key=lambda c: (c[0], c[1]))
    placed: list[QRect] = []
    out = []
    for _depth, _gid, item, frame in candidates:
        box = _screen(view, frame)
        metrics = _font(item.kind)[1]
        height = metrics.height() + 2
        room = box.width() - 4 - 2 * LABEL_PAD
        block = getattr(item, "block", False)  # nothing inside to hide: a name fits snugly
        if block and (room < MIN_LABEL_PX or box.height() < height + 4):
            # a block too small for its name (a spine tier's square): the name beside it
            side = _beside(view, box, item.label, metrics, height, placed)
            if side is not None:
                placed.append(side[0])
                out.append((side[0], side[1], item.kind))
            continue
        if room < MIN_LABEL_PX or box.height() < (height + 4 if block else 2 * height):
            continue
        text = metrics.elidedText(item.label, Qt.TextElideMode.ElideRight, room)
        if text != item.label:  # "Scalable u…" names nothing: "SU 12" does
            short = short_name(item.label)
            if metrics.horizontalAdvance(short) <= room:
                text = short
        if text == "…" or len(text) < min(4, len(item.label)):
            continue
        width = metrics.horizontalAdvance(text) + 2 * LABEL_PAD
        stats = getattr(item, "stats", None) if block else None
        if stats is not None and box.height() >= 3 * height:
            # an aggregate block says what it holds: GPUs, devices, failed, power
            line = metrics.elidedText(stats.text(), Qt.TextElideMode.ElideRight, room)
            if line != "…":
                text += "\n" + line
                width = max(width, metrics.horizontalAdvance(line) + 2 * LABEL_PAD)
                height *= 2
        # the top-left corner of the frame, kept on screen while the frame is; under the
        # names already there when they sit in that corner (a pod's and its first SU's)
        rect = QRect(max(box.left() + 2, 2), max(box.top() + 2, 2), width, height)
        for _ in range(3):
            hit = next((p for p in placed if rect.intersects(p)), None)
            if hit is None:
                break
            rect.moveTop(hit.bottom() + 2)
        if not box.contains(rect) or any(rect.intersects(p) for p in placed):
            continue
        placed.append(rect)
        out.append((rect, text, item.kind))
    return out


def bundle_labels(view: QGraphicsView, avoid: list[QRect] | None = None
                  ) -> list[tuple[QRect, str, object]]:
    """(viewport rect, text, bundle) of the bundles between aggregate blocks (the far level):
    link count and total capacity, and the hottest member's load under a heat map; none that
    would overlap one already placed or a rectangle in `avoid` (the group names)."""
    scene = view.scene()
    if getattr(scene, "level", "") != "far" or len(scene.bundles) > MAX_BUNDLE_LABELS:
        return []
    metrics = _font("bundle")[1]
    visible = view.viewport().rect()
    placed: list[QRect] = list(avoid or ())
    out = []
    for bundle in sorted(scene.bundles.values(), key=lambda b: -b.count):
        text = f"×{bundle.count:,} · {style.format_rate(bundle.bandwidth_gbps)}b/s"
        if bundle.heat is not None and bundle.heat >= 0:
            text += f" · peak {bundle.heat:.0%}"
        centre = view.mapFromScene(bundle.midpoint())
        width = metrics.horizontalAdvance(text) + 2 * LABEL_PAD
        height = metrics.height() + 2
        rect = QRect(centre.x() - width // 2, centre.y() - height // 2, width, height)
        if not visible.contains(rect) or any(rect.intersects(p) for p in placed):
            continue
        placed.append(rect)
        out.append((rect, text, bundle))
    return out


def paint_overlay(view: QGraphicsView, painter: QPainter) -> None:
    """Group names and selection outlines, in viewport pixels (call from drawForeground)."""
    if view.transform().m11() >= LABEL_BELOW_ZOOM:
        return
    painter.save()
    painter.resetTransform()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    _paint_selection(view, painter)
    names = group_labels(view)
    for rect, text, bundle in bundle_labels(view, [r for r, _t, _k in names]):
        painter.setPen(QPen(style.protocol_color(bundle.protocol), 1))
        painter.setBrush(PILL)
        painter.drawRoundedRect(rect, 3, 3)
        painter.setPen(style.TEXT)
        painter.setFont(_font("bundle")[0])
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
    for rect, text, kind in names:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(PILL)
        painter.drawRoundedRect(rect, 3, 3)
        painter.setPen(style.TEXT)
        painter.setFont(_font(kind)[0])
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
    painter.restore()


def selection_rects(view: QGraphicsView) -> list[QRectF]:
    """Scene rectangles to outline: each selected item's, or one around all when there are
    more than `MAX_OUTLINES`. Kept on the view until the selection or the scene changes
    (`forget_selection`): panning and zooming a select-all SuperPOD reuses it."""
    cached = getattr(view, "_selection_rects", None)
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
    view._selection_rects = rects
    return rects


def forget_selection(view: QGraphicsView) -> None:
    view._selection_rects = None


def _paint_selection(view: QGraphicsView, painter: QPainter) -> None:
    rects = selection_rects(view)
    if not rects:
        return
    painter.setPen(QPen(style.SELECTION, 2))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    pad = 3 if len(rects) == 1 else 2
    for rect in rects:
        painter.drawRect(_screen(view, rect).adjusted(-pad, -pad, pad, pad))


__all__ = ["bundle_labels", "forget_selection", "group_labels", "paint_overlay",
           "selection_rects"]
