"""Collective figures for any set of GPUs of one design, cheaply and repeatedly (the workload
estimator asks "how long does all_reduce of S bytes take over this data-parallel group?").

`GroupCollectives(layout)` reads the design's structure once (the engine topology of the
design's state, `Topology.of`: the one `simulate` of the same state built, if it ran first — the
designer's panel before its Workload tab, a sweep point's simulation before its estimate);
`point(gpus, collective, size)`
then runs only the stages that depend on the group — its islands, placement, routed traffic and
NCCL's cost model — for one size; the group's part (all but NCCL's cost model) once per group,
for every collective and size asked of it. Islands wired alike share their ring computation,
so a symmetric group of thousands of GPUs costs milliseconds, and nothing enumerates GPU
pairs.
"""

from __future__ import annotations

from collections.abc import Iterable

from rackdesigner import vocabulary
from rackdesigner.model import Layout, natural_key
from rackdesigner.simulation.collectives import ALGORITHM_CHOICES, CollectiveModel, Point
from rackdesigner.simulation.engine import SimulationInputError
from rackdesigner.simulation.group_reads import GroupReads
from rackdesigner.simulation.latency import latency_classes, slowest_network_step_us
from rackdesigner.simulation.routing import route_scope
from rackdesigner.simulation.scope import ScopeModel, analyse
from rackdesigner.simulation.topology import Topology

#: Groups whose scope models one `GroupCollectives` keeps (a layout search asks a few
#: hundred; each is a few kilobytes per island)
SCOPES_KEPT = 256


class GroupError(SimulationInputError):
    """GPUs that are not GPUs of the design, cannot reach each other, or an unknown choice."""


class GroupCollectives(GroupReads):
    """Predicted collective time/bandwidth over GPU groups of one design (see module doc);
    the design-wide facts of its structure through `GroupReads`."""

    def __init__(self, layout: Layout, *, sharp: bool | None = None,
                 placement: str = "contiguous", fabric_tuning: str | None = None) -> None:
        self._topo = Topology.of(layout)
        self.sharp = bool(layout.meta.sharp) if sharp is None else bool(sharp)
        self.placement = placement
        self.fabric_tuning = fabric_tuning or vocabulary.DEFAULT_FABRIC_TUNING
        if self.fabric_tuning not in vocabulary.FABRIC_TUNINGS:
            raise GroupError(f"unknown fabric tuning {self.fabric_tuning!r}")
        self._scopes: dict[tuple, tuple[ScopeModel, float, bool, float]] = {}

    def point(self, gpus: Iterable[str], collective: str, size: int,
              algorithm: str = "auto") -> Point:
        """The nccl-tests row (time, algbw, busbw, algorithm) of `collective` at `size` bytes
        over `gpus`; a one-GPU group takes no time."""
        return self.evaluate(gpus, collective, size, algorithm)[0]

    def evaluate(self, gpus: Iterable[str], collective: str, size: int,
                 algorithm: str = "auto") -> tuple[Point, ScopeModel | None]:
        """`point` and the group's scope model (islands in rank order, routed factors; None for
        a one-GPU group): what the workload heat map needs to scale the group's traffic."""
        if collective not in vocabulary.collective_names():
            raise GroupError(f"unknown collective {collective!r}")
        if algorithm not in ALGORITHM_CHOICES:
            raise GroupError(f"unknown algorithm {algorithm!r}")
        topo = self._topo
        ids = sorted(dict.fromkeys(gpus), key=natural_key)
        for g in ids:
            if not topo.does(g).computes:
                raise GroupError(f"{g!r} is not a GPU of this design")
        if len(ids) < 2:
            return Point(int(size), 0.0, float("inf"), float("inf"), "none", "none"), None
        model, lat_inter, same, p2p = self._scope(ids)
        coll = CollectiveModel(model, lat_inter, topo.cpu_vendor, p2p, same, algorithm,
                               self.fabric_tuning)
        reason = coll.unavailable(algorithm, collective)
        if reason is not None:
            raise GroupError(f"algorithm {algorithm} cannot run {collective} here: {reason}")
        points = coll.sweep(collective, (int(size),))
        if not points:
            raise GroupError(f"{collective} does not apply to these GPUs")
        return points[0], model

    def _scope(self, ids: list[str]) -> tuple[ScopeModel, float, bool, float]:
        """The scope model of `ids` (two or more GPUs, in order) with its islands placed and
        its traffic routed, its slowest network step (µs), whether its ends share an island,
        and its point-to-point rate: what every collective and size over these GPUs reads
        (nothing of it depends on either, and nothing changes a scope model once made), so
        it is made once per group — an estimate asks two or three collectives of each."""
        key = (self.sharp, self.placement, *ids)
        found = self._scopes.get(key)
        if found is not None:
            return found
        topo = self._topo
        if len({topo.component_of[g] for g in ids}) > 1:
            raise GroupError(f"the {len(ids)} GPUs cannot all reach each other")
        model = analyse(topo, ids)
        model.sharp = self.sharp and model.sharp_capable
        a, b = ids[0], ids[-1]
        nic_a = topo.primary_nic.get(a)
        route_scope(topo, model, self.placement, (nic_a, topo.primary_nic.get(b)))
        classes, _ = latency_classes(topo, model)
        lat_inter = slowest_network_step_us(classes)
        same = topo.island_of[a] == topo.island_of[b]
        p2p = model.islands[0].intra_eff if same else min(i.net_eff for i in model.islands)
        if len(self._scopes) >= SCOPES_KEPT:
            self._scopes.clear()
        found = self._scopes[key] = (model, lat_inter, same, p2p)
        return found
