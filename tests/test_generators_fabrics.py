"""`superpod --fabrics compute,storage,oob`: the storage fabric and the out-of-band network of
a DGX SuperPOD beside its compute fabric — opt-in (the default design is unchanged), every link
cabled and priced, kept apart from the compute fabric by the simulation, and giving the
reliability model a storage path."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from rackdesigner import vocabulary
from rackdesigner.cli import main
from rackdesigner.cost import design_cost
from rackdesigner.cost.locate import example_book_path, read_price_book
from rackdesigner.cost.pricebook import Price
from rackdesigner.generators import GeneratorError, default_catalog, generate
from rackdesigner.generators.sidefabrics import NODES_PER_APPLIANCE
from rackdesigner.model import check_layout, has_errors

CAT = default_catalog()
NETWORK = vocabulary.protocols_of("network")


def _design(system: str = "dgx-h100", sus: int = 1, fabrics: str | None = None):
    opts = {"system": system, "sus": sus}
    if fabrics is not None:
        opts["fabrics"] = fabrics
    return generate("superpod", CAT, **opts)


@pytest.fixture(scope="module")
def pair():
    return _design(), _design(fabrics="compute,storage,oob")


def _kinds(layout) -> dict[str, int]:
    out: dict[str, int] = {}
    for d in layout.devices():
        kind = layout.catalog.get(d.model).kind
        out[kind] = out.get(kind, 0) + 1
    return out


def test_default_and_compute_only_draw_the_same_design(pair):
    base, _ = pair
    same = _design(fabrics="compute")
    assert [d.id for d in base.devices()] == [d.id for d in same.devices()]
    assert len(list(base.links())) == len(list(same.links()))
    assert "storage" not in _kinds(base) and "storage_switch" not in _kinds(base)


@pytest.mark.parametrize("system,sus", [("dgx-h100", 1), ("dgx-h100", 4), ("dgx-h200", 1),
                                        ("dgx-b200", 1), ("dgx-b200", 2)])
def test_every_storage_port_reaches_a_storage_leaf_and_appliances_hang_on_spines(system, sus):
    layout = _design(system, sus, "storage")
    assert not has_errors(check_layout(layout))
    nodes = sum(1 for g in layout.groups() if g.kind == "node" and g.template)
    kinds = _kinds(layout)
    assert kinds["storage"] == max(1, math.ceil(nodes / NODES_PER_APPLIANCE))
    ports = 2 * nodes  # one port of each of a DGX's two storage cards
    leaves = [d.id for d in layout.devices() if d.id.startswith("storage-leaf-")]
    assert len(leaves) == math.ceil(ports / 32)
    to_leaf = [k for k in layout.links() if k.b.device in leaves
                   and (".storage_nic" in k.a.device or ".dpu" in k.a.device)]
    assert len(to_leaf) == ports
    for link in layout.links():
        port = layout.catalog.get(layout.device(link.a.device).model).port(link.a.group)
        if "storage" in link.a.device + link.b.device and port.protocol in NETWORK:
            assert link.cable and link.length_m, link  # the cost model needs a cable type
    for d in layout.devices():
        if d.model == "ai400x2":
            ends = [k for k in layout.links() if d.id in (k.a.device, k.b.device)]
            assert sum(k.count for k in ends) == 8
            assert all("storage-spine-" in k.a.device + k.b.device for k in ends)


def test_storage_switches_are_not_compute_fabric_switches(pair):
    _, full = pair
    spec = CAT.get("qm9700-storage")
    assert spec.traits.side_fabric and not spec.traits.fabric_switch
    # the compute fabric is what it was: the same components of GPUs and fabric switches
    base_switches = sum(1 for d in pair[0].devices() if CAT.get(d.model).traits.fabric_switch)
    assert sum(1 for d in full.devices() if CAT.get(d.model).traits.fabric_switch) \
        == base_switches


def _simulate(layout, tmp_path, name, capsys) -> dict:
    from rackdesigner.io import save_layout

    path = tmp_path / f"{name}.yaml"
    save_layout(layout, path)
    capsys.readouterr()
    assert main(["simulate", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_simulated_compute_figures_are_unchanged_by_the_storage_fabric(pair, tmp_path, capsys):
    base, full = pair
    a = _simulate(base, tmp_path, "base", capsys)
    b = _simulate(full, tmp_path, "full", capsys)
    for key in ("scope", "bandwidth", "collectives", "latency", "placement", "link_loads"):
        assert a[key] == b[key], key
    # the storage gear draws power: the total only grows
    assert b["power"]["total_max_w"] > a["power"]["total_max_w"]


@pytest.mark.parametrize("opts", [{"system": "dgx-b200", "sus": 1},
                                  {"system": "gb200-nvl72", "racks": 8}])
def test_the_new_storage_fabrics_leave_the_compute_figures_alone(opts, tmp_path, capsys):
    """The DGX B200's InfiniBand and the NVL72's Ethernet storage fabrics are kept apart from
    the compute fabric by the simulation, as the DGX H100's is."""
    base = generate("superpod", CAT, **opts)
    full = generate("superpod", CAT, **opts, fabrics="compute,storage")
    a = _simulate(base, tmp_path, "base", capsys)
    b = _simulate(full, tmp_path, "full", capsys)
    for key in ("scope", "bandwidth", "collectives", "latency", "placement", "link_loads"):
        assert a[key] == b[key], key
    assert b["power"]["total_max_w"] > a["power"]["total_max_w"]


def test_every_line_is_priced_and_a_book_without_the_appliance_says_so(pair):
    base, full = pair
    book = read_price_book(example_book_path(), CAT)
    report = design_cost(full, book)
    assert report.capex.complete  # the appliance too (derived: its method in the book)
    unpriced = dataclasses.replace(book, prices={k: v for k, v in book.prices.items()
                                                 if k != "ai400x2"})
    missing = design_cost(full, unpriced).capex
    assert not missing.complete  # a book without it: a lower bound, never a guess
    assert {line.model for line in missing.lines if line.unit is None} == {"ai400x2"}
    dear = dataclasses.replace(book, prices={**book.prices, "ai400x2": Price(
        "ai400x2", unit=2 * book.price("ai400x2").unit, source="test", date="2026-12",
        basis="list")})
    assert design_cost(full, dear).capex.total > report.capex.total
    # the storage fabric is network: its share of capex rises over the compute-only design
    before = design_cost(base, book).capex
    after = report.capex
    assert after.by_category()["network"] > before.by_category()["network"]
    assert after.network_with_system_nics() / after.total \
        > before.network_with_system_nics() / before.total


def test_a_full_ra_design_gives_a_checkpoint_write_bandwidth(pair):
    from rackdesigner.reliability.structure import design_structure

    base, full = pair
    assert design_structure(base).storage.write_GBps is None
    path = design_structure(full).storage
    appliances = _kinds(full)["storage"]
    assert path.reachable == appliances
    assert path.write_GBps == pytest.approx(appliances * CAT.get("ai400x2").fact("write_GBps"))


def test_more_sus_never_give_less_storage_bandwidth():
    from rackdesigner.reliability.structure import design_structure

    figures = [design_structure(_design("dgx-h100", s, "storage")).storage.write_GBps
               for s in (1, 2, 4)]
    assert figures == sorted(figures)


@pytest.mark.parametrize("sus", [4, 16, 24])
def test_every_storage_leaf_reaches_every_spine_and_no_port_is_used_twice(sus):
    layout = _design("dgx-h100", sus, "storage")
    spines = {d.id for d in layout.devices() if d.id.startswith("storage-spine-")}
    used: dict[tuple[str, int], str] = {}
    reach: dict[str, set[str]] = {}
    for link in layout.links():
        for end in (link.a, link.b):
            if end.index is not None and end.device.startswith("storage-"):
                for k in range(link.count):
                    key = (end.device, end.index + k)
                    assert key not in used, key
                    assert end.index + k < 64, key  # within the QM9700's 64 ports
                    used[key] = link.id
        if link.a.device.startswith("storage-leaf-") and link.b.device in spines:
            reach.setdefault(link.a.device, set()).add(link.b.device)
    assert reach and all(r == spines for r in reach.values())


@pytest.mark.parametrize("opts,message", [
    ({"system": "dgx-h100", "sus": 1, "fabrics": "compute,bogus"}, "unknown fabric bogus"),
    ({"system": "dgx-h100", "sus": 32, "fabrics": "storage"}, "more than two levels"),
])
def test_fabrics_it_cannot_draw_are_refused_with_the_reason(opts, message):
    with pytest.raises(GeneratorError, match=message):
        generate("superpod", CAT, **opts)


def test_cli_refuses_an_unknown_fabric_with_exit_2(capsys, tmp_path):
    assert main(["generate", "superpod", "--system", "dgx-h100", "--sus", "1", "--fabrics",
                 "inband", "-o", str(tmp_path / "x.yaml")]) == 2
    assert "unknown fabric inband" in capsys.readouterr().err
    assert not (tmp_path / "x.yaml").exists()


@pytest.mark.parametrize("system", ["dgx-a100", "dgx-h100", "dgx-b200"])
def test_oob_cables_every_bmc_to_an_sn2201_in_its_own_rack(system):
    layout = _design(system, 1, "oob")
    assert not has_errors(check_layout(layout))
    frames = [d for d in layout.devices() if layout.catalog.get(d.model).kind == "chassis"]
    oob = {d.id: d for d in layout.devices() if d.model == "sn2201"}
    racks_with_systems = {d.rack for d in frames}
    assert {d.rack for d in oob.values()} == racks_with_systems
    links = {k.a.device: k for k in layout.links() if k.a.group == "bmc"}
    assert set(links) == {d.id for d in frames}
    for frame in frames:
        link = links[frame.id]
        assert oob[link.b.device].rack == frame.rack  # top-of-rack: an in-rack patch cord
        assert link.cable == "cat6-1g" and link.length_m
    # a management switch, not a compute-fabric one (the simulation test above has it drawn)
    sw = layout.catalog.get("sn2201")
    assert not sw.traits.fabric_switch and sw.traits.side_fabric


@pytest.mark.parametrize("system,sus", [("dgx-h100", 4), ("dgx-b200", 1)])
def test_the_full_ra_design_of_a_dgx_superpod_is_completely_priced(system, sus):
    layout = _design(system, sus, "compute,storage,oob")
    book = read_price_book(example_book_path(), CAT)
    report = design_cost(layout, book).to_json()
    assert report["complete"] is True, report["unpriced"]
    assert report["by_category"]["storage"]["capex"] > 0  # the appliances, priced (derived)
    appliance = book.price("ai400x2")
    assert appliance.basis == "derived" and appliance.method


def test_the_dgx_b200_storage_fabric_is_infiniband_on_its_bluefield_ports():
    """The DGX SuperPOD B200 RA's storage fabric is InfiniBand: each DGX B200's two
    BlueField-3 give one NDR storage port each to the storage leaves (QM9700), the other port
    stays for in-band management (not drawn)."""
    layout = _design("dgx-b200", 1, "storage")
    dpus = [d for d in layout.devices() if d.model == "bluefield-3-vpi"]
    nodes = sum(1 for g in layout.groups() if g.kind == "node" and g.template)
    assert len(dpus) == 2 * nodes
    to_leaf = [k for k in layout.links() if k.a.device in {d.id for d in dpus}
               or k.b.device in {d.id for d in dpus}]
    storage = [k for k in to_leaf if "storage-leaf-" in (k.a.device + k.b.device)]
    assert len(storage) == len(dpus)  # one storage port per card, the in-band one left
    card = layout.catalog.get("bluefield-3-vpi")
    ids = {d.id for d in dpus}
    ends = [end for k in storage for end in (k.a, k.b) if end.device in ids]
    assert len(ends) == len(dpus)
    assert {card.port(end.group).protocol for end in ends} == {"infiniband"}
    assert not has_errors(check_layout(layout))


def test_the_oob_switches_draw_a_labelled_estimate_not_nothing():
    """#36: the SN2201 had no power figure; it now carries a third-party ~100 W labelled
    an estimate, so an OOB network adds power and the report names it among its estimates."""
    from rackdesigner.cost.report import design_power

    base = design_power(_design("dgx-b200", 1), 1.0)
    oob = design_power(_design("dgx-b200", 1, "oob"), 1.0)
    switches = sum(1 for d in _design("dgx-b200", 1, "oob").devices() if d.model == "sn2201")
    assert "sn2201" not in oob.to_dict()["models_without_power"]
    assert "sn2201" in oob.to_dict()["models_with_estimates"]
    spec = CAT.get("sn2201").power
    assert spec.basis == "estimate" and spec.note
    added = oob.total_max_w - base.total_max_w
    assert added >= switches * spec.max_w  # the switches, plus what their cables draw (none)


def test_the_gb200_storage_fabric_is_ethernet_on_the_trays_bluefield_ports():
    """The GB200 RA carries storage on a "Storage and In-band Ethernet Fabric": port 0 of each
    tray's two BlueField-3 (400GbE) to Ethernet storage leaves, appliances with Ethernet ports,
    one appliance per 128 GPUs as for the DGX SuperPODs; the compute fabric is unchanged."""
    from rackdesigner.generators.sidefabrics import BY_PROTOCOL

    base = generate("superpod", CAT, system="gb200-nvl72", racks=8)
    full = generate("superpod", CAT, system="gb200-nvl72", racks=8, fabrics="compute,storage")
    assert not has_errors(check_layout(full))
    switch, appliance = BY_PROTOCOL["ethernet"]
    dpus = {d.id for d in full.devices() if d.model == "bluefield-3"}
    assert len(dpus) == 8 * 18 * 2
    leaves = {d.id for d in full.devices() if d.id.startswith("storage-leaf-")}
    assert {d.model for d in full.devices() if d.id in leaves} == {switch}
    to_leaf = [k for k in full.links() if {k.a.device, k.b.device} & dpus
               and {k.a.device, k.b.device} & leaves]
    assert len(to_leaf) == len(dpus)
    stores = [d for d in full.devices() if d.model == appliance]
    assert len(stores) == math.ceil(576 / (8 * NODES_PER_APPLIANCE))
    compute = {k.id for k in base.links()}
    assert compute <= {k.id for k in full.links()}  # drawn beside the compute fabric
