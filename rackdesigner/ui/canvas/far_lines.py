"""Routed lines between aggregate blocks on the canvas view (the geometry: `far_routes`).

The view asks `FarLines.update` before each paint: it finds the visible blocks and the bundles
between two of them, re-plans the routes only when those changed, sets the lanes' narrowing
for the zoom, and tells the scene which bundles it routes (the scene's one-pass wires leave
them out) and how much narrower to draw the blocks. The overlay then draws the lines above the
blocks (`paint_far_lines`) and writes each line's count in the block it leaves.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF

from rackdesigner.ui import style
from rackdesigner.ui.canvas.far_routes import (
    LANE_PX,
    MAX_INSET,
    MIN_LANE_PX,
    Point,
    Rect,
    Route,
    RoutePlan,
    centre_x,
    centre_y,
    edge_point,
    plan_routes,
)
from rackdesigner.ui.canvas.far_wires import wire_color

ROUTE_MAX_BLOCKS = 80  # closer in than the far level, more blocks than this: not routed


class FarLines:
    """The routed lines of a view: planned when its blocks change, drawn above them."""

    def __init__(self) -> None:
        self.plan: RoutePlan | None = None
        self.rects: dict[str, Rect] = {}
        self._signature: object = None
        self._revision: object = None

    def update(self, view) -> RoutePlan | None:
        """Bring the plan up to the scene's blocks and the view's zoom (call before painting:
        the scene's batched wires leave out the routed bundles, the blocks draw narrowed)."""
        scene = view.rack_scene()
        zoom = view.zoom()
        if scene.layout is None or zoom >= style.LOD_BOXES:
            self._drop(scene)
            return None
        revision = (scene.blocks_revision, id(scene.layout))
        if (revision != self._revision and self.plan is not None
                and self._revision is not None and revision[1] == self._revision[1]
                and getattr(scene, "_area_pending", False)):
            # blocks are opening a few per turn while the view moves: the routes of the
            # previous turn stand (those whose bundle is gone are not drawn) until they
            # are all open, instead of re-planning every turn — on the same design only: a
            # design opened over another shares its group ids ("rack-1.group"), and its
            # names were placed over the other design's blocks
            bundles = scene.bundles
            scene.routed_keys = frozenset(k for k in self.plan.routes if k in bundles)
            revision = self._revision
        if revision == self._revision:  # no block or bundle changed: the same routes
            if self.plan is not None and self.plan.zoom != zoom:
                self.plan.zoom = zoom
                self.plan.inset_px = insets_for(self.plan, zoom, self.rects)
            scene.block_inset_px = self.plan.inset_px if self.plan else (0.0, 0.0)
            return self.plan
        self._revision = revision
        rects: dict[str, Rect] = {}
        groups = scene.item_for_group
        for gid in (*scene._cells, *scene._subcells):  # only cells are ever blocks
            item = groups.get(gid)
            if item is not None and item.block and item.isVisible():
                r = item.frame_rect()
                rects[gid] = (r.left(), r.top(), r.right(), r.bottom())
        if scene.level != "far" and len(rects) > ROUTE_MAX_BLOCKS:
            # zoomed in on a huge design: the blocks are the SUs off screen, and they open
            # and close while the view moves; their lines stay as they were (under them)
            self._drop(scene)
            self._revision = revision
            return None
        pairs = []
        for gid in rects:
            for key in scene._endpoint_bundles.get(gid, ()):
                if len(key) == 2 and all(end in rects for end in key):
                    a, b = sorted(key)
                    if a == gid and key in scene.bundles:
                        pairs.append((key, a, b))
        if not pairs:
            self._drop(scene)
            self._revision = revision
            return None
        signature = (tuple(sorted(rects.items())), tuple(sorted((a, b) for _k, a, b in pairs)))
        if signature != self._signature or self.plan is None:
            self._signature = signature
            self.plan = plan_routes(rects, pairs)
            self.rects = rects
            scene.routed_keys = frozenset(self.plan.routes)
        if self.plan.zoom != zoom:
            self.plan.zoom = zoom
            self.plan.inset_px = insets_for(self.plan, zoom, rects)
        scene.block_inset_px = self.plan.inset_px
        return self.plan

    def _drop(self, scene) -> None:
        self.plan, self.rects, self._signature, self._revision = None, {}, None, None
        scene.routed_keys = frozenset()
        scene.block_inset_px = (0.0, 0.0)

    def drawn_rect(self, view, gid: str):
        """A block's rectangle as drawn (narrowed for lanes), in viewport pixels."""
        r = self.rects[gid]
        box = view.viewportTransform().mapRect(QRectF(r[0], r[1], r[2] - r[0], r[3] - r[1]))
        ix, iy = self.plan.inset_px if self.plan else (0.0, 0.0)
        return box.adjusted(ix, iy, -ix, -iy)

    def lines(self, view) -> list[tuple[object, list[Point]]]:
        """(bundle key, polyline in viewport pixels) of every routed bundle."""
        if self.plan is None:
            return []
        transform = view.viewportTransform()
        plan = self.plan

        def to_view(p: Point) -> Point:
            x, y = transform.map(p[0], p[1])
            return x, y

        out = []
        for key, route in plan.routes.items():
            points = screen_points(route, to_view, plan.zoom, plan.inset_px)
            if route.straight and any(plan.inset_px):
                points = _straight_ends(self.drawn_rect(view, route.a),
                                        self.drawn_rect(view, route.b))
            out.append((key, points))
        return out


def _straight_ends(a, b) -> list[Point]:
    ra = (a.left(), a.top(), a.right(), a.bottom())
    rb = (b.left(), b.top(), b.right(), b.bottom())
    return [edge_point(ra, (centre_x(rb), centre_y(rb))),
            edge_point(rb, (centre_x(ra), centre_y(ra)))]


def paint_far_lines(view, painter, far: FarLines) -> None:
    """The routed lines above the blocks, in the bundle's colour (heat, failure, protocol),
    with a dot where each leaves its block and a tick where it arrives."""
    scene = view.rack_scene()
    lines = far.lines(view)
    if not lines:
        return
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    selected = []
    for key, points in lines:
        bundle = scene.bundles.get(key)
        if bundle is None:
            continue
        if bundle.isSelected():
            selected.append(points)
            continue
        color = wire_color(bundle)
        pen = QPen(color, 1.6)
        if bundle.failed:
            pen.setStyle(Qt.PenStyle.DashLine)
        _draw(painter, pen, color, points)
    for points in selected:
        _draw(painter, QPen(style.SELECTION, 2.6), style.SELECTION, points)


def _draw(painter: QPainter, pen: QPen, color: QColor, points: list[Point]) -> None:
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawPolyline(QPolygonF([QPointF(x, y) for x, y in points]))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    start, end = points[0], points[-1]
    painter.drawEllipse(QPointF(*start), 2.6, 2.6)
    painter.drawEllipse(QPointF(*end), 1.8, 1.8)


# ---- the lanes at the current zoom ----------------------------------------------------------
def lane_px(route: Route, i: int, zoom: float, inset_px: tuple[float, float]) -> float:
    """The pixel offset of segment `i` of `route` from its track's centre line."""
    offset, n, room = route.lanes[i]
    if n <= 1 and i < len(route.points) - 2:
        return 0.0
    p, q = route.points[i], route.points[i + 1]
    vertical = p[0] == q[0]
    inset = inset_px[0] if vertical else inset_px[1]
    spacing = max(min(LANE_PX, (room * zoom + 2 * inset - 2) / (n + 1)), 0.5)
    if i < len(route.points) - 2:
        return offset * spacing
    # the segment entering `b`: its lanes stay on b's (drawn) edge, however narrow
    lo, hi = route.end_span
    lo, hi = lo + (inset + 1) / zoom, hi - (inset + 1) / zoom
    at = p[0] if vertical else p[1]
    if hi <= lo:
        return ((lo + hi) / 2 - at) * zoom
    spacing = min(spacing, (hi - lo) * zoom / max(n, 1))
    return (min(max(at + offset * spacing / zoom, lo), hi) - at) * zoom


def insets_for(plan: RoutePlan, zoom: float, rects: dict[str, Rect]) -> tuple[float, float]:
    """How much narrower (px, each side) blocks are drawn so every track's lanes are at least
    `MIN_LANE_PX` apart, within `MAX_INSET` of the smallest block's size."""
    need = [0.0, 0.0]
    for route in plan.routes.values():
        for i, (_offset, n, room) in enumerate(route.lanes):
            if n <= 1:
                continue
            p, q = route.points[i], route.points[i + 1]
            axis = 0 if p[0] == q[0] else 1
            need[axis] = max(need[axis], ((n + 1) * MIN_LANE_PX + 2 - room * zoom) / 2)
    if not rects:
        return 0.0, 0.0
    min_w = min(r[2] - r[0] for r in rects.values()) * zoom
    min_h = min(r[3] - r[1] for r in rects.values()) * zoom
    return (max(0.0, min(need[0], MAX_INSET * min_w)),
            max(0.0, min(need[1], MAX_INSET * min_h)))


def screen_points(route: Route, to_view, zoom: float, inset_px: tuple[float, float]
                  ) -> list[Point]:
    """The route in viewport pixels, each segment moved onto its lane, the ends on the
    blocks' drawn (narrowed) edges. `to_view` maps a scene point to viewport pixels."""
    pts = [to_view(p) for p in route.points]
    if route.straight:
        return pts
    offsets = [lane_px(route, i, zoom, inset_px) for i in range(len(pts) - 1)]
    out = []
    for i, (x, y) in enumerate(pts):
        for j in (i - 1, i):  # the segments meeting at this point move it
            if 0 <= j < len(offsets) and offsets[j]:
                p, q = route.points[j], route.points[j + 1]
                if p[0] == q[0]:
                    x += offsets[j]
                else:
                    y += offsets[j]
        out.append((x, y))
    # the ends sit on the drawn edges of narrowed blocks: moved back into the block, against
    # the direction the route leaves it (taken from the scene points: lanes may cross over)
    for end, nxt in ((0, 1), (len(out) - 1, len(out) - 2)):
        (sx, sy), (nx, ny) = route.points[end], route.points[nxt]
        x, y = out[end]
        if sy == ny and sx != nx:
            x -= math.copysign(inset_px[0], nx - sx)
        elif sx == nx and sy != ny:
            y -= math.copysign(inset_px[1], ny - sy)
        out[end] = (x, y)
    return out

