"""Minimum s-t cut of a capacity graph: Dinic's maximum flow in plain Python.

Bisection (`fabric.bisection_cut`) is a maximum flow between two halves of a design, the P2P
figure one between two GPUs. The graphs are small for their designs — islands with the same
capacity toward the same switches are merged first — and shallow (island, leaf, spine, core):
~1,300 nodes and 42,000 arcs at 16k GPUs, ~3,900 nodes and 243,000 arcs at 102,400. Dinic
needs a handful of phases on such graphs (one per distinct augmenting-path length).

Why not scipy's compiled `maximum_flow` (used until issue 26 §19): measured on the 2-core
machine, scipy takes 0.02 s at 16k and 0.18 s at 100k where this takes 0.04 s and 0.47 s, but
importing `scipy.sparse.csgraph` costs 0.13–0.26 s in every process that computes a bisection
(the CLI's `simulate` of a 1k design, each sweep worker), and scipy is 136 MB installed, 73 MB
of the bundle. Plain Python wins up to ~50k GPUs and costs under 0.2 s at 100k.

The flow only decides the cut: the *source side* is every node reachable from the source in the
residual graph — the same set for every maximum flow — and the value returned is the sum of the
original capacities of the arcs leaving it, so round-off in the flow never shows in a figure.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable

#: arcs as {tail: {head: capacity}}; capacity None = unbounded
Arcs = dict[Hashable, dict[Hashable, float | None]]

_INF = float("inf")


def min_cut(arcs: Arcs, source: Hashable, sink: Hashable) -> tuple[float, set[Hashable]]:
    """(capacity of the minimum cut, source side) from `source` to `sink`."""
    nodes: dict[Hashable, int] = {}
    for u, heads in arcs.items():
        if u not in nodes:
            nodes[u] = len(nodes)
        for v in heads:
            if v not in nodes:
                nodes[v] = len(nodes)
    if source not in nodes or sink not in nodes:
        return 0.0, {source}
    adj, to, cap, largest = _residual(arcs, nodes)
    # a residual below this is spent: sums of capacities of 1e5 arcs lose ~1e-11 relative
    eps = largest * 1e-9
    s, t = nodes[source], nodes[sink]
    while True:
        level = _levels(adj, to, cap, s, eps)
        if level[t] < 0:
            break
        _blocking_flow(adj, to, cap, level, s, t, eps)
    level = _levels(adj, to, cap, s, eps)
    reach = {u for u, i in nodes.items() if level[i] >= 0}
    value = 0.0
    for u in reach:
        for v, c in arcs.get(u, {}).items():
            if v not in reach:
                value += _INF if c is None else c
    return value, reach


def _residual(arcs: Arcs, nodes: dict[Hashable, int]
              ) -> tuple[list[list[int]], list[int], list[float], float]:
    """Arc lists: arc e runs to `to[e]` with room `cap[e]`; e ^ 1 is its reverse (room 0)."""
    adj: list[list[int]] = [[] for _ in nodes]
    to: list[int] = []
    cap: list[float] = []
    largest = 0.0
    for u, heads in arcs.items():
        iu = nodes[u]
        out = adj[iu]
        for v, c in heads.items():
            iv = nodes[v]
            if c is None:
                c = _INF
            elif c > largest:
                largest = c
            out.append(len(to))
            to.append(iv)
            cap.append(c)
            adj[iv].append(len(to))
            to.append(iu)
            cap.append(0.0)
    return adj, to, cap, largest


def _levels(adj: list[list[int]], to: list[int], cap: list[float], s: int,
            eps: float) -> list[int]:
    """Breadth-first distance from `s` over arcs with room (-1: not reachable)."""
    level = [-1] * len(adj)
    level[s] = 0
    queue = deque((s,))
    pop, push = queue.popleft, queue.append
    while queue:
        u = pop()
        nxt = level[u] + 1
        for e in adj[u]:
            v = to[e]
            if level[v] < 0 and cap[e] > eps:
                level[v] = nxt
                push(v)
    return level


def _blocking_flow(adj: list[list[int]], to: list[int], cap: list[float], level: list[int],
                   s: int, t: int, eps: float) -> None:
    """Augment along shortest paths (level graph) until none is left: an iterative DFS with a
    current-arc pointer per node; a dead end is taken out of the level graph."""
    pointer = [0] * len(adj)
    while True:
        path: list[int] = []
        u = s
        while u != t:
            out = adj[u]
            i = pointer[u]
            want = level[u] + 1
            n_out = len(out)
            while i < n_out:
                e = out[i]
                if cap[e] > eps and level[to[e]] == want:
                    break
                i += 1
            pointer[u] = i
            if i < n_out:
                path.append(out[i])
                u = to[out[i]]
                continue
            level[u] = -1  # a dead end: no path to t through u in this phase
            if not path:
                return
            u = to[path.pop() ^ 1]
            pointer[u] += 1
        flow = min(cap[e] for e in path)
        for e in path:
            cap[e] -= flow
            cap[e ^ 1] += flow
