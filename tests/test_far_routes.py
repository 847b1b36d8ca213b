"""Lines between aggregate blocks routed along the gutters (issue 26, item 7): the geometry on
its own. A grid of SU blocks around a spine tier, as the SuperPOD generator lays them out:
every SU's line reaches the spine without crossing another block, starts on its own block,
and lines sharing a gutter each get a lane."""

from __future__ import annotations

from itertools import pairwise

import pytest

pytest.importorskip("PySide6")

from rackdesigner.ui.canvas.far_lines import screen_points
from rackdesigner.ui.canvas.far_routes import plan_routes

W, H, GAP = 1000.0, 300.0, 30.0


def _grid(columns: int, rows_above: int, rows_below: int, spine_span=(1, 2)):
    """SU blocks in `columns` columns, a spine block in a row of its own between them."""
    rects, row = {}, 0
    n = 0
    for r in range(rows_above + 1 + rows_below):
        y = r * (H + GAP)
        if r == rows_above:  # the spine row
            x0 = spine_span[0] * (W + GAP)
            x1 = spine_span[1] * (W + GAP) - GAP
            rects["spine"] = (x0, y + 40, x1, y + H - 40)
            continue
        for c in range(columns):
            n += 1
            x = c * (W + GAP)
            rects[f"su-{n}"] = (x, y, x + W, y + H)
        row += 1
    pairs = [(frozenset((g, "spine")), g, "spine") for g in rects if g != "spine"]
    return rects, pairs


def _crosses(p, q, r, pad=1e-6) -> bool:
    """Does the axis-aligned or diagonal segment p-q enter the interior of r?"""
    from rackdesigner.ui.canvas.far_routes import _crosses as crosses

    inner = (r[0] + pad, r[1] + pad, r[2] - pad, r[3] - pad)
    return crosses(p, q, inner)


def _on_edge(point, r, tol=1e-6) -> bool:
    x, y = point
    inside = r[0] - tol <= x <= r[2] + tol and r[1] - tol <= y <= r[3] + tol
    edge = (min(abs(x - r[0]), abs(x - r[2])) <= tol or min(abs(y - r[1]), abs(y - r[3])) <= tol)
    return inside and edge


@pytest.mark.parametrize("shape", [(3, 3, 3, (1, 2)), (8, 8, 8, (2, 6)), (4, 1, 0, (1, 3))])
def test_every_line_reaches_its_block_without_crossing_another(shape):
    columns, above, below, span = shape
    rects, pairs = _grid(columns, above, below, span)
    plan = plan_routes(rects, pairs)
    assert set(plan.routes) == {key for key, _a, _b in pairs}
    for key, route in plan.routes.items():
        assert {route.a, route.b} == set(key)
        assert route.b == "spine"  # the SU's line leaves the SU (its label is written there)
        assert _on_edge(route.points[0], rects[route.a])
        assert _on_edge(route.points[-1], rects[route.b])
        for p, q in pairwise(route.points):
            assert p[0] == q[0] or p[1] == q[1] or route.straight  # orthogonal in the gutters
            for gid, r in rects.items():
                if gid not in key:
                    assert not _crosses(p, q, r), (route.a, gid, p, q)
    # a dense grid sends many lines down each gutter: they are not all straight
    if columns * (above + below) > 20:
        assert sum(not r.straight for r in plan.routes.values()) > len(plan.routes) / 2


def test_lines_sharing_a_gutter_get_lanes_of_their_own():
    rects, pairs = _grid(8, 8, 8, (2, 6))
    plan = plan_routes(rects, pairs)
    zoom = 0.09  # as a 32k-GPU SuperPOD fitted: blocks ~90 px wide, gutters of 3 px
    from rackdesigner.ui.canvas.far_lines import insets_for

    inset = insets_for(plan, zoom, rects)
    assert inset[0] > 0  # the blocks are drawn narrower to make room for the lanes
    assert inset[0] <= 0.2 * W * zoom
    seen: dict[tuple, list[float]] = {}
    for route in plan.routes.values():
        pts = screen_points(route, lambda p: (p[0] * zoom, p[1] * zoom), zoom, inset)
        for i, (p, q) in enumerate(pairwise(pts)):
            if i == 0 or p[0] != q[0]:
                continue
            side = p[1] < rects["spine"][1] * zoom  # above or below the spine: apart
            seen.setdefault((route.points[i][0], side), []).append(p[0])
    shared = [xs for xs in seen.values() if len(xs) > 1]
    assert shared, "expected gutters shared by several lines"
    for xs in shared:
        xs.sort()
        # every line of a gutter on its own lane, far enough apart to tell them apart
        assert all(b - a >= 2.0 for a, b in pairwise(xs)), xs


def test_a_line_with_a_clear_view_stays_straight():
    rects = {"a": (0.0, 0.0, 100.0, 100.0), "b": (300.0, 0.0, 400.0, 100.0)}
    plan = plan_routes(rects, [("k", "a", "b")])
    route = plan.routes["k"]
    assert route.straight and route.points == [(100.0, 50.0), (300.0, 50.0)]
