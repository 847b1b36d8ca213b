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
from rackdesigner.model import Layout, natural_key
from rackdesigner.simulation.topology import Topology


@dataclass(frozen=True)
class PowerReport:
    total_typical_w: float
    total_max_w: float
    pue: float
    gpus: int
    by_kind: MappingProxyType  # kind -> max W
    by_kind_typical: MappingProxyType
    by_model: MappingProxyType  # model -> {"count", "typical_w", "max_w" (mean each), totals}
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
    counts: dict[str, int] = defaultdict(int)  # model -> devices (cables: ends)
    model_t: dict[str, float] = defaultdict(float)
    model_m: dict[str, float] = defaultdict(float)
    rack_max: dict[str, float] = defaultdict(float)
    rack_typ: dict[str, float] = defaultdict(float)
    rack_of = topo.rack_of
    without: set[str] = set()
    draw: dict[str, tuple[float, float]] = {}
    gpus = 0
    total_t = total_m = 0.0
    racks_in_scope: set[str] = set()
    for device_id, spec in topo.specs.items():
        if chosen is not None and device_id not in chosen:
            continue
        kind = spec.kind
        if kind == "gpu":
            gpus += 1
        elif kind == "rack":
            racks_in_scope.add(device_id)
            continue
        elif kind == "system":
            continue
        model = spec.id
        if model not in draw:
            draw[model] = _draw(spec)
            if spec.power.typical_w is None and spec.power.max_w is None:
                without.add(model)
        typical, peak = draw[model]
        counts[model] += 1
        model_t[model] += typical
        model_m[model] += peak
        by_kind[kind] += peak
        by_kind_t[kind] += typical
        total_t += typical
        total_m += peak
        rack = rack_of.get(device_id)
        if rack is not None:
            rack_max[rack] += peak
            rack_typ[rack] += typical
    ppc: dict[tuple[str, str], int] = {}
    for link in topo.cabled:
        a, b = link.a.device, link.b.device
        if chosen is not None and (a not in chosen or b not in chosen):
            continue
        ends = _cable_power(topo, link.cable)
        if ends is None:
            continue
        kind, model, typical, peak = ends
        if kind == "transceiver":
            # a twin-port transceiver (e.g. 800G OSFP on a switch) serves two links
            share = sum(1.0 / _ports_per_connector(topo, end.device, end.group, ppc)
                        for end in (link.a, link.b)) / 2
            typical, peak = typical * share, peak * share
        typical, peak = typical * link.count, peak * link.count
        counts[model] += 2 * link.count
        model_t[model] += typical
        model_m[model] += peak
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
    for rack in sorted(racks_in_scope | set(rack_max), key=natural_key):
        spec = topo.specs.get(rack)
        budget = spec.rack.power_budget_w if spec is not None and spec.rack else None
        peak = rack_max.get(rack, 0.0)
        racks[rack] = MappingProxyType({
            "max_w": round(peak, 1), "typical_w": round(rack_typ.get(rack, 0.0), 1),
            "budget_w": budget,
            "utilisation": round(peak / budget, 4) if budget else None,
        })
    by_model = {}
    for model in sorted(counts):
        n = counts[model]
        by_model[model] = MappingProxyType({
            "count": n, "typical_w": round(model_t[model] / n, 3),
            "max_w": round(model_m[model] / n, 3),
            "total_typical_w": round(model_t[model], 3), "total_max_w": round(model_m[model], 3)})
    return PowerReport(total_t, total_m, pue, gpus, MappingProxyType(dict(by_kind)),
                       MappingProxyType(dict(by_kind_t)), MappingProxyType(by_model),
                       MappingProxyType(racks), tuple(sorted(without)))


def _ports_per_connector(topo: Topology, device: str, group: str,
                         cache: dict[tuple[str, str], int]) -> int:
    spec = topo.specs.get(device)
    if spec is None:
        return 1
    key = (spec.id, group)
    if key not in cache:
        port = next((g for g in spec.ports if g.name == group), None)
        cache[key] = max(1, port.ports_per_connector) if port is not None else 1
    return cache[key]


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
