"""A large design's `RackPower.draws` and cooling mix from the link table's NumPy columns.

A 16,384-GPU SuperPOD has 61,580 devices and 152,324 links, 41,732 of them cabled; the plain
`RackPower._draws` walks every link and both its ends in Python, and `cooling_mix` every device
(together about 0.25 s of `estimate`, which asks for its PUE and its power report). What a
device or a link end draws follows from a handful of facts: its model, its system (whether a
published maximum covers it), its cable, its port group and its count. Here those facts are
worked out once per distinct value (a few models, cables, port groups and a few thousand
groups), spread over the columns of `model/linktable.py`, and the running sums are added with
NumPy in the plain pass's order, to the bit:

- a running total (the devices' draw and heat to liquid) is `running`, NumPy's cumulative
  sum, which adds one element after the other from 0.0, as the plain pass's `+=` does;
- a sum per key (per rack, per drawing (kind, model)) is `np.add.at` on a zeroed array, which
  is unbuffered: each element is added to its key's sum in turn, in the order given. The
  values are given in the plain pass's order (the devices in design order, then each link's
  a end and b end in link order), so each key's sum is the plain pass's;
- dictionaries are made in the order the plain pass first meets their keys.

tests/test_power_columns.py compares both with the plain passes (every float's repr and every
dictionary's key order) on generated designs and on broken ones (failed parts, unknown models,
cables without a figure, twin-port transceivers, racks over budget).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import repeat
from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np

from rackdesigner.model.linktable import pick

#: `_Splitter.system` of a device in no system that says how it is cooled
NO_SYSTEM = ("none", None, "")

if TYPE_CHECKING:
    from rackdesigner.model.cooling import Facts, _Splitter
    from rackdesigner.model.linktable import LinkTable
    from rackdesigner.model.power import Draws, RackPower
    from rackdesigner.model.state import DesignState

_GROUP, _RACK, _CABLE = attrgetter("group"), attrgetter("rack"), attrgetter("cable")
_ID, _PARENT, _TEMPLATE = attrgetter("id"), attrgetter("parent"), attrgetter("template")


def running(values: np.ndarray) -> float:
    """0.0 + values[0] + values[1] + ..., added in order (a plain pass's running sum)."""
    if not values.size:
        return 0.0
    return float(np.cumsum(np.concatenate(([0.0], values)))[-1])


class Numbers(dict):
    """Each key's number, given in the order keys are first asked for."""

    def __missing__(self, key: object) -> int:
        number = self[key] = len(self)
        return number


def _codes(values: Iterable, size: int) -> tuple[np.ndarray, list]:
    """Each of `size` values' number among the distinct values (in first-seen order) and
    those values."""
    number = Numbers()
    codes = np.fromiter(map(number.__getitem__, values), dtype=np.int64, count=size)
    return codes, list(number)


def device_columns(state: DesignState) -> tuple[np.ndarray, list, np.ndarray, list]:
    """(group code per device, the groups, rack code per device, the racks) in device order,
    made once per state (the draws and the cooling mix both read them)."""
    kept = state.memo.get("power_columns")
    if kept is None:
        devices = state.device_list()
        groups, group_names = _codes(map(_GROUP, devices), len(devices))
        racks, rack_names = _codes(map(_RACK, devices), len(devices))
        kept = state.memo["power_columns"] = (groups, group_names, racks, rack_names)
    return kept


def _matches(table: LinkTable, state: DesignState) -> bool:
    """Whether `table` has the state's devices and links row for row (a table taken from an
    earlier state of the same design, `DesignIndex.like`, has)."""
    return len(table.ids) == len(state.device_list()) and len(table.links) == len(
        state.link_list())


def _chains(state: DesignState) -> tuple[dict, np.ndarray, np.ndarray, list]:
    """(group id -> row, each row's parent row or -1, each row's template code, the
    templates) of the state's groups, with a last row -1 for "no group"; made once."""
    kept = state.memo.get("group_chains")
    if kept is None:
        groups = list(state.groups.values())
        n = len(groups)
        number = dict(zip(map(_ID, groups), range(n), strict=True))
        template_of, templates = _codes(map(_TEMPLATE, groups), n)
        up = np.fromiter(map(number.get, map(_PARENT, groups), repeat(-1)), np.int64, count=n)
        kept = state.memo["group_chains"] = (number, np.append(up, -1), np.append(
            template_of, len(templates)), templates)
    return kept


def inherited(state: DesignState, names: list, own: Callable[[str | None], object]
              ) -> list | None:
    """For each group id of `names` (None: no group), the nearest decision up its chain of
    parents — `own(template)` of the group itself, else of its parent, and so on; None
    where `own` decides nothing (returns None) along the whole chain — as the group walks of
    `RackPower.group_covered` and `_Splitter.system` find it; a missing parent ends a chain.
    Worked out for every group at once by pointer jumping (a few NumPy rounds instead of a
    Python walk per group); None when some chain is longer than 256 groups (the walks' own
    limit: the caller asks them)."""
    number, up, template_of, templates = _chains(state)
    values: list = []
    codes: dict[object, int] = {}
    decision = []
    for template in templates:  # a few models
        found = own(template)
        if found is not None and found not in codes:
            codes[found] = len(values)
            values.append(found)
        decision.append(-1 if found is None else codes[found])
    dec = np.array([*decision, -1], dtype=np.int64)[template_of]  # [-1]: no group
    for _ in range(8):  # each round doubles the length of chain looked along
        live = (dec < 0) & (up >= 0)
        if not live.any():
            break
        dec = np.where(live, dec[up], dec)
        up = np.where(up >= 0, up[up], -1)
    else:
        if ((dec < 0) & (up >= 0)).any():
            return None
    of_name = dec[[number[n] if n is not None else -1 for n in names]].tolist()
    return [values[c] if c >= 0 else None for c in of_name]


def _covered_groups(power: RackPower) -> np.ndarray:
    """`RackPower.group_covered` of each group of `device_columns`, once per state and
    catalog (the draws and the power report's devices without a figure both ask)."""
    state = power.layout.state
    kept = state.memo.get("power_covered")
    if kept is None or kept[0] is not power.catalog:
        names = device_columns(state)[1]
        found = inherited(state, names, lambda template: power.states_max(template) or None)
        flags = [bool(f) for f in found] if found is not None else list(
            map(power.group_covered, names))
        kept = state.memo["power_covered"] = (power.catalog, np.array(flags, dtype=bool))
    return kept[1]


def known_covered(power: RackPower, device_ids: list[str]) -> np.ndarray | None:
    """`RackPower.covered` of each of `device_ids` when they are the design's devices of
    known models in design order (a whole design's specs, `power_of`'s), from the columns;
    None otherwise (or without a link table)."""
    table = power.layout.index().made_link_table()
    state = power.layout.state
    if table is None or not _matches(table, state):
        return None
    rows = None if table.known.all() else np.flatnonzero(table.known)
    ids = table.ids if rows is None else pick(table.ids, rows.tolist())
    if device_ids != ids:
        return None
    covered = _covered_groups(power)[device_columns(state)[0]]
    return covered if rows is None else covered[rows]


def _sums(keys: np.ndarray, values: np.ndarray, size: int) -> list[float]:
    """Each key's sum of `values`, each added in the order given (`np.add.at`), from 0.0."""
    out = np.zeros(size)
    np.add.at(out, keys, values)
    return out.tolist()


def _first_seen(keys: np.ndarray, size: int) -> list[int]:
    """The distinct keys (each below `size`) in the order of their first occurrence."""
    first = np.full(size, keys.size, dtype=np.int64)
    np.minimum.at(first, keys, np.arange(keys.size))
    seen = np.flatnonzero(first < keys.size)
    return seen[np.argsort(first[seen], kind="stable")].tolist()


def table_draws(power: RackPower, table: LinkTable) -> Draws | None:
    """What `power.draws()` gives for the whole design, from its link table (None: take the
    plain pass)."""
    from rackdesigner.model.power import Draws, device_draw
    from rackdesigner.vocabulary import traits_of

    state = power.layout.state
    if not _matches(table, state):
        return None
    groups, _, racks, rack_names = device_columns(state)
    specs = [power.spec(m) for m in table.model_names]  # per model, as `device_table` has it
    if len({s.id for s in specs if s is not None}) != len({id(s) for s in specs if s}):
        return None  # two specs of one id: the plain pass keys its lookups by id
    model_of = table.model_of
    n_models = len(specs)
    # ---- the devices: each drawing device's (typical, max) in its rack, in design order ----
    draws_of = np.zeros(n_models, dtype=bool)
    t_model, m_model = np.zeros(n_models), np.zeros(n_models)
    for c, spec in enumerate(specs):
        if spec is not None and spec.traits.draws_power:
            draws_of[c] = True
            t_model[c], m_model[c] = device_draw(spec)
    rack_none = rack_names.index(None) if None in rack_names else -1
    on = np.flatnonzero(draws_of[model_of] & (racks != rack_none))
    rack_keys = [racks[on]]
    rack_t, rack_m = [t_model[model_of[on]]], [m_model[model_of[on]]]
    # ---- the link ends: only a cabled link's draw ----
    links = state.link_list()
    cable_of, cables = _codes(map(_CABLE, links), len(links))
    units = [power.cable_unit(c) if c is not None else None for c in cables]
    cabled = np.flatnonzero(cable_of != cables.index(None)) if None in cables else \
        np.arange(len(cable_of))
    end_device = np.stack((table.a[cabled], table.b[cabled]), axis=1).ravel()  # a0, b0, ...
    end_pg = np.stack((table.pga[cabled], table.pgb[cabled]), axis=1).ravel()
    end_cable = np.repeat(cable_of[cabled], 2)
    counts = np.repeat(table.count[cabled], 2)
    counted = table.known[end_device]  # an end on a device of unknown model is left out
    covered = _covered_groups(power)[groups[end_device]]
    drawing = np.array([u is not None for u in units], dtype=bool)[end_cable] & counted
    # known cables without a power figure: their ends are reported, per cable model, in the
    # order the plain pass first meets each
    silent: list[tuple[int, str, int]] = []
    for c, (name, unit) in enumerate(zip(cables, units, strict=True)):
        spec = power.spec(name) if name is not None and unit is None else None
        if spec is None or spec.traits.media != "cable":
            continue
        ends = np.flatnonzero((end_cable == c) & counted & ~covered)
        if ends.size:
            silent.append((int(ends[0]), spec.id, int(counts[ends].sum())))
    unpowered: dict[str, int] = {}
    for _, model, n in sorted(silent):
        unpowered[model] = unpowered.get(model, 0) + n
    ends_in = np.flatnonzero(drawing)
    cover = covered[ends_in]
    covered_units = int(counts[ends_in[cover]].sum())
    ends_in = ends_in[~cover]
    device = end_device[ends_in]
    cable = end_cable[ends_in]
    count = counts[ends_in].astype(np.float64)
    optics_cable = np.array([u is not None and traits_of(u[0]).media == "optics"
                             for u in units], dtype=bool)
    unit_t = np.array([u[2] if u is not None else 0.0 for u in units], dtype=np.float64)
    unit_m = np.array([u[3] if u is not None else 0.0 for u in units], dtype=np.float64)
    ppc = np.array([max(1, g.ports_per_connector) for g in table.port_groups] + [1],
                   dtype=np.float64)  # [-1]: no such port group, one port a connector
    optics = optics_cable[cable]
    share = np.where(optics, 1.0 / ppc[end_pg[ends_in]], 1.0)
    t = unit_t[cable] * share * count
    m = unit_m[cable] * share * count
    in_max = np.array([s is not None and s.power.max_includes_optics for s in specs] or [False],
                      dtype=bool)
    m[optics & in_max[model_of[device]]] = 0.0
    # per drawing (kind, model): units, typical, max
    key_of = [(u[0], u[1]) if u is not None else None for u in units]
    keys = list(dict.fromkeys(k for k in key_of if k is not None))
    key_code = np.array([keys.index(k) if k is not None else -1 for k in key_of],
                        dtype=np.int64)[cable]
    order = _first_seen(key_code, len(keys))
    n_units = np.zeros(len(keys), dtype=np.int64)
    np.add.at(n_units, key_code, counts[ends_in])
    sum_t, sum_m = _sums(key_code, t, len(keys)), _sums(key_code, m, len(keys))
    link_ends = {keys[k]: (int(n_units[k]), sum_t[k], sum_m[k]) for k in order}
    # per rack: the devices first, then the link ends, as the plain pass adds them
    end_rack = racks[device]
    racked = end_rack != rack_none
    rack_keys.append(end_rack[racked])
    rack_t.append(t[racked])
    rack_m.append(m[racked])
    every = np.concatenate(rack_keys)
    by_t = _sums(every, np.concatenate(rack_t), len(rack_names))
    by_m = _sums(every, np.concatenate(rack_m), len(rack_names))
    by_rack = {rack_names[r]: (by_t[r], by_m[r]) for r in _first_seen(every, len(rack_names))}
    return Draws(by_rack, link_ends, covered_units, unpowered)


def table_mix(table: LinkTable, state: DesignState, split: _Splitter,
              facts_of: Callable[..., Facts]) -> tuple[bool, float, float] | None:
    """(a rear door met, the devices' maximum draw, their heat to liquid) of `cooling_mix`'s
    pass over the devices, per (model, system) instead of per device; None: take the plain
    pass."""
    if not _matches(table, state):
        return None
    devices = state.device_list()
    groups, group_names, _, _ = device_columns(state)
    decided = inherited(state, group_names, split.decided)
    systems, system_names = _codes(map(split.system, group_names) if decided is None else (
        NO_SYSTEM if f is None else f for f in decided), len(group_names))
    n_systems = max(len(system_names), 1)
    pair = table.model_of * n_systems + systems[groups]
    # each (model, system) pair's first device, to ask its facts of
    first = np.full(len(table.specs) * n_systems, len(devices), dtype=np.int64)
    np.minimum.at(first, pair, np.arange(len(devices)))
    peak_of = np.full(first.size, np.nan)  # NaN: draws no power (or is left out)
    share_of = np.zeros(first.size)
    door = False
    for c in np.flatnonzero(first < len(devices)).tolist():
        found = facts_of(devices[int(first[c])])
        if found is None or found[0].rack is not None:
            continue
        if found[2]:
            door = True
        if found[3] is not None:
            peak_of[c], share_of[c] = found[3], found[4]
    if door:
        return True, 0.0, 0.0
    peak = peak_of[pair]
    drawn = ~np.isnan(peak)
    total = running(peak[drawn])
    liquid = running(share_of[pair][drawn & (peak != 0.0)])
    return False, total, liquid


__all__ = ["Numbers", "device_columns", "inherited", "known_covered", "running", "table_draws",
           "table_mix"]
