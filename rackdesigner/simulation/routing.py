"""Glue of stages 3-5: place the ranks, build each algorithm's traffic, route it, and hand the
collective model the share of NIC rate each algorithm keeps after the fabric (`Routed`).

The factor of an algorithm is 1 / the largest utilisation of a switch-to-switch link when its
flows push their NICs at full rate (capped at 1): a slow or missing link slows only the
algorithms whose flows cross it, by how much they overload it. The NIC-to-leaf links are the
NICs themselves, which NCCL's own model already counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rackdesigner import vocabulary
from rackdesigner.simulation.collectives import Point
from rackdesigner.simulation.loads import FabricIndex, LinkLoads, route
from rackdesigner.simulation.placement import Placement, place
from rackdesigner.simulation.scope import ScopeModel
from rackdesigner.simulation.topology import Topology
from rackdesigner.simulation.traffic import (
    all_to_all_traffic,
    p2p_traffic,
    rail_nics,
    ring_traffic,
    tree_traffic,
)


@dataclass(frozen=True)
class Routed:
    placement: Placement
    index: FabricIndex
    loads: dict  # pattern -> LinkLoads (flows at full NIC rate)
    factors: dict  # pattern -> share of NIC rate kept
    bottleneck: dict  # pattern -> (tier, domain) of the busiest switch link, or None


def route_scope(topo: Topology, scope: ScopeModel, policy: str,
                p2p_nics: tuple[str | None, str | None]) -> Routed:
    """Reorder `scope.islands` by the placement, route every pattern, set the scope's factors."""
    placement = place(topo, [i.gpus for i in scope.islands], policy)
    scope.islands = [scope.islands[i] for i in placement.order]
    index = FabricIndex.of(topo)
    rails = rail_nics([i.rail_nics for i in scope.islands])
    patterns = {"ring": ring_traffic(rails), "tree": tree_traffic(rails),
                "all_to_all": all_to_all_traffic(rails), "p2p": p2p_traffic(*p2p_nics)}
    loads: dict[str, LinkLoads] = {}
    factors: dict[str, float] = {}
    bottleneck: dict = {}
    for name, traffic in patterns.items():
        ll = route(topo, index, traffic)
        loads[name] = ll
        util, where = ll.fabric_utilisation(index)
        factors[name] = 1.0 / util if util > 1.0 else (0.0 if util == float("inf") else 1.0)
        bottleneck[name] = where
    scope.fabric_factor = factors["ring"]
    scope.tree_factor = factors["tree"]
    scope.a2a_factor = factors["all_to_all"]
    scope.p2p_factor = factors["p2p"]
    return Routed(placement, index, loads, factors, bottleneck)


def _all_to_all_share(scope: ScopeModel, point: Point, m: int, nic: float) -> float:
    """A rail NIC carries its island's k GPUs' data for the (n - k) / n of peers outside."""
    k = scope.k
    return k * point.algbw_GBps * (scope.n - k) / scope.n / (m * nic) if m and nic else 0.0


def _pair_share(scope: ScopeModel, point: Point, m: int, nic: float) -> float:
    return point.busbw_GBps / nic if nic else 0.0


#: share of NIC rate of a point-to-point exchange, by what crosses the network
#: (a collective's `traffic` in the vocabulary, which is also the pattern's name)
_P2P_SHARE: dict[str, Callable[[ScopeModel, Point, int, float], float]] = {
    "all_to_all": _all_to_all_share, "p2p": _pair_share}


def pattern_share(topo: Topology, scope: ScopeModel, name: str, point: Point
                  ) -> tuple[str | None, float]:
    """Which traffic pattern `name` (a collective, or send_recv) runs across islands at
    `point`'s algorithm, and the share of each flow's NIC rate it pushes at the rate the model
    predicts (pattern None: no routed network traffic, e.g. in-network reduction)."""
    traffic = vocabulary.collective(name).traffic
    pattern = traffic or {"ring": "ring", "tree": "tree", "nvls_tree": "tree"}.get(
        point.algorithm)
    m = max((len(i.rail_nics) for i in scope.islands), default=0)
    nic = min((topo.nic_raw(x) for i in scope.islands for x in i.rail_nics), default=0.0)
    share = 0.0
    if traffic:
        share = _P2P_SHARE[traffic](scope, point, m, nic)
    elif pattern == "tree" and m and nic:
        # a tree node's NIC sends about 2 S / m per rail beyond two islands (up to the parent
        # and down to two children over the two trees), S / m between two
        share = point.algbw_GBps * (2 if scope.n_islands > 2 else 1) / (m * nic)
    elif pattern is not None and m and nic:
        share = point.busbw_GBps / (m * nic)  # a ring's hop carries busbw / rings
    return pattern, share
