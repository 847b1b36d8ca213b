"""Transport families of the scale-out fabric (InfiniBand, Ethernet/RoCE) and the share of a NIC's
rate NCCL keeps across them, from `resources/simulation/transport.yaml` (cited data).

A family is one of the vocabulary's transports (`rackdesigner.vocabulary.TRANSPORTS`); a fabric
runs the first transport of its switches' port protocol, so a Spectrum-X design (SN5600,
Ethernet) and a Quantum-2 design (QM9700, InfiniBand) differ exactly where published
measurements say they do: the per-NIC efficiency of NCCL's network
channels and its decline with the number of NVLink domains (nodes) a collective spans. The
figures are fitted on the calibration runs only (`benchmarks/published_vs_model.py --derive`),
separately for each fabric tuning (`vocabulary.FABRIC_TUNINGS`): the calibration runs of each
tuning are those whose published settings say they ran it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rackdesigner._resources import resources_root
from rackdesigner.catalog.filecache import parsed_file
from rackdesigner.vocabulary import DEFAULT_FABRIC_TUNING, FABRIC_TUNINGS, TRANSPORTS
from rackdesigner.yamlfile import resource_parser

#: the transport a fabric of each network protocol runs (the first the registry lists for it)
DEFAULT_TRANSPORT: dict[str, str] = {}
for _t in TRANSPORTS.values():
    DEFAULT_TRANSPORT.setdefault(_t.protocol, _t.name)
#: NCCL's default transport, for a scope without a fabric
BASE = next(iter(TRANSPORTS))


@dataclass(frozen=True, slots=True)
class TransportFamily:
    """What NCCL keeps of a NIC's rate on one transport family under one fabric tuning
    (`vocabulary.FABRIC_TUNINGS`; see transport.yaml)."""

    name: str
    nic_efficiency_2_domains: float
    nic_efficiency_per_doubling: float
    nic_efficiency_floor: float
    switch_latency_ns: float
    source: str
    tuning: str = DEFAULT_FABRIC_TUNING

    def nic_efficiency(self, domains: int) -> float:
        """Share of NCCL's per-NIC rate a ring/tree channel pushes between `domains` NVLink
        domains (1.0 inside one domain: no network). The decline with domains is the routing's:
        with one queue pair per connection each connection is one flow the fabric's static
        routing places, and collisions on the tiers above the leaves grow with the flows; a
        tuning with several queue pairs and adaptive routing for every message has none."""
        if domains <= 1 or neutral:
            return 1.0
        eff = (self.nic_efficiency_2_domains
               - self.nic_efficiency_per_doubling * math.log2(domains / 2.0))
        return max(self.nic_efficiency_floor, min(1.0, eff))

    def base_efficiency(self) -> float:
        """The two-domain share: traffic that ends at the first switch (in-network reduction)
        crosses no further tier, so it keeps this share at any scale."""
        return 1.0 if neutral else self.nic_efficiency_2_domains


#: transports whose NCCL net plugin presents the NICs nearest a GPU as one network device and
#: stripes each message over them: aws-ofi-nccl's RDMA protocol gives a device one rail per EFA
#: device and its threshold scheduler multiplexes every message above a small-message threshold
#: across the rails (aws/aws-ofi-nccl `include/nccl_ofi_scheduler.h`, `include/nccl_ofi_rdma.h`),
#: so NCCL's channel count limits devices, not the EFA devices under them
MULTIRAIL = frozenset({"efa"})


def named_by_nics(specs: Iterable[Any]) -> str | None:
    """The transport every NIC's catalog entry names (`nic.transport`, e.g. efa), or None when
    any NIC names none or they differ (the fabric's protocol then decides)."""
    names = {getattr(getattr(spec, "nic", None), "transport", None) for spec in specs}
    return names.pop() if len(names) == 1 else None


#: Set by the calibration script to fit the efficiencies: every share is 1.0 while it is True.
neutral = False
#: the per-tuning figures of a family (transport.yaml `tunings:`)
_KEYS = ("nic_efficiency_2_domains", "nic_efficiency_per_doubling", "nic_efficiency_floor")


@functools.lru_cache(maxsize=1)
def families() -> dict[tuple[str, str], TransportFamily]:
    """The transport families by (transport, tuning), read once from the shipped data file."""
    path = resources_root() / "simulation" / "transport.yaml"
    data = parsed_file(path, resource_parser(path), "simulation")  # kept parsed between runs
    raw = data["families"]
    base = raw[BASE]
    out: dict[tuple[str, str], TransportFamily] = {}
    for name, fam in raw.items():
        if name not in TRANSPORTS:
            raise ValueError(f"{path}: {name!r} is not a transport of the vocabulary "
                             f"({', '.join(TRANSPORTS)})")
        fam = {**raw[fam["same_as"]], **fam} if fam.get("same_as") else fam
        scale = float(fam.get("roce_efficiency", 1.0) or 1.0)
        own = fam.get("tunings") or {}
        for tuning in FABRIC_TUNINGS:
            if tuning not in base["tunings"]:
                raise ValueError(f"{path}: families.{BASE}.tunings has no {tuning!r}")
            # `level:` one set of figures whatever the tuning (a transport whose NCCL network
            # settings are its plugin's, not NCCL_IB_*: EFA)
            row = own.get(tuning) or fam.get("level") or {}

            def pick(key: str, row=row, tuning=tuning, scale=scale) -> float:
                value = row.get(key)
                if value is None:  # the InfiniBand figure, scaled by the family's own efficiency
                    value = base["tunings"][tuning][key] * (
                        scale if key != "nic_efficiency_per_doubling" else 1.0)
                return float(value)
            out[name, tuning] = TransportFamily(
                name, pick("nic_efficiency_2_domains"), pick("nic_efficiency_per_doubling"),
                pick("nic_efficiency_floor"),
                float(fam.get("switch_latency_ns") or base["switch_latency_ns"]),
                str(fam.get("source", "")), tuning)
    return out



def family(name: str | None, tuning: str | None = None) -> TransportFamily:
    """The family of a transport (or of a network protocol's default transport) under a fabric
    tuning (default: the vendor-tuned level); NCCL's default transport when unknown."""
    table = families()
    name = DEFAULT_TRANSPORT.get(name or "", name)
    tuning = tuning or DEFAULT_FABRIC_TUNING
    if tuning not in FABRIC_TUNINGS:
        raise KeyError(f"unknown fabric tuning {tuning!r} (expected one of "
                       f"{', '.join(FABRIC_TUNINGS)})")
    return table.get((name or BASE, tuning), table[BASE, tuning])
