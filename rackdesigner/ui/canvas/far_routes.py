"""Lines between aggregate blocks, routed through the gutters between the blocks.

Zoomed out, every scalable unit and switch tier is one block (`canvas.cells`) and all links
between two blocks are one bundle. Drawn straight from centre to centre under the blocks, an
SU's line to the spine tier shows only in the gaps between the SUs it passes, where it reads
as a chain of SUs wired to each other (issue 26, item 7). Here such a bundle instead leaves
its block at the side facing a gutter, runs along the gutter between two columns (or rows) of
blocks and enters the other block at its edge, so it crosses no other block; bundles sharing a
gutter each get a lane of their own, a few pixels apart, ordered so that lanes entering from
the same side do not cross. Where the gutters are too narrow for their lanes at the current
zoom, the blocks are drawn that much narrower (`RoutePlan.inset_px`). A pair that no gutter
route serves is drawn straight, above the blocks.

The routes depend on the blocks' rectangles only, so they are planned when those change (a
change of level, a block opening or closing, an edit moving a block's edge) and reused for
every frame; only the lanes' pixel offsets follow the zoom (`far_lines`). Planning is pure
geometry on tuples (`plan_routes`): about 30 ms for the 129 blocks of a 32k-GPU SuperPOD.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import pairwise

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 (scene units)
Point = tuple[float, float]

LANE_PX = 4.0  # lane spacing when the gutter has room
MIN_LANE_PX = 2.5  # closer than this, lanes merge: the blocks are drawn narrower instead
MAX_INSET = 0.2  # of a block's width (or height): the most a block is narrowed for lanes
BEND = 0.3  # cost of a bend, in median block sizes
CONGESTION = 0.08  # cost of a route already on a track, in median block sizes


@dataclass
class Route:
    """One bundle's path from block `a` (the end with fewer lines) to block `b`."""

    key: object
    a: str
    b: str
    points: list[Point]  # on the tracks' centre lines (scene units)
    # per segment: (lane offset in lanes from the track's centre, lanes on the track,
    # the track's free room in scene units); (0, 1, 0) for a segment of its own
    lanes: list[tuple[float, int, float]] = field(default_factory=list)
    straight: bool = False
    end_span: tuple[float, float] = (0.0, 0.0)  # the edge of `b` it enters, along that edge


@dataclass
class RoutePlan:
    routes: dict[object, Route]
    inset_px: tuple[float, float] = (0.0, 0.0)  # horizontal, vertical narrowing (set per zoom)
    zoom: float = 0.0


def centre_x(r: Rect) -> float:
    return (r[0] + r[2]) / 2


def centre_y(r: Rect) -> float:
    return (r[1] + r[3]) / 2


def _t(r: Rect) -> Rect:
    return (r[1], r[0], r[3], r[2])


class _Blocks:
    """The blocks' rectangles bucketed on a grid, for 'does this segment cross a block'."""

    def __init__(self, rects: dict[str, Rect]) -> None:
        self.rects = rects
        widths = sorted(r[2] - r[0] for r in rects.values()) or [1.0]
        heights = sorted(r[3] - r[1] for r in rects.values()) or [1.0]
        self.cw = max(widths[len(widths) // 2], 1e-6)
        self.ch = max(heights[len(heights) // 2], 1e-6)
        self.grid: dict[tuple[int, int], list[str]] = defaultdict(list)
        for gid, r in rects.items():
            for cell in self._cells(r):
                self.grid[cell].append(gid)
        self.gap = self._typical_gap()

    def _cells(self, r: Rect):
        for ix in range(math.floor(r[0] / self.cw), math.floor(r[2] / self.cw) + 1):
            for iy in range(math.floor(r[1] / self.ch), math.floor(r[3] / self.ch) + 1):
                yield ix, iy

    def near(self, r: Rect) -> set[str]:
        found: set[str] = set()
        for cell in self._cells(r):
            found.update(self.grid.get(cell, ()))
        return found

    def box_hits(self, r: Rect, skip: tuple[str, ...]) -> bool:
        """Does the axis-aligned box `r` (a segment) meet a block's interior?"""
        x0, y0, x1, y1 = r
        for gid in self.near(r):
            if gid in skip:
                continue
            b = self.rects[gid]
            if x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1:
                return True
            if x0 == x1 and b[0] < x0 < b[2] and y0 < b[3] and b[1] < y1:
                return True
            if y0 == y1 and b[1] < y0 < b[3] and x0 < b[2] and b[0] < x1:
                return True
        return False

    def line_hits(self, p: Point, q: Point, skip: tuple[str, ...]) -> bool:
        box = (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]))
        return any(_crosses(p, q, self.rects[gid]) for gid in self.near(box) if gid not in skip)

    def gutter(self, r: Rect, side: int, lo: float, hi: float, skip: str) -> float:
        """The centre line of the gap beside `r` (side -1 left, +1 right) that stays clear of
        every block level with the run from `lo` to `hi` (the gap between columns, even
        where a column's blocks differ in width); beside the outermost blocks, a typical gap
        out."""
        edge = r[2] if side > 0 else r[0]
        reach = edge + side * 2 * self.cw  # a gutter wider than two blocks is open floor
        rects = self.rects
        level = [rects[gid] for gid in self.near((min(edge, reach), lo, max(edge, reach), hi))
                 if gid != skip and rects[gid][1] < hi and lo < rects[gid][3]]
        far = None
        for b in level:
            face = b[0] if side > 0 else b[2]
            if (face - edge) * side > 0 and (far is None or (face - far) * side < 0):
                far = face
        if far is None:
            far = edge + side * self.gap
        near = edge
        for b in level:
            back = b[2] if side > 0 else b[0]
            if (back - near) * side > 0 and (far - back) * side > 0:
                near = back
        return (near + far) / 2

    def _typical_gap(self) -> float:
        """The median gap between a block and its nearest neighbour to the right."""
        gaps = []
        items = list(self.rects.values())
        for r in items:
            nearest = min((b[0] - r[2] for b in items
                           if b[0] >= r[2] and b[1] < r[3] and r[1] < b[3]), default=None)
            if nearest is not None:
                gaps.append(nearest)
        gaps.sort()
        return gaps[len(gaps) // 2] if gaps and gaps[len(gaps) // 2] > 0 else 0.1 * self.cw


def _crosses(p: Point, q: Point, r: Rect) -> bool:
    """Does segment p-q pass through the interior of r (Liang-Barsky)?"""
    x0, y0 = p
    dx, dy = q[0] - x0, q[1] - y0
    t0, t1 = 0.0, 1.0
    for a, b in ((-dx, x0 - r[0]), (dx, r[2] - x0), (-dy, y0 - r[1]), (dy, r[3] - y0)):
        if a == 0:
            if b <= 0:
                return False
            continue
        t = b / a
        if a < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 >= t1:
            return False
    return t1 - t0 > 1e-9


def edge_point(r: Rect, towards: Point) -> Point:
    """Where the line from r's centre to `towards` leaves r."""
    cx, cy = centre_x(r), centre_y(r)
    dx, dy = towards[0] - cx, towards[1] - cy
    if dx == 0 and dy == 0:
        return cx, cy
    sx = (r[2] - r[0]) / 2 / abs(dx) if dx else math.inf
    sy = (r[3] - r[1]) / 2 / abs(dy) if dy else math.inf
    s = min(sx, sy, 1.0)
    return cx + dx * s, cy + dy * s


def _via_column(a: Rect, b: Rect, ids: tuple[str, str], blocks: _Blocks, side: int
                ) -> list[Point] | None:
    """Out of `a` sideways into the gutter beside it, along the gutter to `b`'s row, into
    `b` (at its top or bottom edge when the gutter meets it, else at its side)."""
    ya = centre_y(a)
    lo, hi = min(a[1], centre_y(b)), max(a[3], centre_y(b))
    x = blocks.gutter(a, side, lo, hi, ids[0])
    points = [(a[2] if side > 0 else a[0], ya), (x, ya)]
    if b[0] < x < b[2]:
        if b[1] >= ya:
            points.append((x, b[1]))
        elif b[3] <= ya:
            points.append((x, b[3]))
        else:
            return None
    else:
        yb = centre_y(b)
        points += [(x, yb), (b[0] if x < b[0] else b[2], yb)]
    for p, q in pairwise(points):
        box = (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]))
        if blocks.box_hits(box, ids):
            return None
    return points


def _length(points: list[Point]) -> float:
    return sum(abs(q[0] - p[0]) + abs(q[1] - p[1]) for p, q in pairwise(points))


def _track(p: Point, q: Point) -> tuple[str, float]:
    if p[0] == q[0]:
        return "v", round(p[0], 3)
    return "h", round(p[1], 3)


def plan_routes(rects: dict[str, Rect], pairs: list[tuple[object, str, str]]) -> RoutePlan:
    """A route for every (key, end, end) pair between blocks of `rects`."""
    blocks = _Blocks(rects)
    flipped = _Blocks({gid: _t(r) for gid, r in rects.items()})
    degree: dict[str, int] = defaultdict(int)
    for _key, a, b in pairs:
        degree[a] += 1
        degree[b] += 1
    size = (blocks.cw + blocks.ch) / 2
    usage: dict[tuple[str, float], int] = defaultdict(int)
    routes: dict[object, Route] = {}

    def distance(pair) -> float:
        _key, a, b = pair
        ra, rb = rects[a], rects[b]
        return abs(centre_x(ra) - centre_x(rb)) + abs(centre_y(ra) - centre_y(rb))

    for key, a, b in sorted(pairs, key=lambda p: (distance(p), str(p[0]))):
        if (degree[a], a) > (degree[b], b):
            a, b = b, a  # `a` is the end with fewer lines: its line leaves it
        ra, rb = rects[a], rects[b]
        start = edge_point(ra, (centre_x(rb), centre_y(rb)))
        end = edge_point(rb, (centre_x(ra), centre_y(ra)))
        if not blocks.line_hits(start, end, (a, b)):
            routes[key] = Route(key, a, b, [start, end], [(0.0, 1, 0.0)], straight=True)
            continue
        best, best_cost = None, math.inf
        for flip in (False, True):
            space = flipped if flip else blocks
            fa, fb = (_t(ra), _t(rb)) if flip else (ra, rb)
            for side in (-1, 1):
                points = _via_column(fa, fb, (a, b), space, side)
                if points is None:
                    continue
                if flip:
                    points = [(y, x) for x, y in points]
                cost = (_length(points) + BEND * size * (len(points) - 2)
                        + CONGESTION * size * sum(usage[_track(p, q)]
                                                  for p, q in pairwise(points[1:])))
                if cost < best_cost:
                    best, best_cost = points, cost
        if best is None:  # no gutter serves it: straight, drawn above the blocks
            routes[key] = Route(key, a, b, [start, end], [(0.0, 1, 0.0)], straight=True)
            continue
        for p, q in pairwise(best[1:]):
            usage[_track(p, q)] += 1
        last, before = best[-1], best[-2]
        span = (rb[0], rb[2]) if last[0] == before[0] else (rb[1], rb[3])
        routes[key] = Route(key, a, b, best, end_span=span)
    _assign_lanes(routes, blocks)
    return RoutePlan(routes)


def _assign_lanes(routes: dict[object, Route], blocks: _Blocks) -> None:
    """Give the segments sharing a track (the same gutter line, overlapping extents) lanes."""
    tracks: dict[tuple[str, float], list] = defaultdict(list)
    for route in routes.values():
        route.lanes = [(0.0, 1, 0.0)] * (len(route.points) - 1)
        if route.straight:
            continue
        pts = route.points
        for i in range(1, len(pts) - 1):  # the first segment leaves `a`: its own
            p, q = pts[i], pts[i + 1]
            axis, at = _track(p, q)
            along = 1 if axis == "v" else 0
            lo, hi = sorted((p[along], q[along]))
            came = pts[i - 1][1 - along] - at  # the side it enters from (-: left / above)
            tracks[(axis, at)].append((lo, hi, came, abs(q[along] - p[along]), route, i))
    for (axis, at), segments in tracks.items():
        segments.sort(key=lambda s: s[0])
        cluster: list = []
        reach = -math.inf
        for seg in [*segments, None]:
            if seg is None or seg[0] >= reach:
                if cluster:
                    _lanes_for(axis, at, cluster, blocks)
                cluster, reach = [], -math.inf
            if seg is not None:
                cluster.append(seg)
                reach = max(reach, seg[1])


def _lanes_for(axis: str, at: float, cluster: list, blocks: _Blocks) -> None:
    # entering from the left (above): the longer run on the track lies farther from that side;
    # from the right (below): mirrored, so that no lane's entry crosses a lane on its side
    first = sorted((s for s in cluster if s[2] < 0), key=lambda s: s[3])
    second = sorted((s for s in cluster if s[2] >= 0), key=lambda s: -s[3])
    ordered = first + second
    lo, hi = min(s[0] for s in cluster), max(s[1] for s in cluster)
    room = _room(axis, at, lo, hi, blocks)
    n = len(ordered)
    for index, (_lo, _hi, _came, _run, route, i) in enumerate(ordered):
        route.lanes[i] = (index - (n - 1) / 2, n, room)


def _room(axis: str, at: float, lo: float, hi: float, blocks: _Blocks) -> float:
    """The free width around a track: from the nearest block on one side to the other."""
    left, right = -math.inf, math.inf
    for b in blocks.rects.values():
        if axis == "v":
            if not (b[1] < hi and lo < b[3]):
                continue
            near, far = b[2], b[0]
        else:
            if not (b[0] < hi and lo < b[2]):
                continue
            near, far = b[3], b[1]
        if near <= at:
            left = max(left, near)
        elif far >= at:
            right = min(right, far)
    if math.isinf(left) and math.isinf(right):
        return 2 * blocks.cw
    if math.isinf(left):
        return 2 * (right - at)
    if math.isinf(right):
        return 2 * (at - left)
    return right - left
