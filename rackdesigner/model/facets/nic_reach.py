"""The NIC-reach facet: devices with a host-link (PCIe, C2C) path from a NIC or DPU that does
not pass through a GPU (the GPUs in it can send to the network through that NIC).

Forms (`facets/protocol.Facet`): plain (`nic_reach`: a breadth-first search over the carried
host links), NumPy (`nic_reach_arrays`: the same search as frontier masks over the link
columns) and evolved (`nic_reach_evolved`: the earlier set outside the changed islands,
searched again inside them; the search follows host links, which never leave an island).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from rackdesigner.model.facets.changes import dirty_devices, wiring
from rackdesigner.model.facets.connectivity import group, joins_island
from rackdesigner.model.facets.protocol import PlainFacet
from rackdesigner.model.index_values import HOST_PROTOCOLS

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex
    from rackdesigner.model.linktable import LinkTable


def nic_reach(index: DesignIndex) -> frozenset[str]:
    """Devices with a host-link (PCIe, C2C) path from a NIC or DPU that does not pass
    through a GPU (the GPUs in it can send to the network through that NIC)."""
    host: dict[str, list[str]] = defaultdict(list)
    for c in index.carried():
        if c.protocol in HOST_PROTOCOLS:
            host[c.link.a.device].append(c.link.b.device)
            host[c.link.b.device].append(c.link.a.device)
    traits = index.traits()
    reached = {d for d, t in traits.items() if t.endpoint}
    _spread(list(reached), reached, host,
            lambda node: (t := traits.get(node)) is not None and t.computes)
    return frozenset(reached)


def _spread(start: Iterable[str], reached: set[str], host: Mapping[str, list[str]],
            computes: Callable[[str], bool]) -> None:
    """Add to `reached` what `start` reaches over `host` links, never through a GPU."""
    queue = deque(start)
    while queue:
        node = queue.popleft()
        if computes(node):
            continue
        for nbr in host.get(node, ()):
            if nbr not in reached:
                reached.add(nbr)
                queue.append(nbr)


def nic_reach_arrays(table: LinkTable) -> frozenset[str]:
    """`nic_reach`: devices a NIC reaches over host links, not through GPUs."""
    import numpy as np

    from rackdesigner.model.linktable import pick

    ha, hb = table.edges(HOST_PROTOCOLS)
    src, dst = np.concatenate((ha, hb)), np.concatenate((hb, ha))
    reached = table.is_nic & table.known
    frontier = reached & ~table.is_gpu
    while src.size:
        step = frontier[src] & ~reached[dst]
        new = dst[step]
        if not new.size:
            break
        reached[new] = True
        frontier = np.zeros_like(reached)
        frontier[new] = True
        frontier &= ~table.is_gpu
    return frozenset(pick(table.ids, np.flatnonzero(reached).tolist()))


def nic_reach_evolved(index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                      ) -> frozenset[str]:
    """`index`'s NIC reach from `base`'s: searched again in the changed islands only."""
    ch = wiring(index, base, touched)
    earlier = base.nic_reach()
    if not ch.devices and not ch.links:
        return earlier
    dirty = dirty_devices(index, base, ch)
    # the members of the changed islands, before and after (the search never leaves one)
    redo = group(base, dirty, joins_island) | group(index, dirty, joins_island)
    reached = set(earlier - redo)
    reached.difference_update(ch.devices_gone)
    traits = index.device_traits
    host: dict[str, list[str]] = {}
    state = index.state
    links, link_ids_of, devices = state.links, state.link_ids_of, state.devices
    redo = {d for d in redo if d in devices}
    for device in redo:
        for link_id in link_ids_of(device):
            link = links[link_id]
            other = link.b.device if link.a.device == device else link.a.device
            if other != device and index.protocol(link) in HOST_PROTOCOLS:
                host.setdefault(device, []).append(other)
    start = {d for d in redo if traits(d).endpoint}
    reached |= start
    _spread(start, reached, host, lambda node: traits(node).computes)
    return frozenset(reached)


class NicReachFacet(PlainFacet):
    """The devices a NIC reaches over host links, not through a GPU."""

    name = "nic_reach"

    def plain(self, index: DesignIndex) -> frozenset[str]:
        return nic_reach(index)

    def arrays(self, index: DesignIndex, table: LinkTable) -> frozenset[str]:
        return nic_reach_arrays(table)

    def evolved(self, index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                ) -> frozenset[str]:
        return nic_reach_evolved(index, base, touched)


NIC_REACH = NicReachFacet()
