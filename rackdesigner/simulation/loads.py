"""Stage 5 of the simulation: link loads (`LinkLoads`) of a collective's traffic on the fabric.

Routing assumed: shortest up/down paths (a flow climbs from its leaf only as high as the first
tier whose switch domain holds both ends, then descends), with **ECMP spreading every domain's
upward traffic over all of the domain's uplinks in proportion to their capacity** (and the
traffic entering a domain from above over the same links, downward). That is ideal per-packet
or adaptive-routing spreading; static per-flow hashing can collide and do worse, which this model
does not show. A NIC cabled to several switches splits its traffic by port capacity.

Loads are kept per switch domain and tier (`up`, `down`: GB/s), which is all a fat tree's
uplinks need, so the cost is linear in flows (ring, tree) or in NICs x tiers (all-to-all); the
per-physical-link list is expanded only on request (`entries`). Loads are for flows pushing
their NICs at full rate: a link's `utilisation` above 1 means the flows crossing it can only
reach 1 / utilisation of their NIC rate, which is the routed factor the collective model uses.
"""

from __future__ import annotations

import weakref
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from rackdesigner.model import natural_key
from rackdesigner.simulation.topology import Topology
from rackdesigner.simulation.traffic import Traffic


@dataclass(frozen=True)
class FabricIndex:
    """Switch domains per tier and their uplinks (built once per topology)."""

    top: int
    dom_of: dict  # (tier, switch) -> domain id (tier-t domain of a tier-t switch)
    uplinks: dict  # (tier, domain) -> [(switch, upper switch, GB/s)]
    up_cap: dict  # (tier, domain) -> GB/s

    @classmethod
    def of(cls, topo: Topology) -> FabricIndex:
        """`build(topo)`, computed once per topology object and shared while it lives (a
        topology is not changed after it is built; every group evaluation of an estimate, the
        routed scope and the job heat map read the same one)."""
        key = id(topo)
        held = _INDEXES.get(key)
        if held is not None and held[0]() is topo:
            return held[1]
        index = cls.build(topo)

        def forget(_ref: weakref.ref, k: int = key) -> None:
            _INDEXES.pop(k, None)

        _INDEXES[key] = (weakref.ref(topo, forget), index)
        return index

    @classmethod
    def build(cls, topo: Topology) -> FabricIndex:
        top = len(topo.domains)
        rep: dict[str, str] = {leaf: leaf for leaf in topo.sw_nics}
        by_tier: dict[int, list[str]] = defaultdict(list)
        for s, t in topo.tier.items():
            by_tier[t].append(s)
        dom_of: dict[tuple[int, str], str] = {}
        for t in range(1, top + 1):
            for s in sorted(by_tier.get(t, ()), key=natural_key):
                if s not in rep:
                    below = next((n for n in topo.sw_adj.get(s, ()) if topo.tier.get(n) == t - 1
                                  and n in rep), None)
                    if below is None:
                        continue
                    rep[s] = rep[below]
                dom_of[(t, s)] = topo.domains[t - 1].get(rep[s], rep[s])
        uplinks: dict[tuple[int, str], list] = defaultdict(list)
        up_cap: dict[tuple[int, str], float] = defaultdict(float)
        for (t, s), dom in dom_of.items():
            for nbr, cap in topo.sw_adj.get(s, {}).items():
                if topo.tier.get(nbr) == t + 1:
                    uplinks[(t, dom)].append((s, nbr, cap))
                    up_cap[(t, dom)] += cap
        return cls(top, dom_of, dict(uplinks), dict(up_cap))

    def chain(self, topo: Topology, leaf: str) -> list[str | None]:
        """The leaf's domain at tiers 1 .. top."""
        return [topo.domains[t - 1].get(leaf) for t in range(1, self.top + 1)]


_INDEXES: dict[int, tuple[weakref.ref, FabricIndex]] = {}


@dataclass(frozen=True, slots=True)
class NetworkLinks:
    """What a load list is read against (`LinkLoads.entries`): each NIC's uplinks and the
    links of each end pair — a topology's `nic_up` and `net_links`, held without the rest of
    the topology (a result's link list is made on first use, long after the simulation)."""

    nic_up: dict[str, dict[str, float]]
    net_links: dict[tuple[str, str], list[tuple[str, float]]]

    @classmethod
    def of(cls, topo: Topology) -> NetworkLinks:
        return cls(topo.nic_up, topo.net_links)


class LinkLoad(NamedTuple):
    """One physical link's load for a collective (GB/s per direction, the busier direction).
    A named tuple: a 16k-GPU design lists about 40,000 of them."""

    link: str
    a: str
    b: str
    load_GBps: float
    capacity_GBps: float

    @property
    def utilisation(self) -> float:
        return self.load_GBps / self.capacity_GBps if self.capacity_GBps > 0 else 0.0

    def to_dict(self) -> dict:
        return {"link": self.link, "a": self.a, "b": self.b,
                "load_GBps": round(self.load_GBps, 3),
                "capacity_GBps": round(self.capacity_GBps, 3),
                "utilisation": round(self.utilisation, 4)}


@dataclass(frozen=True)
class LinkLoads:
    """Loads of one traffic pattern at full NIC rate (see module docstring)."""

    pattern: str
    nic_out: dict = field(default_factory=dict)  # NIC -> GB/s sent
    nic_in: dict = field(default_factory=dict)
    up: dict = field(default_factory=dict)  # (tier, domain) -> GB/s leaving upward
    down: dict = field(default_factory=dict)  # (tier, domain) -> GB/s entering from above
    unrouted_GBps: float = 0.0

    def fabric_utilisation(self, index: FabricIndex) -> tuple[float, tuple[int, str] | None]:
        """Largest utilisation of any switch-to-switch link, and its (tier, domain); among
        equally loaded domains the first in tier and natural name order (the same every run)."""
        worst, where = 0.0, None
        keys = set(self.up) | set(self.down)
        for key in sorted(keys, key=lambda k: (k[0], natural_key(k[1]))):
            cap = index.up_cap.get(key, 0.0)
            load = max(self.up.get(key, 0.0), self.down.get(key, 0.0))
            util = load / cap if cap > 0 else (float("inf") if load > 0 else 0.0)
            if util > worst:
                worst, where = util, key
        return worst, where

    def factor(self, index: FabricIndex) -> float:
        """Share of NIC rate the flows keep after the fabric (1 when no link is overloaded)."""
        util, _ = self.fabric_utilisation(index)
        return 1.0 / util if util > 1.0 else 1.0

    def scaled(self, rate: float) -> LinkLoads:
        """The same loads with every flow at `rate` x its NIC rate."""
        def sc(d: dict) -> dict:
            return {k: v * rate for k, v in d.items()}
        return LinkLoads(self.pattern, sc(self.nic_out), sc(self.nic_in), sc(self.up),
                         sc(self.down), self.unrouted_GBps * rate)

    def entries(self, topo: Topology | NetworkLinks, index: FabricIndex) -> Iterator[LinkLoad]:
        """Every loaded network link (NIC-leaf, switch-switch), split over parallel links,
        read against a topology or its `NetworkLinks`."""
        nic_in = self.nic_in
        for nic in (*self.nic_out, *(x for x in nic_in if x not in self.nic_out)):
            ups = topo.nic_up.get(nic, {})
            total = sum(ups.values())
            for sw, cap in ups.items():
                share = cap / total if total else 0.0
                load = max(self.nic_out.get(nic, 0.0), nic_in.get(nic, 0.0)) * share
                yield from _split(topo, (nic, sw), load, cap)
        for key in (*self.up, *(k for k in self.down if k not in self.up)):
            cap_total = index.up_cap.get(key, 0.0)
            if cap_total <= 0:
                continue
            load = max(self.up.get(key, 0.0), self.down.get(key, 0.0))
            for s, upper, cap in index.uplinks.get(key, ()):
                yield from _split(topo, (s, upper) if s < upper else (upper, s),
                                  load * cap / cap_total, cap)


    def count(self, topo: Topology | NetworkLinks, index: FabricIndex) -> int:
        """How many `entries` there are, without making them (`simulate --json` writes the
        count; the list only with `--link-loads`: 222,208 entries made to be counted took
        0.45 s at 102,400 GPUs)."""
        net_links = topo.net_links
        nic_in = self.nic_in
        n = 0
        for nic in (*self.nic_out, *(x for x in nic_in if x not in self.nic_out)):
            for sw in topo.nic_up.get(nic, {}):
                n += len(net_links.get((nic, sw), ()))
        for key in (*self.up, *(k for k in self.down if k not in self.up)):
            if index.up_cap.get(key, 0.0) <= 0:
                continue
            for s, upper, _ in index.uplinks.get(key, ()):
                n += len(net_links.get((s, upper) if s < upper else (upper, s), ()))
        return n

    def peak(self, topo: Topology | Any, index: FabricIndex
             ) -> tuple[float, tuple[str, str, str] | None]:
        """The largest utilisation among `entries` and its link (id, end, end): the same values
        in the same order, first of equals kept, without building ~100k entries at 16k GPUs."""
        best, where = 0.0, None
        net_links = topo.net_links

        def visit(key: tuple[str, str], load: float, cap: float) -> None:
            nonlocal best, where
            links: Sequence[tuple[str, float]] = net_links.get(key, ())
            if len(links) == 1:
                link_id, c = links[0]
                value = load * c / (c or cap or 1.0)
                u = value / c if c > 0 else 0.0
                if u > best:
                    best, where = u, (link_id, key[0], key[1])
                return
            total = sum(c for _, c in links) or cap
            for link_id, c in links:
                value = load * c / total
                u = value / c if c > 0 else 0.0
                if u > best:
                    best, where = u, (link_id, key[0], key[1])

        nic_out, nic_in = self.nic_out, self.nic_in
        # per NIC, (switch, share, capacity, cables) of each uplink: the same for every
        # pattern routed on this topology, so made once per NIC and kept in its memo
        rows_of: dict[str, _UplinkRows] | None = topo.memo.get("nic_uplinks")
        if rows_of is None:
            rows_of = topo.memo["nic_uplinks"] = {}
        for nic in (*nic_out, *(x for x in nic_in if x not in nic_out)):
            rows = rows_of.get(nic)
            if rows is None:
                rows = rows_of[nic] = _uplink_rows(topo, nic)
            busier = max(nic_out.get(nic, 0.0), nic_in.get(nic, 0.0))
            for sw, share, cap, links in rows:
                load = busier * share
                if len(links) != 1:
                    visit((nic, sw), load, cap)
                    continue
                link_id, c = links[0]  # `visit` written out for a NIC's one cable (16k times)
                u = load * c / (c or cap or 1.0) / c if c > 0 else 0.0
                if u > best:
                    best, where = u, (link_id, nic, sw)
        for key in (*self.up, *(k for k in self.down if k not in self.up)):
            cap_total = index.up_cap.get(key, 0.0)
            if cap_total <= 0:
                continue
            load = max(self.up.get(key, 0.0), self.down.get(key, 0.0))
            for sw, upper, cap in index.uplinks.get(key, ()):
                visit((sw, upper) if sw < upper else (upper, sw), load * cap / cap_total, cap)
        return best, where


#: (switch, share of the NIC's load, capacity, its cables) per switch a NIC is cabled to
_UplinkRows = tuple[tuple[str, float, float, Sequence[tuple[str, float]]], ...]


def _uplink_rows(topo: Topology | Any, nic: str) -> _UplinkRows:
    """(switch, share of the NIC's load, capacity, its cables) per network port group a NIC
    is cabled to (`LinkLoads.peak`)."""
    ups = topo.nic_up.get(nic, {})
    total = topo.nic_raw(nic)  # sum(ups.values()), made once per NIC
    net_links = topo.net_links
    return tuple((sw, cap / total if total else 0.0, cap, net_links.get((nic, sw), ()))
                 for sw, cap in ups.items())


def _split(topo: Topology | NetworkLinks, key: tuple[str, str], load: float,
           cap: float) -> Iterator[LinkLoad]:
    links: Sequence[tuple[str, float]] = topo.net_links.get(key, ())
    if len(links) == 1:
        link_id, c = links[0]
        yield LinkLoad(link_id, key[0], key[1], load * c / (c or cap or 1.0), c)
        return
    total = sum(c for _, c in links) or cap
    for link_id, c in links:
        yield LinkLoad(link_id, key[0], key[1], load * c / total, c)


def route(topo: Topology, index: FabricIndex, traffic: Traffic) -> LinkLoads:
    """Loads of `traffic` with every flow at its source NIC's full rate."""
    nic_out: dict[str, float] = defaultdict(float)
    nic_in: dict[str, float] = defaultdict(float)
    up: dict[tuple[int, str], float] = defaultdict(float)
    down: dict[tuple[int, str], float] = defaultdict(float)
    unrouted = 0.0
    chains: dict[str, list] = {}

    def chain(leaf: str) -> list:
        c = chains.get(leaf)
        if c is None:
            c = chains[leaf] = index.chain(topo, leaf)
        return c

    raw = topo.nic_raw_known()  # shared by every pattern routed on this topology

    def nic_rate(nic: str) -> float:
        r = raw.get(nic)
        return topo.nic_raw(nic) if r is None else r

    split = topo.nic_split

    if traffic.uniform_rails:
        for rail in traffic.rails:
            count = len(rail)
            if count < 2:
                continue
            rates = {nic: nic_rate(nic) for nic in rail}
            for nic in rail:
                nic_out[nic] += rates[nic]
                nic_in[nic] += rates[nic]
            chains_of = [(nic, chain(leaf) if leaf else None)
                         for nic, leaf in ((x, topo.leaf_of(x)) for x in rail)]
            for t in range(1, index.top + 1):
                members: dict[str, list[str]] = defaultdict(list)
                for nic, ch in chains_of:
                    dom = ch[t - 1] if ch is not None else None
                    if dom is not None:
                        members[dom].append(nic)
                if len(members) <= 1:
                    break
                for dom, nics in members.items():
                    outside = (count - len(nics)) / (count - 1)
                    amount = sum(rates[x] for x in nics) * outside
                    up[(t, dom)] += amount
                    down[(t, dom)] += amount
        return LinkLoads(traffic.pattern, dict(nic_out), dict(nic_in), dict(up), dict(down))
    splits: dict[str, list[tuple[str, float]]] = {}
    pair_load: dict[tuple[str, str], float] = defaultdict(float)
    for src, dst, weight in traffic.flows:  # the hot loop: 400,000 tree flows at 100k GPUs
        rate = raw.get(src)
        if rate is None:
            rate = topo.nic_raw(src)
        amount = weight * rate
        nic_out[src] += amount
        nic_in[dst] += amount
        sa = splits.get(src)
        if sa is None:
            sa = splits[src] = split(src)
        sb = splits.get(dst)
        if sb is None:
            sb = splits[dst] = split(dst)
        if len(sa) == 1 and len(sb) == 1:  # one uplink each (a rail NIC)
            (la, fa), (lb, fb) = sa[0], sb[0]
            if la != lb:
                pair_load[(la, lb)] += amount * fa * fb
            continue
        for la, fa in sa:
            for lb, fb in sb:
                if la != lb:
                    pair_load[(la, lb)] += amount * fa * fb
    top = index.top
    for (la, lb), part in pair_load.items():
        ca, cb = chain(la), chain(lb)
        meet = next((t for t in range(top) if ca[t] is not None and ca[t] == cb[t]), None)
        if meet is None:
            unrouted += part
            continue
        for t in range(meet):  # tiers 1 .. meet: climb out of each domain below it
            up[(t + 1, ca[t])] += part
            down[(t + 1, cb[t])] += part
    return LinkLoads(traffic.pattern, dict(nic_out), dict(nic_in), dict(up), dict(down),
                     unrouted)
