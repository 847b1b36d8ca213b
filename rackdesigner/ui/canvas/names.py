"""Group names at screen size over a zoomed-out design: which, where and in what form.

Below `style.LOD_TEXT` the items' own text is too small to read (a group title is 14 pt in
scene units, 4 px at 30 %), so the view writes, in viewport pixels (`overlay` paints them):

- the names of the groups large enough on screen to hold them — the pod and the scalable
  units when fully zoomed out, then racks and tiers, then nodes — outermost first, each on a
  light pill, never overlapping a name already written (so the readable level wins) and never
  cut: whole, wrapped over lines, run on over free canvas, under a node's box, a short form
  ("SU 12"), or that form in a smaller type inside a block (a 32k-GPU SuperPOD's SUs are
  47 x 18 px fitted: named beside, every second one went unnamed); what fits in no form is
  left out; a frame's name covers no aggregate block (a pod's name took its first SU's place);
- in each aggregate block, under its name, its counts (GPUs, failed, devices, power) and, far
  out, the link count and total capacity of each line leaving it (with its hottest member's
  load under a heat map), as many lines as the block holds.

They are placed once per view transform and scene change (`RackScene.blocks_revision`), not
per frame: about 20 ms for the 129 blocks of a 32k-GPU SuperPOD fitted, 2 ms for the 4-SU one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtWidgets import QGraphicsView

from rackdesigner.model import natural_key
from rackdesigner.ui import style
from rackdesigner.ui.canvas.group_item import GROUP_TYPE
from rackdesigner.ui.canvas.label_placer import BLOCK_EDGE as BLOCK_EDGE
from rackdesigner.ui.canvas.label_placer import LABEL_PAD, LabelPlacer
from rackdesigner.ui.canvas.name_forms import (
    _name_lines,
    _pack,
    label_font,
    short_forms,
)

LABEL_BELOW_ZOOM = style.LOD_TEXT
MIN_LABEL_PX = 36  # a frame narrower than this on screen gets no name (it would be "R…")
TALL_LINES = 3  # a collapsed box this many lines tall is a tile its name may run on from…
MIN_TALL_PX = 8  # …when it is at least this wide on screen (narrower: a line, unnamed)
MAX_BUNDLE_LABELS = 2000  # more bundles far out: no counts written for them
LINK_MARK = 14  # px before a block's line about a link: a dash in the line's colour


def screen_rect(view: QGraphicsView, rect: QRectF) -> QRect:
    return view.viewportTransform().mapRect(rect).toAlignedRect()


@dataclass
class Label:
    """A name (and, for a block, its counts and the lines leaving it) at screen size."""

    rect: QRect
    lines: list[str]
    kind: str
    links: list[tuple[int, int, object]] = field(default_factory=list)  # first, last, bundle
    small: bool = False  # written in the "small" type (a short name inside a small block)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _link_parts(bundle) -> list[str]:
    parts = [f"×{bundle.count:,}", f"{style.format_rate(bundle.bandwidth_gbps)}b/s"]
    if bundle.heat is not None and bundle.heat >= 0:
        parts.append(f"peak {bundle.heat:.0%}")
    return parts


def _far_links(view: QGraphicsView) -> dict[str, list]:
    """Far out: the bundles between blocks by the block each is written in (the end with
    fewer lines, as the routes leave it), most links first."""
    scene = view.scene()
    if getattr(scene, "level", "") != "far" or len(scene.bundles) > MAX_BUNDLE_LABELS:
        return {}
    far = getattr(view, "far_lines", None)
    plan = far.plan if far is not None else None
    degree: dict[str, int] = {}
    for key in scene.bundles:
        for end in key:
            degree[end] = degree.get(end, 0) + 1
    out: dict[str, list] = {}
    for key, bundle in scene.bundles.items():
        route = plan.routes.get(key) if plan is not None else None
        if route is not None:
            owner = route.a
        elif len(key) == 2:
            owner = min(key, key=lambda end: (degree[end], end))
        else:
            continue
        out.setdefault(owner, []).append(bundle)
    for bundles in out.values():
        bundles.sort(key=lambda b: -b.count)
    return out


def place_labels(view: QGraphicsView) -> list[Label]:
    """The group names readable at the current zoom, outermost first, none over another:

    - a block: its name (wrapped over lines, or a short form such as "SU 12"), its counts and,
      far out, the link count and capacity of each line leaving it (with the hottest member's
      load under a heat map) — as many lines as its height holds; a block too small for its
      name is named beside it;
    - a collapsed box (a node): its name inside, or under it where that is free;
    - a frame: its name in its top-left corner, running on past the frame's edge over free
      canvas when the frame is narrower than the name; the outermost frame's name stands
      above it when there is room, so it covers none of the names inside.

    A name is never cut: what does not fit in any form is left out.
    """
    scene = view.scene()
    layout = getattr(scene, "layout", None)
    if layout is None or view.transform().m11() >= LABEL_BELOW_ZOOM:
        return []
    transform = view.viewportTransform()
    key = (transform.m11(), transform.dx(), transform.dy(), view.viewport().size().toTuple(),
           getattr(scene, "blocks_revision", None), id(scene.layout), id(scene.heat))
    cached = getattr(view, "_label_cache", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    labels = _place_labels(view, scene)
    view._label_cache = (key, labels)
    return labels


def _place_labels(view: QGraphicsView, scene) -> list[Label]:
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    far = getattr(view, "far_lines", None)
    drawn = far.rects if far is not None and far.plan is not None else {}
    candidates = []
    for item in scene.items(visible, Qt.ItemSelectionMode.IntersectsItemBoundingRect):
        if item.type() != GROUP_TYPE:
            continue
        gid = item.group_id
        frame = item.frame_rect()
        if frame.isEmpty() or not frame.intersects(visible):
            continue
        box = (far.drawn_rect(view, gid).toAlignedRect() if gid in drawn
               else screen_rect(view, frame))
        candidates.append((scene._group_depth(gid), gid, item, box))
    candidates.sort(key=lambda c: (c[0], natural_key(c[1])))  # SU 2 before SU 10
    placer = LabelPlacer(view, [c[3] for c in candidates],
                     [c[3] for c in candidates if c[2].collapsed])
    links = _far_links(view)
    heat_shown = getattr(scene, "heat", None) is not None
    out: list[Label] = []
    for depth, gid, item, box in candidates:
        if getattr(item, "block", False):
            label = _block_label(placer, item, box, links.get(gid, ()), heat_shown)
        elif item.collapsed:
            label = _box_label(placer, item, box)
        else:
            label = _frame_label(placer, item, box, outermost=depth == 0)
        if label is not None:
            placer.add(label.rect)
            out.append(label)
    return out


def _block_label(placer: LabelPlacer, item, box: QRect, bundles, heat_shown: bool
                 ) -> Label | None:
    metrics = label_font(item.kind)[1]
    line = metrics.height()
    width = box.width() - 4 - 2 * LABEL_PAD
    rows = (box.height() - 6) // line
    name = _name_lines(item.label, metrics, width, rows) if width >= MIN_LABEL_PX else None
    if name is None:
        small = _small_label(placer, item, box)
        if small is not None:
            return small
    if name is None:  # a block too small for its name (a spine tier's square): beside it
        side = placer.beside(box, item.label, metrics, line + 2)
        return Label(side[0], [side[1]], item.kind) if side is not None else None
    lines = list(name)
    spans: list[tuple[int, int, object]] = []
    stats = getattr(item, "stats", None)
    groups: list[tuple[list[str], object]] = []
    counts = _pack(stats.parts(), metrics, width) if stats is not None else []
    if counts and not heat_shown:  # the first line of counts (the GPUs) before the links
        groups.append((counts[:1], None))
        counts = counts[1:]
    for bundle in bundles[:3]:  # under a heat map the loads first: the bottleneck
        groups.append((_pack(_link_parts(bundle), metrics, width - LINK_MARK), bundle))
    if counts:
        groups.append((counts, None))
    for text, bundle in groups:
        if not text or len(lines) + len(text) > rows:
            continue
        if bundle is not None:
            spans.append((len(lines), len(lines) + len(text) - 1, bundle))
        lines += text
    marked = {i for first, last, _b in spans for i in range(first, last + 1)}
    while True:  # under the names already in the corner, with fewer lines if need be
        width_px = max(metrics.horizontalAdvance(t) + (2 * LINK_MARK if i in marked else 0)
                       for i, t in enumerate(lines)) + 2 * LABEL_PAD
        rect = placer.corner(box, width_px, len(lines) * line + 2)
        if rect is not None:
            return Label(rect, lines, item.kind, spans)
        if len(lines) == len(name):
            return None
        lines = lines[:-1]
        spans = [(f, min(last, len(lines) - 1), b) for f, last, b in spans if f < len(lines)]


def _small_label(placer: LabelPlacer, item, box: QRect) -> Label | None:
    """A short name in the small type, inside a block too small for the kind's own type."""
    metrics = label_font("small")[1]
    height = metrics.height()
    if box.height() < height:
        return None
    for text in short_forms(item.label):
        width = metrics.horizontalAdvance(text) + 2
        if width + 2 > box.width():
            continue
        rect = QRect(box.left() + 1, box.top() + (box.height() - height) // 2, width, height)
        if placer.free(rect):
            return Label(rect, [text], item.kind, small=True)
    return None


def _box_label(placer: LabelPlacer, item, box: QRect) -> Label | None:
    """A collapsed group: the name inside when it fits, from the top of a tall tile over
    the canvas beside it, else under the box, else short."""
    metrics = label_font(item.kind)[1]
    line = metrics.height() + 2
    width = box.width() - 4 - 2 * LABEL_PAD
    full = metrics.horizontalAdvance(item.label) + 2 * LABEL_PAD
    if box.height() >= line + 4 and metrics.horizontalAdvance(item.label) <= width:
        rect = placer.corner(box, full, line)
        if rect is not None:
            return Label(rect, [item.label], item.kind)
    if box.height() >= TALL_LINES * line and box.width() >= MIN_TALL_PX:
        # a tall, narrow tile (a rack-scale system over its area, structure.AREA_KINDS): the
        # name runs on from its top over the free canvas beside it
        forms = sorted(short_forms(item.label), key=len, reverse=True)  # the most telling
        small = label_font("small")[1]
        for text in (item.label, *forms):
            for m, is_small in ((metrics, False), (small, True)):  # then in the small type
                run_on = QRect(box.left() + 2, max(box.top() + 2, 2),
                               m.horizontalAdvance(text) + 2 * LABEL_PAD, m.height() + 2)
                if placer.free(run_on, box):
                    return Label(run_on, [text], item.kind, small=is_small)
        # packed against its neighbour (no canvas beside it): its number, inside its own top
        number = item.label.split()[-1]
        if number != item.label and any(c.isdigit() for c in number):
            for m, is_small in ((metrics, False), (small, True)):
                inside = QRect(box.left() + 1, max(box.top() + 2, 2),
                               m.horizontalAdvance(number) + 2 * LABEL_PAD, m.height() + 2)
                if inside.right() <= box.right() and placer.free(inside, box):
                    return Label(inside, [number], item.kind, small=is_small)
    if box.width() >= MIN_LABEL_PX and box.height() >= line // 2:  # a speck names nothing
        below = QRect(box.left(), box.bottom() + 2, full, line)
        if placer.free(below, box):
            return Label(below, [item.label], item.kind)
    if box.height() >= line + 4:
        for short in short_forms(item.label):
            if metrics.horizontalAdvance(short) <= width:
                rect = placer.corner(box, metrics.horizontalAdvance(short) + 2 * LABEL_PAD,
                                     line)
                if rect is not None:
                    return Label(rect, [short], item.kind)
    return None


def _frame_label(placer: LabelPlacer, item, box: QRect, outermost: bool) -> Label | None:
    """An expanded group: its name in the header, running on over free canvas when the
    frame is narrow, or a short form; the outermost one above its frame when it can."""
    metrics = label_font(item.kind)[1]
    line = metrics.height() + 2
    full = metrics.horizontalAdvance(item.label) + 2 * LABEL_PAD
    if outermost and box.top() - line - 2 >= 0:
        above = QRect(max(box.left(), 2), box.top() - line - 2, full, line)
        if placer.free(above, box):
            return Label(above, [item.label], item.kind)
    if box.height() < 2 * line or box.width() < MIN_LABEL_PX:
        return None
    width = box.width() - 4 - 2 * LABEL_PAD
    if metrics.horizontalAdvance(item.label) <= width:
        rect = placer.corner(box, full, line)
        if rect is not None and placer.clear(rect, box):
            return Label(rect, [item.label], item.kind)
    run_on = QRect(max(box.left() + 2, 2), max(box.top() + 2, 2), full, line)
    if placer.free(run_on, box) and placer.clear(run_on, box):
        return Label(run_on, [item.label], item.kind)
    for short in short_forms(item.label):
        if metrics.horizontalAdvance(short) <= width:
            rect = placer.corner(box, metrics.horizontalAdvance(short) + 2 * LABEL_PAD, line)
            if rect is not None and placer.clear(rect, box):
                return Label(rect, [short], item.kind)
    for text in (item.label, *short_forms(item.label)):  # over its top edge, then shorter
        wide = metrics.horizontalAdvance(text) + 2 * LABEL_PAD
        above = QRect(max(box.left(), 2), box.top() - line - 1, wide, line)
        for _ in range(2):  # after a name already there (the pod's, over its first SU's edge)
            if above.top() >= 0 and placer.free(above, box) and placer.clear(above, box):
                return Label(above, [text], item.kind)
            taken = placer.hit(above)
            if taken is None:  # past the frame's right edge only over free canvas (`free`)
                break
            above.moveLeft(taken.right() + 8)
    return None


def group_labels(view: QGraphicsView) -> list[tuple[QRect, str, str]]:
    """(viewport rect, text, kind) of the group names readable at the current zoom (a
    block's lines joined by newlines)."""
    return [(label.rect, label.text, label.kind) for label in place_labels(view)]


def bundle_labels(view: QGraphicsView, labels: list[Label] | None = None
                  ) -> list[tuple[QRect, str, object]]:
    """(viewport rect, text, bundle) of the link count and capacity written for each line
    between blocks (the far level), inside the block it leaves."""
    out = []
    for label in place_labels(view) if labels is None else labels:
        for first, last, bundle in label.links:
            height = label.rect.height() // len(label.lines)
            rect = QRect(label.rect.left(), label.rect.top() + 1 + first * height,
                         label.rect.width(), (last - first + 1) * height)
            out.append((rect, " · ".join(label.lines[first:last + 1]), bundle))
    return out
