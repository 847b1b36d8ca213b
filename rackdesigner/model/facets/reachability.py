"""The reachability facet: which GPUs can reach each other (`Reachability`: the largest group
wins, ties to the group whose first GPU comes first), with the side fabrics (storage,
management) that only seem to join them.

One form (`facets/protocol.Facet`): plain, over the connectivity facet's components (whose
NumPy, evolved and degraded forms it inherits).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rackdesigner import vocabulary
from rackdesigner.model.facets.protocol import PlainFacet
from rackdesigner.model.index_values import NETWORK_PROTOCOLS, Reachability, UnionFind

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex


def reachability(index: DesignIndex, gpus: tuple[str, ...]) -> Reachability:
    """Which of `gpus` can reach each other (see the module docstring)."""
    component_of = index.connectivity().component_of
    comps = Counter(component_of[g] for g in gpus)
    if len(comps) <= 1:
        return Reachability(gpus, len(comps), gpus, ())
    first: dict[str, int] = {}
    for g in gpus:
        first.setdefault(component_of[g], len(first))
    best = max(comps, key=lambda c: (comps[c], -first[c]))
    reachable = tuple(g for g in gpus if component_of[g] == best)
    unreachable = tuple(g for g in gpus if component_of[g] != best)
    return Reachability(gpus, len(comps), reachable, unreachable,
                        side_fabrics(index, best, {component_of[g] for g in unreachable}))


def side_fabrics(index: DesignIndex, best: str, others: set[str]) -> tuple[str, ...]:
    """The side fabrics (`vocabulary.SIDE_FABRICS`) whose network links join any of the
    components `others` to component `best`: asked only of a partitioned design, over the
    links of its storage and management devices alone (a few, at any size)."""
    component_of, traits = index.connectivity().component_of, index.traits()
    state = index.state
    joined = UnionFind()
    side: list[tuple[str, str]] = []  # (a component a side link touches, its fabric)
    for device, t in traits.items():
        if not t.side_fabric:
            continue
        for link_id in state.link_ids_of(device):
            link = state.links[link_id]
            other = link.b.device if link.a.device == device else link.a.device
            if other == device or other not in component_of:
                continue
            if index.protocol(link) in NETWORK_PROTOCOLS:
                joined.union(component_of[device], component_of[other])
                side.append((component_of[device], t.fabric or ""))
    root = joined.find(best)
    if not any(joined.find(c) == root for c in others):
        return ()
    found = {fabric for c, fabric in side if joined.find(c) == root}
    return tuple(f for f in vocabulary.SIDE_FABRICS if f in found)


class ReachabilityFacet(PlainFacet):
    """Which of the design's GPUs reach each other."""

    name = "reachability"

    def plain(self, index: DesignIndex) -> Reachability:
        return reachability(index, index.connectivity().gpus)


REACHABILITY = ReachabilityFacet()
