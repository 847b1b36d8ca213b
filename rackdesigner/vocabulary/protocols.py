"""Port protocols, the families they belong to, and the transports a fabric runs.

A *family* says what a protocol is for, and so how every layer treats a link that carries it:

- ``scale_up``: GPU-to-GPU fabric inside an NVLink domain (NVLink);
- ``network``: the scale-out fabric between NICs and switches (InfiniBand, Ethernet) — cabled,
  listed in the cabling plan, Slurm and NetBox exports, load-balanced by the simulation;
- ``host``: links inside a server between GPUs, CPUs, NICs and PCIe switches (PCIe, C2C).

The table's order is the wiring tool's preference when two devices share several protocols.
A `Transport` is what runs over a network protocol (InfiniBand verbs, RoCE, Spectrum-X); switch
and NIC catalog entries may name one (`transport:`), checked against `TRANSPORTS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from rackdesigner.vocabulary._table import entry

FAMILIES = ("scale_up", "network", "host")


@dataclass(frozen=True, slots=True)
class Protocol:
    name: str  # the catalog's `protocol:` value
    label: str  # in sentences and the Inspector: "InfiniBand"
    short: str  # in one-line summaries (Palette, `catalog` listing): "IB"
    color: str  # links and port bars on the canvas
    family: str  # one of FAMILIES
    #: the Palette section of a switch with ports of this protocol (None: not a switch fabric)
    switch_section: str | None = None


@dataclass(frozen=True, slots=True)
class Transport:
    name: str
    protocol: str  # the network protocol it runs over
    label: str


PROTOCOLS: MappingProxyType[str, Protocol] = MappingProxyType({p.name: p for p in (
    Protocol("nvlink", "NVLink", "NVLink", "#5c9e00", "scale_up", "NVLink switching"),
    Protocol("c2c", "C2C", "C2C", "#9b59b6", "host"),
    Protocol("infiniband", "InfiniBand", "IB", "#1f6fd1", "network", "InfiniBand"),
    Protocol("ethernet", "Ethernet", "Eth", "#e07b16", "network", "Ethernet"),
    Protocol("pcie", "PCIe", "PCIe", "#7b8794", "host"),
)})
PROTOCOL_NAMES: tuple[str, ...] = tuple(PROTOCOLS)

TRANSPORTS: MappingProxyType[str, Transport] = MappingProxyType({t.name: t for t in (
    Transport("ib", "infiniband", "InfiniBand"),
    Transport("roce", "ethernet", "RoCE v2"),
    Transport("spectrum-x", "ethernet", "Spectrum-X"),
    # AWS's Scalable Reliable Datagram over its Ethernet fabric, through the aws-ofi-nccl
    # plugin: a NIC names it (`nic.transport: efa`), never a switch's protocol by default
    Transport("efa", "ethernet", "EFA (SRD)"),
)})


@dataclass(frozen=True, slots=True)
class FabricTuning:
    """How the cluster's NCCL network settings are tuned: an input of the simulation, because
    published runs of one design differ by a quarter between the two (docs/simulation.md 2b)."""

    name: str
    label: str
    settings: str  # what the setting means, in NCCL's words


#: the fabric tunings, default first: the level the vendor publishes for its reference design
FABRIC_TUNINGS: MappingProxyType[str, FabricTuning] = MappingProxyType({t.name: t for t in (
    FabricTuning("vendor-tuned", "vendor-tuned",
                 "several queue pairs per connection and adaptive routing for every message "
                 "(NCCL_IB_QPS_PER_CONNECTION=2, NCCL_IB_AR_THRESHOLD=0), as the vendor's "
                 "reference architectures run"),
    FabricTuning("typical-defaults", "typical defaults",
                 "NCCL's defaults: one queue pair per connection (NCCL_IB_QPS_PER_CONNECTION=1), "
                 "so each connection is one flow for the fabric's routing to place"),
)})
FABRIC_TUNING_NAMES: tuple[str, ...] = tuple(FABRIC_TUNINGS)
DEFAULT_FABRIC_TUNING = FABRIC_TUNING_NAMES[0]


def protocol(name: str) -> Protocol:
    """The entry of protocol `name`; KeyError naming the known ones when there is none."""
    return entry(PROTOCOLS, name, "protocol")


def protocols_of(family: str) -> tuple[str, ...]:
    """The protocols of `family`, in table order (`protocols_of("network")` ->
    ("infiniband", "ethernet"))."""
    if family not in FAMILIES:
        raise KeyError(f"unknown protocol family {family!r} (expected one of "
                       f"{', '.join(FAMILIES)})")
    return tuple(p.name for p in PROTOCOLS.values() if p.family == family)
