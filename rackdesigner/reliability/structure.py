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

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rackdesigner import vocabulary
from rackdesigner.model import Layout
from rackdesigner.model.linktable import components

HOST_PROTOCOLS = vocabulary.protocols_of("host")
NETWORK_PROTOCOLS = vocabulary.protocols_of("network")
#: The roles a rate may be counted per (library.ROLE_UNITS), as codes of a NumPy column.
ROLE_CODES = {role: i for i, role in enumerate(("gpu", "cpu", "nvswitch", "switch", "nic",
                                                  "storage"))}
OTHER = len(ROLE_CODES)
STOP_NAMES = ("nvlink_domain", "node", "attached_nodes")


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
    #: per device: its row, and per row its role code and the GPUs its fault stops in each
    #: `STOP_NAMES` mode (what `stopped_by` reads for a selected part)
    rows: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    roles: Any = field(default=None, compare=False, repr=False)
    stops: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    #: per row: its device id, host-node label and NVLink-domain row; the (switch, node label)
    #: pairs of NICs on switches, coded switch * rows + label (what `blast.members` reads)
    ids: tuple[str, ...] = field(default=(), compare=False, repr=False)
    label: Any = field(default=None, compare=False, repr=False)
    domain: Any = field(default=None, compare=False, repr=False)
    joined: Any = field(default=None, compare=False, repr=False)

    def blast(self, per: str, stops: str) -> Blast:
        return self.blasts.get((per, stops), Blast(0.0, 0.0, 0, 0.0))

    def role_of(self, device_id: str) -> str | None:
        """The failing unit a device is counted as (a role of `ROLE_CODES`), or None."""
        row = self.rows.get(device_id)
        if row is None or self.roles is None:
            return None
        code = int(self.roles[row])
        return next((r for r, c in ROLE_CODES.items() if c == code), None)

    def stopped_by(self, device_id: str, stops: str) -> int:
        """The GPUs one fault of `device_id` stops when it stops `stops` (a `STOP_NAMES`)."""
        row = self.rows.get(device_id)
        column = self.stops.get(stops)
        return 0 if row is None or column is None else int(column[row])


def design_structure(layout: Layout) -> Structure:
    """The failure model's view of `layout` (see the module docstring)."""
    from rackdesigner.reliability.storage import storage_path

    index = layout.index()
    conn = index.connectivity()
    spec_of = index.all_specs()
    code_of_kind = {k.name: ROLE_CODES.get(k.role, OTHER) for k in vocabulary.KINDS.values()}
    ids = [d for d, spec in spec_of.items() if spec is not None]
    n = len(ids)
    roles = np.fromiter((code_of_kind.get(spec_of[d].kind, OTHER)  # type: ignore[union-attr]
                         for d in ids), dtype=np.int64, count=n)
    row = dict(zip(ids, range(n), strict=True))
    host_a: list[int] = []
    host_b: list[int] = []
    net_a: list[int] = []
    net_b: list[int] = []
    net_lanes: list[int] = []
    net_gbps: list[float] = []
    net_optic: list[bool] = []
    optical = _Optics(layout)
    for c in index.carried():  # one pass over the links: plain appends
        ra, rb = row.get(c.link.a.device), row.get(c.link.b.device)
        if ra is None or rb is None:
            continue
        if c.protocol in HOST_PROTOCOLS:
            host_a.append(ra)
            host_b.append(rb)
        elif c.protocol in NETWORK_PROTOCOLS:
            net_a.append(ra)
            net_b.append(rb)
            net_lanes.append(c.link.count)
            net_gbps.append(min(c.a.rate_gbps, c.b.rate_gbps) * c.link.count / 8.0)
            net_optic.append(optical(c.link))
    _join_systems(layout, ids, row, host_a, host_b)
    label = components(n, np.array(host_a, dtype=np.int64), np.array(host_b, dtype=np.int64))
    nvl = conn.nvlink_domain_of
    domain = np.fromiter((row.get(nvl.get(d, d), i) for i, d in enumerate(ids)),
                         dtype=np.int64, count=n)
    is_gpu = roles == ROLE_CODES["gpu"]
    gpu_rows = np.flatnonzero(is_gpu)
    node_gpus = np.bincount(label[gpu_rows], minlength=n)
    domain_gpus = np.bincount(domain[gpu_rows], minlength=n)
    node_blast = node_gpus[label]  # per device: the GPUs of its host node
    domain_blast = np.maximum(domain_gpus[domain], node_blast)  # ...or its NVLink domain's
    na, nb = np.array(net_a, dtype=np.int64), np.array(net_b, dtype=np.int64)
    lanes = np.array(net_lanes, dtype=np.float64)
    optic = np.array(net_optic, dtype=bool)
    nic_lanes = np.zeros(n)
    optic_lanes = np.zeros(n)
    pairs = []
    for nic, other in ((na, nb), (nb, na)):
        at_nic = roles[nic] == ROLE_CODES["nic"]
        nic_lanes += np.bincount(label[nic[at_nic]], weights=lanes[at_nic], minlength=n)
        both = at_nic & optic
        optic_lanes += np.bincount(label[nic[both]], weights=lanes[both], minlength=n)
        to_switch = at_nic & (roles[other] == ROLE_CODES["switch"])
        pairs.append(other[to_switch] * max(n, 1) + label[nic[to_switch]])
    # a switch stops the GPUs of every node with a NIC on it, each node counted once
    joined = np.unique(np.concatenate(pairs)) if pairs else np.zeros(0, dtype=np.int64)
    attached = np.bincount(joined // max(n, 1), weights=node_gpus[joined % max(n, 1)],
                           minlength=n)
    blasts: dict[tuple[str, str], Blast] = {}
    for unit, code in ROLE_CODES.items():
        members = np.flatnonzero(roles == code)
        blasts[(unit, "nvlink_domain")] = _blast(domain_blast[members])
        blasts[(unit, "node")] = _blast(node_blast[members])
        blasts[(unit, "attached_nodes")] = _blast(
            attached[members] if unit == "switch" else node_blast[members])
    nodes = np.flatnonzero(node_gpus > 0)  # host nodes holding GPUs, by their label
    node_domain = np.zeros(n, dtype=np.int64)
    np.maximum.at(node_domain, label[gpu_rows], domain_blast[gpu_rows])
    sizes = node_gpus[nodes]
    for stops in STOP_NAMES:
        blasts[("node", stops)] = _blast(node_domain[nodes] if stops == "nvlink_domain"
                                         else sizes)
        blasts[("nic_link", stops)] = _blast(sizes, nic_lanes[nodes])
        blasts[("nic_optic_link", stops)] = _blast(sizes, optic_lanes[nodes])
    units = {per: blasts[(per, "node")].units for per in (*ROLE_CODES, "node", "nic_link",
                                                          "nic_optic_link")}
    notes = []
    total_lanes = float(nic_lanes[nodes].sum())
    if len(gpu_rows) and not total_lanes:
        notes.append("no NIC of a GPU host is linked to a network: network faults stop no GPU")
    storage = storage_path(index, conn, ids, roles, label, node_gpus, na, nb,
                           np.array(net_gbps, dtype=np.float64))
    is_switch = roles == ROLE_CODES["switch"]
    return Structure(len(gpu_rows), units, blasts, int(np.max(domain_gpus, initial=0)),
                     int(np.max(node_gpus, initial=0)),
                     float(optic_lanes[nodes].sum()) / total_lanes if total_lanes else 0.0,
                     storage, tuple(notes), row, roles,
                     {"nvlink_domain": domain_blast, "node": node_blast,
                      "attached_nodes": np.where(is_switch, attached, node_blast)},
                     tuple(ids), label, domain, joined)


def _blast(sizes: np.ndarray, weights: np.ndarray | None = None) -> Blast:
    """The `Blast` of units that each stop `sizes` GPUs (`weights`: units per entry)."""
    w = np.ones(len(sizes)) if weights is None else weights
    return Blast(float(w.sum()), float((sizes * w).sum()), int(sizes.max(initial=0)),
                 float(w[sizes > 0].sum()))


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


__all__ = ["Blast", "StoragePath", "Structure", "design_structure"]
