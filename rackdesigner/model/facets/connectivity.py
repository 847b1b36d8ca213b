"""The connectivity facet: islands (devices joined by NVLink and host links: a node, an NVL72
rack), NVLink domains and components (islands joined by the compute fabric's network links),
with the GPUs in natural order (`Connectivity`).

Forms (`facets/protocol.Facet`): plain (`connect`: unions over the carried links), NumPy
(`connect_arrays`: label propagation over the link columns, each set named by its first
device), evolved (`connectivity_evolved`: the islands holding a changed object joined again
from their members' own links, components labelled again when the network or an island
changed) and degraded (`connectivity_without`: the islands that lost a device or a link joined
again from their survivors' links, components again over the network links between islands
when a network link went or an island split). The partitions are equal; the member naming a
set may differ, which no reader depends on (they compare roots, never show them).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rackdesigner.model.facets.changes import dirty_devices, wiring
from rackdesigner.model.facets.protocol import PlainFacet, partition
from rackdesigner.model.index_values import (
    HOST_PROTOCOLS,
    NETWORK_PROTOCOLS,
    NVLINK,
    Connectivity,
    UnionFind,
)
from rackdesigner.vocabulary import joins_compute

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex
    from rackdesigner.model.linktable import LinkTable


def connect(index: DesignIndex) -> Connectivity:
    """Islands, NVLink domains and components by unions over the carried links."""
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

    traits = index.traits()
    for c in index.carried():
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
    spec_of = index.all_specs()
    island_parent, nvl_parent, conn_parent = island.parent, nvl.parent, conn.parent
    nvl_find, conn_find = nvl.find, conn.find
    for device_id in index.state.device_order:
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


def connect_arrays(table: LinkTable) -> Connectivity:
    """`connect`: islands (NVLink and host links), NVLink domains and
    components (islands joined by network links), each set named by its first device."""
    import numpy as np

    from rackdesigner.model.layout import natural_key
    from rackdesigner.model.linktable import components, pick

    n = len(table.ids)
    nvl = table.edges(NVLINK)
    host = table.edges(HOST_PROTOCOLS)
    net_a, net_b = table.edges(NETWORK_PROTOCOLS, joining=True)
    island = components(n, np.concatenate((nvl[0], host[0])),
                        np.concatenate((nvl[1], host[1])))
    nvlink = components(n, *nvl)
    component = components(n, island[net_a], island[net_b], start=island)
    ids = table.ids
    known = np.flatnonzero(table.known).tolist()
    keys = ids if len(known) == n else pick(ids, known)

    def named(label: np.ndarray) -> dict[str, str]:
        roots = label.tolist() if len(known) == n else label[table.known].tolist()
        return dict(zip(keys, pick(ids, roots), strict=True))

    gpus = pick(ids, np.flatnonzero(table.is_gpu & table.known).tolist())
    gpus.sort(key=natural_key)
    return Connectivity(named(island), named(nvlink), named(component), tuple(gpus))


def connectivity_evolved(index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                         ) -> Connectivity:
    """`index`'s islands, NVLink domains and components from `base`'s."""
    ch = wiring(index, base, touched)
    src = base.connectivity()
    state = index.state
    if not ch.devices and not ch.links:
        return src
    dirty = dirty_devices(index, base, ch)
    gone = {d for d in ch.devices_gone | ch.models_changed if index.spec(d) is None}
    island_of, island_split = _regroup(index, base, src.island_of, dirty, gone, joins_island)
    nvlink_of, _ = _regroup(index, base, src.nvlink_domain_of, dirty, gone, joins_nvlink)
    before = base.state.links
    network = any(base.protocol(before[i]) in NETWORK_PROTOCOLS
                  for i in ch.links_gone | ch.links_changed)
    network = network or any(index.protocol(state.links[i]) in NETWORK_PROTOCOLS
                             for i in ch.links_new | ch.links_changed)
    if network or island_split or ch.devices_gone or ch.devices_new or ch.models_changed:
        component_of = components_of_islands(index, island_of)
    else:  # the same islands, joined by the same network links: the same components
        component_of = dict(src.component_of)
    gpu_changes = {d for d in ch.devices if index.device_traits(d).computes
                   or base.device_traits(d).computes}
    gpus = src.gpus
    if gpu_changes:
        from rackdesigner.model.layout import natural_key

        kept = [g for g in src.gpus if g not in gpu_changes]
        kept += [g for g in gpu_changes if index.device_traits(g).computes]
        gpus = tuple(sorted(kept, key=natural_key))
    return Connectivity(island_of, nvlink_of, component_of, gpus)


def group(index: DesignIndex, seeds: set[str], joins) -> set[str]:
    """The devices joined to `seeds` by links of `index`'s state whose protocol `joins`
    (a search from each seed: the size of their groups, not of the design)."""
    state = index.state
    links, link_ids_of, devices = state.links, state.link_ids_of, state.devices
    found = {d for d in seeds if d in devices}
    queue = deque(found)
    while queue:
        device = queue.popleft()
        for link_id in link_ids_of(device):
            link = links[link_id]
            other = link.b.device if link.a.device == device else link.a.device
            if other not in found and joins(index.protocol(link)):
                found.add(other)
                queue.append(other)
    return found


def _regroup(index: DesignIndex, base: DesignIndex, root_of: dict[str, str],
             dirty: set[str], gone: set[str], joins) -> tuple[dict[str, str], bool]:
    """`root_of` with the groups holding a `dirty` device joined again (from the new
    state's links whose protocol `joins`); whether the devices in both states are grouped
    otherwise than before."""
    state = index.state
    earlier = group(base, {d for d in dirty if d in root_of}, joins)
    members = earlier | group(index, dirty, joins)
    inside = {d for d in members if d in state.devices and d not in gone
              and index.spec(d) is not None}
    out = dict(root_of)
    for device in members:
        if device not in inside:
            out.pop(device, None)
    uf = joined_inside(index, inside, inside, joins)
    old_groups: dict[str, set[str]] = {}
    new_groups: dict[str, set[str]] = {}
    for device in inside:
        root = uf.find(device)
        out[device] = root
        new_groups.setdefault(root, set()).add(device)
        if device in root_of:
            old_groups.setdefault(root_of[device], set()).add(device)
    regrouped = ({frozenset(g) for g in old_groups.values()}
                 != {frozenset(g) for g in new_groups.values()})
    return out, regrouped


def joins_island(protocol: str | None) -> bool:
    return protocol == NVLINK or protocol in HOST_PROTOCOLS


def joins_nvlink(protocol: str | None) -> bool:
    return protocol == NVLINK


def connectivity_without(index: DesignIndex, source: DesignIndex, failed: Any) -> Connectivity:
    """`index`'s connectivity (its state is `source`'s without `failed.devices` and
    `failed.links`), from `source`'s."""
    src = source.connectivity()
    gone: frozenset[str] = failed.devices
    island_touched: set[str] = set()
    nvlink_touched: set[str] = set()
    network_lost = False
    for device in gone:
        root = src.island_of.get(device)
        if root is not None:
            island_touched.add(root)
            nvlink_touched.add(src.nvlink_domain_of[device])
    links = source.state.links
    for link_id in failed.links:
        link = links.get(link_id)
        if link is None or link.a.device == link.b.device:
            continue
        protocol = source.protocol(link)
        a, b = link.a.device, link.b.device
        if protocol == NVLINK or protocol in HOST_PROTOCOLS:
            for end in (a, b):
                if end in src.island_of:
                    island_touched.add(src.island_of[end])
                    if protocol == NVLINK:
                        nvlink_touched.add(src.nvlink_domain_of[end])
        elif protocol in NETWORK_PROTOCOLS:
            network_lost = True
    island_of, split = _rejoin(index, src.island_of, island_touched, gone,
                               lambda p: p == NVLINK or p in HOST_PROTOCOLS)
    nvlink_of, _ = _rejoin(index, src.nvlink_domain_of, nvlink_touched, gone,
                           lambda p: p == NVLINK)
    if network_lost or split:
        component_of = components_of_islands(index, island_of)
    else:
        component_of = _minus(src.component_of, gone)
    gpus = tuple(g for g in src.gpus if g not in gone)
    return Connectivity(island_of, nvlink_of, component_of, gpus)


def joined_inside(index: DesignIndex, order: Iterable[str], inside: set[str],
                  joins: Callable[[str | None], bool]) -> UnionFind:
    """The devices of `inside` joined by their links to each other whose protocol `joins`
    (visited in `order`, which fixes the roots)."""
    state = index.state
    links, link_ids_of = state.links, state.link_ids_of
    uf = UnionFind()
    for device in order:
        for link_id in link_ids_of(device):
            link = links[link_id]
            other = link.b.device if link.a.device == device else link.a.device
            if other in inside and other != device and joins(index.protocol(link)):
                uf.union(device, other)
    return uf


def _minus(mapping: dict[str, str], gone: Iterable[str]) -> dict[str, str]:
    out = dict(mapping)  # a copy keeps the order (the state's device order)
    for key in gone:
        out.pop(key, None)
    return out


def _rejoin(index: DesignIndex, root_of: dict[str, str], touched: set[str],
            gone: frozenset[str], joins) -> tuple[dict[str, str], bool]:
    """`root_of` without `gone`, the groups rooted in `touched` joined again from their
    surviving members' links whose protocol `joins`; and whether a group split."""
    out = _minus(root_of, gone)
    if not touched:
        return out, False
    members: dict[str, list[str]] = {}
    for device, root in root_of.items():
        if root in touched and device not in gone:
            members.setdefault(root, []).append(device)
    split = False
    for survivors in members.values():
        uf = joined_inside(index, survivors, set(survivors), joins)
        roots = set()
        for device in survivors:
            root = uf.find(device)
            out[device] = root
            roots.add(root)
        split = split or len(roots) > 1
    return out, split


def components_of_islands(index: DesignIndex, island_of: dict[str, str]) -> dict[str, str]:
    """Components: islands joined by the carried network links that join the compute fabric
    (as `connect`),
    labelled with NumPy (`linktable.components`: one Python pass over the links instead of
    two unions each)."""
    import numpy as np

    from rackdesigner.model.linktable import components

    number = {root: i for i, root in enumerate(dict.fromkeys(island_of.values()))}
    ends_a: list[int] = []
    ends_b: list[int] = []
    traits = index.traits()
    for c in index.carried():
        a, b = c.link.a.device, c.link.b.device
        if c.protocol in NETWORK_PROTOCOLS and joins_compute(traits[a], traits[b]):
            ends_a.append(number[island_of[c.link.a.device]])
            ends_b.append(number[island_of[c.link.b.device]])
    label = components(len(number), np.array(ends_a, dtype=np.int64),
                       np.array(ends_b, dtype=np.int64))
    names = list(number)
    of_root = {root: names[i] for root, i in zip(names, label.tolist(), strict=True)}
    return {device: of_root[root] for device, root in island_of.items()}


class ConnectivityFacet(PlainFacet):
    """Islands, NVLink domains, components and GPUs (`Connectivity`)."""

    name = "connectivity"

    def plain(self, index: DesignIndex) -> Connectivity:
        return connect(index)

    def arrays(self, index: DesignIndex, table: LinkTable) -> Connectivity:
        return connect_arrays(table)

    def evolved(self, index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                ) -> Connectivity:
        return connectivity_evolved(index, base, touched)

    def without(self, index: DesignIndex, source: DesignIndex, failed: Any) -> Connectivity:
        return connectivity_without(index, source, failed)

    def canonical(self, value: Connectivity) -> object:
        return (partition(value.island_of), partition(value.nvlink_domain_of),
                partition(value.component_of), value.gpus)


CONNECTIVITY = ConnectivityFacet()
