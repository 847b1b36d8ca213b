"""`--fabrics compute,oob` on NVL72 racks (`generate nvl72`, `superpod --system gb200-nvl72`):
every tray's BMC and every NVLink Switch tray's COM Express ports cabled to the rack's two
SN2201, opt-in (the default design is unchanged), counted by the BOM, power and cost, kept
apart from the compute fabric, and never hiding a partition."""

from __future__ import annotations

import json

import pytest

from rackdesigner.bom import bill_of_materials
from rackdesigner.cli import main
from rackdesigner.cost import design_cost
from rackdesigner.cost.locate import example_book_path, read_price_book
from rackdesigner.cost.report import design_power
from rackdesigner.generators import GeneratorError, default_catalog, generate
from rackdesigner.generators.sidefabrics import MGMT_PORTS, OOB_SWITCH
from rackdesigner.model import Link, PortRef, check_layout, has_errors
from rackdesigner.simulation import simulate

CAT = default_catalog()
COMPUTE_KEYS = ("scope", "bandwidth", "collectives", "latency", "placement", "link_loads")


def _pod(racks: int = 2, fabrics: str | None = None, system: str = "gb200-nvl72"):
    opts = {"system": system, "racks": racks}
    if fabrics is not None:
        opts["fabrics"] = fabrics
    return generate("superpod", CAT, **opts)


@pytest.fixture(scope="module")
def pod_pair():
    return _pod(), _pod(fabrics="compute,oob")


def _mgmt_ends(layout) -> list[tuple[str, str, int | None]]:
    """Every management port of every frame in the design: (device, port, index)."""
    out = []
    for d in layout.devices():
        spec = layout.catalog.get(d.model)
        if spec.kind != "chassis":
            continue
        for p in spec.ports:
            if p.name in MGMT_PORTS:
                out.extend((d.id, p.name, None if p.count == 1 else i) for i in range(p.count))
    return out


@pytest.mark.parametrize("template,opts", [
    ("nvl72", {}), ("nvl72", {"system": "gb300-nvl72"}),
    ("superpod", {"system": "gb200-nvl72", "racks": 2})])
def test_the_default_and_compute_only_designs_are_the_same(template, opts):
    base = generate(template, CAT, **opts)
    same = generate(template, CAT, **opts, fabrics="compute")
    assert [d.id for d in base.devices()] == [d.id for d in same.devices()]
    assert [k.id for k in base.links()] == [k.id for k in same.links()]
    assert base.meta.description == same.meta.description
    assert not any(d.model == OOB_SWITCH for d in base.devices())


@pytest.mark.parametrize("template,opts", [
    ("nvl72", {"fabrics": "oob"}), ("nvl72", {"system": "gb300-nvl72", "fabrics": "oob"}),
    ("superpod", {"system": "gb200-nvl72", "racks": 3, "fabrics": "compute,oob"})])
def test_every_tray_bmc_and_come_port_reaches_an_sn2201_in_its_own_rack(template, opts):
    layout = generate(template, CAT, **opts)
    ends = _mgmt_ends(layout)
    trays = [d for d in layout.devices() if layout.catalog.get(d.model).kind == "chassis"
             and any(p.name == "bmc" for p in layout.catalog.get(d.model).ports)]
    racks = {d.rack for d in trays}
    assert len(trays) == 27 * len(racks)  # 18 compute + 9 switch trays per rack, each a BMC
    oob = {d.id: d for d in layout.devices() if d.model == OOB_SWITCH}
    # NVIDIA's DGX GB200 user guide: "2x TOR switches for management" in each rack
    assert sorted(d.rack for d in oob.values()) == sorted(list(racks) * 2)
    links = {}
    used = set()
    for k in layout.links():
        if k.b.device in oob:
            links[(k.a.device, k.a.group, k.a.index)] = k
            assert (k.b.device, k.b.index) not in used
            used.add((k.b.device, k.b.index))
    assert set(links) == set(ends)
    by_group: dict[tuple[str, str], set[str]] = {}
    for (device, group, _), k in links.items():
        assert oob[k.b.device].rack == layout.device(device).rack  # an in-rack patch cord
        assert k.cable == "cat6-1g" and k.length_m
        by_group.setdefault((oob[k.b.device].rack, group), set()).add(k.b.device)
    # the guide's split: the BMCs on one SN2201, the switch trays' ComE ports on the other
    for rack in racks:
        assert len(by_group[(rack, "bmc")]) == 1 and len(by_group[(rack, "come")]) == 1
        assert by_group[(rack, "bmc")] != by_group[(rack, "come")]
    if opts.get("system", "gb200-nvl72") == "gb200-nvl72":
        assert not has_errors(check_layout(layout))


def _simulate(layout, tmp_path, name, capsys) -> dict:
    from rackdesigner.io import save_layout

    path = tmp_path / f"{name}.yaml"
    save_layout(layout, path)
    capsys.readouterr()
    assert main(["simulate", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_simulated_compute_figures_are_unchanged_by_the_oob_network(pod_pair, tmp_path,
                                                                     capsys):
    base, oob = pod_pair
    a = _simulate(base, tmp_path, "base", capsys)
    b = _simulate(oob, tmp_path, "oob", capsys)
    for key in COMPUTE_KEYS:
        assert a[key] == b[key], key
    assert b["power"]["total_max_w"] > a["power"]["total_max_w"]


def test_bom_power_and_cost_count_the_management_switches(pod_pair):
    base, oob = pod_pair
    switches = sum(1 for d in oob.devices() if d.model == OOB_SWITCH)
    assert switches == 2 * 2
    items = {i.model: i for i in bill_of_materials(oob).items}
    # bought as themselves: an SN2201 in an NVL72 rack is not a part of the NVL72 system
    assert items[OOB_SWITCH].count == switches and items[OOB_SWITCH].in_systems == 0
    assert bill_of_materials(base).count(OOB_SWITCH) == 0
    # the tray frames come inside the NVL72 (its price, its published maximum)
    frames = items["chassis-nvl72-compute-tray"]
    assert frames.count == frames.in_systems == 2 * 18
    added = design_power(oob, 1.0).total_max_w - design_power(base, 1.0).total_max_w
    assert added >= switches * CAT.get(OOB_SWITCH).power.max_w
    book = read_price_book(example_book_path(), CAT)
    before, after = design_cost(base, book).capex, design_cost(oob, book).capex
    assert after.complete
    line = next(x for x in after.lines if x.model == OOB_SWITCH)
    assert line.count == switches and line.priced
    assert after.by_category()["network"] - before.by_category()["network"] \
        >= switches * line.unit


def test_a_rack_cut_from_the_compute_fabric_is_reported_though_its_bmcs_are_cabled():
    """The OOB network carries no collectives: cutting a rack's compute links leaves its GPUs
    unreachable; patching in-band ports of both racks into the joined OOB switches makes them
    look joined, and the finding says it is only over the management fabric."""
    layout = generate("superpod", CAT, system="gb200-nvl72", racks=2, fabrics="compute,oob")
    rack2 = {d.id for d in layout.devices() if d.id.startswith("nvl72-2.")}
    for k in [k for k in layout.links() if k.a.device in rack2 and ".nic" in k.a.device
              and k.b.device.startswith("leaf-")]:
        layout.remove_link(k.id)
    reach = layout.index().reachability()
    assert reach.partitioned and len(reach.unreachable) == 72
    assert all(g.startswith("nvl72-2.") for g in reach.unreachable)
    bmc_switch = {}
    for k in layout.links():
        if k.a.group == "bmc" and k.b.device.startswith("oob-"):
            bmc_switch[k.a.device.split(".")[0]] = k.b.device
    s1, s2 = bmc_switch["nvl72-1"], bmc_switch["nvl72-2"]
    # the racks' OOB switches joined (a management core link): still no collective path
    layout.add_link(Link("mgmt-core", PortRef(s1, "uplink", 0), PortRef(s2, "uplink", 0)))
    assert layout.index().reachability().partitioned
    # a BlueField-3 port of each rack patched into its OOB switch: joined only over management
    layout.add_link(Link("patch-1", PortRef("nvl72-1.tray0.dpu0", "net", 0),
                         PortRef(s1, "uplink", 1)))
    layout.add_link(Link("patch-2", PortRef("nvl72-2.tray0.dpu0", "net", 0),
                         PortRef(s2, "uplink", 1)))
    reach = layout.index().reachability()
    assert reach.partitioned and reach.side_fabrics == ("management",)
    findings = [f for f in check_layout(layout) if f.code == "gpus-unreachable"]
    assert len(findings) == 1 and "management fabric" in findings[0].message
    warned = [m.text for m in simulate(layout).warnings() if m.code == "unreachable_gpus"]
    assert len(warned) == 1 and "management fabric" in warned[0]


def test_a_lone_rack_refuses_a_storage_fabric_with_the_reason(capsys, tmp_path):
    with pytest.raises(GeneratorError, match="superpod"):
        generate("nvl72", CAT, fabrics="compute,storage")
    out = tmp_path / "x.yaml"
    assert main(["generate", "nvl72", "--fabrics", "storage", "-o", str(out)]) == 2
    assert "no compute fabric" in capsys.readouterr().err
    assert not out.exists()


def test_the_description_says_which_management_networks_are_left_out():
    storage = _pod(1, "compute,storage").meta.description
    full = _pod(1, "compute,storage,oob").meta.description
    assert "the in-band and out-of-band management networks are not included" in storage
    assert "two SN2201 per rack" in full
    assert "the in-band management network is not included" in full
    assert "SN2201" in generate("nvl72", CAT, fabrics="oob").meta.description
