"""Traffic of many groups of GPUs running the same exchange at once (a training job's TP, DP, PP,
EP groups), routed together on the drawn fabric.

`family_traffic` builds one `Traffic` from every group of an exchange with the simulation's own
patterns (rings and trees per rail, all-to-all per rail, send/recv pairs: traffic.py), so it
routes in one pass, linear in the GPUs, never per GPU pair. `peak_utilisation` routes it with
every flow at its NIC's full rate and returns the busiest network link's load over capacity:
multiplied by the share of NIC rate an exchange actually pushes (`routing.pattern_share`), a
value above 1 means the concurrent groups need more than the link carries.

Used by the job heat map (analysis/jobheat.py) and by the workload estimator, which stretches an
exchange by that excess (workload/comm.py). A family of `ARRAY_MIN_GPUS` GPUs or more takes the
same stages as NumPy arrays (`family_arrays.py`: the same figure and link to the last bit; 0.38 s
of the 16k estimate's contention became about 0.07 s), and the estimator names its families by
ranks (`StridedGroups`), so no group's GPU list is made at all there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from rackdesigner.simulation.loads import FabricIndex, route
from rackdesigner.simulation.topology import Topology
from rackdesigner.simulation.traffic import (
    Traffic,
    all_to_all_traffic,
    p2p_traffic,
    rail_nics,
    ring_traffic,
    tree_traffic,
)

#: Families of fewer GPUs take the plain stages (no NumPy import: a small design's estimate
#: does not load it; at 16,384 GPUs the arrays take 0.03 s where the stages took 0.38 s).
ARRAY_MIN_GPUS = 4096


@dataclass(frozen=True)
class StridedGroups(Sequence[list[str]]):
    """A family whose groups are `size` GPUs of `gpus` each, `stride` apart, starting at each
    of `starts` (a job's TP, DP or PP groups): each group's list is made only when read; the
    array path reads the ranks themselves (`family_arrays.peak_arrays`)."""

    gpus: Sequence[str]
    starts: tuple[int, ...]
    stride: int
    size: int

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, i: int) -> list[str]: ...

    @overload
    def __getitem__(self, i: slice) -> list[list[str]]: ...

    def __getitem__(self, i: int | slice) -> list[str] | list[list[str]]:
        if isinstance(i, slice):
            return [self[k] for k in range(len(self.starts))[i]]
        s = self.starts[i]
        return [self.gpus[s + k * self.stride] for k in range(self.size)]

    def __iter__(self) -> Iterator[list[str]]:
        return map(self.__getitem__, range(len(self.starts)))


def _gpu_count(members: Sequence[Sequence[str]]) -> int:
    if isinstance(members, StridedGroups):
        return len(members.starts) * members.size
    return sum(map(len, members))


def islands_of(topo: Topology, gpus: Sequence[str]) -> list[list[str]]:
    """A group's GPUs by island, islands in rank order (as the simulation's scope does)."""
    by: dict[str, list[str]] = {}
    for g in gpus:
        by.setdefault(topo.island_of[g], []).append(g)
    return list(by.values())


def _rails(topo: Topology, islands: list[list[str]]) -> list[list[str]]:
    return rail_nics([list(dict.fromkeys(topo.primary_nic[g] for g in isl
                                         if g in topo.primary_nic)) for isl in islands])


def _pair(topo: Topology, gpus: Sequence[str], islands: list[list[str]]) -> Traffic:
    """send/recv between a group's first and last GPU."""
    return p2p_traffic(topo.primary_nic.get(gpus[0]), topo.primary_nic.get(gpus[-1]))


#: one group's traffic, by pattern (the names `Traffic.pattern` and the routed results use)
_GROUP_TRAFFIC: dict[str, Callable[[Topology, Sequence[str], list[list[str]]], Traffic]] = {
    "ring": lambda topo, gpus, islands: ring_traffic(_rails(topo, islands)),
    "tree": lambda topo, gpus, islands: tree_traffic(_rails(topo, islands)),
    "all_to_all": lambda topo, gpus, islands: all_to_all_traffic(_rails(topo, islands)),
    "p2p": _pair,
}


def family_traffic(topo: Topology, members: Sequence[Sequence[str]], pattern: str) -> Traffic:
    """The traffic of every group (`members`: each group's GPUs in rank order) of an exchange
    running `pattern` (ring, tree, all_to_all or p2p), as one `Traffic` to route."""
    build = _GROUP_TRAFFIC.get(pattern)
    parts: list[Traffic] = []
    for gpus in members:
        islands = islands_of(topo, gpus)
        if build is not None and len(islands) >= 2:
            parts.append(build(topo, gpus, islands))
    return Traffic(pattern, tuple(f for t in parts for f in t.flows),
                   tuple(r for t in parts for r in t.rails),
                   uniform_rails=any(t.uniform_rails for t in parts))


def peak_utilisation(topo: Topology, index: FabricIndex, members: Sequence[Sequence[str]],
                     pattern: str) -> tuple[float, str | None]:
    """(load / capacity, "link (end – end)") of the busiest network link when every group of
    `members` runs `pattern` at once with each flow at its NIC's full rate; (0.0, None) without
    network traffic. A family of `ARRAY_MIN_GPUS` GPUs or more is routed as arrays
    (`family_arrays.peak_arrays`: the same figure and link, bit for bit)."""
    found = None
    if _gpu_count(members) >= ARRAY_MIN_GPUS:
        from rackdesigner.simulation.family_arrays import peak_arrays

        found = peak_arrays(topo, index, members, pattern)
    if found is None:
        found = route(topo, index, family_traffic(topo, members, pattern)).peak(topo, index)
    peak, link = found
    return peak, (None if link is None else f"{link[0]} ({link[1]} – {link[2]})")


__all__ = ["StridedGroups", "family_traffic", "islands_of", "peak_utilisation"]
