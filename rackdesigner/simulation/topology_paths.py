"""The paths a `Topology` finds once its links are read: each GPU's nearest NICs over host
links and its primary NIC (the rail), and the scale-out fabric as switch tiers with capacity
down and up per switch and the domains per tier. A part of `Topology` (`topology.py`)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from rackdesigner.model import natural_key
from rackdesigner.vocabulary import Traits

_DIGITS = "0123456789"


@dataclass
class NicPath:
    nic: str
    raw: float  # bottleneck of the GPU -> NIC host path, GB/s per direction
    eff: float



class TopologyPaths:
    """The path-finding part of `Topology`."""

    traits: dict[str, Traits]
    gpus: list[str]
    host_adj: dict[str, list[tuple[str, float, float]]]
    nic_up: dict[str, dict[str, float]]
    sw_adj: dict[str, dict[str, float]]
    sw_nics: dict[str, list[str]]
    gpus_near_nic: set[str]
    gpu_nics: dict[str, list[NicPath]]
    nic_users: dict[str, list[str]]
    primary_nic: dict[str, str]
    tier: dict[str, int]
    up_cap: dict[str, float]
    down_cap: dict[str, float]
    domains: list[dict[str, str]]

    def find_nics(self, known: dict[str, tuple[list[NicPath], bool, tuple[str, ...]]]
                   | None = None) -> None:
        """Each GPU's nearest network-connected NICs over host links (not through GPUs/NICs),
        and its primary NIC (the rail): GPUs that tie on the same NICs take them in turn.
        `known`: GPUs whose (paths, near a NIC, NIC names) are known already (a degraded
        design's GPUs that no failure reached, `topology_delta.py`)."""
        traits, host_adj, nic_up = self.traits, self.host_adj, self.nic_up
        gpu_nics, nic_users, primary, near_nic = (self.gpu_nics, self.nic_users,
                                                  self.primary_nic, self.gpus_near_nic)
        # the search depends only on the GPU's own host links (it never goes through a GPU), so
        # GPUs behind the same PCIe switch share one search
        memo: dict[tuple, tuple[list[NicPath], bool, tuple[str, ...]]] = {}
        turn: dict[tuple[str, ...], int] = defaultdict(int)
        for gpu in self.gpus:
            key = tuple(host_adj.get(gpu, ()))
            hit = memo.get(key) if known is None else (known.get(gpu) or memo.get(key))
            if hit is None:
                hit = memo[key] = self._search_nics(gpu, traits, host_adj, nic_up)
            found, near, names = hit
            if near:
                near_nic.add(gpu)
            gpu_nics[gpu] = list(found)
            for nic in names:
                nic_users[nic].append(gpu)
            if names:
                primary[gpu] = names[turn[names] % len(names)]
                turn[names] += 1

    @staticmethod
    def _search_nics(gpu: str, traits: dict, host_adj: dict, nic_up: dict
                     ) -> tuple[list[NicPath], bool, tuple[str, ...]]:
        """Breadth-first over host links from `gpu`: the NICs of the first level that has any
        cabled NIC (natural order), whether any NIC (cabled or not) is that near, their names."""
        found: list[NicPath] = []
        near = False
        frontier = [(gpu, float("inf"), float("inf"))]
        seen = {gpu}
        depth = 0
        while frontier and not found and depth < 6:
            depth += 1
            nxt = []
            for node, raw_b, eff_b in frontier:
                for nbr, raw, eff in host_adj.get(node, ()):
                    if nbr in seen:
                        continue
                    seen.add(nbr)
                    t = traits[nbr]
                    r = raw if raw < raw_b else raw_b
                    e = eff if eff < eff_b else eff_b
                    if t.endpoint:
                        near = True
                        if nic_up.get(nbr):
                            found.append(NicPath(nbr, r, e))
                    elif not t.computes:
                        nxt.append((nbr, r, e))
            frontier = nxt
        if len(found) == 2:  # two NICs behind one PCIe switch: the common case
            a, b = found[0].nic, found[1].nic
            # "….nic0" and "….nic1" (equal but for a last digit: the same digit runs, the last
            # one's number decided by that digit) without two keys made for 16k NICs
            if (len(a) == len(b) and a[-1] in _DIGITS and b[-1] in _DIGITS
                    and a[:-1] == b[:-1]):
                if b[-1] < a[-1]:
                    found.reverse()
            elif natural_key(b) < natural_key(a):
                found.reverse()
        elif len(found) > 2:
            found.sort(key=lambda p: natural_key(p.nic))
        return found, near, tuple(p.nic for p in found)

    def build_tiers(self) -> None:
        """Leaf = tier 1 (a switch with NICs); higher tiers by BFS over switch links."""
        tier = self.tier
        frontier = [s for s in self.sw_nics]
        for s in frontier:
            tier[s] = 1
        level = 1
        while frontier:
            level += 1
            nxt = []
            for s in frontier:
                for nbr in self.sw_adj.get(s, ()):
                    if nbr not in tier:
                        tier[nbr] = level
                        nxt.append(nbr)
            frontier = nxt
        for s, t in tier.items():
            down = sum(self.nic_up[n][s] for n in set(self.sw_nics.get(s, ())))
            up = 0.0
            for nbr, cap in self.sw_adj.get(s, {}).items():
                tn = tier.get(nbr)
                if tn is None:
                    continue
                if tn < t:
                    down += cap
                elif tn > t:
                    up += cap
            self.down_cap[s] = down
            self.up_cap[s] = up
        top = max(tier.values(), default=0)
        leaves = list(self.sw_nics)
        by_tier: dict[int, list[str]] = defaultdict(list)
        for s, t in tier.items():
            by_tier[t].append(s)
        # `UnionFind.union` over the switch links, inlined (25,000 unions of 52,000 finds at
        # 16k GPUs, a third of this method as calls): a set's root follows from the sequence
        # of joins alone (`union`'s parent[root a] = root b), whatever paths a find shortens,
        # so the domains are `UnionFind`'s (tests/test_topology_columns.py compares them)
        parent: dict[str, str] = {}
        get = parent.get
        for t in range(1, top + 1):
            for s in by_tier.get(t, ()):
                for nbr in self.sw_adj.get(s, ()):
                    if tier.get(nbr, top + 1) <= t:
                        ra = s
                        while (p := get(ra, ra)) != ra:
                            ra = p
                        rb = nbr
                        while (p := get(rb, rb)) != rb:
                            rb = p
                        if ra != rb:
                            parent[ra] = rb
                        if s != ra:  # the next find of `s` and `nbr` in one step
                            parent[s] = rb
                        if nbr != rb:
                            parent[nbr] = rb
            domain = {}
            for leaf in leaves:
                root = leaf
                while (p := get(root, root)) != root:
                    root = p
                domain[leaf] = root
            self.domains.append(domain)

    # ---- queries ------------------------------------------------------------------------------
