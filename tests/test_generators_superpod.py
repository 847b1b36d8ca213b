"""DGX SuperPOD compute fabrics against the published reference-architecture tables."""

from __future__ import annotations

from collections import Counter

import pytest

from rackdesigner.generators import GeneratorError, generate
from rackdesigner.generators.superpod import superpod_plan
from rackdesigner.model import check_layout, has_errors


def tier(device_id: str) -> str:
    for name in ("leaf", "spine", "core"):
        if device_id.startswith(name + "-"):
            return name
    return "node"


def census(layout):
    """Nodes, GPUs, switches per tier and cables per tier (bundles counted per lane)."""
    switches = Counter(tier(d.id) for d in layout.devices()
                       if layout.catalog.get(d.model).kind == "switch")
    nodes = sum(1 for g in layout.groups() if g.kind == "node" and g.template)
    gpus = sum(1 for d in layout.devices() if layout.catalog.get(d.model).kind == "gpu")
    cables: Counter[str] = Counter()
    for link in layout.links():
        ends = sorted((tier(link.a.device), tier(link.b.device)))
        if "leaf" in ends or "spine" in ends or "core" in ends:
            cables["-".join(ends)] += link.count
    return nodes, gpus, switches, cables


# RA-11333-001 Table 4: SUs, nodes, GPUs, leaf, spine, compute+UFM cables, spine-leaf cables
H100_TABLE = [
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (3, 95, 760, 24, 16, 764, 768),
    (4, 127, 1016, 32, 16, 1020, 1024),
]


@pytest.mark.slow
@pytest.mark.parametrize(("sus", "nodes", "gpus", "leaf", "spine", "node_cables", "ls_cables"),
                         H100_TABLE)
def test_h100_superpod_matches_ra_table(sus, nodes, gpus, leaf, spine, node_cables, ls_cables):
    layout = generate("superpod", system="dgx-h100", sus=sus)
    n, g, switches, cables = census(layout)
    assert (n, g) == (nodes, gpus)
    assert switches == Counter(leaf=leaf, spine=spine)
    assert cables["leaf-node"] == node_cables  # includes the 4 UFM cables
    assert cables["leaf-spine"] == ls_cables
    assert sum(1 for d in layout.devices() if d.id.startswith("ufm-")) == 2
    assert not has_errors(check_layout(layout))


# DGX SuperPOD B200 RA: SUs, nodes, GPUs, leaf, spine, core, node-leaf, leaf-spine, spine-core
B200_TABLE = [
    (2, 64, 512, 16, 8, 0, 512, 512, 0),
    (4, 128, 1024, 32, 16, 0, 1024, 1024, 0),
    (8, 256, 2048, 64, 32, 0, 2048, 2048, 0),
    (16, 512, 4096, 128, 128, 64, 4096, 4096, 4096),
    (32, 1024, 8192, 256, 256, 128, 8192, 8192, 8192),
    (64, 2048, 16384, 512, 512, 256, 16384, 16384, 16384),
]


@pytest.mark.parametrize("row", B200_TABLE, ids=[f"{r[0]}su" for r in B200_TABLE])
def test_b200_superpod_plan_matches_ra_table(catalog, row):
    sus, nodes, gpus, leaf, spine, core, nl, ls, sc = row
    plan = superpod_plan(catalog, "dgx-b200", sus=sus)
    clos = plan.clos
    assert plan.nodes == nodes and plan.nodes * plan.rails == gpus
    assert (clos.leaves, clos.spines, clos.cores) == (leaf, spine, core)
    assert (clos.leaf_spine_links, clos.spine_core_links) == (ls, sc)
    assert plan.nodes * plan.rails == nl
    assert clos.levels == (3 if core else 2)


@pytest.mark.slow
@pytest.mark.parametrize("sus", [2, 16])
def test_b200_superpod_built_matches_ra_table(sus):
    row = next(r for r in B200_TABLE if r[0] == sus)
    _, nodes, gpus, leaf, spine, core, nl, ls, sc = row
    layout = generate("superpod", system="dgx-b200", sus=sus)
    n, g, switches, cables = census(layout)
    assert (n, g) == (nodes, gpus)
    assert switches == Counter({k: v for k, v in (("leaf", leaf), ("spine", spine),
                                                  ("core", core)) if v})
    assert cables["leaf-node"] == nl
    assert cables["leaf-spine"] == ls
    assert cables["core-spine"] == sc
    assert not has_errors(check_layout(layout))


@pytest.mark.slow
def test_largest_superpod_16384_gpus_builds_and_validates():
    layout = generate("superpod", system="dgx-b200", sus=64)
    n, g, switches, cables = census(layout)
    assert (n, g) == (2048, 16384)
    assert switches == Counter(leaf=512, spine=512, core=256)
    assert cables == Counter({"leaf-node": 16384, "leaf-spine": 16384, "core-spine": 16384})
    assert not has_errors(check_layout(layout))


def test_superpod_by_nodes_builds_whole_sus():
    layout = generate("superpod", system="dgx-h100", nodes=40)
    n, _, switches, cables = census(layout)
    assert n == 40
    assert switches["leaf"] == 16  # two SUs' leaves, the second only partly populated
    assert cables["leaf-spine"] == 512
    assert not has_errors(check_layout(layout))


def test_a100_superpod_uses_hdr_and_validates():
    layout = generate("superpod", system="dgx-a100", sus=2)
    n, g, _, _ = census(layout)
    assert (n, g) == (40, 320)
    models = {d.model for d in layout.devices() if d.id.startswith("leaf-")}
    assert models == {"qm8700"}
    assert not has_errors(check_layout(layout))


def test_rail_alignment():
    """NIC i of every node (GPU i's PCIe neighbour) reaches only rail-i leaves."""
    layout = generate("superpod", system="dgx-h100", sus=2)
    leaves_of_rail: dict[int, set[str]] = {}
    for group in layout.groups():
        if group.kind != "node" or not group.template:
            continue
        for i in range(8):
            gpu, nic = f"{group.id}.gpu{i}", f"{group.id}.nic{i}"
            gpu_switches = {lk.other(gpu).device for lk in layout.links_of(gpu)
                            if lk.end(gpu).group == "pcie"}
            nic_switches = {lk.other(nic).device for lk in layout.links_of(nic)
                            if lk.end(nic).group == "pcie"}
            assert gpu_switches & nic_switches, "GPU i and NIC i share a PCIe switch"
            fabric = {lk.other(nic).device for lk in layout.links_of(nic)
                      if lk.end(nic).group == "ib"}
            assert len(fabric) == 1 and all(d.startswith("leaf-") for d in fabric)
            leaves_of_rail.setdefault(i, set()).update(fabric)
    assert len(leaves_of_rail) == 8
    all_leaves = [leaf for leaves in leaves_of_rail.values() for leaf in leaves]
    assert len(all_leaves) == len(set(all_leaves)) == 16  # rails share no leaf; 2 SUs x 8


def test_superpod_placement_and_groups():
    layout = generate("superpod", system="dgx-h100", sus=1)
    for d in layout.devices():
        spec = layout.catalog.get(d.model)
        if spec.kind == "rack":
            continue
        assert d.rack is not None and d.u is not None, d.id
    kinds = {g.kind for g in layout.groups()}
    assert {"node", "rack", "su", "pod", "fabric"} <= kinds
    # node -> rack -> su chain
    node = layout.group("dgx-1")
    rack = layout.group(node.parent)
    assert rack.kind == "rack" and layout.group(rack.parent).kind == "su"
    # node-leaf cables between racks are optics; lengths are orderable and positive
    cables = {lk.cable for lk in layout.links() if lk.a.device.startswith("dgx-")
              and lk.b.device.startswith("leaf-")}
    assert cables <= {"fiber-mm-ndr", "fiber-sm-ndr"}
    assert all(lk.length_m and lk.length_m > 0 for lk in layout.links() if lk.cable)


@pytest.mark.parametrize(("options", "message"), [
    ({"system": "dgx-h100"}, "either the number of SUs or the number of nodes"),
    ({"system": "dgx-h100", "sus": 1, "nodes": 3},
     "either the number of SUs or the number of nodes"),
    ({"system": "dgx-h100", "sus": 0}, "at least 1"),
    ({"system": "gb200-compute-tray", "sus": 1}, "no DGX SuperPOD reference design"),
    ({"system": "dgx-h100", "sus": 300}, "at most 64 pods"),
])
def test_superpod_parameter_errors(options, message):
    with pytest.raises(GeneratorError, match=message):
        generate("superpod", **options)


# DGX SuperPOD B300-XDR RA: 72-node SUs on 144-port Q3400 leaves. The same sizing rule
# (smallest divisor of the leaf uplinks that gives the spines enough ports) gives its table.
B300_XDR_TABLE = [(1, 8, 4, 576), (2, 16, 8, 1152), (4, 32, 18, 2304), (8, 64, 36, 4608),
                  (18, 144, 72, 10368)]


@pytest.mark.parametrize(("sus", "leaf", "spine", "leaf_spine"), B300_XDR_TABLE)
def test_sizing_rule_reproduces_the_b300_xdr_table(catalog, sus, leaf, spine, leaf_spine):
    from rackdesigner.generators.rail import plan_rail

    plan = plan_rail(catalog, "dgx-b200", sus * 72, "q3400")
    assert plan.nodes_per_su == 72 and plan.sus == sus
    assert (plan.clos.leaves, plan.clos.spines, plan.clos.leaf_spine_links) == (
        leaf, spine, leaf_spine)


def test_ufm_takes_the_last_node_slot_of_su1():
    layout = generate("superpod", system="dgx-h100", sus=1)
    ufm_links = [lk for d in ("ufm-1", "ufm-2") for lk in layout.links_of(d)]
    assert len(ufm_links) == 4
    ends = sorted(str(lk.other(lk.a.device if lk.a.device.startswith("ufm") else lk.b.device))
                  for lk in ufm_links)
    assert ends == ["leaf-1:ib.31", "leaf-2:ib.31", "leaf-3:ib.31", "leaf-4:ib.31"]
    # no DGX uses slot 31; DGX j uses port j-1 on every rail leaf
    node_ports = {(lk.b.device, lk.b.index) for lk in layout.links()
                  if lk.a.device.startswith("dgx-") and lk.b.device.startswith("leaf-")}
    assert len(node_ports) == 248
    assert not any(index == 31 for _, index in node_ports)


def test_cable_lengths_follow_the_floor():
    layout = generate("superpod", system="dgx-h100", sus=2)
    rack_of = {d.id: d.rack for d in layout.devices()}
    for link in layout.links():
        if link.cable is None:
            assert layout.catalog.get(layout.device(link.a.device).model).kind != "switch"
            continue
        same = rack_of[link.a.device] == rack_of[link.b.device]
        media = layout.catalog.get(link.cable).cable.media
        assert (media in ("dac", "acc")) == same, link
        assert link.length_m <= layout.catalog.get(link.cable).cable.max_length_m
    # a node next to its leaf rack gets a shorter (or equal) cable than one four racks away
    def length(node):
        return max(lk.length_m for lk in layout.links_of(f"{node}.nic0") if lk.cable)

    far, near = "dgx-1", "dgx-13"  # compute rack 1 and compute rack 4 of SU 1
    assert rack_of[f"{far}.chassis"] != rack_of[f"{near}.chassis"]
    assert length(near) <= length(far)
    assert len({lk.length_m for lk in layout.links() if lk.cable}) > 2
