"""`families.peak_utilisation` of a large family as NumPy arrays: the same figure, bit for bit.

At 16,384 GPUs an estimate routes three families (8,192 send/recv pairs, 4,096 pairs and 32
data-parallel rings of 512 GPUs); the plain stages (`family_traffic` → `loads.route` →
`LinkLoads.peak`) walk every GPU, flow and loaded link in Python, with a few dict lookups
each: 0.4 s of the 1.05 s estimate. Here the topology's facts are read once into columns
(`FamilyTables`, kept in the topology's memo: per GPU its island and primary NIC; per NIC its
rate and uplink split; per leaf its domain at each tier; per network link of the peak's list
the factors its utilisation is made of) and each call is array arithmetic over the family's
GPUs.

Every sum is made in the plain code's order (`np.bincount` adds its weights one by one in input
order, as `+=` in a loop does), every utilisation with the same operations on the same values,
and the busiest link is the first of equals in the plain list's order (NICs by first sending,
then by first receiving; domains by first upward, then downward load), so the result equals the
plain one exactly (tests/test_family_arrays.py, on symmetric, oversubscribed and broken
designs). Families of all-to-all traffic (counted per switch domain, not as flows) and
topologies whose link list the plain code would divide by zero take the plain path (`None`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import chain, repeat
from operator import itemgetter
from typing import TYPE_CHECKING

import numpy as np

from rackdesigner.simulation.families import StridedGroups
from rackdesigner.simulation.traffic import tree_edges

if TYPE_CHECKING:
    from rackdesigner.simulation.loads import FabricIndex
    from rackdesigner.simulation.topology import Topology

_I = np.int64


class FamilyTables:
    """A topology's facts the array path reads, as columns (made once per topology, with a
    few passes at C speed over its maps: no Python statement per NIC or link)."""

    def __init__(self, topo: Topology, index: FabricIndex) -> None:
        nic_up, primary = topo.nic_up, topo.primary_nic
        cabled = list(nic_up)
        nics = cabled + sorted(set(primary.values()).difference(nic_up))  # (uncabled: no rows)
        nic_row: dict[str | None, int] = dict(zip(nics, range(len(nics)), strict=True))
        nic_row[None] = -1  # a GPU of no NIC
        self.nics, self.n_nic = nics, len(nics)
        gpus = self.gpus = topo.gpus
        self._gpu_row: dict[str, int] | None = None
        islands = list(map(topo.island_of.get, gpus))
        codes = {name: i for i, name in enumerate(dict.fromkeys(islands))}
        codes[None] = -1  # a GPU of no island
        self.gpu_island = np.fromiter(map(codes.__getitem__, islands), _I, count=len(gpus))
        self.n_island = max(len(codes), 1)
        self.gpu_nic = np.fromiter(map(nic_row.__getitem__, map(primary.get, gpus)), _I,
                                   count=len(gpus))
        # each cabled NIC's uplinks: its switches and capacities, flat (`Topology.nic_split`);
        # its rate their sum (`Topology.nic_raw`), an uncabled NIC's 0
        ups = list(map(nic_up.__getitem__, cabled))
        self.rate = np.zeros(len(nics))
        self.rate[:len(cabled)] = list(map(sum, map(dict.values, ups)))
        count = np.fromiter(map(len, ups), _I, count=len(ups))
        switches = list(chain.from_iterable(ups))
        cap = np.fromiter(chain.from_iterable(map(dict.values, ups)), np.float64,
                          count=len(switches))
        total = self.rate[:len(cabled)]  # cabled NICs come first: `nic_raw` is their sum
        per = np.repeat(total, count)
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.where(per != 0, cap / per, 0.0)
        leaves = list(topo.sw_nics)
        leaf_row = dict(zip(leaves, range(len(leaves)), strict=True))
        leaf = np.fromiter(map(leaf_row.get, switches, repeat(-1)), _I, count=len(switches))
        used = per != 0  # a NIC of no capacity has no split
        self.split_len = np.zeros(len(nics), dtype=_I)
        self.split_len[:len(cabled)] = np.where(total != 0, count, 0)
        self.split_off = np.cumsum(self.split_len) - self.split_len
        self.split_leaf, self.split_frac = leaf[used], frac[used]
        self.n_leaf = len(leaves) + 1  # the last row: a switch that is not a leaf
        self.ok = not (self.split_leaf < 0).any()
        # each leaf's domain key (tier, domain) at tiers 1 .. top, -1 where it has none
        keys: dict[tuple[int, str], int] = {}
        top = index.top
        chains = np.full((self.n_leaf, max(top, 1)), -1, dtype=_I)
        for t in range(top):
            doms = topo.domains[t]
            chains[:len(leaves), t] = [keys.setdefault((t + 1, doms[s]), len(keys))
                                       if s in doms else -1 for s in leaves]
        self.chains = chains
        self.n_key = len(keys)
        # the peak's visits (`LinkLoads.peak`): each cabled NIC's uplinks, then each domain's
        # (of some capacity) to the tier above, as sorted end pairs
        owners = chain.from_iterable(map(repeat, cabled, count.tolist()))
        ends = list(zip(owners, switches, strict=True))
        domains = [key for key in keys if index.up_cap.get(key, 0.0) > 0]
        uplinks = list(map(index.uplinks.get, domains, repeat(())))
        per_key = np.fromiter(map(len, uplinks), _I, count=len(uplinks))
        flat = list(chain.from_iterable(uplinks))
        lower, upper = list(map(itemgetter(0), flat)), list(map(itemgetter(1), flat))
        ends += zip(map(min, lower, upper), map(max, lower, upper), strict=True)
        up_cap = np.fromiter(map(itemgetter(2), flat), np.float64, count=len(flat))
        key_row = np.fromiter(map(keys.__getitem__, domains), _I, count=len(domains))
        key_cap = np.fromiter(map(index.up_cap.__getitem__, domains), np.float64,
                              count=len(domains))
        self._rows(topo, ends, np.concatenate([np.repeat(np.arange(len(cabled), dtype=_I), count),
                                               np.repeat(len(nics) + key_row, per_key)]),
                   np.concatenate([frac, up_cap]),
                   np.concatenate([np.ones(len(frac)), np.repeat(key_cap, per_key)]),
                   np.concatenate([cap, up_cap]))

    def _rows(self, topo: Topology, ends: list[tuple[str, str]], src: np.ndarray,
              p: np.ndarray, q: np.ndarray, cap: np.ndarray) -> None:
        """Each visit's links (`ends`: the visits' end pairs, in the peak's order): per link,
        its source (a NIC, or n_nic + a domain key), the factors of its utilisation
        ((B x p / q) x c / d / c, B the source's load) and where its (link id, end, end) is
        read; links of no capacity (never the busiest) left out."""
        links = list(map(topo.net_links.get, ends, repeat(())))
        count = np.fromiter(map(len, links), _I, count=len(links))
        flat = list(chain.from_iterable(links))
        c = np.fromiter(map(itemgetter(1), flat), np.float64, count=len(flat))
        visit = np.repeat(np.arange(len(links), dtype=_I), count)
        shared = np.zeros(len(links))  # several cables: their sum (or the visit's capacity)
        for v in np.flatnonzero(count > 1).tolist():
            shared[v] = sum(x for _, x in links[v]) or float(cap[v])
            if not shared[v]:
                self.ok = False  # the plain code divides by zero here
        d = np.where(count[visit] == 1, c, shared[visit])  # one cable: c / c
        keep = np.flatnonzero(c > 0)
        visit = visit[keep]
        self.row_src, self.row_p, self.row_q = src[visit], p[visit], q[visit]
        self.row_c, self.row_d = c[keep], d[keep]
        self.row_at, self.row_visit = keep, visit
        self._flat, self._ends = flat, ends

    @property
    def gpu_row(self) -> dict[str, int]:
        """GPU id -> row (made when a family is given as GPU ids, not as ranks of the
        topology's GPU list)."""
        if self._gpu_row is None:
            self._gpu_row = dict(zip(self.gpus, range(len(self.gpus)), strict=True))
        return self._gpu_row

    def label(self, row: int) -> tuple[str, str, str]:
        """(link id, end, end) of a row."""
        end = self._ends[int(self.row_visit[row])]
        return self._flat[int(self.row_at[row])][0], end[0], end[1]

    @classmethod
    def of(cls, topo: Topology, index: FabricIndex) -> FamilyTables:
        """Made once per topology (kept in its memo)."""
        tables = topo.memo.get("family-arrays")
        if tables is None or tables[0] is not index:
            tables = topo.memo["family-arrays"] = (index, cls(topo, index))
        return tables[1]


def _within(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For segments of `counts` items: each item's segment and its place in it."""
    seg = np.repeat(np.arange(len(counts), dtype=_I), counts)
    start = np.cumsum(counts) - counts
    return seg, np.arange(len(seg), dtype=_I) - start[seg]


def _first_order(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct `keys` numbered by first appearance: (each item's number, the first
    position of each number)."""
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    number = np.empty(len(first), dtype=_I)
    number[order] = np.arange(len(first), dtype=_I)
    return number[inverse.reshape(-1)], first[order]


@lru_cache(maxsize=64)
def _tree(n: int) -> tuple[np.ndarray, np.ndarray]:
    edges = np.array(tree_edges(n), dtype=_I).reshape(-1, 2)
    return edges[:, 0], edges[:, 1]


def _rows(t: FamilyTables, members: Sequence[Sequence[str]]
          ) -> tuple[np.ndarray, np.ndarray]:
    """The family's GPUs as the tables' rows (-1: not a GPU of the topology), and each
    group's size; a `StridedGroups` by its ranks (over the topology's own GPU list, as an
    estimate's scope of the whole design is, without a lookup per GPU)."""
    if isinstance(members, StridedGroups):
        gpus = members.gpus
        if gpus is t.gpus or (len(gpus) == len(t.gpus) and list(gpus) == t.gpus):
            base = np.arange(len(gpus), dtype=_I)
        else:
            base = np.fromiter(map(t.gpu_row.get, gpus, repeat(-1)), _I, count=len(gpus))
        ranks = (np.array(members.starts, dtype=_I)[:, None]
                 + members.stride * np.arange(members.size, dtype=_I))
        return base[ranks.reshape(-1)], np.full(len(members.starts), members.size, dtype=_I)
    sizes = np.fromiter(map(len, members), _I, count=len(members))
    return np.fromiter(map(t.gpu_row.get, chain.from_iterable(members), repeat(-1)), _I,
                       count=int(sizes.sum())), sizes


def _islands(t: FamilyTables, members: Sequence[Sequence[str]]
             ) -> tuple[np.ndarray, ...] | None:
    """(the family's GPU rows, each one's island slot — a group's islands numbered in rank
    order, group after group —, each group's island count, its first slot and its size);
    None when a GPU is not one of the topology's or has no island (the plain path answers)."""
    rows, sizes = _rows(t, members)
    if (rows < 0).any():
        return None
    island = t.gpu_island[rows]
    if (island < 0).any():
        return None
    gid = np.repeat(np.arange(len(sizes), dtype=_I), sizes)
    slot, first = _first_order(gid * t.n_island + island)
    n_g = np.bincount(gid[first], minlength=len(sizes))
    return rows, slot, n_g, np.cumsum(n_g) - n_g, sizes


def _p2p(t: FamilyTables, rows: np.ndarray, n_g: np.ndarray, sizes: np.ndarray
         ) -> tuple[np.ndarray, np.ndarray]:
    """`families._pair`: each group of two islands or more sends its first GPU's NIC to its last
    GPU's and back."""
    at = np.flatnonzero(n_g >= 2)
    end = np.cumsum(sizes)
    a, b = t.gpu_nic[rows[end[at] - sizes[at]]], t.gpu_nic[rows[end[at] - 1]]
    keep = (a >= 0) & (b >= 0) & (a != b)
    a, b = a[keep], b[keep]
    return np.column_stack([a, b]).reshape(-1), np.column_stack([b, a]).reshape(-1)


def _rail_nics(t: FamilyTables, rows: np.ndarray, slot: np.ndarray, n_slot: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per island slot, its GPUs' distinct primary NICs in rank order (`families._rails`):
    (the NICs slot after slot, each slot's count and first place)."""
    nic = t.gpu_nic[rows]
    has = np.flatnonzero(nic >= 0)
    nic, slot = nic[has], slot[has]
    if not len(nic):
        cnt = np.zeros(n_slot, dtype=_I)
        return nic, cnt, cnt
    _, first = _first_order(slot * t.n_nic + nic)
    order = np.lexsort((first, slot[first]))
    listed = nic[first[order]]
    cnt = np.bincount(slot[first[order]], minlength=n_slot)
    return listed, cnt, np.cumsum(cnt) - cnt


def _ring(listed: np.ndarray, cnt: np.ndarray, off: np.ndarray, n_g: np.ndarray,
          start: np.ndarray, m_g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`traffic.ring_traffic` of every group: per rail r, island i sends to island i + 1."""
    seg, q = _within(np.where(n_g >= 2, m_g * n_g, 0))
    n = n_g[seg]
    r, i = q // n, q % n
    a, b = start[seg] + i, start[seg] + (i + 1) % n
    keep = (cnt[a] > 0) & (cnt[b] > 0)
    a, b, r = a[keep], b[keep], r[keep]
    return listed[off[a] + r % cnt[a]], listed[off[b] + r % cnt[b]]


def _tree_flows(t: FamilyTables, listed: np.ndarray, cnt: np.ndarray, off: np.ndarray,
                n_g: np.ndarray, start: np.ndarray, m_g: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`traffic.tree_traffic` of every group: NCCL's two trees over its islands, per rail,
    each NIC's flows scaled to at most its rate within its group."""
    sel = (n_g >= 2) & (m_g > 0)
    trees = {int(n): _tree(int(n)) for n in np.unique(n_g[sel])}
    flat_c = np.concatenate([c for c, _ in trees.values()] or [np.zeros(0, dtype=_I)])
    flat_p = np.concatenate([p for _, p in trees.values()] or [np.zeros(0, dtype=_I)])
    lens = {n: len(c) for n, (c, _) in trees.items()}
    offs = dict(zip(lens, np.cumsum(list(lens.values())) - list(lens.values()), strict=True))
    n_list = n_g.tolist()
    count = np.array([lens[n] if s else 0 for n, s in zip(n_list, sel.tolist(), strict=True)],
                     dtype=_I)
    base = np.array([offs[n] if s else 0 for n, s in zip(n_list, sel.tolist(), strict=True)],
                    dtype=_I)
    seg, k = _within(count)
    child = flat_c[base[seg] + k] + start[seg]
    parent = flat_p[base[seg] + k] + start[seg]
    keep = (cnt[child] > 0) & (cnt[parent] > 0)
    seg, child, parent = seg[keep], child[keep], parent[keep]
    e, r = _within(m_g[seg])
    child, parent, group = child[e], parent[e], seg[e]
    x = listed[off[child] + r % cnt[child]]
    y = listed[off[parent] + r % cnt[parent]]
    ends = np.concatenate([group * t.n_nic + x, group * t.n_nic + y])
    _, inverse = np.unique(ends, return_inverse=True)
    inverse = inverse.reshape(-1)
    edges = np.bincount(inverse)
    ex, ey = edges[inverse[:len(x)]], edges[inverse[len(x):]]
    w = 0.5 / np.maximum(np.maximum(1.0, 0.5 * ex), 0.5 * ey)
    return (np.column_stack([x, y]).reshape(-1), np.column_stack([y, x]).reshape(-1),
            np.repeat(w, 2))


def family_flows(t: FamilyTables, members: Sequence[Sequence[str]], pattern: str
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """`families.family_traffic`'s flows as (source NIC, destination NIC, weight) columns, in
    its order; None for a pattern it does not list as flows or GPUs the tables lack."""
    if pattern not in ("ring", "tree", "p2p"):
        return None
    found = _islands(t, members)
    if found is None:
        return None
    rows, slot, n_g, start, sizes = found
    if pattern == "p2p":
        src, dst = _p2p(t, rows, n_g, sizes)
        return src, dst, np.ones(len(src))
    listed, cnt, off = _rail_nics(t, rows, slot, int(n_g.sum()))
    m_g = np.zeros(len(n_g), dtype=_I)
    if len(cnt):
        np.maximum.at(m_g, np.repeat(np.arange(len(n_g), dtype=_I), n_g), cnt)
    if pattern == "ring":
        src, dst = _ring(listed, cnt, off, n_g, start, m_g)
        return src, dst, np.ones(len(src))
    return _tree_flows(t, listed, cnt, off, n_g, start, m_g)


def peak_of_flows(t: FamilyTables, src: np.ndarray, dst: np.ndarray, w: np.ndarray
                  ) -> tuple[float, tuple[str, str, str] | None]:
    """`loads.route` of the flows, then `LinkLoads.peak`: the largest utilisation and its link,
    the first of equals in the plain list's order."""
    n_nic, n_key, flows = t.n_nic, t.n_key, len(src)
    amount = w * t.rate[src]
    busier = np.maximum(np.bincount(src, amount, minlength=n_nic),
                        np.bincount(dst, amount, minlength=n_nic))
    never = np.iinfo(_I).max
    rank = np.full(n_nic + n_key + 1, never, dtype=_I)
    sent, first = np.unique(src, return_index=True)
    rank[sent] = first
    got, first = np.unique(dst, return_index=True)
    only = rank[got] == never
    rank[got[only]] = flows + first[only]
    # each flow split over both ends' uplinks, summed per (leaf, leaf) pair
    ns, nd = t.split_len[src], t.split_len[dst]
    f, k = _within(ns * nd)
    i, j = k // nd[f], k % nd[f]
    at_a, at_b = t.split_off[src[f]] + i, t.split_off[dst[f]] + j
    la, lb = t.split_leaf[at_a], t.split_leaf[at_b]
    keep = la != lb
    part = amount[f[keep]] * t.split_frac[at_a[keep]] * t.split_frac[at_b[keep]]
    number, first = _first_order(la[keep] * t.n_leaf + lb[keep])
    pair = np.bincount(number, part, minlength=len(first))
    ca, cb = t.chains[la[keep][first]], t.chains[lb[keep][first]]
    meets = (ca == cb) & (ca >= 0)
    meet = np.where(meets.any(axis=1), np.argmax(meets, axis=1), 0)
    p, tier = _within(meet)
    loads = []
    for chains in (ca, cb):  # up (climbing out of the source's domains), then down
        key = chains[p, tier]
        key = np.where(key < 0, n_key, key)
        loads.append(np.bincount(key, pair[p], minlength=n_key + 1))
        seen, first = np.unique(key, return_index=True)
        fresh = rank[n_nic + seen] == never
        rank[n_nic + seen[fresh]] = 2 * flows + (len(key) if loads[1:] else 0) + first[fresh]
    load = np.concatenate([busier, np.maximum(loads[0], loads[1])])
    x = load[t.row_src] * t.row_p / t.row_q
    u = x * t.row_c / t.row_d / t.row_c
    u = np.where(u > 0, u, 0.0)
    best = float(u.max()) if len(u) else 0.0
    if not best > 0:
        return 0.0, None
    tied = np.flatnonzero(u == best)
    return best, t.label(int(tied[np.argmin(rank[t.row_src[tied]])]))


def peak_arrays(topo: Topology, index: FabricIndex,
                members: Sequence[Sequence[str]], pattern: str
                ) -> tuple[float, tuple[str, str, str] | None] | None:
    """`route(topo, index, family_traffic(topo, members, pattern)).peak(topo, index)` by
    arrays; None where the plain path must answer (all-to-all traffic, unknown GPUs, a link
    list the plain code would divide by zero over)."""
    tables = FamilyTables.of(topo, index)
    if not tables.ok:
        return None
    flows = family_flows(tables, members, pattern)
    if flows is None:
        return None
    return peak_of_flows(tables, *flows)


__all__ = ["FamilyTables", "family_flows", "peak_arrays", "peak_of_flows"]
