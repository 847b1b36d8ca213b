"""Who reaches whom in a design: the connectivity facet of the index (islands, NVLink domains,
components, GPUs), NVLink domains, the devices a NIC reaches over host links, and which GPUs
reach each other (with the side fabrics that only seem to join them). A part of `DesignIndex`
(`index.py`), which holds the specs, ports, carried links and counts these read."""

from __future__ import annotations

import threading
from collections import Counter, defaultdict, deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from rackdesigner import vocabulary
from rackdesigner.catalog import DeviceSpec
from rackdesigner.model.index_values import (
    HOST_PROTOCOLS,
    NETWORK_PROTOCOLS,
    NVLINK,
    CarriedLink,
    Connectivity,
    Reachability,
    UnionFind,
)
from rackdesigner.model.items import Link
from rackdesigner.vocabulary import Traits, joins_compute

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex
    from rackdesigner.model.linktable import LinkTable
    from rackdesigner.model.state import DesignState


class IndexReach:
    """The reachability half of `DesignIndex`."""

    state: DesignState
    _lock: threading.RLock
    _connectivity: Connectivity | None
    _nic_reach: frozenset[str] | None
    _reach: Reachability | None
    _minus: tuple[DesignIndex, Any] | None

    if TYPE_CHECKING:
        def link_table(self) -> LinkTable | None: ...
        def traits(self) -> dict[str, Traits]: ...
        def carried(self) -> tuple[CarriedLink, ...]: ...
        def all_specs(self) -> dict[str, DeviceSpec | None]: ...
        def protocol(self, link: Link) -> str | None: ...
        def _evolving(self, facet: str) -> tuple[DesignIndex, dict[str, set]] | None: ...

    def connectivity(self) -> Connectivity:
        with self._lock:
            if self._connectivity is None and self._minus is not None:
                from rackdesigner.model.index_delta import connectivity_without

                source: DesignIndex = self._minus[0]
                failed = self._minus[1]
                known: IndexReach = source  # (a part of DesignIndex: its own facet)
                if known._connectivity is not None:
                    self._connectivity = connectivity_without(cast("DesignIndex", self), source,
                                                              failed)
            evolving = self._evolving("_connectivity") if self._connectivity is None else None
            if evolving is not None:
                from rackdesigner.model.index_evolve import connectivity_evolved

                self._connectivity = connectivity_evolved(cast("DesignIndex", self), *evolving)
            if self._connectivity is None:
                self._connectivity = self._connect()
            return self._connectivity

    def _connect(self) -> Connectivity:
        table = self.link_table()
        if table is not None:
            return table.connect()
        island, nvl, conn = UnionFind(), UnionFind(), UnionFind()
        network: list[tuple[str, str]] = []
        island_parent, nvl_parent = island.parent, nvl.parent

        def join(parent: dict[str, str], a: str, b: str) -> None:
            # UnionFind.union inlined (the hot loop of a large design): b's root becomes the
            # root of a's, so the roots are the ones UnionFind gives
            ra = a
            while (p := parent.get(ra, ra)) != ra:
                ra = p
            rb = b
            while (p := parent.get(rb, rb)) != rb:
                rb = p
            if ra != rb:
                parent[ra] = rb
            if a != ra:  # path compression
                parent[a] = rb
            if b != rb:
                parent[b] = rb

        traits = self.traits()
        for c in self.carried():
            a, b = c.link.a.device, c.link.b.device
            protocol = c.protocol
            if protocol == NVLINK:
                join(island_parent, a, b)
                join(nvl_parent, a, b)
            elif protocol in HOST_PROTOCOLS:
                join(island_parent, a, b)
            elif protocol in NETWORK_PROTOCOLS and joins_compute(traits[a], traits[b]):
                network.append((a, b))
        find = island.find
        for a, b in network:
            conn.union(find(a), find(b))
        island_of: dict[str, str] = {}
        nvlink_of: dict[str, str] = {}
        component_of: dict[str, str] = {}
        gpus: list[str] = []
        spec_of = self.all_specs()
        island_parent, nvl_parent, conn_parent = island.parent, nvl.parent, conn.parent
        nvl_find, conn_find = nvl.find, conn.find
        for device_id in self.state.device_order:
            spec = spec_of.get(device_id)
            if spec is None:
                continue
            # a device no link joined is its own root in every set (most of a design's NICs
            # and switches in the island and NVLink sets): no call for those
            root = find(device_id) if device_id in island_parent else device_id
            island_of[device_id] = root
            nvlink_of[device_id] = nvl_find(device_id) if device_id in nvl_parent else device_id
            component_of[device_id] = conn_find(root) if root in conn_parent else root
            if traits[device_id].computes:
                gpus.append(device_id)
        from rackdesigner.model.layout import natural_key

        gpus.sort(key=natural_key)
        return Connectivity(island_of, nvlink_of, component_of, tuple(gpus))

    def nvlink_domains(self) -> list[set[str]]:
        """GPU sets joined by NVLink (directly or through NVSwitches), largest first."""
        conn = self.connectivity()
        domains: dict[str, set[str]] = {}
        for gpu in conn.gpus:
            domains.setdefault(conn.nvlink_domain_of[gpu], set()).add(gpu)
        return sorted(domains.values(), key=len, reverse=True)

    def nic_reach(self) -> frozenset[str]:
        """Devices with a host-link (PCIe, C2C) path from a NIC or DPU that does not pass
        through a GPU (the GPUs in it can send to the network through that NIC)."""
        with self._lock:
            evolving = self._evolving("_nic_reach") if self._nic_reach is None else None
            if evolving is not None:
                prior: IndexReach = evolving[0]
                if prior._connectivity is not None:
                    from rackdesigner.model.index_evolve import nic_reach_evolved

                    self._nic_reach = nic_reach_evolved(cast("DesignIndex", self), *evolving)
            table = self.link_table() if self._nic_reach is None else None
            if table is not None:
                self._nic_reach = table.nic_reach()
            if self._nic_reach is None:
                host: dict[str, list[str]] = defaultdict(list)
                for c in self.carried():
                    if c.protocol in HOST_PROTOCOLS:
                        host[c.link.a.device].append(c.link.b.device)
                        host[c.link.b.device].append(c.link.a.device)
                traits = self.traits()
                reached = {d for d, t in traits.items() if t.endpoint}
                queue = deque(reached)
                while queue:
                    node = queue.popleft()
                    t = traits.get(node)
                    if t is not None and t.computes:
                        continue
                    for nbr in host.get(node, ()):
                        if nbr not in reached:
                            reached.add(nbr)
                            queue.append(nbr)
                self._nic_reach = frozenset(reached)
            return self._nic_reach

    def reachability(self, gpus: Iterable[str] | None = None) -> Reachability:
        """Which GPUs (all, or the given ones in the given order) can reach each other; the
        largest group wins, ties to the group whose first GPU comes first."""
        if gpus is None:
            with self._lock:
                if self._reach is None:
                    self._reach = self._reachability(self.connectivity().gpus)
                return self._reach
        return self._reachability(tuple(gpus))

    def _reachability(self, gpus: tuple[str, ...]) -> Reachability:
        component_of = self.connectivity().component_of
        comps = Counter(component_of[g] for g in gpus)
        if len(comps) <= 1:
            return Reachability(gpus, len(comps), gpus, ())
        first: dict[str, int] = {}
        for g in gpus:
            first.setdefault(component_of[g], len(first))
        best = max(comps, key=lambda c: (comps[c], -first[c]))
        reachable = tuple(g for g in gpus if component_of[g] == best)
        unreachable = tuple(g for g in gpus if component_of[g] != best)
        return Reachability(gpus, len(comps), reachable, unreachable,
                            self._side_fabrics(best, {component_of[g] for g in unreachable}))

    def _side_fabrics(self, best: str, others: set[str]) -> tuple[str, ...]:
        """The side fabrics (`vocabulary.SIDE_FABRICS`) whose network links join any of the
        components `others` to component `best`: asked only of a partitioned design, over the
        links of its storage and management devices alone (a few, at any size)."""
        component_of, traits = self.connectivity().component_of, self.traits()
        state = self.state
        joined = UnionFind()
        side: list[tuple[str, str]] = []  # (a component a side link touches, its fabric)
        for device, t in traits.items():
            if not t.side_fabric:
                continue
            for link_id in state.link_ids_of(device):
                link = state.links[link_id]
                other = link.b.device if link.a.device == device else link.a.device
                if other == device or other not in component_of:
                    continue
                if self.protocol(link) in NETWORK_PROTOCOLS:
                    joined.union(component_of[device], component_of[other])
                    side.append((component_of[device], t.fabric or ""))
        root = joined.find(best)
        if not any(joined.find(c) == root for c in others):
            return ()
        found = {fabric for c, fabric in side if joined.find(c) == root}
        return tuple(f for f in vocabulary.SIDE_FABRICS if f in found)
