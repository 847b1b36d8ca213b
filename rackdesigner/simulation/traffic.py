"""Stage 4 of the simulation: the network flows of a collective (`Traffic`), from a placement.

What crosses the scale-out network, as NCCL builds it (rail-aligned: the GPU of local rank r
uses its own NIC, the r-th rail, and with PXN a GPU hands data for another rail to the peer
GPU over NVLink first, so inter-node traffic stays on its rail):

- **ring** (all collectives' ring algorithm; AllGather, ReduceScatter, Broadcast, Reduce): one
  ring per rail visits the islands in rank order; between consecutive islands (and from the last
  back to the first) rail r sends from its NIC to the next island's rail-r NIC. Each flow
  carries the ring's full per-channel rate (weight 1).
- **tree** (tree and NVLS-tree AllReduce): NCCL's two complementary binary trees over the
  islands (`ncclGetBtree` / `ncclGetDtree` in src/graph/trees.cc); every tree edge carries data
  both ways (reduce up, broadcast down), per rail, each tree half the NIC's rate (weight 1/2).
- **all_to_all**: every rail-r NIC sends the same amount to every other island's rail-r NIC
  (PXN). That is O(n²) pairs, so it is kept as a *pattern* (`uniform_rails`) and the link-load
  stage counts it per switch domain instead of listing pairs.
- **send/recv**: one flow between the two GPUs' NICs.

Flows name NICs; weights are in units of one NIC's rate. Nothing here knows the fabric.
"""

from __future__ import annotations

from dataclasses import dataclass

#: (source NIC, destination NIC, weight in NIC rates)
Flow = tuple[str, str, float]


@dataclass(frozen=True)
class Traffic:
    """The network traffic of one algorithm: explicit `flows`, or the all-to-all pattern over
    `rails` (one tuple of NICs per rail, one NIC per island) when `uniform_rails` is set."""

    pattern: str  # ring, tree, all_to_all, p2p, none
    flows: tuple[Flow, ...] = ()
    rails: tuple[tuple[str, ...], ...] = ()
    uniform_rails: bool = False


def rail_nics(island_nics: list[list[str]]) -> list[list[str]]:
    """Per island (in rank order), its NIC for each rail r = 0 .. max rails - 1 (an island with
    fewer NICs reuses them in turn, as NCCL does)."""
    m = max((len(x) for x in island_nics), default=0)
    return [[nics[r % len(nics)] for r in range(m)] if nics else [] for nics in island_nics]


def ring_traffic(rails_by_island: list[list[str]]) -> Traffic:
    n = len(rails_by_island)
    if n < 2:
        return Traffic("ring")
    flows = []
    m = max(len(x) for x in rails_by_island)
    for r in range(m):
        for i in range(n):
            a, b = rails_by_island[i], rails_by_island[(i + 1) % n]
            if a and b:
                flows.append((a[r % len(a)], b[r % len(b)], 1.0))
    return Traffic("ring", tuple(flows))


def btree_parent(rank: int, n: int) -> int:
    """Parent of `rank` in NCCL's binary tree over n ranks (-1 for the root), ncclGetBtree."""
    if rank == 0:
        return -1
    bit = 1
    while bit < n and not bit & rank:
        bit <<= 1
    up = (rank ^ bit) | (bit << 1)
    if up >= n:
        up = rank ^ bit
    return up


def tree_edges(n: int) -> list[tuple[int, int]]:
    """(child, parent) edges of NCCL's two trees over n ranks (ncclGetDtree: the second tree
    is the first shifted by one rank when n is odd, mirrored when n is even)."""
    edges = []
    for r in range(n):
        p = btree_parent(r, n)
        if p >= 0:
            edges.append((r, p))
    for r in range(n):
        if n % 2:
            p = btree_parent((r - 1) % n, n)
            q = -1 if p < 0 else (p + 1) % n
        else:
            p = btree_parent(n - 1 - r, n)
            q = -1 if p < 0 else n - 1 - p
        if q >= 0:
            edges.append((r, q))
    return edges


def tree_traffic(rails_by_island: list[list[str]]) -> Traffic:
    n = len(rails_by_island)
    if n < 2:
        return Traffic("tree")
    pairs: list[tuple[str, str]] = []  # (child's NIC, parent's NIC) per tree edge and rail
    m = max(len(x) for x in rails_by_island)
    for child, parent in tree_edges(n):
        a, b = rails_by_island[child], rails_by_island[parent]
        if not a or not b:
            continue
        if len(a) == m and len(b) == m:
            pairs += zip(a, b, strict=True)
        else:
            pairs += ((a[r % len(a)], b[r % len(b)]) for r in range(m))
    return Traffic("tree", tuple(_at_most_one_nic_rate(pairs)))


def _at_most_one_nic_rate(pairs: list[tuple[str, str]]) -> list[Flow]:
    """Each tree edge's two flows (half a NIC's rate each way), scaled so no NIC sends or
    receives more than its rate (an interior tree node talks to its parent and two children
    through one NIC: NCCL's tree model already counts that bottleneck, the fabric should only
    see what the NICs can push). The flows come in both directions, so a NIC's sending and
    receiving totals are the same: half its rate per edge it is on."""
    edges: dict[str, int] = {}
    for x, y in pairs:
        edges[x] = edges.get(x, 0) + 1
        edges[y] = edges.get(y, 0) + 1
    flows: list[Flow] = []
    for x, y in pairs:
        w = 0.5 / max(1.0, 0.5 * edges[x], 0.5 * edges[y])
        flows += ((x, y, w), (y, x, w))
    return flows


def all_to_all_traffic(rails_by_island: list[list[str]]) -> Traffic:
    m = max((len(x) for x in rails_by_island), default=0)
    rails = tuple(tuple(x[r % len(x)] for x in rails_by_island if x) for r in range(m))
    return Traffic("all_to_all", rails=rails, uniform_rails=True)


def p2p_traffic(nic_a: str | None, nic_b: str | None) -> Traffic:
    if nic_a is None or nic_b is None or nic_a == nic_b:
        return Traffic("p2p")
    return Traffic("p2p", ((nic_a, nic_b, 1.0), (nic_b, nic_a, 1.0)))
