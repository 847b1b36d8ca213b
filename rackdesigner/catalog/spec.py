"""Frozen descriptions of real products, as loaded from `resources/catalog/`.

A `DeviceSpec` is what a product *is* (ports, power, switch facts); a layout's `Device` is one
instance of it. Units are fixed and part of the field names: rates in Gb/s per direction
(`rate_gbps`), bandwidths in GB/s (`_GBps`), power in watts, latency in nanoseconds, lengths in
metres. NVIDIA's NVLink totals are bidirectional; port rates here are always per direction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rackdesigner.vocabulary import KIND_NAMES, PROTOCOL_NAMES, Traits, traits_of

#: the catalog's kinds and port protocols: the vocabulary registry's (`rackdesigner.vocabulary`)
KINDS = KIND_NAMES
PROTOCOLS = PROTOCOL_NAMES
REDUCTIONS = ("nvls", "sharp")
WIRING_PATTERNS = ("all", "zip", "block")


@dataclass(frozen=True, slots=True)
class Source:
    """A public document a figure comes from."""

    key: str
    title: str
    url: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True)
class PortGroup:
    """`count` identical ports of one protocol on a device (e.g. 18 NVLink4 links of an H100)."""

    name: str
    protocol: str
    generation: str
    count: int
    lanes: int
    rate_gbps: float
    connector: str
    source: str
    ports_per_connector: int = 1

    @property
    def rate_GBps(self) -> float:
        """Data rate of one port, per direction, in GB/s."""
        return self.rate_gbps / 8.0

    @property
    def total_GBps(self) -> float:
        """Data rate of the whole group, per direction, in GB/s."""
        return self.count * self.rate_gbps / 8.0


@dataclass(frozen=True, slots=True)
class Power:
    idle_w: float | None
    typical_w: float | None
    max_w: float | None
    source: str
    note: str = ""
    #: "published" (a vendor figure), "estimate" (a labelled estimate; `note` says how) or
    #: "facility" (power-delivery or cooling infrastructure: 0 W of IT power, its own energy
    #: being facility power inside the PUE by The Green Grid's definition; `note` says so)
    basis: str = "published"
    #: True when `max_w` is the maximum with active optics in the device's own cages (a
    #: switch's "max power with active cables"): those transceivers then add to typical only
    max_includes_optics: bool = False

    @property
    def typical_or_max_w(self) -> float:
        """Typical power when published, else the maximum (0 when neither is)."""
        if self.typical_w is not None:
            return self.typical_w
        return self.max_w or 0.0


NO_POWER = Power(None, None, None, "")


@dataclass(frozen=True, slots=True)
class GpuFacts:
    architecture: str
    sm: int
    memory_gb: float | None
    source: str


@dataclass(frozen=True, slots=True)
class SwitchFacts:
    """Facts of a switch chip or box that the simulation uses."""

    latency_ns: float | None
    reductions: tuple[str, ...]
    source: str


@dataclass(frozen=True, slots=True)
class NicFacts:
    latency_ns: float | None
    source: str
    #: the transport the NIC runs (`vocabulary.TRANSPORTS`) when it is not its port protocol's
    #: first, e.g. AWS EFA (SRD) over Ethernet; None: the fabric's protocol decides
    transport: str | None = None


@dataclass(frozen=True, slots=True)
class CableFacts:
    """A cable type: copper (dac/acc/aec) or optical (aoc, fiber with transceivers)."""

    media: str
    protocols: tuple[str, ...]
    rate_gbps: float
    max_length_m: float
    latency_ns_per_m: float
    power_w_per_end: float | None
    transceiver: str | None
    source: str


@dataclass(frozen=True, slots=True)
class TransceiverFacts:
    rate_gbps: float
    form_factor: str
    media: str
    reach_m: float | None
    source: str


@dataclass(frozen=True, slots=True)
class RackFacts:
    height_u: int
    power_budget_w: float  # default budget of a rack of this model (a rack may set its own)
    source: str
    budget_basis: str | None = None  # what the default stands for (published rating, site figure)
    #: static load rating in kg, where the rack model publishes one (None: not published)
    static_load_kg: float | None = None
    load_source: str | None = None
    #: heat the rack's air path can remove, W (its air-cooling limit; None: not stated). The
    #: design may set a rack's own (`air_cooling_w` on the rack device, model/cooling.py).
    air_cooling_w: float | None = None
    air_source: str | None = None


@dataclass(frozen=True, slots=True)
class HeatSplit:
    """A published split of a device's heat between liquid and air (rack-scale systems)."""

    liquid_fraction: float
    source: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class SystemPart:
    name: str
    model: str
    count: int


@dataclass(frozen=True, slots=True)
class WiringRule:
    """Links between parts of a system.

    `a` and `b` are selectors `part[*]`, `part[0]`, `part[0-3]`, nested with `/`
    (`tray[*]/gpu[*]`); `pattern` pairs the selected devices: `all` (every a with every b),
    `zip` (a[k] with b[k]) or `block` (a[k] with b[k * len(b) // len(a)]); each pair gets
    `count` parallel links between ports `a_port` and `b_port`.
    """

    a: str
    a_port: str
    b: str
    b_port: str
    pattern: str = "all"
    count: int = 1


@dataclass(frozen=True, slots=True)
class SystemSpec:
    parts: tuple[SystemPart, ...]
    wiring: tuple[WiringRule, ...]
    chassis: str | None
    source: str


@dataclass(frozen=True, slots=True)
class Stated:
    """Published totals the loader's tests check the described ports and parts against."""

    values: dict[str, float]
    source: str


@dataclass(frozen=True)
class DeviceSpec:
    id: str
    kind: str
    manufacturer: str
    model: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    u_height: float = 0.0
    weight_kg: float | None = None
    airflow: str = ""
    #: "liquid" for equipment that needs a liquid-cooled rack (and a rack that provides it),
    #: "air" or "" (not stated: air) otherwise
    cooling: str = ""
    power: Power = NO_POWER
    ports: tuple[PortGroup, ...] = ()
    gpu: GpuFacts | None = None
    switch: SwitchFacts | None = None
    nic: NicFacts | None = None
    cable: CableFacts | None = None
    transceiver: TransceiverFacts | None = None
    rack: RackFacts | None = None
    system: SystemSpec | None = None
    stated: Stated | None = None
    #: published liquid/air heat split; None: by `cooling` and part kinds (model/cooling.py)
    heat: HeatSplit | None = None
    sources: dict[str, Source] = field(default_factory=dict)
    file: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    #: True for a model from a user's catalog folder (catalog/user.py), not the shipped one.
    is_user: bool = False
    #: the kind's own facts block, for kinds declared with `facts` in the kind registry
    #: (`vocabulary/kinds.py`): `{"cooling_kw": 100.0, "source": "..."}` for a CDU
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def traits(self) -> Traits:
        """What a device of this model does: its kind's traits (`vocabulary/traits.py`), what
        every engine reads instead of the kind's name."""
        return traits_of(self.kind)

    def fact(self, name: str) -> Any:
        """One field of the kind's own facts block (`spec.fact("cooling_kw")`), None when the
        file does not give it."""
        return self.facts.get(name)

    def port(self, name: str) -> PortGroup:
        for group in self.ports:
            if group.name == name:
                return group
        raise KeyError(f"{self.id} has no port group {name!r}")

    def has_port(self, name: str) -> bool:
        return any(group.name == name for group in self.ports)

    def ports_of(self, protocol: str) -> tuple[PortGroup, ...]:
        return tuple(group for group in self.ports if group.protocol == protocol)

    @property
    def supports_nvls(self) -> bool:
        return self.switch is not None and "nvls" in self.switch.reductions

    @property
    def supports_sharp(self) -> bool:
        return self.switch is not None and "sharp" in self.switch.reductions
