"""Fabric metrics: oversubscription per tier, bisection, P2P max flow (latency: `latency.py`).

All of these use hardware rates (GB/s per direction), not NCCL's effective figures, and the
tier structure from `topology.py`; none enumerates GPU pairs.

Bisection: islands (never split unless the count is odd) are ordered by the leaves their NICs
sit on, and the first half of the GPUs is cut from the second. That aligned cut is the worst
balanced cut of a fat tree (it forces the most traffic over uplinks). Its capacity is a max flow
computed level by level: under each leaf, A-side NICs send to B-side NICs directly; what is left
climbs through the leaf's uplinks (capped by them) to its tier-2 domain, and so on up to the top,
assuming every switch layer is non-blocking inside its domain. For one island, the cut halves the
GPUs and its capacity is the NVSwitch (and direct NVLink) capacity between the halves.

P2P: maximum flow (`maxflow.min_cut`) between two GPUs on a reduced graph: both islands (NVLink,
PCIe/C2C, their NICs) plus the switches on up-paths from their leaves to the first tier where
they meet (up/down routing; valley paths through other leaves are left out).
"""

from __future__ import annotations

from collections import defaultdict

from rackdesigner.model import natural_key
from rackdesigner.simulation.latency import LatencyClass, latency_classes
from rackdesigner.simulation.maxflow import Arcs, min_cut
from rackdesigner.simulation.scope import Island, ScopeModel
from rackdesigner.simulation.topology import Topology

__all__ = ["LatencyClass", "bisection", "latency_classes", "oversubscription", "p2p_max_flow"]


def oversubscription(topo: Topology, scope: ScopeModel) -> tuple[dict[str, float],
                                                                  dict[str, float | None]]:
    """Aggregate (sum down / sum up) and worst-switch ratio per tier whose uplinks carry the
    scope's traffic (a tier with a tier above it in `scope.involved`)."""
    agg: dict[str, float] = {}
    worst: dict[str, float | None] = {}
    for t, switches in sorted(scope.involved.items()):
        if t + 1 not in scope.involved:
            continue  # the scope's traffic turns here: this tier's uplinks carry none of it
        down = sum(topo.down_cap.get(s, 0.0) for s in switches)
        up = sum(topo.up_cap.get(s, 0.0) for s in switches)
        if up <= 0:
            continue
        name = topo.tier_name(t)
        agg[name] = down / up
        ratios = [topo.down_cap.get(s, 0.0) / topo.up_cap[s] if topo.up_cap.get(s) else None
                  for s in switches]
        known = [r for r in ratios if r is not None]
        worst[name] = None if len(known) < len(ratios) else max(known, default=0.0)
    return agg, worst


def bisection(topo: Topology, scope: ScopeModel) -> float:
    """Capacity (GB/s per direction) of the balanced cut of the GPUs in scope (`bisection_cut`)."""
    return bisection_cut(topo, scope)[0]


def bisection_cut(topo: Topology, scope: ScopeModel) -> tuple[float, str | None]:
    """(capacity, bottleneck) of the minimum cut between two halves of the GPUs in scope.

    Halves never split an NVLink island (unless the scope is one island): islands are ordered by
    the leaves their NICs sit on and the first ones up to half of the GPUs form side A, so with
    an odd island count side A is the smaller. The capacity is the maximum flow from A to B on
    the drawn fabric (islands -> their NICs' leaves -> switch links), `maxflow.min_cut`
    (plain-Python Dinic); the bottleneck names the kind of link that carries most of the
    minimum cut.
    """
    if scope.n < 2:
        return 0.0, None
    if scope.n_islands == 1:
        gpus = scope.islands[0].gpus
        half = len(gpus) // 2
        return _nvlink_cut(topo, gpus[:half], gpus[half:]), "NVLink between the two halves"

    keys: dict[str, tuple] = {}

    def nat(x: str) -> tuple:
        k = keys.get(x)
        if k is None:
            k = keys[x] = natural_key(x)
        return k

    def signature(island) -> tuple:
        leaves = sorted({nat(topo.leaf_of(nic) or "") for nic in island.nics})
        return (tuple(leaves), natural_key(island.gpus[0]))

    ordered = sorted(scope.islands, key=signature)
    target = scope.n / 2
    count = 0
    side_a: list[Island] = []
    for island in ordered:
        if count + island.k > target and side_a:
            break
        side_a.append(island)
        count += island.k
    a_ids = {id(i) for i in side_a}
    arcs: Arcs = defaultdict(dict)

    def add(u: str, v: str, cap: float) -> None:
        for x, y in ((u, v), (v, u)):
            heads = arcs[x]
            before = heads.get(y, 0.0)
            assert before is not None  # unbounded arcs start at A or end at B only
            heads[y] = before + cap

    # islands with the same capacity toward the same switches on the same side are one node
    # (a SuperPOD's 32 nodes of a scalable unit): the flow is the same, the graph far smaller
    merged: dict[tuple, float] = defaultdict(float)
    for island in ordered:
        caps: dict[str, float] = defaultdict(float)
        path_raw: dict[str, float] = {}
        for g in island.gpus:
            for path in topo.gpu_nics.get(g, ()):
                if path.raw > path_raw.get(path.nic, 0.0):
                    path_raw[path.nic] = path.raw
        for nic in island.nics:
            cap = min(topo.nic_raw(nic), path_raw.get(nic, 0.0))
            ups = topo.nic_up.get(nic, {})
            total = sum(ups.values())
            for sw, c in ups.items():
                caps[sw] += cap * c / total if total else 0.0
        total = sum(caps.values())
        scale = min(1.0, island.host_raw / total) if total > 0 else 0.0
        side = "A" if id(island) in a_ids else "B"
        key = (side, tuple(sorted((sw, round(cap * scale, 6)) for sw, cap in caps.items())))
        merged[key] += 1
    for n_node, ((side, node_caps), weight) in enumerate(merged.items()):
        node = f"island:{n_node}"
        for sw, cap in node_caps:
            add(node, sw, cap * weight)
        if side == "A":
            arcs["A"][node] = None  # unbounded
        else:
            arcs[node]["B"] = None
    for s_, nbrs in topo.sw_adj.items():
        if s_ in topo.tier:
            arcs[s_].update(nbrs)  # sw_adj holds both directions; a switch's arcs start here
    if "A" not in arcs or not any("B" in heads for heads in arcs.values()):
        return 0.0, None
    value, reach = min_cut(arcs, "A", "B")
    if value <= 0:
        return 0.0, "no path between the halves"
    kinds: dict[str, list[float]] = defaultdict(list)
    for u in reach:
        for v, arc_cap in arcs.get(u, {}).items():
            if v in reach or arc_cap is None:
                continue
            a, b = str(u), str(v)  # switch and island nodes: the graph's nodes are names
            if a.startswith("island:") or b.startswith("island:"):
                kind = "NIC links (node to leaf)"
            else:
                tu, tv = topo.tier.get(a, 0), topo.tier.get(b, 0)
                lo, hi = sorted((tu, tv))
                kind = f"{topo.tier_name(lo)}-{topo.tier_name(hi)} links"
            kinds[kind].append(arc_cap)
    kind, cut = max(kinds.items(), key=lambda kv: sum(kv[1]))
    return float(value), (f"{kind} carry {sum(cut):,.0f} of the cut's {value:,.0f} GB/s "
                          f"({len(side_a)} of {len(ordered)} islands on one side)")


def _nvlink_cut(topo: Topology, side_a: list[str], side_b: list[str]) -> float:
    if not side_a or not side_b:
        return 0.0
    sa: dict[str, float] = defaultdict(float)
    sb: dict[str, float] = defaultdict(float)
    for g in side_a:
        for s, v in topo.nvl_sw_raw.get(g, {}).items():
            sa[s] += v
    for g in side_b:
        for s, v in topo.nvl_sw_raw.get(g, {}).items():
            sb[s] += v
    cap = sum(min(v, sb[s]) for s, v in sa.items() if s in sb)
    set_b = set(side_b)
    for g in side_a:
        cap += sum(v for p, v in topo.nvl_peer_raw.get(g, {}).items() if p in set_b)
    if cap == 0:
        host = min(sum(topo.gpu_host_raw.get(g, 0.0) for g in side_a),
                   sum(topo.gpu_host_raw.get(g, 0.0) for g in side_b))
        cap = host
    return cap


def p2p_max_flow(topo: Topology, a: str, b: str) -> float:
    """Max flow (GB/s per direction) from GPU a to GPU b on the reduced graph."""
    if a == b:
        return 0.0
    arcs: Arcs = defaultdict(dict)

    def add(u: str, v: str, cap: float) -> None:
        for x, y in ((u, v), (v, u)):
            heads = arcs[x]
            before = heads.get(y, 0.0)
            assert before is not None  # unbounded arcs start at A or end at B only
            heads[y] = before + cap

    islands = {topo.island_of[a], topo.island_of[b]}
    nvlink_only = len(islands) == 1 and bool(topo.nvl_links.get(a)) and bool(
        topo.nvl_links.get(b))
    leaves: set[str] = set()
    nics_added: set[str] = set()
    for root in islands:
        for g in topo.islands[root]:
            for s, v in topo.nvl_sw_raw.get(g, {}).items():
                add(g, s, v)
            for p, v in topo.nvl_peer_raw.get(g, {}).items():
                if g < p:
                    add(g, p, v)
            for path in () if nvlink_only else topo.gpu_nics.get(g, ()):
                if path.nic in nics_added:
                    continue
                nics_added.add(path.nic)
                for sw, cap in topo.nic_up.get(path.nic, {}).items():
                    add(path.nic, sw, cap)
                    leaves.add(sw)
        if nvlink_only:
            continue  # NCCL keeps GPU-to-GPU traffic on NVLink when there is NVLink
        seen: set[str] = set()
        stack = list(topo.islands[root])
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            for nbr, raw, _ in topo.host_adj.get(node, ()):
                is_nic = topo.does(nbr).endpoint
                if is_nic or node < nbr:
                    add(node, nbr, raw)
                if not is_nic:
                    stack.append(nbr)
    # up-paths from the leaves until the two sides share switches
    level = set(leaves)
    for t in range(2, len(topo.domains) + 1):
        nxt = set()
        for s in level:
            for nbr, cap in topo.sw_adj.get(s, {}).items():
                if topo.tier.get(nbr) == t:
                    add(s, nbr, cap)
                    nxt.add(nbr)
        if not nxt:
            break
        level = nxt
    if a not in arcs or b not in arcs:
        return 0.0
    return min_cut(arcs, a, b)[0]
