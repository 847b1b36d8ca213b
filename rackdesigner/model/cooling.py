"""Cooling: where each device's heat goes (liquid or air), per rack against its air-cooling
limit, per CDU against its capacity, and the design against its site's power and cooling.

Heat is the maximum draw of `model.power` (every watt a device draws ends as heat; planning
uses the maximum, as the rack budget does). Each device's heat is split:

- by a **published split** (`heat: {liquid_fraction}` in the catalog) of the device or of the
  system it is part of;
- else, inside a **liquid-cooled system** (or for a device that is itself `cooling: liquid`),
  by part kind: the parts on cold plates (GPUs, CPUs, NVLink switch chips, NICs, switch
  ASICs) give their heat to liquid, everything else (the chassis entry's fans, power supplies,
  memory and drives, DPUs) to air. This follows the GB200 NVL72 system description published
  with MLCommons results ("liquid-cooled for CPU, GPU, CX7, NVLink switches; air-cooled for
  the rest"; `PART_RULE_SOURCE`), and is stated in every report;
- else all to air (an air-cooled device). Optics and cables at link ends are air.

A rack's air-cooling limit is its own `air_cooling_w` (a rack device key), else its model's
(`rack.air_cooling_w`, sourced in the catalog), else none. A CDU (catalog kind `cdu`) has a
capacity and serves the racks its device lists (`serves: [rack-1, ...]`); a rack served by
several CDUs spreads its liquid heat evenly over them; an in-row CDU (`placement: in-row`) is
the same, listing several racks of its row. A rear-door heat exchanger (catalog kind `rdhx`,
`air_kw`) takes up to that much of its rack's heat to air into water: the rack's heat to room
air (checked against its air limit) and the design's heat to air fall by it, its heat to
water (the site's liquid loop, a model assumption: the door's water is the site's) rises by
it. A door serves the rack it is mounted in, else the racks its `serves:` lists (its capacity
split evenly). The site (`Meta.site`) states the IT power the facility delivers and the heat
it removes.

Pure functions of a layout: the design rules, the racks view, `rackdesigner cost` and the
cost tab all read `cooling_report`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from rackdesigner.catalog import DeviceSpec
from rackdesigner.model.items import Device, Site
from rackdesigner.model.layout import Layout, natural_key
from rackdesigner.model.power import RackPower, device_draw
from rackdesigner.model.site import (
    SiteUse,
    feed_capacity_kw,
    format_watts,
    power_tree,
    site_pue,
)
from rackdesigner.vocabulary import AIR_COOLING_FACT, COOLING_FACT
from rackdesigner.vocabulary import kinds as kind_table

AIR_PROP = "air_cooling_w"
SERVES_PROP = "serves"
PART_RULE_SOURCE = ("MLCommons inference results v6.1, Crusoe GB200-NVL72 system description: "
                    "'Mix of Liquid-cooled (for CPU, GPU, CX7, NVLink Switches) and Air-cooled "
                    "(for the rest of the components)'; https://github.com/mlcommons/"
                    "inference_results_v6.1 closed/Crusoe/systems/"
                    "GB200-NVL72_GB200-186GB_aarch64x16_Dynamo.json")


@dataclass(frozen=True, slots=True)
class RackHeat:
    rack: str
    liquid_w: float
    air_w: float
    air_limit_w: float | None
    air_basis: str  # "set on the rack", "default of rack model X (source)", "no limit stated"
    liquid_rack: bool
    #: heat its rear-door heat exchangers take from its exhaust into water (`air_w` is after it)
    door_w: float = 0.0

    @property
    def over_air_limit(self) -> bool:
        return self.air_limit_w is not None and self.air_w > self.air_limit_w * (1 + 1e-6)


@dataclass(frozen=True, slots=True)
class CduLoad:
    cdu: str
    model: str
    capacity_w: float | None
    serves: tuple[str, ...]
    missing: tuple[str, ...]  # listed ids that are not racks of the design
    liquid_w: float

    @property
    def over(self) -> bool:
        return self.capacity_w is not None and self.liquid_w > self.capacity_w * (1 + 1e-6)

    @property
    def share(self) -> float | None:
        return self.liquid_w / self.capacity_w if self.capacity_w else None


@dataclass(frozen=True)
class CoolingReport:
    racks: dict[str, RackHeat]
    cdus: tuple[CduLoad, ...]
    liquid_w: float
    air_w: float
    site: SiteUse
    #: racks with liquid heat that no CDU serves
    unserved: tuple[str, ...] = ()
    #: model -> how its heat was split ("published split: ...", "parts rule", "air-cooled")
    basis: dict[str, str] = field(default_factory=dict)
    #: heat rear-door heat exchangers take into water (part of `liquid_w`, not of `air_w`)
    door_w: float = 0.0

    @property
    def racks_over_air_limit(self) -> list[str]:
        return [r for r, h in self.racks.items() if h.over_air_limit]

    @property
    def cdus_over_capacity(self) -> list[str]:
        return [c.cdu for c in self.cdus if c.over]

    def to_dict(self) -> dict:
        return {
            "liquid_kw": round(self.liquid_w / 1000, 3),
            "air_kw": round(self.air_w / 1000, 3),
            "rear_door_kw": round(self.door_w / 1000, 3),
            "racks_over_air_limit": self.racks_over_air_limit,
            "cdus_over_capacity": self.cdus_over_capacity,
            "racks": {r: {"liquid_kw": round(h.liquid_w / 1000, 3),
                          "air_kw": round(h.air_w / 1000, 3),
                          "rear_door_kw": round(h.door_w / 1000, 3),
                          "air_limit_kw": None if h.air_limit_w is None
                          else round(h.air_limit_w / 1000, 3),
                          "air_limit_basis": h.air_basis,
                          "over_air_limit": h.over_air_limit}
                      for r, h in self.racks.items()},
            "cdus": [{"id": c.cdu, "model": c.model, "serves": list(c.serves),
                      "liquid_kw": round(c.liquid_w / 1000, 3),
                      "capacity_kw": None if c.capacity_w is None
                      else round(c.capacity_w / 1000, 3), "over_capacity": c.over,
                      "missing_racks": list(c.missing)} for c in self.cdus],
            "racks_without_cdu": list(self.unserved),
            "site": self.site.to_dict(),
            "split_basis": dict(sorted(self.basis.items())),
            "part_rule_source": PART_RULE_SOURCE,
        }


def cdu_capacity_w(spec: DeviceSpec | None) -> float | None:
    """A CDU model's cooling capacity in W (its catalog `cdu: {cooling_kw}`), None when
    unknown."""
    value = spec.fact(COOLING_FACT) if spec is not None else None
    return float(value) * 1000.0 if isinstance(value, int | float) else None


def door_capacity_w(spec: DeviceSpec | None) -> float | None:
    """A rear-door heat exchanger's heat from air in W (its catalog `air_kw`), None when the
    model has none."""
    value = spec.fact(AIR_COOLING_FACT) if spec is not None else None
    return float(value) * 1000.0 if isinstance(value, int | float) else None


def prop(device: Device, key: str):
    for k, v in device.props:
        if k == key:
            return v
    return None


class _Splitter:
    """The liquid fraction of each device (memoised per group chain and model)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.catalog = layout.catalog
        self._specs: dict[str, DeviceSpec | None] = {}
        self._group: dict[str | None, tuple[str, float | None, str]] = {
            None: ("none", None, "")}
        self.basis: dict[str, str] = {}

    def spec(self, model: str | None) -> DeviceSpec | None:
        if model is None:
            return None
        if model not in self._specs:
            self._specs[model] = self.catalog.get(model) if model in self.catalog else None
        return self._specs[model]

    def system(self, group: str | None) -> tuple[str, float | None, str]:
        """("published", fraction, model) / ("liquid", None, model) / ("none", None, "") for
        the innermost system around `group` that says how it is cooled."""
        if group in self._group:
            return self._group[group]
        trail: list[str] = []
        g = group
        found: tuple[str, float | None, str] = ("none", None, "")
        while g is not None and len(trail) < 256:
            if g in self._group:
                found = self._group[g]
                break
            trail.append(g)
            if not self.layout.has_group(g):
                break
            grp = self.layout.group(g)
            decided = self.decided(grp.template)
            if decided is not None:
                found = decided
                break
            g = grp.parent
        for t in trail:
            self._group[t] = found
        return found

    def decided(self, template: str | None) -> tuple[str, float | None, str] | None:
        """("published", fraction, model) / ("liquid", None, model) of a system of model
        `template`, None when it says nothing (its parent may: `system`)."""
        spec = self.spec(template)
        if spec is None or (spec.heat is None and spec.cooling != "liquid"):
            return None
        return ("published", spec.heat.liquid_fraction, spec.id) if spec.heat is not None \
            else ("liquid", None, spec.id)

    def fraction(self, device: Device, spec: DeviceSpec) -> float:
        if spec.heat is not None:
            self.basis.setdefault(spec.id, f"published split ({spec.heat.source})")
            return spec.heat.liquid_fraction
        how, value, system = self.system(device.group)
        if how == "published":
            self.basis.setdefault(system, "published split of the system")
            return float(value or 0.0)
        if how == "liquid" or spec.cooling == "liquid":
            self.basis.setdefault(system or spec.id, "liquid-cooled: cold-plated parts "
                                  "(GPU, CPU, NVLink switch, NIC, switch) to liquid, the rest "
                                  "to air")
            entry = kind_table.KINDS.get(spec.kind)  # its kind's cold_plate flag
            return 1.0 if entry is not None and entry.cold_plate else 0.0
        return 0.0


def cooling_report(layout: Layout, power: RackPower | None = None,
                   by_rack: dict[str, tuple[float, float]] | None = None, *,
                   site_totals: bool = True) -> CoolingReport:
    """Heat to liquid and to air, per rack, per CDU and against the site (module docstring).

    `by_rack` is the racks' (typical, max) draw when the caller has it (`RackIndex`).
    `site_totals` False leaves out what needs every link end's draw — the design's total
    (the site's use) and its heat to liquid and air, all 0 then — for a caller that reads
    none of them (the design rules of a site without limits, after each edit)."""
    power = power or RackPower(layout)
    drawn = power.draws() if by_rack is None else None
    if by_rack is None:
        assert drawn is not None
        by_rack = drawn.by_rack
    split = _Splitter(layout)
    liquid_rack: dict[str, float] = defaultdict(float)
    liquid = 0.0
    device_total = 0.0
    racks: dict[str, DeviceSpec] = {}
    cdus: list[Device] = []
    doors: dict[str, float] = defaultdict(float)  # rack -> door capacity, W
    facts_of = fact_table(split)
    for device in layout.devices():
        found = facts_of(device)
        if found is None:
            continue
        spec, cools, door, peak, share = found
        if spec.rack is not None:
            racks[device.id] = spec
            continue
        if cools:
            cdus.append(device)
        if door:
            served = (device.rack,) if device.rack is not None else tuple(
                prop(device, SERVES_PROP) or ())
            for rack in served:
                doors[rack] += door / len(served)
        if peak is None:  # draws no power
            continue
        device_total += peak
        if not peak:
            continue
        liquid += share
        if share and device.rack is not None:
            liquid_rack[device.rack] += share
    if site_totals:
        ends = drawn.link_ends if drawn is not None else power.draws().link_ends
        total = device_total + sum(m for _, _, m in ends.values())
    else:
        total = liquid = 0.0
    rack_heat: dict[str, RackHeat] = {}
    for rack_id in sorted(set(racks) | set(by_rack), key=natural_key):
        if rack_id not in racks:
            continue  # not a rack device (a broken file): the rules report it
        spec = racks[rack_id]
        peak = by_rack.get(rack_id, (0.0, 0.0))[1]
        liq = min(liquid_rack.get(rack_id, 0.0), peak)
        own = prop(layout.device(rack_id), AIR_PROP)
        assert spec.rack is not None
        if own is not None:
            limit, basis = float(own), "set on the rack"
        elif spec.rack.air_cooling_w is not None:
            source = spec.sources.get(spec.rack.air_source or "")
            limit = spec.rack.air_cooling_w
            basis = f"default of rack model {spec.id}" + (f" ({source.title})" if source else "")
        else:
            limit, basis = None, "no air-cooling limit stated"
        to_air = max(0.0, peak - liq)
        door = min(to_air, doors.get(rack_id, 0.0))
        rack_heat[rack_id] = RackHeat(rack_id, liq, to_air - door, limit, basis,
                                      spec.cooling == "liquid", door)
    door_total = sum(h.door_w for h in rack_heat.values()) if site_totals else 0.0
    water = liquid + door_total
    loads, unserved = _cdus(layout, cdus, split, rack_heat)
    use = _site_use(layout.meta.site, total, water, max(0.0, total - water),
                    {r: by_rack.get(r, (0.0, 0.0))[1] for r in rack_heat})
    return CoolingReport(rack_heat, loads, water, max(0.0, total - water), use, unserved,
                         split.basis, door_total)


#: what `fact_table` answers for a device: (spec, cools, door capacity W, peak draw W or None
#: when it draws none, heat to liquid W), None when the catalog lacks its model
Facts = tuple[DeviceSpec, bool, float | None, float | None, float] | None


def fact_table(split: _Splitter) -> Callable[[Device], Facts]:
    """A device's `Facts`, which depend only on its model and the system around it (`split.
    system` of its group): worked out once per (model, system) pair and looked up per (model,
    group) pair (a 32k-GPU SuperPOD's 240,000 devices are 30,000 such pairs, in 4,095 nodes,
    and a dozen (model, system) pairs: the per-device lookups were ~0.5 s of validate at
    100k GPUs)."""
    by_group: dict[tuple[str, str | None], Facts] = {}
    by_system: dict[tuple[str, tuple], Facts] = {}

    def facts_of(device: Device) -> Facts:
        key = (device.model, device.group)
        if key in by_group:
            return by_group[key]
        system = (device.model, split.system(device.group))
        if system in by_system:
            found = by_system[system]
        else:
            found = by_system[system] = _facts(device, split)
        by_group[key] = found
        return found

    return facts_of


def _facts(device: Device, split: _Splitter
           ) -> tuple[DeviceSpec, bool, float | None, float | None, float] | None:
    """(spec, cools, door capacity W, peak draw W or None when it draws none, heat to liquid
    W)
    of a device of this model in this group; None when the catalog lacks its model."""
    spec = split.spec(device.model)
    if spec is None:
        return None
    if spec.rack is not None:
        return spec, False, None, None, 0.0
    if not spec.traits.draws_power:
        return spec, spec.traits.cools, door_capacity_w(spec), None, 0.0
    peak = device_draw(spec)[1]
    share = split.fraction(device, spec) * peak if peak else 0.0
    return spec, spec.traits.cools, door_capacity_w(spec), peak, share


def _site_use(site: Site, total: float, liquid: float, air: float,
              rack_max_w: dict[str, float]) -> SiteUse:
    pue, basis = site_pue(site, liquid, air)
    nodes, unfed, stale = power_tree(site, rack_max_w, pue)
    feed = feed_capacity_kw(site)
    return SiteUse(_w(site.power_kw), _w(site.cooling_kw), total, total, _w(feed),
                   _w(site.liquid_kw), _w(site.air_kw), liquid, air, pue, basis,
                   site.rack_positions, len(rack_max_w), nodes, unfed, stale,
                   site.liquid_supply_c)


def _w(kw: float | None) -> float | None:
    return None if kw is None else kw * 1000


def _cdus(layout: Layout, cdus: list[Device], split: _Splitter,
          racks: dict[str, RackHeat]) -> tuple[tuple[CduLoad, ...], tuple[str, ...]]:
    if not cdus:  # every liquid rack is unserved, from the first one (no CDU needed first)
        return (), tuple(r for r, h in racks.items() if h.liquid_w > 0)
    serving: dict[str, int] = defaultdict(int)
    served_by: dict[str, tuple[str, ...]] = {}
    for cdu in cdus:
        listed = prop(cdu, SERVES_PROP) or ()
        served_by[cdu.id] = tuple(listed)
        for rack in listed:
            if rack in racks:
                serving[rack] += 1
    loads = []
    for cdu in sorted(cdus, key=lambda d: natural_key(d.id)):
        listed = served_by[cdu.id]
        heat = sum(racks[r].liquid_w / serving[r] for r in listed if r in racks)
        loads.append(CduLoad(cdu.id, cdu.model, cdu_capacity_w(split.spec(cdu.model)), listed,
                             tuple(r for r in listed if r not in racks), heat))
    unserved = tuple(r for r, h in racks.items() if h.liquid_w > 0 and not serving.get(r))
    return tuple(loads), unserved


__all__ = ["AIR_PROP", "PART_RULE_SOURCE", "SERVES_PROP", "CduLoad",
           "CoolingReport", "Facts", "RackHeat", "SiteUse", "cdu_capacity_w", "cooling_report",
           "door_capacity_w", "fact_table", "format_watts"]
