"""Every facet of the derived index gives one answer whichever form derives it.

Each facet (`rackdesigner/model/facets/`) answers one protocol (`facets.protocol.Facet`): a
plain form from the state, a NumPy form from the link columns, an evolved form from an earlier
state's index and what changed, and a degraded form from the index of the design a failure
was cut from. Here, for every facet and several generated designs (clean ones, one broken in
every way the rules know), each form the facet has is compared with its plain form after real
edits and real failures, as the facet itself says two values compare (`canonical`: the forms
may name a set by another member).
"""

from __future__ import annotations

import random

import pytest

from rackdesigner.generators import generate
from rackdesigner.model import Device, Layout, Link, PortRef
from rackdesigner.model.facets import FACETS, Facet, PlainFacet
from rackdesigner.model.facets.rack_index import RACK_INDEX
from rackdesigner.model.failures import closure, degraded
from rackdesigner.model.index import DesignIndex
from rackdesigner.model.linktable import LinkTable
from tests.test_linktable import _broken

DESIGNS = {
    "superpod": lambda catalog: generate("superpod", system="dgx-h100", nodes=8,
                                         catalog=catalog),
    "gb200": lambda catalog: generate("superpod", system="gb200-nvl72", racks=2,
                                      catalog=catalog),
    "rail-b200": lambda catalog: generate("rail-optimized", system="dgx-b200", nodes=4,
                                          switch="qm9700", catalog=catalog),
    "broken": lambda catalog: _broken(catalog, 2),
}


def _having(form: str) -> list:
    """The facets that have `form` (not PlainFacet's "none")."""
    return [pytest.param(f, id=f.name) for f in FACETS
            if getattr(type(f), form) is not getattr(PlainFacet, form)]


def _same(facet: Facet, got: object, want: object) -> None:
    assert got is not None
    assert facet.canonical(got) == facet.canonical(want), facet.name


def _edit(layout: Layout, rng: random.Random) -> None:
    """What a user does between two states: cables pulled, a system removed, a new GPU and
    NIC cabled to a switch, a device moved to another rack."""
    links = sorted(lk.id for lk in layout.links())
    for link_id in rng.sample(links, 4):
        layout.remove_link(link_id)
    devices = sorted(d.id for d in layout.devices())
    gone = rng.choice([d for d in devices if layout.spec(d) is not None
                       and layout.spec(d).traits.computes])
    for link in layout.links_of(gone):
        layout.remove_link(link.id)
    layout.remove_device(gone)
    switch = next(d.id for d in layout.devices() if layout.spec(d.id) is not None
                  and layout.spec(d.id).traits.fabric_switch)
    layout.add_device(Device("gpu-new-1", "h100-sxm5"))
    layout.add_device(Device("nic-new-1", "connectx-7"))
    layout.add_link(Link("new-pcie", PortRef("gpu-new-1", "pcie"), PortRef("nic-new-1", "pcie")))
    group = next((g.name for g in layout.spec(switch).ports if g.protocol == "infiniband"), None)
    if group is not None:
        layout.add_link(Link("new-ib", PortRef("nic-new-1", "ib"), PortRef(switch, group)))
    placed = [d for d in layout.devices() if d.rack is not None and d.u is not None]
    if placed:
        mover = rng.choice(placed)
        layout.update_device(mover.id, u=(mover.u or 1) + 1)


@pytest.mark.parametrize("design", sorted(DESIGNS))
@pytest.mark.parametrize("facet", _having("arrays"))
def test_the_numpy_form_equals_the_plain_one(catalog, design, facet):
    layout = DESIGNS[design](catalog)
    index = DesignIndex(layout.state, catalog)
    got = facet.arrays(index, LinkTable(index))
    _same(facet, got, facet.plain(DesignIndex(layout.state, catalog)))


@pytest.mark.parametrize("design", sorted(DESIGNS))
@pytest.mark.parametrize("facet", _having("evolved"))
def test_the_evolved_form_equals_the_plain_one(catalog, design, facet):
    layout = DESIGNS[design](catalog)
    base = layout.index()
    for other in FACETS:  # the earlier index has every facet the evolved forms start from
        getattr(base, other.name)()
    _edit(layout, random.Random(f"{design}-{facet.name}"))
    found = layout.state.edit_base("index")
    assert found is not None and found[0] is base  # the edits are known: a real evolution
    touched = found[1]
    got = facet.evolved(DesignIndex(layout.state, catalog), base, touched)
    _same(facet, got, facet.plain(DesignIndex(layout.state, catalog)))


@pytest.mark.parametrize("design", sorted(DESIGNS))
@pytest.mark.parametrize("facet", _having("without"))
def test_the_degraded_form_equals_the_plain_one(catalog, design, facet):
    layout = DESIGNS[design](catalog)
    rng = random.Random(f"down-{design}")
    source = layout.index()
    for other in FACETS:
        getattr(source, other.name)()
    switches = sorted(d.id for d in layout.devices() if layout.spec(d.id) is not None
                      and layout.spec(d.id).traits.fabric_switch)
    gpus = sorted(source.connectivity().gpus)
    marked = [rng.choice(switches), rng.choice(gpus)]
    marked += rng.sample(sorted(lk.id for lk in layout.links()), 3)
    failed = closure(layout, marked)
    broken = degraded(layout, failed)
    got = facet.without(DesignIndex(broken.state, catalog), source, failed)
    _same(facet, got, facet.plain(DesignIndex(broken.state, catalog)))


@pytest.mark.parametrize("design", sorted(DESIGNS))
def test_the_rack_index_evolved_form_equals_the_plain_one(catalog, design):
    """The rack index (a layout-level facet: its source is a layout snapshot) after the same
    real edits: units, racks, every rack's power and members, evolved as built anew."""
    from rackdesigner.model.racks_evolve import rack_index  # the old import path

    layout = DESIGNS[design](catalog)
    base = layout.snapshot()
    held = rack_index(base)
    held.power_by_rack()  # summed: the evolved form sums again only the racks touched
    _edit(layout, random.Random(f"{design}-racks"))
    found = layout.state.edit_base("racks")
    assert found is not None and found[0] is held  # the edits are known: a real evolution
    got = RACK_INDEX.evolved(layout.snapshot(), base, found[1])
    _same(RACK_INDEX, got, RACK_INDEX.plain(layout.snapshot()))
    assert got is not held and RACK_INDEX.plain(base).units == held.units
    assert RACK_INDEX.arrays(base, None) is None  # type: ignore[arg-type]


def test_every_facet_has_a_plain_form_and_one_other():
    """A facet is in the registry for its forms: the plain one and at least one more (the
    reachability facet inherits connectivity's, which it reads)."""
    for facet in FACETS:
        own = {name for name in ("arrays", "evolved", "without")
               if getattr(type(facet), name) is not getattr(PlainFacet, name)}
        assert own or facet.name == "reachability", facet.name


def test_no_facet_reaches_into_another_modules_privates():
    """The facets read the index, the link columns and each other only through public names:
    no `obj._private` read (but their own `self`'s) and no `_private` import."""
    import ast
    from pathlib import Path

    import rackdesigner.model.facets as package

    found = []
    for path in sorted(Path(package.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self")):
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                found += [f"{path.name}:{node.lineno} import {a.name}" for a in node.names
                          if a.name.startswith("_")]
    assert not found, found
