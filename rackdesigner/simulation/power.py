"""Power: per model, per kind, per rack (with budget), total IT power and facility power.

What a device and each end of a cabled link draw, and the sum per rack, are defined once in
`rackdesigner.model.power` (the design rules use the same definition for the rack budget):
devices draw their catalog typical/max figures, systems are their parts plus a chassis entry (so
a DGX adds up to its published maximum), a link's cable or transceivers draw at each end (a
twin-port transceiver shared by the two links of its cage) in the rack of that end, and optics
plugged into a system whose published maximum covers them (a DGX's own OSFP cages) add nothing.
Facility power = IT power x PUE: the user's, else the site's stated PUE, else the PUE of the
design's cooling mix (`model.pue.design_pue`, the cost model's too).

A device with no power figure draws nothing in the sums, so a total that leaves devices out is
a lower bound: the report says so (`complete`, `devices_without_power`, `models_without_power`,
and a headline such as "≥ 1.32 MW, 48 devices without a figure"). Devices inside a system
whose published maximum covers them (a DGX's NVSwitch chips) are not missing: the system's
chassis entry carries them. Figures labelled estimates in the catalog are listed too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rackdesigner.catalog import DeviceSpec
from rackdesigner.model import Layout, natural_key
from rackdesigner.model.power import (
    RackBudget,
    RackPower,
    budget_prop,
    device_draw,
    over_budget,
    rack_budget,
)
from rackdesigner.simulation.power_sums import device_sums
from rackdesigner.simulation.topology import Topology

rack_budget_none = RackBudget(None, "none", "no budget")


@dataclass(frozen=True, slots=True)
class RackDraw:
    """One rack's draw in scope (W) against its power budget (`model.power.rack_budget`)."""

    max_w: float  # rounded to 0.1 W, as reported
    typical_w: float
    budget_w: float | None
    budget_source: str  # "rack" (set on the rack), "model" (its default) or "none"
    budget_basis: str
    utilisation: float | None  # the maximum over the budget (None without a budget)
    over_budget: bool  # `model.power.over_budget` of the unrounded maximum

    @classmethod
    def of(cls, typical: float, peak: float, budget: RackBudget) -> RackDraw:
        watts = budget.watts
        return cls(round(peak, 1), round(typical, 1), watts, budget.source, budget.basis,
                   round(peak / watts, 4) if watts else None, over_budget(peak, watts))

    def to_dict(self) -> dict[str, Any]:
        return {"max_w": self.max_w, "typical_w": self.typical_w, "budget_w": self.budget_w,
                "budget_source": self.budget_source, "budget_basis": self.budget_basis,
                "utilisation": self.utilisation, "over_budget": self.over_budget}


@dataclass(frozen=True)
class PowerReport:
    total_typical_w: float
    total_max_w: float
    pue: float
    gpus: int
    by_kind: MappingProxyType  # kind -> max W
    by_kind_typical: MappingProxyType
    by_model: MappingProxyType  # model -> {"count", "typical_w", "max_w" (mean each), totals}
    by_rack: MappingProxyType[str, RackDraw]
    without_power: tuple[str, ...]  # models with no power figure (devices not covered)
    optics_in_system_max: int = 0  # link ends inside systems whose published max covers them
    devices_without_power: int = 0  # devices drawing 0 W for want of a figure (not covered)
    estimated: tuple[str, ...] = ()  # models whose figure is a labelled estimate
    cable_ends_without_power: int = 0  # ends of cables with no power figure (not covered)

    @property
    def complete(self) -> bool:
        """True when every device and cable end in scope has a figure (or is covered by its
        system's published maximum)."""
        return self.devices_without_power == 0 and self.cable_ends_without_power == 0

    @property
    def headline(self) -> str:
        """The design total as a planner would quote it ("≥ 1.32 MW, 48 devices without a
        figure" when devices are left out)."""
        return power_headline(self.total_max_w, self.devices_without_power,
                              self.cable_ends_without_power)

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
            "by_rack": {k: v.to_dict() for k, v in self.by_rack.items()},
            "models_without_power": list(self.without_power),
            "devices_without_power": self.devices_without_power,
            "cable_ends_without_power": self.cable_ends_without_power,
            "complete": self.complete,
            "headline": self.headline,
            "models_with_estimates": list(self.estimated),
            "optics_in_system_max": self.optics_in_system_max,
        }


def over_budget_warnings(power: PowerReport) -> list[tuple[str, str]]:
    """(code, text) of every rack drawing more than its budget: the warning the simulation and
    the workload estimator both give."""
    return [("rack_over_budget", f"{rack} draws up to {draw.max_w / 1000:,.1f} kW, over its "
             f"{draw.budget_w / 1000:,.1f} kW power budget")
            for rack, draw in power.by_rack.items() if draw.over_budget and draw.budget_w]


def format_power(watts: float) -> str:
    """Watts with a unit a planner reads at a glance (W, kW, MW)."""
    for unit, scale in (("MW", 1e6), ("kW", 1e3)):
        if abs(watts) >= scale:
            return f"{watts / scale:,.2f} {unit}"
    return f"{watts:,.0f} W"


def power_headline(total_max_w: float, devices_without: int, cable_ends_without: int = 0) -> str:
    """"1.32 MW", or "≥ 1.32 MW, 48 devices without a figure" when some draw is unknown."""
    missing = []
    if devices_without > 0:
        missing.append(f"{devices_without:,} device{'s' * (devices_without != 1)}")
    if cable_ends_without > 0:
        missing.append(f"{cable_ends_without:,} cable end{'s' * (cable_ends_without != 1)}")
    if not missing:
        return format_power(total_max_w)
    return f"≥ {format_power(total_max_w)}, {' and '.join(missing)} without a figure"


def power_report(layout: Layout, topo: Topology, devices: Iterable[str] | None,
                 pue: float) -> PowerReport:
    """Power of `devices` (all when None) of a simulated design: `power_of` its topology's
    specs."""
    return power_of(layout, topo.specs, devices, pue)


def design_specs(layout: Layout) -> dict[str, DeviceSpec]:
    """Device id -> spec of every device of a known model, in design order: what
    `power_of` reads, without building a topology (the cost verbs)."""
    index = layout.index()
    return {d.id: s for d in layout.devices() if (s := index.spec(d.id)) is not None}


def _covered(power: RackPower, specs: Mapping[str, DeviceSpec]
             ) -> Callable[[Any], Any]:
    """Whether the devices at some places of `specs` are covered by their system's published
    maximum (`RackPower.covered`): from the link table's columns when `specs` is the whole
    design's, else asked of each."""
    found: list = []

    def at(places: Any) -> Any:
        if not found:
            from rackdesigner.model.power_columns import known_covered

            found.append(list(specs))
            found.append(known_covered(power, found[0]))
        ids, flags = found
        if flags is not None:
            return flags[places]
        return [power.covered(ids[i]) for i in places.tolist()]

    return at


def power_of(layout: Layout, specs: Mapping[str, DeviceSpec], devices: Iterable[str] | None,
             pue: float) -> PowerReport:
    """Power of `devices` (all when None) and of the cables between two of them; `specs`
    maps every device of a known model to its spec (`design_specs`, or a topology's). The one
    power route: `simulate`, the job estimate and `cost`/`compare` all come here.

    Device and link-end draws, and the sum per rack, come from `rackdesigner.model.power` —
    the same definition the design rules check the rack budget with.
    """
    chosen = None if devices is None else set(devices)
    rp = RackPower(layout)
    by_kind: dict[str, float] = defaultdict(float)
    by_kind_t: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)  # model -> devices (cables: ends)
    model_t: dict[str, float] = defaultdict(float)
    model_m: dict[str, float] = defaultdict(float)
    without: set[str] = set()
    estimated: set[str] = set()
    missing = 0
    draw: dict[str, tuple[float, float]] = {}
    gpus = 0
    totals = [0.0, 0.0]  # typical, max
    racks_in_scope: set[str] = set()

    def add(kind: str, model: str, units: int, typical: float, peak: float) -> None:
        counts[model] += units
        model_t[model] += typical
        model_m[model] += peak
        by_kind[kind] += peak
        by_kind_t[kind] += typical
        totals[0] += typical
        totals[1] += peak

    total_t = total_m = 0.0
    fast = device_sums(specs, _covered(rp, specs)) if chosen is None else None
    if fast is not None:  # a whole large design: per model (power_sums.py), the same sums
        gpus, racks_in_scope, estimated = fast.gpus, fast.racks, fast.estimated
        without, missing, total_t, total_m = fast.without, fast.missing, fast.total_t, fast.total_m
        counts.update(fast.counts)
        model_t.update(fast.model_t)
        model_m.update(fast.model_m)
        by_kind.update(fast.by_kind)
        by_kind_t.update(fast.by_kind_t)
    plain: Mapping[str, DeviceSpec] = specs if fast is None else {}
    for device_id, spec in plain.items():  # `add` written out
        if chosen is not None and device_id not in chosen:
            continue
        kind, does = spec.kind, spec.traits
        if does.computes:
            gpus += 1
        elif does.contains == "units":  # a rack: its budget, its occupants' draw
            racks_in_scope.add(device_id)
            continue
        elif not does.draws_power:
            continue
        model = spec.id
        if model not in draw:
            draw[model] = device_draw(spec)
            if spec.power.basis == "estimate":
                estimated.add(model)
        if spec.power.typical_w is None and spec.power.max_w is None and not rp.covered(
                device_id):
            without.add(model)
            missing += 1
        typical, peak = draw[model]
        counts[model] += 1
        model_t[model] += typical
        model_m[model] += peak
        by_kind[kind] += peak
        by_kind_t[kind] += typical
        total_t += typical
        total_m += peak
    totals[0], totals[1] = total_t, total_m
    drawn = rp.draws(chosen)
    rack_draw, covered_ends = drawn.by_rack, drawn.covered_units
    without.update(drawn.unpowered_ends)
    for (kind, model), (units, typical, peak) in drawn.link_ends.items():
        add(kind, model, units, typical, peak)
    total_t, total_m = totals
    racks: dict[str, RackDraw] = {}
    made: dict[tuple, RackDraw] = {}  # racks alike (draw, model, budget set) share one
    on_file = layout.state.devices
    for rack in sorted(racks_in_scope | set(rack_draw), key=natural_key):
        device, rack_spec = on_file.get(rack), specs.get(rack)
        typical, peak = rack_draw.get(rack, (0.0, 0.0))
        key = (typical, peak, id(rack_spec), device is None,
               None if device is None else budget_prop(device))
        found = made.get(key)
        if found is None:
            b = rack_budget(device, rack_spec) if device is not None else rack_budget_none
            found = made[key] = RackDraw.of(typical, peak, b)
        racks[rack] = found
    by_model = {}
    for model in sorted(counts):
        n = counts[model]
        by_model[model] = MappingProxyType({
            "count": n, "typical_w": round(model_t[model] / n, 3),
            "max_w": round(model_m[model] / n, 3),
            "total_typical_w": round(model_t[model], 3), "total_max_w": round(model_m[model], 3)})
    return PowerReport(total_t, total_m, pue, gpus, MappingProxyType(dict(by_kind)),
                       MappingProxyType(dict(by_kind_t)), MappingProxyType(by_model),
                       MappingProxyType(racks), tuple(sorted(without)), covered_ends,
                       missing, tuple(sorted(estimated)),
                       sum(drawn.unpowered_ends.values()))
