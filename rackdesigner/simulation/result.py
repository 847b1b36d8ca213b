"""The frozen result of `simulate` and its JSON form (`rackdesigner.simulation/1`).

Each engine message is a `Message` with a severity: a *warning* says the design has a problem
or the figures leave part of it out (GPUs that cannot reach each other, no GPUs, unknown
models, racks over budget, a forced algorithm that cannot run); a *note* says how a figure was
obtained (NCCL's model latency used, SHARP assumed, devices without a published power figure).
`messages` keeps the plain texts in the same order, so older readers see no change; the JSON
form only gains a `diagnostics` list (code, severity, text).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

from rackdesigner.simulation.collectives import Point, point_at
from rackdesigner.simulation.latency import LatencyClass
from rackdesigner.simulation.loads import LinkLoad
from rackdesigner.simulation.nccl_release import DEFAULT_VERSION
from rackdesigner.simulation.power import PowerReport
from rackdesigner.simulation.ranges import FigureRange, bandwidth_range, time_range

SCHEMA = "rackdesigner.simulation/1"


def _r(value: float | None, digits: int = 3) -> float | None:
    if value is None or value != value or value in (float("inf"), float("-inf")):
        return None
    return round(value, digits)


#: the rounding the JSON form applies to a figure (None for NaN and infinities); the text
#: report applies the same before formatting, so both always show the same value
rounded = _r

WARNING = "warning"
NOTE = "note"
SEVERITIES = (WARNING, NOTE)


@dataclass(frozen=True)
class Message:
    """One engine message: a stable `code`, its severity (`WARNING` or `NOTE`) and the text."""

    code: str
    severity: str
    text: str

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "severity": self.severity, "text": self.text}


@dataclass(frozen=True)
class ScopeInfo:
    gpus: int
    nodes: int
    nvlink_domains: int
    largest_nvlink_domain: int
    islands: int  # NCCL "nodes": GPUs joined by NVLink or host links
    reachable_gpus: int
    label: str = "layout"
    unreachable_gpus: int = 0  # GPUs cut off from the largest reachable group
    #: the transport the NICs name when it is not the fabric protocol's (EFA); None otherwise
    transport: str | None = None

    @property
    def collectives_available(self) -> bool:
        """False when the GPUs cannot all reach each other: no whole-scope collective figure."""
        return self.unreachable_gpus == 0

    def to_dict(self) -> dict[str, Any]:
        return {"gpus": self.gpus, "nodes": self.nodes, "nvlink_domains": self.nvlink_domains,
                "largest_nvlink_domain": self.largest_nvlink_domain, "islands": self.islands,
                "reachable_gpus": self.reachable_gpus, "label": self.label,
                "unreachable_gpus": self.unreachable_gpus,
                "collectives_available": self.collectives_available,
                **({"transport": self.transport} if self.transport else {})}


@dataclass(frozen=True)
class BandwidthInfo:
    per_gpu_scale_up_GBps: float  # slowest GPU's NVLink, hardware rate per direction
    per_gpu_scale_out_GBps: float  # slowest GPU's NIC share (capped by its PCIe/C2C path)
    bisection_GBps: float
    oversubscription: MappingProxyType  # tier -> aggregate down / up
    oversubscription_worst: MappingProxyType  # tier -> worst switch (None: a switch lacks uplinks)
    fabric_factor: float  # share of NIC rate that survives the tiers crossed (collective model)
    p2p: MappingProxyType  # {"a", "b", "GBps" (one pair, NCCL send/recv), "max_flow_GBps"}
    bisection_bottleneck: str | None = None  # the kind of link carrying most of the cut
    routed_factors: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    def to_dict(self) -> dict[str, Any]:
        return {
            "per_gpu_scale_up_GBps": _r(self.per_gpu_scale_up_GBps),
            "per_gpu_scale_out_GBps": _r(self.per_gpu_scale_out_GBps),
            "bisection_GBps": _r(self.bisection_GBps),
            "oversubscription": {k: _r(v, 4) for k, v in self.oversubscription.items()},
            "oversubscription_worst": {k: _r(v, 4) for k, v in
                                       self.oversubscription_worst.items()},
            "fabric_factor": _r(self.fabric_factor, 4),
            "p2p": {k: (_r(v) if isinstance(v, float) else v) for k, v in self.p2p.items()},
            "bisection_bottleneck": self.bisection_bottleneck,
            "routed_factors": {k: _r(v, 4) for k, v in self.routed_factors.items()},
        }


@dataclass(frozen=True)
class LatencyInfo:
    min_us: float | None
    mean_us: float | None
    max_us: float | None
    max_hops: int
    histogram: tuple[LatencyClass, ...]
    collective_small_us: MappingProxyType  # collective -> time of the 8-byte row
    missing_data: tuple[str, ...]  # models whose latency the catalog does not give

    def to_dict(self) -> dict[str, Any]:
        return {
            "gpu_to_gpu_us": {"min": _r(self.min_us, 4), "mean": _r(self.mean_us, 4),
                              "max": _r(self.max_us, 4)},
            "max_hops": self.max_hops,
            "histogram": [c.to_dict() for c in self.histogram],
            "collective_small_us": {k: _r(v) for k, v in self.collective_small_us.items()},
            "missing_latency_data": list(self.missing_data),
        }


@dataclass(frozen=True)
class LinkLoadsInfo:
    """Per-link loads of one collective at one size (network links; see loads.py)."""

    collective: str
    bytes: int
    algorithm: str | None
    pattern: str | None  # ring, tree, all_to_all, p2p; None: no routed network traffic
    bottleneck: str | None
    max_fabric_utilisation: float
    #: builds the per-link list on first use (the loads themselves are already computed per
    #: switch domain; listing 40,000 links is only worth it when someone reads them)
    expand: Callable[[], tuple[LinkLoad, ...]] | None = field(default=None, repr=False,
                                                               compare=False)
    count_hint: int | None = None  # a result read back without its list keeps the count
    #: counts the entries without building them (None: `len(entries)`)
    counter: Callable[[], int] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def entries(self) -> tuple[LinkLoad, ...]:
        return tuple(self.expand()) if self.expand is not None else ()

    @cached_property
    def count(self) -> int:
        """How many entries: the read-back count, or counted without building the list."""
        if self.count_hint is not None:
            return self.count_hint
        if self.counter is None or "entries" in self.__dict__:
            return len(self.entries)
        return self.counter()

    def to_dict(self, with_links: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "collective": self.collective, "bytes": self.bytes, "algorithm": self.algorithm,
            "pattern": self.pattern, "bottleneck": self.bottleneck,
            "max_fabric_utilisation": _r(self.max_fabric_utilisation, 4),
            "count": self.count}
        if with_links:
            out["links"] = [e.to_dict() for e in self.entries]
        return out


@dataclass(frozen=True)
class SimulationResult:
    """Everything `simulate` predicts for one layout and scope (read-only)."""

    scope: ScopeInfo
    bandwidth: BandwidthInfo
    collectives: MappingProxyType  # name -> tuple[Point, ...]
    latency: LatencyInfo
    power: PowerReport
    messages: tuple[str, ...]
    algorithm: str = "auto"
    diagnostics: tuple[Message, ...] = ()  # `messages` with their severity (same order)
    sharp: bool = False  # in-network reduction allowed (the design's setting or `sharp=`)
    placement: str = "contiguous"
    link_loads: LinkLoadsInfo | None = None
    #: the NCCL network settings the figures assume (vocabulary.FABRIC_TUNINGS)
    fabric_tuning: str = "vendor-tuned"
    #: the NCCL version the figures assume (nccl_release.py)
    nccl_version: str = DEFAULT_VERSION

    def collective(self, name: str) -> tuple[Point, ...]:
        return self.collectives.get(name, ())

    def point_at(self, name: str, size: float) -> Point | None:
        """The row of collective `name` for `size` bytes (`collectives.point_at`'s rule)."""
        return point_at(self.collective(name), size)

    def classified(self) -> tuple[Message, ...]:
        """Every message with its severity; a message the engine did not classify (a result
        built by hand with `messages` only) counts as a warning, so nothing is played down."""
        known = {m.text: m for m in self.diagnostics}
        return tuple(known.get(text) or Message("unclassified", WARNING, text)
                     for text in self.messages)

    def warnings(self) -> tuple[Message, ...]:
        return tuple(m for m in self.classified() if m.severity == WARNING)

    def notes(self) -> tuple[Message, ...]:
        return tuple(m for m in self.classified() if m.severity == NOTE)

    def ranges(self, point: Point) -> tuple[FigureRange | None, FigureRange | None]:
        """(busbw range, time range) of one point: the spread published runs of its class show
        on the validation set (ranges.py); None where the class has too few runs."""
        domains = self.scope.islands
        transport = self.scope.transport
        return (bandwidth_range(point.busbw_GBps, point.algorithm, domains, point.bytes,
                                transport),
                time_range(point.time_us, point.algorithm, domains, point.bytes, transport))

    def _point_dict(self, point: Point) -> dict[str, Any]:
        out = point.to_dict()
        # the range of the figures as written, so a result read back gives the same ranges
        busbw, time = self.ranges(Point(point.bytes, out["time_us"], out["algbw_GBps"],
                                        out["busbw_GBps"], point.algorithm, point.protocol))
        if busbw is not None and time is not None:
            out.update(busbw.to_dict())
            out["time_range_us"] = [round(time.lo, 3), round(time.hi, 3)]
        return out

    def to_dict(self, link_loads: bool = False) -> dict[str, Any]:
        """The JSON document; `link_loads=True` adds every loaded link (`simulate --link-loads`)
        to the always-present `link_loads` summary."""
        loads = self.link_loads.to_dict(with_links=link_loads) if self.link_loads else None
        return {
            "schema": SCHEMA,
            "scope": self.scope.to_dict(),
            "bandwidth": self.bandwidth.to_dict(),
            "collectives": {name: [self._point_dict(p) for p in points]
                            for name, points in self.collectives.items()},
            "latency": self.latency.to_dict(),
            "power": self.power.to_dict(),
            "messages": list(self.messages),
            "algorithm": self.algorithm,
            "diagnostics": [m.to_dict() for m in self.classified()],
            "sharp": self.sharp,
            "placement": self.placement,
            "fabric_tuning": self.fabric_tuning,
            "nccl_version": self.nccl_version,
            "link_loads": loads,
        }


__all__ = ["NOTE", "SCHEMA", "SEVERITIES", "WARNING", "BandwidthInfo", "LatencyInfo",
           "LinkLoadsInfo", "Message",
           "Point", "ScopeInfo", "SimulationResult"]
