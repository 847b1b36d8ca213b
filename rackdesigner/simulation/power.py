"""Power: per model, per kind, per rack (with budget), total IT power and facility power.

Each device draws its catalog `typical_w` (the maximum when no typical figure is published) and
`max_w` (the typical figure when no maximum is). A system's parts and its chassis entry are
separate devices, so a DGX adds up to its published maximum. A link whose `cable` names a
catalog cable adds 2 x `power_w_per_end` per lane (or 2 x its transceiver's power when the cable
is an optical one with transceivers); a link naming a transceiver model adds 2 x that
transceiver. Cable power is split between the racks of its two ends. Facility power = IT power x
PUE (default in `constants.DEFAULT_PUE`, stated there).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rackdesigner.catalog import DeviceSpec
from rackdesigner.model import Layout
from rackdesigner.simulation.topology import Topology


@dataclass(frozen=True)
class PowerReport:
    total_typical_w: float
    total_max_w: float
    pue: float
    gpus: int
    by_kind: MappingProxyType  # kind -> max W
    by_kind_typical: MappingProxyType
    by_model: MappingProxyType  # model -> {"count", "typical_w", "max_w"} (each)
    by_rack: MappingProxyType  # rack id -> {"max_w", "typical_w", "budget_w", "utilisation"}
    without_power: tuple[str, ...]  # models with no power figure

    @property
    def facility_w(self) -> float:
        return self.total_max_w * self.pue

    @property
    def facility_typical_w(self) -> float:
        return self.total_typical_w * self.pue

    @property
    def per_gpu_w(self) -> float | None:
        return self.total_max_w / self.gpus if self.gpus else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "total_typical_w": round(self.total_typical_w, 1),
            "total_max_w": round(self.total_max_w, 1),
            "facility_w": round(self.facility_w, 1),
            "facility_typical_w": round(self.facility_typical_w, 1),
            "pue": self.pue,
            "per_gpu_w": None if self.per_gpu_w is None else round(self.per_gpu_w, 1),
            "by_kind": {k: round(v, 1) for k, v in self.by_kind.items()},
            "by_kind_typical": {k: round(v, 1) for k, v in self.by_kind_typical.items()},
            "by_model": {k: dict(v) for k, v in self.by_model.items()},
            "by_rack": {k: dict(v) for k, v in self.by_rack.items()},
            "models_without_power": list(self.without_power),
        }


def _draw(spec: DeviceSpec) -> tuple[float, float]:
    p = spec.power
    typical = p.typical_w if p.typical_w is not None else (p.max_w or 0.0)
    peak = p.max_w if p.max_w is not None else (p.typical_w or 0.0)
    return typical, peak


def power_report(layout: Layout, topo: Topology, devices: Iterable[str] | None,
                 pue: float) -> PowerReport:
    """Power of `devices` (all when None) and of the cables between two of them."""
    chosen = None if devices is None else set(devices)
    by_kind: dict[str, float] = defaultdict(float)
    by_kind_t: dict[str, float] = defaultdict(float)
    by_model: dict[str, dict[str, float]] = {}
    rack_max: dict[str, float] = defaultdict(float)
    rack_typ: dict[str, float] = defaultdict(float)
    rack_of: dict[str, str | None] = {}
    without: set[str] = set()
    gpus = 0
    total_t = total_m = 0.0
    for device in layout.devices():
        if chosen is not None and device.id not in chosen:
            continue
        spec = topo.specs.get(device.id)
        if spec is None:
            continue
        rack_of[device.id] = device.rack
        if spec.kind == "gpu":
            gpus += 1
        if spec.kind in ("rack", "system"):
            continue
        typical, peak = _draw(spec)
        if spec.power.typical_w is None and spec.power.max_w is None:
            without.add(spec.id)
        _account(by_model, spec.id, typical, peak)
        by_kind[spec.kind] += peak
        by_kind_t[spec.kind] += typical
        total_t += typical
        total_m += peak
        if device.rack is not None:
            rack_max[device.rack] += peak
            rack_typ[device.rack] += typical
    for link in layout.links():
        if link.cable is None:
            continue
        a, b = link.a.device, link.b.device
        if chosen is not None and (a not in chosen or b not in chosen):
            continue
        ends = _cable_power(topo, link.cable)
        if ends is None:
            continue
        kind, model, typical, peak = ends
        if kind == "transceiver":
            # a twin-port transceiver (e.g. 800G OSFP on a switch) serves two links
            share = sum(1.0 / _ports_per_connector(topo, end.device, end.group)
                        for end in (link.a, link.b)) / 2
            typical, peak = typical * share, peak * share
        typical, peak = typical * link.count, peak * link.count
        _account(by_model, model, typical / link.count / 2, peak / link.count / 2,
                 count=2 * link.count)
        by_kind[kind] += peak
        by_kind_t[kind] += typical
        total_t += typical
        total_m += peak
        for end in (a, b):
            rack = rack_of.get(end)
            if rack is not None:
                rack_max[rack] += peak / 2
                rack_typ[rack] += typical / 2
    racks: dict[str, Any] = {}
    rack_ids = {d.id for d in layout.devices() if topo.kind.get(d.id) == "rack"
                and (chosen is None or d.id in chosen)} | set(rack_max)
    for rack in sorted(rack_ids):
        spec = topo.specs.get(rack)
        budget = spec.rack.power_budget_w if spec is not None and spec.rack else None
        peak = rack_max.get(rack, 0.0)
        racks[rack] = MappingProxyType({
            "max_w": round(peak, 1), "typical_w": round(rack_typ.get(rack, 0.0), 1),
            "budget_w": budget,
            "utilisation": round(peak / budget, 4) if budget else None,
        })
    return PowerReport(total_t, total_m, pue, gpus, MappingProxyType(dict(by_kind)),
                       MappingProxyType(dict(by_kind_t)),
                       MappingProxyType({k: MappingProxyType(v) for k, v in
                                         sorted(by_model.items())}),
                       MappingProxyType(racks), tuple(sorted(without)))


def _account(table: dict, model: str, typical: float, peak: float, count: int = 1) -> None:
    row = table.setdefault(model, {"count": 0, "typical_w": typical, "max_w": peak,
                                   "total_typical_w": 0.0, "total_max_w": 0.0})
    row["count"] += count
    row["total_typical_w"] = round(row["total_typical_w"] + typical * count, 3)
    row["total_max_w"] = round(row["total_max_w"] + peak * count, 3)


def _ports_per_connector(topo: Topology, device: str, group: str) -> int:
    spec = topo.specs.get(device)
    if spec is None:
        return 1
    port = next((g for g in spec.ports if g.name == group), None)
    return max(1, port.ports_per_connector) if port is not None else 1


def _cable_power(topo: Topology, model: str) -> tuple[str, str, float, float] | None:
    """(kind, model, typical, max) for both ends of one lane of a link's cable."""
    spec = topo.cable_spec(model)
    if spec is None:
        return None
    if spec.kind == "transceiver":
        t, m = _draw(spec)
        return "transceiver", spec.id, 2 * t, 2 * m
    if spec.kind == "cable" and spec.cable is not None:
        if spec.cable.transceiver:
            tr = topo.cable_spec(spec.cable.transceiver)
            if tr is not None:
                t, m = _draw(tr)
                return "transceiver", tr.id, 2 * t, 2 * m
        per_end = spec.cable.power_w_per_end or 0.0
        return "cable", spec.id, 2 * per_end, 2 * per_end
    return None
