"""Minimum s-t cut of a capacity graph, fast: scipy's compiled max-flow, networkx as fallback.

Bisection (`fabric.bisection_cut`) is a max-flow between two halves of a design; at 16k GPUs its
graph has ~1,600 nodes and ~50,000 arcs, which networkx's pure-Python preflow-push takes about
0.3 s over and `scipy.sparse.csgraph.maximum_flow` (Dinic, compiled) a few milliseconds.

scipy wants integer capacities that fit in 32 bits, so capacities are scaled (at most x 1,000,
i.e. 1 MB/s, less when the total would not fit) and rounded; an unbounded arc out of the source
(into the sink) gets more than any flow can reach (the source's heads' total + 1). The integer
flow only decides the cut: the *source side* is every node reachable from the source in the
residual graph — the same set for every maximum flow, so it does not depend on the algorithm —
and the value returned is the sum of the original float capacities of the arcs leaving it.
"""

from __future__ import annotations

from collections.abc import Hashable

#: arcs as {tail: {head: capacity}}; capacity None = unbounded
Arcs = dict[Hashable, dict[Hashable, float | None]]

_INT32_BUDGET = 2**30  # headroom below 2**31 for scipy's int32 sums
_MAX_SCALE = 1000.0


def min_cut(arcs: Arcs, source: Hashable, sink: Hashable) -> tuple[float, set[Hashable]]:
    """(capacity of the minimum cut, source side) from `source` to `sink`."""
    try:
        import numpy as np
        from scipy.sparse import csr_array
        from scipy.sparse.csgraph import breadth_first_order, maximum_flow
    except ImportError:  # pragma: no cover - scipy is a dependency; keep working without it
        return _min_cut_networkx(arcs, source, sink)
    nodes: dict[Hashable, int] = {}
    for u, heads in arcs.items():
        nodes.setdefault(u, len(nodes))
        for v in heads:
            nodes.setdefault(v, len(nodes))
    if source not in nodes or sink not in nodes:
        return 0.0, {source}
    out: dict[Hashable, float] = {}
    for u, heads in arcs.items():
        out[u] = sum(cap for cap in heads.values() if cap is not None)
    # no flow exceeds what the source's heads can pass on; an arc above that bound (or
    # unbounded) can never be saturated, so it gets the bound + 1 (exact for the cut)
    bound = sum(out.get(v, 0.0) if cap is None else cap
                for v, cap in arcs.get(source, {}).items())
    if bound <= 0:
        return 0.0, {source}
    ceiling = bound + 1.0
    scale = min(_MAX_SCALE, _INT32_BUDGET / ceiling)
    rows, cols, data = [], [], []
    for u, heads in arcs.items():
        iu = nodes[u]
        for v, cap in heads.items():
            c = ceiling if cap is None else min(cap, ceiling)
            rows.append(iu)
            cols.append(nodes[v])
            data.append(round(c * scale))
    n = len(nodes)
    graph = csr_array((np.asarray(data, dtype=np.int32), (np.asarray(rows), np.asarray(cols))),
                      shape=(n, n))
    graph.sum_duplicates()
    flow = maximum_flow(graph, nodes[source], nodes[sink], method="dinic").flow
    # residual reachability from the source: forward arcs with spare capacity, and arcs
    # carrying flow backwards (flow is antisymmetric, so flow[v, u] < 0 means u -> v has room)
    residual = csr_array(graph - flow)
    residual.data[residual.data < 0] = 0  # (cannot happen for a valid flow; be safe)
    residual.eliminate_zeros()
    order = breadth_first_order(residual, nodes[source], directed=True,
                                return_predecessors=False)
    seen = np.zeros(n, dtype=bool)
    seen[order] = True
    reach = {u for u, i in nodes.items() if seen[i]}
    value = 0.0
    for u in reach:
        for v, cap in arcs.get(u, {}).items():
            if v not in reach:
                value += float("inf") if cap is None else cap
    return value, reach


def _min_cut_networkx(arcs: Arcs, source: Hashable, sink: Hashable
                      ) -> tuple[float, set[Hashable]]:
    import networkx as nx

    graph = nx.DiGraph()
    for u, heads in arcs.items():
        for v, cap in heads.items():
            if cap is None:
                graph.add_edge(u, v)
            else:
                graph.add_edge(u, v, capacity=cap)
    if source not in graph or sink not in graph:
        return 0.0, {source}
    value, (reach, _) = nx.minimum_cut(graph, source, sink, capacity="capacity")
    return float(value), set(reach)
