"""The algorithm a transport's NCCL tuner plugin picks (aws-ofi-nccl's region tuner on EFA).

NCCL asks a tuner plugin (NCCL_TUNER_PLUGIN) for the algorithm and protocol of each call; the
aws-ofi-nccl plugin answers from decision regions, polygons in (message bytes, ranks) space
measured by AWS for a platform, and falls back to NCCL's own cost model outside them. Published
p5 runs follow those regions, not NCCL's cost model (docs/simulation.md, EFA): the curve steps
where a region ends. The regions are data (`resources/simulation/plugin_tuner.yaml`, cited);
this module only answers which region holds a point.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rackdesigner._resources import resources_root
from rackdesigner.catalog.filecache import parsed_file
from rackdesigner.yamlfile import resource_parser

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Region:
    algorithm: str
    protocol: str
    vertices: tuple[Point, ...]

    def holds(self, point: Point) -> bool:
        """Inside or on an edge (the plugin counts an edge as inside)."""
        return _on_boundary(point, self.vertices) or _inside(point, self.vertices)


def _on_boundary(p: Point, poly: Sequence[Point]) -> bool:
    px, py = p
    for i, (ax, ay) in enumerate(poly):
        bx, by = poly[(i + 1) % len(poly)]
        cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
        scale = (abs(bx - ax) + abs(by - ay)) * (abs(px - ax) + abs(py - ay))
        if abs(cross) <= 1e-9 * scale and min(ax, bx) <= px <= max(ax, bx) \
                and min(ay, by) <= py <= max(ay, by):
            return True
    return False


def _inside(p: Point, poly: Sequence[Point]) -> bool:
    """Even-odd ray casting towards +x."""
    px, py = p
    inside = False
    for i, (ax, ay) in enumerate(poly):
        bx, by = poly[(i + 1) % len(poly)]
        if (ay > py) != (by > py) and px < ax + (py - ay) * (bx - ax) / (by - ay):
            inside = not inside
    return inside


@functools.lru_cache(maxsize=1)
def _tables() -> dict[tuple[str, str], tuple[int, tuple[Region, ...]]]:
    path = resources_root() / "simulation" / "plugin_tuner.yaml"
    data = parsed_file(path, resource_parser(path), "simulation")
    out: dict[tuple[str, str], tuple[int, tuple[Region, ...]]] = {}
    for transport, colls in (data.get("tuners") or {}).items():
        for coll, table in colls.items():
            if coll == "source":
                continue
            regions = tuple(Region(str(r["algorithm"]), str(r["protocol"]),
                                   tuple((float(x), float(y)) for x, y in r["vertices"]))
                            for r in table["regions"])
            out[transport, coll] = (int(table["ranks_per_node"]), regions)
    return out


def choice(transport: str | None, collective: str, ranks_per_node: int, ranks: int,
           size: int, available: Collection[tuple[str, str]]) -> tuple[str, str] | None:
    """(algorithm, protocol) the transport's tuner plugin picks for `size` bytes on `ranks`
    ranks, from the (algorithm, protocol) pairs NCCL can run here; None where the plugin has
    no table for this shape or no region holds the point (NCCL's own choice then)."""
    table = _tables().get((transport or "", collective))
    if table is None or table[0] != ranks_per_node:
        return None
    point = (float(size), float(ranks))
    for region in table[1]:
        if (region.algorithm, region.protocol) in available and region.holds(point):
            return region.algorithm, region.protocol
    return None
