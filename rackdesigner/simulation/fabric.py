"""Fabric metrics: oversubscription per tier, bisection, P2P max flow, GPU-to-GPU latency.

All of these use hardware rates (GB/s per direction), not NCCL's effective figures, and the
tier structure from `topology.py`; none enumerates GPU pairs.

Bisection: islands (never split unless the count is odd) are ordered by the leaves their NICs
sit on, and the first half of the GPUs is cut from the second. That aligned cut is the worst
balanced cut of a fat tree (it forces the most traffic over uplinks). Its capacity is a max flow
computed level by level: under each leaf, A-side NICs send to B-side NICs directly; what is left
climbs through the leaf's uplinks (capped by them) to its tier-2 domain, and so on up to the top,
assuming every switch layer is non-blocking inside its domain. For one island, the cut halves the
GPUs and its capacity is the NVSwitch (and direct NVLink) capacity between the halves.

P2P: `networkx` maximum flow between two GPUs on a reduced graph: both GPUs' islands (NVLink,
PCIe/C2C, their NICs) plus the switches on up-paths from their leaves to the first tier where
they meet (up/down routing; valley paths through other leaves are left out).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import networkx as nx

from rackdesigner.model import natural_key
from rackdesigner.simulation import constants as C
from rackdesigner.simulation.scope import ScopeModel
from rackdesigner.simulation.topology import NIC_KINDS, Topology


@dataclass(frozen=True, slots=True)
class LatencyClass:
    """GPU pairs whose path has the same shape, and their one-way latency.

    `latency_us` is the sum of the published latencies of the devices on the path plus cable
    propagation when every device has a figure (`source` "device"); otherwise the device part
    is replaced by NCCL's per-step figure for the class's link kind (`source` "model",
    constants.MODEL_LATENCY_US). `physical_us` is what the published figures alone give
    (None when no device has one); the collective model adds it to NCCL's network step.
    """

    name: str
    latency_us: float | None
    pairs: int
    hops: int
    complete: bool = True  # False: some device on the path has no published latency
    source: str = "device"  # "device" or "model"
    link_class: str = "net"  # nvlink, pcie or net: the MODEL_LATENCY_US entry that applies
    physical_us: float | None = None

    def to_dict(self) -> dict:
        lat = None if self.latency_us is None else round(self.latency_us, 4)
        phys = None if self.physical_us is None else round(self.physical_us, 4)
        return {"class": self.name, "latency_us": lat, "pairs": self.pairs, "hops": self.hops,
                "complete": self.complete, "source": self.source,
                "link_class": self.link_class, "physical_us": phys}


def oversubscription(topo: Topology, scope: ScopeModel) -> tuple[dict[str, float],
                                                                  dict[str, float | None]]:
    """Aggregate (sum down / sum up) and worst-switch ratio per tier that has uplinks."""
    agg: dict[str, float] = {}
    worst: dict[str, float | None] = {}
    for t, switches in sorted(scope.involved.items()):
        down = sum(topo.down_cap.get(s, 0.0) for s in switches)
        up = sum(topo.up_cap.get(s, 0.0) for s in switches)
        if up <= 0:
            continue
        name = topo.tier_name(t)
        agg[name] = down / up
        ratios = [topo.down_cap.get(s, 0.0) / topo.up_cap[s] if topo.up_cap.get(s) else None
                  for s in switches]
        worst[name] = None if any(r is None for r in ratios) else max(ratios, default=0.0)
    return agg, worst


def bisection(topo: Topology, scope: ScopeModel) -> float:
    """Capacity (GB/s per direction) of the worst balanced cut of the GPUs in scope."""
    if scope.n < 2:
        return 0.0
    if scope.n_islands == 1:
        gpus = scope.islands[0].gpus
        half = len(gpus) // 2
        return _nvlink_cut(topo, gpus[:half], gpus[half:])

    def signature(island) -> tuple:
        leaves = sorted({topo.leaf_of(nic) or "" for nic in island.nics}, key=natural_key)
        return (tuple(natural_key(x) for x in leaves), natural_key(island.gpus[0]))

    ordered = sorted(scope.islands, key=signature)
    target = scope.n / 2
    side: list[tuple[object, float]] = []  # (island, fraction on side A)
    count = 0.0
    extra = 0.0
    for island in ordered:
        k = island.k
        if count + k <= target:
            frac = 1.0
        elif count >= target:
            frac = 0.0
        else:
            frac = (target - count) / k
            cut = round(frac * k)
            extra += _nvlink_cut(topo, island.gpus[:cut], island.gpus[cut:])
        count += k * frac if frac < 1 else k
        side.append((island, frac))
    a: dict[str, float] = defaultdict(float)
    b: dict[str, float] = defaultdict(float)
    for island, frac in side:
        caps = {nic: min(topo.nic_raw(nic), _nic_path_raw(topo, island, nic))
                for nic in island.nics}
        total = sum(caps.values())
        scale = min(1.0, island.host_raw / total) if total > 0 else 0.0
        for nic, cap in caps.items():
            leaf = topo.leaf_of(nic)
            if leaf is None:
                continue
            a[leaf] += cap * scale * frac
            b[leaf] += cap * scale * (1.0 - frac)
    flow = 0.0
    cur_a, cur_b = dict(a), dict(b)
    for t in range(1, len(topo.domains) + 1):
        domain = topo.domains[t - 1]
        up_a: dict[str, float] = defaultdict(float)
        up_b: dict[str, float] = defaultdict(float)
        grouped_a: dict[str, float] = defaultdict(float)
        grouped_b: dict[str, float] = defaultdict(float)
        # group the current level's residuals by tier-t domain
        for key, val in cur_a.items():
            grouped_a[domain.get(key, key)] += val
        for key, val in cur_b.items():
            grouped_b[domain.get(key, key)] += val
        uplink = _domain_uplinks(topo, t, domain)
        for dom in set(grouped_a) | set(grouped_b):
            da, db = grouped_a.get(dom, 0.0), grouped_b.get(dom, 0.0)
            local = min(da, db)
            flow += local
            cap = uplink.get(dom, 0.0)
            up_a[dom] = min(da - local, cap)
            up_b[dom] = min(db - local, cap)
        # next level groups domains of tier t into domains of tier t+1: map via a member leaf
        cur_a, cur_b = _relabel(up_a, domain), _relabel(up_b, domain)
    return flow + extra


def _relabel(values: dict[str, float], domain: dict[str, str]) -> dict[str, float]:
    # a tier-t domain id is a switch id; the next level maps it through any leaf inside it
    rep: dict[str, str] = {}
    for leaf, dom in domain.items():
        rep.setdefault(dom, leaf)
    return {rep.get(dom, dom): v for dom, v in values.items() if v > 0}


def _domain_uplinks(topo: Topology, t: int, domain: dict[str, str]) -> dict[str, float]:
    """Uplink capacity out of each tier-t domain (sum over its tier-t switches)."""
    out: dict[str, float] = defaultdict(float)
    if t == 1:
        for leaf in domain:
            out[domain[leaf]] += topo.up_cap.get(leaf, 0.0)
        return out
    # tier-t switches belong to the domain of any leaf below them
    member: dict[str, str] = {}
    for leaf, dom in domain.items():
        member[leaf] = dom
    frontier = dict(member)
    for level in range(2, t + 1):
        nxt: dict[str, str] = {}
        for s, dom in frontier.items():
            for nbr in topo.sw_adj.get(s, ()):
                if topo.tier.get(nbr) == level and nbr not in nxt:
                    nxt[nbr] = dom
        frontier = nxt
    for s, dom in frontier.items():
        out[dom] += topo.up_cap.get(s, 0.0)
    return out


def _nic_path_raw(topo: Topology, island, nic: str) -> float:
    best = 0.0
    for g in island.gpus:
        for path in topo.gpu_nics.get(g, ()):
            if path.nic == nic:
                best = max(best, path.raw)
    return best


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
    graph = nx.DiGraph()

    def add(u: str, v: str, cap: float) -> None:
        for x, y in ((u, v), (v, u)):
            if graph.has_edge(x, y):
                graph[x][y]["capacity"] += cap
            else:
                graph.add_edge(x, y, capacity=cap)

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
                is_nic = topo.kind.get(nbr) in NIC_KINDS
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
    if a not in graph or b not in graph:
        return 0.0
    return float(nx.maximum_flow_value(graph, a, b, capacity="capacity"))


def latency_classes(topo: Topology, scope: ScopeModel) -> tuple[list[LatencyClass], set[str]]:
    """Pair classes (same island, same leaf, same pod, ...) with counts; models lacking data."""
    missing: set[str] = set()
    # (name, hops, link class) -> [pairs, device part ns or None, complete, propagation ns]
    classes: dict[tuple[str, int, str], list] = {}

    def add(name: str, hops: int, link_class: str, pairs: int, device_ns: float | None,
            complete: bool, prop_ns: float = 0.0) -> None:
        key = (name, hops, link_class)
        if key in classes:
            classes[key][0] += pairs
        else:
            classes[key] = [pairs, device_ns, complete, prop_ns]

    for island in scope.islands:
        k = island.k
        if k < 2:
            continue
        root = topo.island_of[island.gpus[0]]
        switches = topo.nvswitches_of.get(root, set())
        pairs = k * (k - 1) // 2
        if island.intra_hw == "pcie":
            missing.add("pcie path")
            add("host", 2, "pcie", pairs, None, False)
        elif switches:
            lat, complete = _mean_latency(topo, switches, missing)
            add("nvlink", 2, "nvlink", pairs, lat, complete)
        else:
            # a direct NVLink has no device with a latency figure of its own (GPU ports)
            missing.add("direct nvlink (GPU port)")
            add("nvlink-direct", 1, "nvlink", pairs, None, False)
    if scope.n_islands > 1:
        _network_classes(topo, scope, add, missing)
    out = []
    for (name, hops, link_class), (pairs, device_ns, complete, prop_ns) in classes.items():
        if pairs <= 0:
            continue
        physical = (None if device_ns is None and prop_ns <= 0
                    else ((device_ns or 0.0) + prop_ns) / 1000.0)
        if complete:
            lat, source = physical, "device"
        else:
            lat, source = C.MODEL_LATENCY_US[link_class] + prop_ns / 1000.0, "model"
        out.append(LatencyClass(name, lat, pairs, hops, complete, source, link_class, physical))
    out.sort(key=lambda c: (c.hops, c.latency_us or 0.0))
    return out, missing


def _mean_latency(topo: Topology, devices, missing: set[str]) -> tuple[float | None, bool]:
    """Mean catalog latency (ns) of the devices that have one (None when none has), and
    whether every device has one."""
    values = []
    models = set()
    complete = True
    for d in devices:
        spec = topo.specs[d]
        if spec.id in models and spec.id in missing:
            complete = False
            continue
        models.add(spec.id)
        facts = spec.switch or spec.nic
        if facts is None or facts.latency_ns is None:
            missing.add(spec.id)
            complete = False
        else:
            values.append(facts.latency_ns)
    return (sum(values) / len(values) if values else None), complete


def _network_classes(topo: Topology, scope: ScopeModel, add, missing: set) -> None:
    leaf_of: dict[str, str] = {}
    nics: set[str] = set()
    for island in scope.islands:
        fallback = next((topo.primary_nic[g] for g in island.gpus if g in topo.primary_nic),
                        None)
        for g in island.gpus:
            nic = topo.primary_nic.get(g, fallback)
            if nic is not None:
                nics.add(nic)
                leaf = topo.leaf_of(nic)
                if leaf is not None:
                    leaf_of[g] = leaf
    nic_ns, nic_ok = _mean_latency(topo, nics, missing) if nics else (None, False)
    prop = _propagation_by_level(topo)
    cum_prev = 0
    total_cross = (scope.n * scope.n - sum(i.k * i.k for i in scope.islands)) // 2
    levels = len(topo.domains)
    for t in range(1, levels + 1):
        domain = topo.domains[t - 1]
        count: dict[str, int] = defaultdict(int)
        count_isl: dict[tuple[str, str], int] = defaultdict(int)
        for g, leaf in leaf_of.items():
            d = domain[leaf]
            count[d] += 1
            count_isl[(d, topo.island_of[g])] += 1
        cum = (sum(c * c for c in count.values()) - sum(c * c for c in count_isl.values())) // 2
        if t == levels:
            cum = max(cum, total_cross)
        pairs = cum - cum_prev
        cum_prev = cum
        if pairs <= 0:
            continue
        devices: list[float | None] = [nic_ns, nic_ns]
        complete = nic_ok
        props = [prop.get(0), prop.get(0)]
        for level in range(1, t):
            sw, ok = _mean_latency(topo, scope.involved.get(level, set()), missing)
            devices += [sw, sw]
            props += [prop.get(level), prop.get(level)]
            complete = complete and ok
        sw, ok = _mean_latency(topo, scope.involved.get(t, set()), missing)
        devices.append(sw)
        complete = complete and ok
        known = [x for x in devices if x is not None]
        device_ns = sum(known) if known else None
        prop_ns = sum(x for x in props if x is not None)  # links without a length: left out
        add(topo.tier_name(t), 2 * t, "net", pairs, device_ns, complete, prop_ns)


def _propagation_by_level(topo: Topology) -> dict[int, float]:
    """Mean propagation delay (ns) of a link at each level: 0 = NIC-leaf, 1 = leaf-spine, ..."""
    sums: dict[int, float] = defaultdict(float)
    counts: dict[int, int] = defaultdict(int)
    for (u, v), lengths in topo.link_lengths.items():
        if topo.kind.get(u) in ("nic", "dpu"):
            level = 0
        else:
            level = min(topo.tier.get(u, 1), topo.tier.get(v, 1))
        per_m = topo.link_prop_ns_per_m.get((u, v), C.DEFAULT_PROPAGATION_NS_PER_M)
        for length in lengths:
            sums[level] += length * per_m
            counts[level] += 1
    return {lv: sums[lv] / counts[lv] for lv in sums}
