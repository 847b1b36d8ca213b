"""Power a layout draws: per device, per link end (cables, optics), and per rack.

This is the one definition of "power drawn in a rack": the design rules (`rack-power`) and the
simulation's power report both call `RackPower`, so a design that validates clean is never
over budget in the simulation and the other way round.

- A device draws its catalog `typical_w` (its `max_w` when no typical figure is published) and
  `max_w` (its `typical_w` when no maximum is). Racks and system entries draw nothing of their
  own: a system is its parts plus a chassis entry, which add up to its published maximum.
- A link whose `cable` is a catalog cable draws `power_w_per_end` at each end per lane; an
  optical cable with a transceiver model, or a link naming a transceiver, draws one transceiver
  per end and lane, a twin-port transceiver (`ports_per_connector` 2) being shared by the two
  links of its cage. Each end's draw belongs to the rack of the device at that end.
- A transceiver in the cage of a device whose published maximum is "with active cables"
  (`max_includes_optics`, e.g. a QM9700's 1,720 W) adds to the typical figure only.
- An end on a device inside a system with a published maximum (`stated.max_w`, e.g. a DGX
  H100's ConnectX-7 OSFP cages) is covered by that maximum: the system's PSUs feed what is
  plugged into its own ports, and the published figure is the system's maximum input power
  (NVIDIA plans four 10.2 kW DGX H100 per 40.8 kW rack). Such ends draw nothing extra, so the
  optics are not counted twice.
- A device with no power figure at all draws 0 W here; the simulation's report says so
  ("≥ ... , N devices without a figure") unless the device sits inside such a system, whose
  published maximum (through its chassis entry) already covers it.
- A rack's budget is its own `power_budget_w` when the user set one, else its rack model's
  default (`rack_budget`); the rule and the report use the same function.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rackdesigner.catalog import DeviceSpec
from rackdesigner.model.items import Device, Link, PortRef
from rackdesigner.model.layout import Layout
from rackdesigner.vocabulary import traits_of

#: Device property (a key of a rack device in the layout file) holding the power budget the
#: user set for that rack, in W. Saved only when set; a rack without it uses its model's
#: default (`RackFacts.power_budget_w`, a published rating or a named site figure).
BUDGET_PROP = "power_budget_w"


@dataclass(frozen=True, slots=True)
class RackBudget:
    """The power budget a rack is checked against, and where it comes from."""

    watts: float | None
    source: str  # "rack" (set on the rack), "model" (the rack model's default) or "none"
    basis: str  # what the figure stands for, for messages and the report


def over_budget(watts: float, budget: float | None) -> bool:
    """True when `watts` exceeds `budget` (sums of many figures carry rounding noise; a rack
    exactly at its budget is within it)."""
    return budget is not None and watts - budget > 1e-6 * max(1.0, budget)


def budget_prop(device: Device) -> float | None:
    """The budget set on this device (`power_budget_w`), or None when it has none."""
    for key, value in device.props:
        if key == BUDGET_PROP:
            return float(value)
    return None


def with_budget_prop(props: tuple[tuple[str, Any], ...],
                     watts: float | None) -> tuple[tuple[str, Any], ...]:
    """`props` with the rack budget set to `watts` (removed when None), in stable order."""
    kept = [(k, v) for k, v in props if k != BUDGET_PROP]
    if watts is not None:
        value: Any = int(watts) if float(watts).is_integer() else float(watts)
        kept.append((BUDGET_PROP, value))
    return tuple(sorted(kept))


def rack_budget(device: Device, spec: DeviceSpec | None) -> RackBudget:
    """The budget of rack `device`: its own when set, else its model's default."""
    own = budget_prop(device)
    if own is not None:
        return RackBudget(own, "rack", "set on the rack")
    if spec is not None and spec.rack is not None:
        basis = spec.rack.budget_basis or f"default of rack model {spec.id}"
        return RackBudget(spec.rack.power_budget_w, "model", basis)
    return RackBudget(None, "none", "no budget")


def _optics(kind: str) -> bool:
    """Whether what a link end draws is optics (a transceiver, split across the ports of its
    connector) rather than a cable's own draw at its ends."""
    return traits_of(kind).media == "optics"


def device_draw(spec: DeviceSpec) -> tuple[float, float]:
    """(typical, max) W of one device, each falling back to the other figure."""
    p = spec.power
    typical = p.typical_w if p.typical_w is not None else (p.max_w or 0.0)
    peak = p.max_w if p.max_w is not None else (p.typical_w or 0.0)
    return typical, peak


@dataclass(frozen=True, slots=True)
class Draws:
    """Result of `RackPower.draws`."""

    by_rack: dict[str, tuple[float, float]]  # rack id -> (typical, max) W
    link_ends: dict[tuple[str, str], tuple[int, float, float]]  # (kind, model) -> units, W, W
    covered_units: int  # link ends inside a system whose published maximum includes them
    #: catalog cable model -> link ends drawing nothing because the cable has no power figure
    unpowered_ends: dict[str, int] = field(default_factory=dict)


class RackPower:
    """Per-device and per-link-end draw of a layout, and the sum per rack (cached lookups)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.catalog = layout.catalog
        self._specs: dict[str, DeviceSpec | None] = {}
        self._ppc: dict[tuple[str, str], int] = {}
        self._covered_group: dict[str, bool] = {}
        self._cable: dict[str, tuple[str, str, float, float] | None] = {}
        self._dev: dict[str, tuple[DeviceSpec | None, str | None, str | None]] | None = None
        self._dev_state: object = None  # the state `_dev` was read from

    # ---- lookups ------------------------------------------------------------------------------
    def spec(self, model: str) -> DeviceSpec | None:
        if model not in self._specs:
            self._specs[model] = self.catalog.get(model) if model in self.catalog else None
        return self._specs[model]

    def successor(self, layout: Layout, devices: Iterable[str]) -> RackPower:
        """A `RackPower` for `layout`, a later state of this one's with the same groups, that
        keeps this one's lookups and has the `devices` that changed read again (the rack
        index's incremental path, `racks_evolve.py`)."""
        power = RackPower(layout)
        power._specs = dict(self._specs)
        power._ppc = dict(self._ppc)
        power._covered_group = dict(self._covered_group)
        power._cable = dict(self._cable)
        if self._dev is not None:
            dev = dict(self._dev)
            state = layout.state
            for device_id in devices:
                device = state.devices.get(device_id)
                if device is None:
                    dev.pop(device_id, None)
                else:
                    dev[device_id] = (power.spec(device.model), device.rack, device.group)
            power._dev = dev
            power._dev_state = state
        return power

    def device_table(self) -> dict[str, tuple[DeviceSpec | None, str | None, str | None]]:
        """device id -> (spec, rack, group), built in one pass."""
        if self._dev is None:
            self._dev_state = self.layout.state
            spec, known = self.spec, self._specs
            self._dev = {d.id: (known[m] if (m := d.model) in known else spec(m), d.rack,
                                d.group) for d in self.layout.devices()}
        return self._dev

    def group_covered(self, group: str | None) -> bool:
        """True when devices of `group` sit inside a system with a published maximum."""
        trail = []
        result = False
        while group is not None:
            if group in self._covered_group:
                result = self._covered_group[group]
                break
            trail.append(group)
            g = self.layout.group(group)
            if self.states_max(g.template):
                result = True
                break
            group = g.parent if self.layout.has_group(g.parent or "") else None
        for group_id in trail:
            self._covered_group[group_id] = result
        return result

    def states_max(self, template: str | None) -> bool:
        """True when a system of model `template` has a published maximum power."""
        spec = self.spec(template) if template else None
        return (spec is not None and spec.stated is not None
                and spec.stated.values.get("max_w") is not None)

    def covered(self, device_id: str) -> bool:
        """True when the device sits inside a system with a published maximum power."""
        if self._dev is None:  # its group is enough: no table of every device for a few
            device = self.layout.state.devices.get(device_id)
            return device is not None and self.group_covered(device.group)
        entry = self.device_table().get(device_id)
        return entry is not None and self.group_covered(entry[2])

    def _ports_per_connector(self, end: PortRef) -> int:
        entry = self.device_table().get(end.device)
        spec = entry[0] if entry is not None else None
        if spec is None:
            return 1
        key = (spec.id, end.group)
        if key not in self._ppc:
            port = next((g for g in spec.ports if g.name == end.group), None)
            self._ppc[key] = max(1, port.ports_per_connector) if port is not None else 1
        return self._ppc[key]

    def cable_unit(self, model: str) -> tuple[str, str, float, float] | None:
        """(kind, model, typical, max) W drawn at ONE end of one lane of a link's cable."""
        if model in self._cable:
            return self._cable[model]
        out = None
        spec = self.spec(model)
        if spec is not None and spec.traits.media == "optics":
            out = (spec.kind, spec.id, *device_draw(spec))
        elif spec is not None and spec.traits.media == "cable" and spec.cable is not None:
            tr = self.spec(spec.cable.transceiver) if spec.cable.transceiver else None
            if tr is not None:
                out = (tr.kind, tr.id, *device_draw(tr))
            elif spec.cable.power_w_per_end is not None:  # None: no figure (reported)
                per_end = spec.cable.power_w_per_end
                out = (spec.kind, spec.id, per_end, per_end)
        self._cable[model] = out
        return out

    # ---- draws --------------------------------------------------------------------------------
    def rack_sums(self, racks: set[str], devices: Iterable[str], links: Iterable[Link]
                  ) -> dict[str, tuple[float, float]]:
        """(typical, max) W of `racks`, added up as `draws` adds them: first `devices` (those
        placed in them, in the design's order), then the ends of `links` (those with an end
        in them, in link order). A rack's figure after an edit, without a pass over the whole
        design, and to the last bit the figure `draws` gives (`RackIndex` evolving)."""
        typ: dict[str, float] = defaultdict(float)
        peak: dict[str, float] = defaultdict(float)
        index = self.device_table()
        for device_id in devices:
            spec, rack, _ = index[device_id]
            if rack not in racks or spec is None or not spec.traits.draws_power:
                continue
            t, m = device_draw(spec)
            typ[rack] += t
            peak[rack] += m
        # each link end's draw, as `_draws` works it out (the same products in the same
        # order; a switch rack's 25,000 link ends at 32k GPUs took 0.5 s through objects)
        cable_unit, ppc, covered_group = self.cable_unit, self._ports_per_connector, \
            self.group_covered
        known = self._ppc
        for link in links:
            cable = link.cable
            if cable is None:
                continue
            unit = cable_unit(cable)
            if unit is None:
                continue
            kind, _, typical, most = unit
            optics = _optics(kind)
            for end in (link.a, link.b):
                entry = index.get(end.device)
                if entry is None or entry[0] is None or entry[1] not in racks:
                    continue  # unknown model, unracked, or in another rack
                if covered_group(entry[2]):
                    continue  # covered by a system's maximum
                if optics:
                    per = known.get((entry[0].id, end.group))
                    share = 1.0 / (per if per is not None else ppc(end))
                else:
                    share = 1.0
                rack = entry[1]
                typ[rack] += typical * share * link.count
                peak[rack] += 0.0 if optics and entry[0].power.max_includes_optics \
                    else most * share * link.count
        return {r: (typ[r], peak[r]) for r in peak}

    def draws(self, devices: Iterable[str] | None = None) -> Draws:
        """Per-rack sums and per-model link-end totals, in one pass over devices and links.

        A rack's draw is the devices placed in it and the link ends on those devices.
        `devices` limits everything to those devices and the links between two of them.
        """
        if devices is not None:
            return self._draws(set(devices))
        # the whole design's, once per state and catalog: `simulate` asks for it twice (its
        # PUE's cooling report, its power report) and `validate` twice (the rack budgets, the
        # cooling rules), 0.5 s each at 32k GPUs. Kept in the state (a few thousand racks'
        # sums), read only when this object's lookups are of that state too.
        state = self.layout.state
        if self._dev is not None and self._dev_state is not state:
            return self._draws(None)
        kept = state.memo.get("draws")
        if kept is not None and kept[0] is self.catalog:
            return kept[1]
        table = self.layout.index().made_link_table()  # a large design's columns, when made
        drawn = None
        if table is not None:
            from rackdesigner.model.power_columns import table_draws

            drawn = table_draws(self, table)
        if drawn is None:
            drawn = self._draws(None)
        state.memo["draws"] = (self.catalog, drawn)
        return drawn

    def _draws(self, chosen: set[str] | None) -> Draws:
        typ: dict[str, float] = defaultdict(float)
        peak: dict[str, float] = defaultdict(float)
        index = self.device_table()
        drawn: dict[str, tuple[float, float]] = {}
        for device_id, (spec, rack, _) in index.items():
            if rack is None or spec is None or not spec.traits.draws_power:
                continue
            if chosen is not None and device_id not in chosen:
                continue
            if spec.id not in drawn:
                drawn[spec.id] = device_draw(spec)
            t, m = drawn[spec.id]
            typ[rack] += t
            peak[rack] += m
        ends: dict[tuple[str, str], list[float]] = {}  # (kind, model) -> [units, typ, max]
        covered_units = 0
        unpowered: dict[str, int] = {}
        covered_group = self._covered_group
        for link in self.layout.links():
            cable = link.cable
            if cable is None:
                continue
            unit = self.cable_unit(cable)
            if chosen is not None and (link.a.device not in chosen
                                       or link.b.device not in chosen):
                continue
            if unit is None:
                cable_spec = self.spec(cable)
                if cable_spec is not None and cable_spec.traits.media == "cable":
                    for end in (link.a, link.b):  # a known cable without a power figure
                        entry = index.get(end.device)
                        if entry is not None and entry[0] is not None and not (
                                self.group_covered(entry[2])):
                            unpowered[cable_spec.id] = unpowered.get(cable_spec.id, 0) \
                                + link.count
                continue
            kind, model, unit_t, unit_m = unit
            optics = _optics(kind)
            count = link.count
            for end in (link.a, link.b):
                entry = index.get(end.device)
                if entry is None or entry[0] is None:
                    continue  # an end on a device of unknown model is left out, as the device
                spec, rack, group = entry
                assert spec is not None  # checked above
                covered = (covered_group[group] if group in covered_group
                           else self.group_covered(group))
                if covered:
                    covered_units += count
                    continue
                if optics:
                    ppc = self._ppc.get((spec.id, end.group))
                    share = 1.0 / (self._ports_per_connector(end) if ppc is None else ppc)
                else:
                    share = 1.0
                t, m = unit_t * share * count, unit_m * share * count
                if optics and spec.power.max_includes_optics:
                    m = 0.0  # the device's published maximum includes its cages' optics
                acc = ends.get((kind, model))
                if acc is None:
                    ends[(kind, model)] = [count, t, m]
                else:
                    acc[0] += count
                    acc[1] += t
                    acc[2] += m
                if rack is not None:
                    typ[rack] += t
                    peak[rack] += m
        return Draws({r: (typ[r], peak[r]) for r in peak},
                     {k: (int(v[0]), v[1], v[2]) for k, v in ends.items()}, covered_units,
                     unpowered)

    def by_rack(self, devices: Iterable[str] | None = None) -> dict[str, tuple[float, float]]:
        """(typical, max) W per rack id (see `draws`)."""
        return self.draws(devices).by_rack
