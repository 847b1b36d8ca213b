"""A large design's power draws, cooling mix and power report from the link table's columns
(model/power_columns.py) equal the plain passes to the bit: every rack's and every (kind,
model)'s sum, the covered and unpowered link ends, every dictionary's key order, the heat to
water and to air, the whole power report — on generated designs (a SuperPOD whose QM9700s'
maximum includes their optics, twin-port Quantum-X800 cages, an NVL72) and on broken ones
(failed parts, unknown models, unracked devices, cables with no power figure, a rear door)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rackdesigner.generators import generate
from rackdesigner.model import Device, Group, Layout, Link, PortRef
from rackdesigner.model import index as index_module
from rackdesigner.model.power import RackPower
from rackdesigner.model.power_columns import inherited, known_covered, table_draws
from rackdesigner.model.pue import cooling_mix
from rackdesigner.simulation import power_sums
from rackdesigner.simulation.power import power_of
from rackdesigner.simulation.topology import Topology
from tests.test_linktable import _broken
from tests.test_power_sums import GENERATED

#: a cable drawing 0 W, an unknown one, a DAC, one with no power figure (and its alias)
CABLES = ["cat6-1g", "no-such-cable", "dac-ndr", "aoc-hdr", "aoc"]


def _odd(catalog, seed: int) -> Layout:
    """A 2-SU SuperPOD broken in the ways power reads: devices moved out of their racks,
    cables with no power figure and unknown cables, ends on unknown models, failed parts,
    a rack over a tiny budget."""
    rng = random.Random(seed)
    layout = generate("superpod", system="dgx-h100", nodes=16, catalog=catalog)
    devices = list(layout.devices())
    for d in rng.sample([d for d in devices if d.rack is not None], 12):
        layout.update_device(d.id, rack=None)
    cabled = [lk for lk in layout.links() if lk.cable is not None]
    for lk in rng.sample(cabled, 20):
        layout.update_link(lk.id, cable=rng.choice(CABLES))
    layout.add_device(Device("mystery-1", "no-such-model", rack=devices[0].rack))
    leaf = next(d for d in devices if d.model == "qm9700")
    layout.add_link(Link("odd-1", PortRef("mystery-1", "p", 0), PortRef(leaf.id, "ib", 63),
                         2, cable="fiber-mm-ndr"))
    for d in rng.sample(devices, 4):
        layout.update_device(d.id, status="failed")
    rack = next(d for d in devices if d.model.startswith("rack"))
    layout.update_device(rack.id, props=(("power_budget_w", 100),))
    return layout


def _deep(catalog) -> Layout:
    """A SuperPOD with a node moved 300 groups deep (the group walks answer for it)."""
    layout = generate("superpod", system="dgx-h100", nodes=16, catalog=catalog)
    chain = _chain(layout, 300, {0: "dgx-h100"})
    node = next(g for g in layout.state.groups.values()  # (a map: its order is the hash's)
                if g.template == "dgx-h100" and g.id not in chain)
    layout.update_group(node.id, parent=chain[-1])
    return layout


DESIGNS = [
    *GENERATED,  # a 2-SU SuperPOD, a rail-optimized B200 fabric, an NVL72 rack
    lambda c: _broken(c, 2),
    lambda c: _odd(c, 1),
    lambda c: _odd(c, 2),
    _deep,
]


def _flat(drawn) -> str:
    return repr((list(drawn.by_rack.items()), list(drawn.link_ends.items()),
                 drawn.covered_units, list(drawn.unpowered_ends.items())))


def _with_table(layout: Layout, monkeypatch) -> None:
    monkeypatch.setattr(index_module, "_ARRAY_MIN_LINKS", 0)
    layout.state.memo.clear()
    assert layout.index().link_table() is not None


@pytest.mark.parametrize("number", range(len(DESIGNS)))
def test_draws_from_columns_are_the_plain_pass(number, catalog, monkeypatch):
    layout = DESIGNS[number](catalog)
    _with_table(layout, monkeypatch)
    fast = table_draws(RackPower(layout), layout.index().link_table())
    assert fast is not None
    plain = RackPower(layout)._draws(None)
    assert _flat(fast) == _flat(plain)
    assert RackPower(layout).draws() == plain  # the route `draws` takes


def test_the_odd_design_has_what_it_should(catalog, monkeypatch):
    layout = _odd(catalog, 1)
    drawn = RackPower(layout)._draws(None)
    assert drawn.unpowered_ends and drawn.covered_units and None not in drawn.by_rack
    assert any(m == 0.0 for _, _, m in drawn.link_ends.values())  # a QM9700's cages


@pytest.mark.parametrize("number", range(len(DESIGNS)))
def test_cooling_mix_and_power_report_from_columns(number, catalog, monkeypatch):
    layout = DESIGNS[number](catalog)
    specs = Topology.build(layout).specs
    monkeypatch.setattr(power_sums, "ARRAY_MIN_DEVICES", 0)
    monkeypatch.setattr(index_module, "_ARRAY_MIN_LINKS", 10**12)
    layout.state.memo.clear()
    plain = (repr(cooling_mix(layout)), repr(power_of(layout, specs, None, 1.3)))
    assert layout.index().made_link_table() is None
    _with_table(layout, monkeypatch)
    assert known_covered(RackPower(layout), list(specs)) is not None
    fast = (repr(cooling_mix(layout)), repr(power_of(layout, specs, None, 1.3)))
    assert fast == plain


def test_a_rear_door_leaves_the_mix_to_the_report(catalog, monkeypatch):
    layout = generate("superpod", system="dgx-h100", nodes=16, catalog=catalog)
    rack = next(d for d in layout.devices() if d.model.startswith("rack"))
    layout.add_device(Device("door-1", "ibm-rdhx", rack=rack.id))
    _with_table(layout, monkeypatch)
    assert cooling_mix(layout) is None


def test_known_covered_only_for_the_whole_designs_devices(catalog, monkeypatch):
    layout = _broken(catalog, 1)
    _with_table(layout, monkeypatch)
    power = RackPower(layout)
    specs = list(Topology.build(layout).specs)
    flags = known_covered(power, specs)
    assert flags is not None and flags.tolist() == [power.covered(d) for d in specs]
    assert known_covered(power, specs[1:]) is None
    assert known_covered(power, specs[::-1]) is None


def test_add_at_adds_in_the_order_given():
    """The per-key sums rely on `np.add.at` adding each value to its key's sum in turn, in
    the order given, as a Python loop does (values where the order changes the sum)."""
    rng = random.Random(3)
    values = [rng.choice((1e16, 1.0, 0.1, 3.3, 2.0**-30)) for _ in range(5000)]
    keys = [rng.randrange(7) for _ in values]
    out = np.zeros(7)
    np.add.at(out, np.array(keys), np.array(values))
    plain = [0.0] * 7
    for k, v in zip(keys, values, strict=True):
        plain[k] += v
    assert out.tolist() == plain
    assert sorted(values) != values and sum(sorted(values)) != sum(values)  # order matters


def _walk(layout: Layout, group, own):
    while group is not None:
        g = layout.group(group)
        if own(g.template) is not None:
            return own(g.template)
        group = g.parent if layout.has_group(g.parent or "") else None
    return None


def _chain(layout: Layout, depth: int, templates: dict[int, str]) -> list[str]:
    ids = []
    for i in range(depth):
        ids.append(f"chain-{depth}-{i}")
        layout.add_group(Group(ids[-1], parent=ids[-2] if i else None,
                               template=templates.get(i)))
    return ids


def test_inherited_is_the_group_walk(catalog):
    layout = generate("superpod", system="dgx-h100", nodes=16, catalog=catalog)
    chain = _chain(layout, 40, {3: "dgx-h100", 30: "gb200-nvl72"})
    names = [None, *(g.id for g in layout.state.groups.values()), *chain[::-1]]
    for decides in ({"dgx-h100"}, {"gb200-nvl72"}, {"dgx-h100", "gb200-nvl72"}, set()):
        def own(template, decides=decides):
            return ("decided", template) if template in decides else None
        assert inherited(layout.state, names, own) == [_walk(layout, n, own) for n in names]
    power = RackPower(layout)
    found = inherited(layout.state, names, lambda t: power.states_max(t) or None)
    assert [bool(f) for f in found] == [power.group_covered(n) for n in names]
    assert any(found) and not all(found)


def test_inherited_leaves_chains_past_256_groups_to_the_walks(catalog):
    layout = generate("superpod", system="dgx-h100", nodes=8, catalog=catalog)
    chain = _chain(layout, 200, {0: "dgx-h100"})
    assert inherited(layout.state, chain, lambda t: t) == ["dgx-h100"] * 200
    chain = _chain(layout, 300, {0: "dgx-h100"})
    assert inherited(layout.state, chain, lambda t: t) is None
