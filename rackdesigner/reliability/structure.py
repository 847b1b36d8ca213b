"""What a design holds, for the failure model: how many of each failing unit, and how many GPUs
one fault of each unit stops — read from the design's own structure, never from device names.

- Parts are classed by their kind's role (`vocabulary.kind(k).role`): gpu, cpu, nvswitch,
  switch, nic (NICs and DPUs), storage.
- A *host node* is a set of devices joined by host links (PCIe, C2C): a DGX's GPUs, CPUs and
  NICs, or one compute tray of an NVL72 rack. NVLink does not join hosts (an NVL72 rack is 18
  hosts in one NVLink domain).
- What a fault stops (`library.STOPS`): `nvlink_domain` — every GPU of the NVLink domain of
  the failed part, and at least its host node's (8 on a DGX, 72 on an NVL72 rack);
  `node` — the GPUs of its host node; `attached_nodes` — the GPUs of every node with a NIC
  linked to it (a leaf: its nodes; a spine or core: none, it costs bandwidth only).
- NIC links: the network link lanes with a NIC or DPU at one end (a fault stops that NIC's
  node); those whose cable takes transceivers — or, with no cable drawn, whose ends sit in
  different racks (the default cabling's rule) — have optics to fail.

Everything is counted by unit and summed per (unit, stop): one pass over the devices and one
over the carried links, so a 100k-GPU design costs what its index costs, never a walk over
pairs of GPUs.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from rackdesigner import vocabulary
from rackdesigner.model import Layout
from rackdesigner.model.linktable import components

HOST_PROTOCOLS = vocabulary.protocols_of("host")
NETWORK_PROTOCOLS = vocabulary.protocols_of("network")


@dataclass(frozen=True)
class Blast:
    """GPUs one fault of a unit stops, over all units of that kind in the design."""

    units: float  # how many units (lanes for links)
    gpus_sum: float  # sum over units of the GPUs one fault stops
    gpus_max: int  # the largest set one fault stops
    stopping: float  # units whose fault stops at least one GPU

    @property
    def mean(self) -> float:
        """GPUs one interrupting fault stops, on average."""
        return self.gpus_sum / self.stopping if self.stopping else 0.0


@dataclass(frozen=True)
class StoragePath:
    """Where a checkpoint goes: the storage the GPUs reach and the bandwidth to write it."""

    write_GBps: float | None  # None: no storage drawn or reachable (the library's assumption)
    devices: int  # storage systems drawn
    reachable: int  # of those, reachable from the GPUs over the fabric
    appliance_GBps: float = 0.0  # their rated write throughput
    wired_GBps: float = 0.0  # their links' bandwidth
    client_GBps: float = 0.0  # the GPU hosts' NIC bandwidth
    basis: str = ""


@dataclass(frozen=True)
class Structure:
    gpus: int
    units: dict[str, float]
    blasts: dict[tuple[str, str], Blast]
    nvlink_domain_max: int
    node_gpus_max: int
    optical_share: float
    storage: StoragePath
    notes: tuple[str, ...] = field(default_factory=tuple)

    def blast(self, per: str, stops: str) -> Blast:
        return self.blasts.get((per, stops), Blast(0.0, 0.0, 0, 0.0))


def design_structure(layout: Layout) -> Structure:
    """The failure model's view of `layout` (see the module docstring)."""
    index = layout.index()
    conn = index.connectivity()
    spec_of = index.all_specs()
    role_of_kind = {k.name: k.role for k in vocabulary.KINDS.values()}
    role: dict[str, str] = {}
    for device_id, spec in spec_of.items():
        if spec is not None:
            role[device_id] = role_of_kind.get(spec.kind, "")
    ids = list(role)
    row = {d: i for i, d in enumerate(ids)}
    host_a: list[int] = []
    host_b: list[int] = []
    network = []
    for c in index.carried():
        a, b = c.link.a.device, c.link.b.device
        if a not in row or b not in row:
            continue
        if c.protocol in HOST_PROTOCOLS:
            host_a.append(row[a])
            host_b.append(row[b])
        elif c.protocol in NETWORK_PROTOCOLS:
            network.append(c)
    _join_systems(layout, ids, row, host_a, host_b)
    label = components(len(ids), np.array(host_a, dtype=np.int64),
                       np.array(host_b, dtype=np.int64)) if ids else np.zeros(0, np.int64)
    node_of = dict(zip(ids, label.tolist(), strict=True))
    gpus = [d for d in ids if role[d] == "gpu"]
    node_gpus: Counter[int] = Counter(node_of[g] for g in gpus)
    domain_gpus: Counter[str] = Counter(conn.nvlink_domain_of.get(g, g) for g in gpus)

    def domain_blast(device: str) -> int:
        """GPUs of the device's NVLink domain, at least those of its host node."""
        in_domain = domain_gpus.get(conn.nvlink_domain_of.get(device, device), 0)
        return max(in_domain, node_gpus.get(node_of[device], 0))

    def node_blast(device: str) -> int:
        return node_gpus.get(node_of[device], 0)

    by_role: dict[str, list[str]] = defaultdict(list)
    for d in ids:
        by_role[role[d]].append(d)
    # switches: the GPUs of the nodes whose NICs link to them; NIC link lanes per node
    attached: dict[str, set[int]] = defaultdict(set)
    nic_lanes: Counter[int] = Counter()
    optic_lanes: Counter[int] = Counter()
    optical = _Optics(layout)
    for c in network:
        a, b = c.link.a.device, c.link.b.device
        for nic, other in ((a, b), (b, a)):
            if role[nic] == "nic":
                nic_lanes[node_of[nic]] += c.link.count
                if optical(c.link):
                    optic_lanes[node_of[nic]] += c.link.count
                if role[other] == "switch":
                    attached[other].add(node_of[nic])
    blasts: dict[tuple[str, str], Blast] = {}

    def add(per: str, stops: str, sizes: list[int], weights: list[float] | None = None
            ) -> None:
        w = weights if weights is not None else [1.0] * len(sizes)
        blasts[(per, stops)] = Blast(float(sum(w)), float(sum(s * x for s, x in zip(
            sizes, w, strict=True))), max(sizes, default=0),
            float(sum(x for s, x in zip(sizes, w, strict=True) if s > 0)))

    for unit in ("gpu", "cpu", "nvswitch", "switch", "nic", "storage"):
        members = by_role.get(unit, [])
        add(unit, "nvlink_domain", [domain_blast(d) for d in members])
        add(unit, "node", [node_blast(d) for d in members])
        if unit == "switch":
            add(unit, "attached_nodes", [sum(node_gpus.get(n, 0) for n in attached.get(d, ()))
                                         for d in members])
        else:
            add(unit, "attached_nodes", [node_blast(d) for d in members])
    nodes = sorted(node_gpus)
    for stops in ("nvlink_domain", "node", "attached_nodes"):
        if stops == "nvlink_domain":
            first: dict[int, str] = {}
            for g in gpus:
                first.setdefault(node_of[g], g)
            sizes = [domain_blast(first[n]) for n in nodes]
        else:
            sizes = [node_gpus[n] for n in nodes]
        add("node", stops, sizes)
        sizes = [node_gpus[n] for n in nodes]
        add("nic_link", stops, sizes, [float(nic_lanes.get(n, 0)) for n in nodes])
        add("nic_optic_link", stops, sizes, [float(optic_lanes.get(n, 0)) for n in nodes])
    units = {per: blasts[(per, "node")].units for per in
             ("gpu", "cpu", "nvswitch", "switch", "nic", "storage", "node", "nic_link",
              "nic_optic_link")}
    notes = []
    gpu_nodes = {node_of[g] for g in gpus}
    storage = _storage_path(index, conn, by_role.get("storage", []), role, node_of, gpu_nodes,
                            network)
    if gpus and not nic_lanes:
        notes.append("no NIC of a GPU host is linked to a network: network faults stop no GPU")
    return Structure(len(gpus), units, blasts, max(domain_gpus.values(), default=0),
                     max(node_gpus.values(), default=0),
                     sum(optic_lanes.values()) / sum(nic_lanes.values()) if nic_lanes else 0.0,
                     storage, tuple(notes))


def _join_systems(layout: Layout, ids: list[str], row: dict[str, int], host_a: list[int],
                  host_b: list[int]) -> None:
    """Join the parts of one system instance (the innermost group whose template is a catalog
    system: a DGX, an NVL72 compute tray) as one host, whether or not host links join them
    (a DGX's two CPU sockets each have their own PCIe tree)."""
    catalog = layout.catalog
    system_of: dict[str | None, str | None] = {None: None}

    def system(group_id: str | None) -> str | None:
        chain = []
        g = group_id
        while g not in system_of:
            chain.append(g)
            group = layout.group(g) if g is not None and layout.has_group(g) else None
            if group is None:
                found = None
                break
            spec = catalog.get(group.template) if group.template and \
                group.template in catalog else None
            if spec is not None and spec.system is not None:
                found = g
                break
            g = group.parent
        else:
            found = system_of[g]
        for c in chain:
            system_of[c] = found
        return system_of[group_id]

    first: dict[str, int] = {}
    for device in layout.devices():
        i = row.get(device.id)
        if i is None or device.group is None:
            continue
        instance = system(device.group)
        if instance is not None:
            j = first.setdefault(instance, i)
            if j != i:
                host_a.append(i)
                host_b.append(j)


class _Optics:
    """Whether a link runs over optics: its cable takes transceivers (fibre) or, with no cable
    drawn, its ends sit in different racks (the default cabling: copper inside a rack, optics
    between racks, `generators/cabling.py`)."""

    def __init__(self, layout: Layout) -> None:
        self.catalog = layout.catalog
        self.devices = layout.state.devices
        self._cables: dict[str, bool] = {}

    def __call__(self, link) -> bool:
        if link.cable is not None:
            known = self._cables.get(link.cable)
            if known is None:
                spec = self.catalog.get(link.cable) if link.cable in self.catalog else None
                known = bool(spec is not None and spec.cable is not None
                             and spec.cable.transceiver)
                self._cables[link.cable] = known
            return known
        a, b = self.devices.get(link.a.device), self.devices.get(link.b.device)
        return a is not None and b is not None and a.rack != b.rack


def _storage_path(index, conn, storage: list[str], role: dict[str, str],
                  node_of: dict[str, int], gpu_nodes: set[int], network: list
                  ) -> StoragePath:
    """The write bandwidth from the GPU hosts to the storage they reach: per storage system
    the least of its rated write throughput and its links' bandwidth, summed, and no more than
    the GPU hosts' own NIC bandwidth."""
    if not storage:
        return StoragePath(None, 0, 0, basis="no storage system in the design")
    gpu_components = {conn.component_of.get(d) for d, n in node_of.items()
                      if n in gpu_nodes and role[d] == "gpu"}
    wired: Counter[str] = Counter()
    client = 0.0
    for c in network:
        gbps = min(c.a.rate_gbps, c.b.rate_gbps) * c.link.count / 8.0
        for end in (c.link.a.device, c.link.b.device):
            if role.get(end) == "storage":
                wired[end] += gbps
            elif role.get(end) == "nic" and node_of.get(end) in gpu_nodes:
                client += gbps
    reachable = [s for s in storage if conn.component_of.get(s) in gpu_components]
    if not reachable:
        return StoragePath(None, len(storage), 0, basis=f"{len(storage)} storage system(s) "
                           "drawn, none reachable from the GPUs over the fabric")
    rated = 0.0
    unrated = 0
    for s in reachable:
        spec = index.spec(s)
        value = spec.fact("write_GBps") if spec is not None else None
        if value is None:
            unrated += 1
            continue
        rated += min(float(value), wired[s])
    wired_total = sum(wired[s] for s in reachable)
    appliance = sum(float(index.spec(s).fact("write_GBps") or 0.0) for s in reachable)
    write = min(rated, client) if client else rated
    limit = ("the storage systems' rated write throughput" if appliance <= wired_total
             else "the storage systems' links")
    if client and client < rated:
        limit = "the GPU hosts' NIC bandwidth"
    basis = (f"{len(reachable)} storage system(s) reachable over the fabric: "
             f"{appliance:,.0f} GB/s rated write, {wired_total:,.0f} GB/s of links; "
             f"limited by {limit}")
    if unrated:
        basis += f"; {unrated} without a write figure left out"
    return StoragePath(write if write > 0 else None, len(storage), len(reachable), appliance,
                       wired_total, client, basis)


__all__ = ["Blast", "StoragePath", "Structure", "design_structure"]
