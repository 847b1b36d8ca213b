"""The DOT export's racks level: one node per rack, one edge per pair of cabled racks.

The unit view of a 128-DGX SuperPOD is one row of 128 boxes, 10,500 pt wide; a picture of a
large design that fits on a page needs fewer boxes. Here a rack is one box labelled as the Racks
view's header shows it (name; GPUs, units, U used; typical / max power against its budget) plus
the number of cables between units inside it, which are not drawn. Units in no rack share one
`(unracked)` node (an id no device can have: ids start with a letter or digit).

Racks are drawn in a `cluster_` per group that holds them (a scalable unit, the spine tier): the
group above the rack's own group, unless that group holds every rack (the whole pod). Each
edge carries the cables between two racks, counted per cable type (`xlabel`, as the unit view).
Ranks: each edge is written from the rack farther (in cabled hops) from the racks with GPUs, so
dot puts spine racks above leaf racks above compute racks; the compute racks one leaf rack
serves are spread over a few ranks (`minlen`) so a wide scalable unit draws as a block, not a
row.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable

import networkx as nx

from rackdesigner.interop.units import Inventory, cables
from rackdesigner.model import Layout, natural_key
from rackdesigner.model.facets.rack_index import rack_index
from rackdesigner.model.rack_units import power_text

#: the node of the units in no rack (not a valid device id, so never a rack's)
UNRACKED = "(unracked)"


def write_racks(layout: Layout, inv: Inventory, lines: list[str],
                quote: Callable[[str], str]) -> tuple[int, int]:
    """Append the racks view's statements to `lines`; (nodes, edges)."""
    rack_of = {u.id: (u.rack if u.rack is not None else UNRACKED) for u in inv.units.values()}
    inside: Counter = Counter()
    pairs: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for c in cables(inv):
        ra, rb = rack_of[c.a_unit], rack_of[c.b_unit]
        if ra == rb:
            inside[ra] += 1
        else:
            a, b = sorted((ra, rb), key=natural_key)
            pairs[a, b][c.cable or "unspecified"] += 1
    racks = sorted(set(inv.racks) | set(rack_of.values()), key=natural_key)
    hops = _hops_from_gpus(inv, racks, pairs)
    lines.append("  graph [ranksep=0.6, nodesep=0.25, newrank=true, fontname=Helvetica];")
    lines.append("  node [shape=box];")
    lines.append("  edge [fontname=Helvetica, fontsize=9];")
    by_cluster: dict[str | None, list[str]] = defaultdict(list)
    cluster_of = _clusters(layout, racks)
    for rack in racks:
        by_cluster[cluster_of.get(rack)].append(rack)
    labels = _labels(layout, inv, racks, rack_of, inside)
    group_names = {g.id: g.label for g in layout.groups()}
    for n, cluster in enumerate(sorted(by_cluster, key=lambda c: natural_key(c or "")), 1):
        indent = "  "
        if cluster is not None:
            lines.append(f"  subgraph {quote(f'cluster_{n}')} {{")
            lines.append(f"    label={quote(group_names.get(cluster, cluster))};")
            indent = "    "
        for rack in by_cluster[cluster]:
            lines.append(f"{indent}{quote(rack)} [label={quote(labels[rack])}];")
        if cluster is not None:
            lines.append("  }")
    spread = _spread(racks, pairs, hops)
    for (a, b), counts in sorted(pairs.items(), key=lambda kv: (natural_key(kv[0][0]),
                                                                natural_key(kv[0][1]))):
        if (hops[b], natural_key(b)) > (hops[a], natural_key(a)):
            a, b = b, a  # the end farther from the GPUs first: dot ranks it above
        text = "\n".join(f"{k} x {cable}" for cable, k in
                         sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        total = sum(counts.values())
        extra = f", minlen={spread[a, b]}" if spread.get((a, b), 1) > 1 else ""
        lines.append(f"  {quote(a)} -- {quote(b)} [xlabel={quote(text)}, weight={total}"
                     f"{extra}];")
    return len(racks), len(pairs)


def _labels(layout: Layout, inv: Inventory, racks: list[str], rack_of: dict[str, str],
            inside: Counter) -> dict[str, str]:
    """A rack's label: the Racks view's figures (`RackSummary`) and its cables inside."""
    summaries = rack_index(layout).summaries()  # the state's, built once
    gpus: Counter = Counter()
    units: Counter = Counter()
    for u in inv.units.values():
        gpus[rack_of[u.id]] += u.gpus
        if not u.is_frame:
            units[rack_of[u.id]] += 1
    out = {}
    for rack in racks:
        s = summaries.get(rack)
        name = s.label if s is not None else inv.racks.get(rack, "unracked")
        line = f"{gpus[rack]} GPUs · {units[rack]} units"
        if s is not None:
            line += f" · {s.used_u.get('front', 0)}/{s.height_u}U"
        parts = [name, line] + ([power_text(s)] if s is not None else [])
        if inside[rack]:
            parts.append(f"{inside[rack]} cables inside (not drawn)")
        out[rack] = "\n".join(parts)
    return out


def _clusters(layout: Layout, racks: list[str]) -> dict[str, str]:
    """rack -> the group it is drawn in: the group above the rack's own group (a group holding
    only this rack), unless that one holds every rack; racks in no group are in none."""
    groups = {g.id: g for g in layout.groups()}
    chain: dict[str, list[str]] = {}
    held: Counter = Counter()
    for rack in racks:
        if rack == UNRACKED or not layout.has_device(rack):
            continue
        ids, g = [], layout.device(rack).group
        while g is not None and g in groups:
            ids.append(g)
            g = groups[g].parent
        chain[rack] = ids
        held.update(ids)
    out = {}
    for rack, ids in chain.items():
        if ids and held[ids[0]] == 1:
            ids = ids[1:]  # the rack's own group
        if ids and held[ids[0]] < len(chain):
            out[rack] = ids[0]
    return out


def _hops_from_gpus(inv: Inventory, racks: list[str],
                    pairs: dict[tuple[str, str], Counter]) -> dict[str, int]:
    """Cabled hops from the nearest rack holding GPUs (racks no cable reaches: a large number)."""
    graph = nx.Graph(list(pairs))
    graph.add_nodes_from(racks)
    with_gpus = {u.rack or UNRACKED for u in inv.units.values() if u.gpus}
    hops = nx.multi_source_dijkstra_path_length(graph, with_gpus) if with_gpus else {}
    return {r: int(hops.get(r, len(racks))) for r in racks}


def _spread(racks: list[str], pairs: dict[tuple[str, str], Counter],
            hops: dict[str, int]) -> dict[tuple[str, str], int]:
    """`minlen` of the edges from a rack one hop from the GPUs to the GPU racks it carries
    the most cables of (a leaf rack's compute racks, not the storage rack every compute rack
    has a few cables to): they stack in rows, the k-th at rank k // per_rank + 1 below it,
    `per_rank` chosen to keep the whole picture about twice as wide as tall."""
    up: dict[str, tuple[int, str]] = {}
    for (a, b), counts in sorted(pairs.items()):
        for low, high in ((a, b), (b, a)):
            if hops[low] == 0 and hops[high] == 1:
                best = up.get(low)
                if best is None or sum(counts.values()) > best[0]:
                    up[low] = (sum(counts.values()), high)
    below: dict[str, list[str]] = defaultdict(list)
    for low, (_, high) in up.items():
        below[high].append(low)
    out: dict[tuple[str, str], int] = {}
    stacked = sum(len(lows) for lows in below.values())
    if not stacked:
        return out
    # a rack box is ~2.5 times as wide as tall: about sqrt(1.5 n) of the n stacked racks side
    # by side over all stacks makes the picture about twice as wide as tall
    per_rank = max(1, round(math.sqrt(1.5 * stacked) / len(below)))
    for high, lows in below.items():
        for k, low in enumerate(sorted(lows, key=natural_key)):
            out[high, low] = k // per_rank + 1
    return out
