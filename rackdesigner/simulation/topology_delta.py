"""The topology of a degraded design, from the topology of the design it was cut from.

`Topology.build` reads every link of a design: 2-3 s of a 32k-GPU SuperPOD's 5 s simulation,
paid again for every Fail, Restore and N-1 scenario although a failed SU, spine or rack
changes a few percent of it. `topology_without(source, degraded, failed, state)` builds the
same `Topology` as `Topology.build(degraded)` from `source` (the whole design's):

- devices (specs, GPUs): `source`'s without the failed devices, order kept;
- NVLink and host-link capacities are per device: a device none of whose links failed keeps
  its entries (shared with `source`: a topology is never changed once built), the others are
  read again from their surviving links, in link order, by `Topology.read_carried` itself;
- the network (NIC uplinks, switch adjacency, leaves, parallel links, lengths) is read again
  from the surviving network links (a fifth of the links at 32k GPUs) when a network link
  failed, so its orders — which the tiers, the max flow and the latency sums follow — are
  exactly a full build's; otherwise shared;
- port usage: `source`'s without the failed devices, the changed devices' counts read again;
- rule problems, connectivity (from the degraded state's index, itself derived as a delta:
  `model/index_delta.py`), NIC paths and tiers: computed as `Topology.build` does;
- `delta`: `source` and the GPUs of the islands that lost a link or a device, the only ones
  whose per-GPU figures (NVLink, NIC paths and their uplinks) can differ from `source`'s.

The one difference from a full build: a device whose first NVLink or host link failed keeps
its place in those per-device maps (a full build would list it later). Nothing iterates those
maps (readers look devices up), and tests/test_topology_delta.py checks every field of the
two topologies equal, in order where order is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.model.index import HOST_PROTOCOLS, NETWORK_PROTOCOLS, NVLINK
from rackdesigner.simulation.topology import Topology

if TYPE_CHECKING:
    from rackdesigner.model import Layout
    from rackdesigner.model.state import DesignState

#: Per-device maps filled from NVLink and host links (`Topology.read_carried`).
DEVICE_FIELDS = ("nvl_sw_raw", "nvl_sw_eff", "nvl_peer_raw", "nvl_peer_eff", "nvl_links",
                 "nvl_link_ids", "host_adj", "gpu_host_raw", "gpu_host_eff")
#: Maps filled from network links, read again whole when one failed.
NETWORK_FIELDS = ("nic_up", "sw_adj", "sw_nics", "net_links", "link_lengths",
                  "link_prop_ns_per_m")


def topology_without(source: Topology, layout: Layout, failed: Any,
                     source_state: DesignState) -> Topology:
    """`Topology.build(layout)`, where `layout` is the design of `source` (whose state is
    `source_state`) without `failed.devices` and `failed.links` (a `FailedSet`)."""
    return _without(source, layout, failed, source_state)


def _without(source: Topology, layout: Layout, failed: Any,
             source_state: DesignState) -> Topology:
    gone: frozenset[str] = failed.devices
    index = layout.index()
    topo = Topology(catalog=source.catalog)
    topo.specs = _minus(source.specs, gone)
    topo.traits = index.traits()
    topo.gpus = [g for g in source.gpus if g not in gone]
    topo.unknown_models = set(source.unknown_models)
    if any(d not in source.specs for d in gone):  # an unknown device went: is its model left?
        catalog = layout.catalog
        topo.unknown_models = {d.model for d in layout.devices() if d.model not in catalog}
    topo.cpu_vendor = source.cpu_vendor
    if any((t := source.traits.get(d)) is not None and t.hosts for d in gone):
        topo.cpu_vendor = _cpu_vendor(topo)
    topo.take_cable_specs(source)

    # which surviving devices lost a link, and whether a network link went
    old_links = source_state.links
    old_index = source_state.index(layout.catalog)  # protocols of the failed links
    touched: set[str] = set()  # surviving ends of failed links (port usage)
    host_touched: set[str] = set()  # ... of failed NVLink and host links
    network_lost = False
    for link_id in failed.links:
        link = old_links.get(link_id)
        if link is None:
            continue
        ends = [e for e in (link.a.device, link.b.device) if e not in gone]
        touched.update(ends)
        protocol = old_index.protocol(link)
        if protocol == NVLINK or protocol in HOST_PROTOCOLS:
            host_touched.update(ends)
        elif protocol in NETWORK_PROTOCOLS:
            network_lost = True

    redo: set[str] = set()  # ids of the surviving links of the devices read again
    for device in host_touched:
        redo.update(layout.state.link_ids_of(device))
    host_links, net_links = [], []
    for carried in index.carried():
        if carried.protocol in NETWORK_PROTOCOLS:
            if network_lost:
                net_links.append(carried)
        elif redo and carried.link.id in redo:
            host_links.append(carried)
    again = Topology(catalog=source.catalog, specs=topo.specs,
                     traits=topo.traits)
    again.take_cable_specs(topo, copy=False)
    again.read_carried(host_links)
    for name in DEVICE_FIELDS:
        ours = getattr(source, name).copy()  # a defaultdict stays one (same factory)
        fresh = getattr(again, name)
        for device in gone:
            ours.pop(device, None)
        for device in host_touched:
            if device in fresh:
                ours[device] = fresh[device]
            else:
                ours.pop(device, None)
        setattr(topo, name, ours)
    if network_lost:
        net = Topology(catalog=source.catalog, specs=topo.specs,
                       traits=topo.traits)
        net.take_cable_specs(topo, copy=False)
        net.read_carried(net_links)
        for name in NETWORK_FIELDS:
            setattr(topo, name, getattr(net, name))
    else:
        for name in NETWORK_FIELDS:
            setattr(topo, name, getattr(source, name))

    topo.read_rejected(index.rejected())
    # over-wired port groups: the source's, with the counts of the devices that lost a link
    # (a failure only takes links away: none appears, order kept)
    exhausted = []
    for device, group, used, ports in source.exhausted_ports:
        if device in gone:
            continue
        if device in touched:
            used = index.port_usage(device).get(group, 0)
        if used > ports:
            exhausted.append((device, group, used, ports))
    topo.exhausted_ports = tuple(exhausted)
    topo.nic_reach = index.nic_reach()
    topo.read_connectivity(index)
    topo.find_nics(_known_nics(source, topo, index, host_touched, touched))
    topo.build_tiers()
    _keep_islands(source, topo, index, touched)
    island_of = index.connectivity().island_of
    dirty = {island_of.get(d) for d in touched}
    topo.delta = (source, frozenset(g for g in topo.gpus if island_of.get(g) in dirty))
    return topo


def _keep_islands(source: Topology, topo: Topology, index, touched: set[str]) -> None:
    """`source`'s island figures that hold here: an island's figures read its GPUs' NVLink,
    host links and NIC paths, its NVSwitches and its NICs' uplinks, all of which stay as
    they were unless one of its devices lost a link or a device (`touched`); and the NIC
    paths, which are `source`'s for every GPU of such an island (`_known_nics`)."""
    island_of = index.connectivity().island_of
    dirty = {island_of.get(d) for d in touched}
    for key, island in source.island_memo.items():
        root = island_of.get(key[0])
        if root is not None and root not in dirty and all(g in island_of for g in key):
            topo.island_memo[key] = island


def _known_nics(source: Topology, topo: Topology, index, host_touched: set[str],
                touched: set[str]) -> dict:
    """GPU -> (NIC paths, near a NIC) of `source`, for the GPUs whose search cannot have
    changed: a GPU's search follows host links only, so it stays inside its island, and it
    changes only where a device lost a host link or a NIC lost its last uplink."""
    island_of = index.connectivity().island_of
    dirty = {island_of.get(d) for d in host_touched}
    dirty.update(island_of.get(d) for d in touched
                 if source.nic_up.get(d) and not topo.nic_up.get(d))
    near = source.gpus_near_nic
    paths = source.gpu_nics
    return {g: (found, g in near, tuple(p.nic for p in found)) for g in topo.gpus
            if island_of[g] not in dirty and (found := paths[g]) is not None}


def _minus(mapping: dict, gone: frozenset[str]) -> dict:
    out = dict(mapping)  # a copy keeps the order
    for key in gone:
        out.pop(key, None)
    return out


def _cpu_vendor(topo: Topology) -> str:
    """What `Topology._build` finds for the CPUs left: "amd" if any is AMD, else "intel" if
    any is Intel, else "other" (its device loop, which does not depend on the order)."""
    found = "other"
    for device, traits in topo.traits.items():
        if not traits.hosts:
            continue
        maker = topo.specs[device].manufacturer.lower()
        if "amd" in maker:
            return "amd"
        if "intel" in maker:
            found = "intel"
    return found
