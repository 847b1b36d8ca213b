"""Stage 3 of the simulation: ranks on GPUs (`Placement`), as NCCL/Slurm would place them.

NCCL numbers ranks as the launcher does; Slurm's default block distribution gives consecutive
ranks to consecutive nodes, so the default here is *contiguous*: islands (NCCL's nodes) in the
order of their first GPU id, and inside an island its GPUs in id order (local rank r = the
r-th GPU, which NCCL pairs with the r-th NIC, the rail). Two alternatives show what a careless
allocation costs:

- `scattered`: consecutive islands sit under different leaves (and pods) as far as the fabric
  allows — islands are dealt round-robin over the top-most switch domains, then over leaves;
- `random`: islands in a random order from a fixed seed (`RANDOM_SEED`), so runs repeat.

Only the order of islands changes: NCCL keeps a node's GPUs together in every case.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from rackdesigner import vocabulary
from rackdesigner.model import natural_key
from rackdesigner.simulation.topology import Topology

PLACEMENTS = vocabulary.PLACEMENT_NAMES
#: Seed of the `random` placement (any fixed value: the point is that a run repeats).
RANDOM_SEED = 0


@dataclass(frozen=True)
class Placement:
    """Rank order of the islands in scope: `order[i]` is the index (in the scope's island
    list) of the island holding ranks i*k .. i*k+k-1."""

    policy: str
    order: tuple[int, ...]


def place(topo: Topology, islands: list[list[str]], policy: str = "contiguous") -> Placement:
    """Order `islands` (lists of GPU ids, in scope order) by `policy` (see module docstring)."""
    if policy not in PLACEMENTS:
        raise ValueError(f"unknown placement {policy!r} (choose from {', '.join(PLACEMENTS)})")
    n = len(islands)
    if policy == "contiguous" or n <= 2:
        return Placement(policy, tuple(range(n)))
    if policy == "random":
        order = list(range(n))
        random.Random(RANDOM_SEED).shuffle(order)
        return Placement(policy, tuple(order))
    # scattered: deal the islands over the top-most domains below the root, then over leaves
    levels = len(topo.domains)

    def leaf_of(gpus: list[str]) -> str:
        nic = next((topo.primary_nic[g] for g in gpus if g in topo.primary_nic), None)
        return (topo.leaf_of(nic) or "") if nic else ""

    leaves = [leaf_of(g) for g in islands]
    pod_level = max(0, levels - 2)  # domains of the tier below the top one (pods), else leaves

    def pod(leaf: str) -> str:
        if not leaf or levels == 0:
            return leaf
        return topo.domains[pod_level].get(leaf, leaf)

    by_pod: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for i, leaf in enumerate(leaves):
        by_pod[pod(leaf)][leaf].append(i)
    queues = []
    for p in sorted(by_pod, key=natural_key):
        leaf_lists = [by_pod[p][leaf] for leaf in sorted(by_pod[p], key=natural_key)]
        queues.append(_deal(leaf_lists))
    return Placement(policy, tuple(_deal(queues)))


def _deal(lists: list[list[int]]) -> list[int]:
    """Round-robin over `lists` until all are empty."""
    out: list[int] = []
    longest = max((len(x) for x in lists), default=0)
    for j in range(longest):
        for x in lists:
            if j < len(x):
                out.append(x[j])
    return out
