"""The derived index of a degraded design, from the index of the design it was cut from.

A what-if leaves failed devices and links out of the design the simulation sees
(`model.failures.degraded`). At 32k GPUs deriving that design's index from nothing — the
carried links of 300,000 links, then islands, NVLink domains and components over all of them —
took 2-3 s per Fail or Restore; yet failing an SU or a spine changes a few islands and the
network's components, nothing else. So the degraded state's index (`DesignIndex(minus=...)`)
takes from the whole design's:

- carried and rejected links: the same tuples without the failed links (order kept);
- islands and NVLink domains: unchanged except those that lost a device or a link, which are
  joined again from their surviving members' own links;
- components: joined again over the network links between islands (80,000 links at 32k GPUs
  instead of 300,000, labelled with NumPy), or kept when no network link went and no island
  split.

The partitions equal a full derivation's (tests/test_index_delta.py); the root chosen to name
a group may differ, which no reader depends on (they compare roots, never show them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rackdesigner.model.index import (
    HOST_PROTOCOLS,
    NETWORK_PROTOCOLS,
    NVLINK,
    CarriedLink,
    Connectivity,
    UnionFind,
)
from rackdesigner.vocabulary import joins_compute

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex


def carried_without(source: DesignIndex, links: frozenset[str]
                    ) -> tuple[tuple[CarriedLink, ...], tuple[tuple[str, Any, Any], ...]]:
    """`source`'s carried and rejected links without `links` (ids), in the same order."""
    carried = source.carried()
    rejected = source.rejected()
    if not links:
        return carried, rejected
    return (tuple(c for c in carried if c.link.id not in links),
            tuple(r for r in rejected if r[1].id not in links))


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
        component_of = _components(index, island_of)
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


def _components(index: DesignIndex, island_of: dict[str, str]) -> dict[str, str]:
    """Components: islands joined by the carried network links that join the compute fabric
    (as `DesignIndex._connect`),
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
