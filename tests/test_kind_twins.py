"""A kind is what its traits say: a twin of any shipped kind (the same entry under a new name)
gets the figures the shipped kind gets from every engine.

For each shipped kind, the catalog's models of that kind are moved to a twin kind registered as
data alone, the example designs (and one carrying storage, a management switch, a PDU and a CDU)
are loaded against that catalog, and the simulation (plain and NumPy columns), a degraded
design's (what-if), an edited design's (the evolved index), the design rules, racks, bill of
materials, capital cost and the Slurm/NetBox exports must give what they give for the shipped
kind — but for the kind's name where it is shown. A module that decides by the name, not the
traits, fails here; tests/test_kind_traits.py forbids such comparisons in the source.
"""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import rackdesigner
from rackdesigner import vocabulary
from rackdesigner.catalog import Catalog
from rackdesigner.io import load_layout
from rackdesigner.model import Device, Layout, Link, PortRef, check_layout
from rackdesigner.simulation import simulate
from rackdesigner.vocabulary import kinds as kinds_module

PACKAGE = Path(rackdesigner.__file__).resolve().parent
EXAMPLES = PACKAGE.parent / "resources" / "examples"
DESIGNS = ("dgx-h100", "dgx-h100-2node-ib", "fat-tree-2tier", "gb200-nvl72", "extras")
TWIN = "_twin"


def _extras(catalog: Catalog) -> Layout:
    """dgx-h100-2node-ib with a storage appliance on the storage NICs (one through a storage
    switch), a management switch, a PDU, a CDU and a rear door in its rack: the kinds the
    examples do not carry."""
    layout = load_layout(EXAMPLES / "dgx-h100-2node-ib.yaml", catalog)
    layout.add_device(Device("stor-1", "ai400x2", rack="rack-1", u=20))
    layout.add_device(Device("mgmt-1", "sn2201", rack="rack-1", u=23))
    layout.add_device(Device("pdu-1", "ap8886", rack="rack-1"))
    layout.add_device(Device("cdu-1", "supermicro-inrack-cdu", rack="rack-1", u=25))
    layout.add_device(Device("rdhx-1", "ibm-rdhx", rack="rack-1"))
    for n, node in enumerate(("dgx-1", "dgx-2")):
        layout.add_link(Link(f"stor-l{n}", PortRef(f"{node}.storage_nic0", "ib"),
                             PortRef("stor-1", "ib", n)))
    layout.add_link(Link("mgmt-l0", PortRef("mgmt-1", "uplink", 0),
                         PortRef("dgx-1.storage_nic1", "ib")))
    # a storage switch between the second node's other storage port and the appliance
    layout.add_device(Device("ssw-1", "qm9700-storage", rack="rack-1", u=27))
    layout.add_link(Link("ssw-l0", PortRef("dgx-2.storage_nic1", "ib"), PortRef("ssw-1", "ib", 0)))
    layout.add_link(Link("ssw-l1", PortRef("ssw-1", "ib", 1), PortRef("stor-1", "ib", 2)))
    return layout


def _load(name: str, catalog: Catalog) -> Layout:
    if name == "extras":
        return _extras(catalog)
    return load_layout(EXAMPLES / f"{name}.yaml", catalog)


def _plain(value: Any) -> Any:
    """`value` with the twin suffix taken out of every string (where a kind's name shows)."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return value.replace(TWIN, "")
    return value


def _figures(layout: Layout, tmp: Path) -> dict[str, Any]:
    """What every engine makes of `layout` (its kind names as shown)."""
    from rackdesigner.analysis.whatif import TARGETS, WhatIf
    from rackdesigner.bom import bill_of_materials
    from rackdesigner.cost.capex import price_design
    from rackdesigner.cost.locate import example_book_path, read_price_book
    from rackdesigner.interop import netbox, slurm
    from rackdesigner.model.racks import RackIndex

    tmp.mkdir(parents=True, exist_ok=True)
    out: dict[str, Any] = {"simulate": simulate(layout).to_dict()}
    whatif = WhatIf(layout)
    out["candidates"] = {t: whatif.candidates(t) for t in TARGETS}
    failed = (out["candidates"]["switch"] or out["candidates"]["nvswitch"])[:1]
    if failed:
        impact = whatif.scenario(failed)
        assert impact.result is not None
        out["degraded"] = (impact.delta, impact.stranded_gpus, impact.degraded_gpus,
                           impact.result.to_dict())
    out["rules"] = sorted((f.severity, f.code, f.message) for f in check_layout(layout))
    racks = RackIndex(layout)
    out["racks"] = {r: (s.typical_w, s.max_w, s.weight_kg, s.used_u, s.power_missing)
                    for r, s in racks.summaries().items()}
    out["units"] = {u: (x.role, x.rack, x.height_u) for u, x in racks.units.items()}
    out["side"] = {r: [(d.id, d.side, d.lane, d.figures) for d in racks.side_mounted(r)]
                   for r in racks.summaries()}
    bom = bill_of_materials(layout)
    listed = bom.to_json()
    out["bom"] = [*sorted(map(str, listed["items"])), listed["cables"], listed["transceivers"]]
    book = read_price_book(example_book_path(), layout.catalog)
    capex = price_design(layout, book)
    out["capex"] = (capex.total, capex.racks, capex.by_category(), capex.by_group,
                    sorted(str(line.to_dict()) for line in capex.lines))
    from rackdesigner.interop.base import ExportError

    for plugin in ("tree", "block"):
        try:
            slurm.write(layout, tmp / f"{plugin}.conf", plugin=plugin)
            out[f"slurm-{plugin}"] = (tmp / f"{plugin}.conf").read_text(encoding="utf-8")
        except ExportError as exc:  # no switches for a tree: the same refusal
            out[f"slurm-{plugin}"] = str(exc)
    netbox.write(layout, tmp / "netbox")
    with open(tmp / "netbox" / "06-devices.csv", newline="", encoding="utf-8") as f:
        out["netbox"] = sorted((row["name"], row["role"]) for row in csv.DictReader(f))
    # an edit: the evolved index (`model/index_evolve.py`) and the topology after it
    link = next(iter(layout.links()))
    layout.remove_link(link.id)
    out["edited"] = simulate(layout).to_dict()
    return _plain(out)


@pytest.fixture(scope="module")
def shipped(catalog, tmp_path_factory):
    """Each design's figures with the shipped kinds, once."""
    tmp = tmp_path_factory.mktemp("shipped")
    return {name: _figures(_load(name, catalog), tmp / name) for name in DESIGNS}


@pytest.mark.parametrize("kind_name", sorted(vocabulary.KIND_NAMES))
def test_a_twin_of_every_shipped_kind_gets_identical_figures_from_every_engine(
        monkeypatch, catalog, shipped, kind_name, tmp_path):
    twin = kind_name + TWIN
    entry = dataclasses.replace(kinds_module.KINDS[kind_name], name=twin)
    assert entry.traits == kinds_module.KINDS[kind_name].traits
    table = MappingProxyType({**kinds_module.KINDS, twin: entry})
    monkeypatch.setattr(kinds_module, "KINDS", table)
    monkeypatch.setattr(vocabulary, "KINDS", table)
    moved = Catalog([dataclasses.replace(s, kind=twin) if s.kind == kind_name else s
                     for s in catalog])
    seen = False
    for name in DESIGNS:
        layout = _load(name, moved)
        if twin not in layout.index().counts()[0] and kind_name not in ("cable", "transceiver",
                                                                         "system"):
            continue
        seen = True
        assert _figures(layout, tmp_path / name) == shipped[name], name
    assert seen, f"no design carries a {kind_name}"


@pytest.mark.parametrize("kind_name", ["switch", "nic", "gpu"])
def test_a_twin_gets_identical_figures_from_the_numpy_columns(monkeypatch, catalog, kind_name):
    from rackdesigner.model import index, linktable

    monkeypatch.setattr(index, "_ARRAY_MIN_LINKS", 1)
    monkeypatch.setattr(linktable, "ARRAY_MIN_LINKS", 1)
    theirs = simulate(_load("fat-tree-2tier", catalog)).to_dict()
    twin = kind_name + TWIN
    table = MappingProxyType({**kinds_module.KINDS, twin: dataclasses.replace(
        kinds_module.KINDS[kind_name], name=twin)})
    monkeypatch.setattr(kinds_module, "KINDS", table)
    monkeypatch.setattr(vocabulary, "KINDS", table)
    moved = Catalog([dataclasses.replace(s, kind=twin) if s.kind == kind_name else s
                     for s in catalog])
    layout = _load("fat-tree-2tier", moved)
    assert layout.index().link_table() is not None  # the columns, not the plain passes
    assert _plain(simulate(layout).to_dict()) == _plain(theirs)
