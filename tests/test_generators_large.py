"""Generators for the largest designs: GB200 NVL72 SuperPODs, fabrics past the QM9700's three
tiers, and the Spectrum-X (SN5600) Ethernet variants."""

from __future__ import annotations

from collections import Counter

import pytest

from rackdesigner.generators import GeneratorError, generate
from rackdesigner.generators.superpod import superpod_plan
from rackdesigner.io import dump_layout_text, parse_layout_text
from rackdesigner.model import check_layout, has_errors


def kinds(layout) -> Counter:
    return Counter(layout.catalog.get(d.model).kind for d in layout.devices())


def leaf_of(layout, nic: str) -> str:
    (link,) = [k for k in layout.links_of(nic) if k.a.group != "pcie" and k.b.group != "pcie"]
    return link.b.device if link.a.device == nic else link.a.device


@pytest.mark.slow
def test_gb200_superpod_one_su_is_eight_nvl72_racks_on_a_rail_optimized_fabric():
    layout = generate("superpod", system="gb200-nvl72", racks=8)
    k = kinds(layout)
    assert k["gpu"] == 576  # the RA's SU: 8 racks x 72 GPUs
    assert sum(1 for g in layout.groups() if g.template == "gb200-nvl72") == 8
    # four rails: NIC i of every tray on a rail-i leaf; 144 trays per rail at 32 per leaf
    leaves = {d.id for d in layout.devices() if d.id.startswith("leaf-")}
    assert len(leaves) == 20
    rails: dict[str, set[int]] = {}
    for d in layout.devices():
        if ".nic" in d.id:
            rails.setdefault(leaf_of(layout, d.id), set()).add(int(d.id[-1]))
    assert set(rails) == leaves and all(len(r) == 1 for r in rails.values())
    # non-blocking: every leaf has as many spine links as endpoint ports
    for leaf in leaves:
        ups = sum(k.count for k in layout.links_of(leaf)
                  if "spine" in k.a.device or "spine" in k.b.device)
        assert ups == 32
    assert not [f for f in check_layout(layout) if f.severity == "error"]


@pytest.mark.slow
def test_gb200_superpod_partial_su_keeps_full_leaves_and_grows_a_core_tier():
    one = generate("superpod", system="gb200-nvl72", racks=1)
    assert kinds(one)["gpu"] == 72
    assert sum(1 for d in one.devices() if d.id.startswith("leaf-")) == 20
    plan_big = generate("superpod", system="gb200-nvl72", sus=4)
    assert kinds(plan_big)["gpu"] == 2304
    assert any(d.id.startswith("core-") for d in plan_big.devices())


def test_gb200_superpod_saves_and_reloads_byte_identically(tmp_path):
    layout = generate("superpod", system="gb200-nvl72", racks=2)
    text = dump_layout_text(layout)
    assert dump_layout_text(parse_layout_text(text, catalog=layout.catalog)) == text


@pytest.mark.parametrize(("options", "message"), [
    ({"system": "gb200-nvl72", "nodes": 4}, "sized in racks"),
    ({"system": "gb200-nvl72", "racks": 2, "sus": 1},
     "either the number of racks or the number of SUs"),
    ({"system": "gb200-nvl72", "racks": 0}, "at least 1"),
    ({"system": "dgx-h100", "racks": 2}, "the number of racks is for the gb200-nvl72 system"),
    ({"system": "dgx-b200", "sus": 400}, "set the switch model to q3400"),
])
def test_superpod_option_errors_say_what_to_do(options, message):
    with pytest.raises(GeneratorError, match=message):
        generate("superpod", **options)


def test_a_100k_gpu_superpod_is_planned_on_q3400(catalog):
    plan = superpod_plan(catalog, "dgx-b200", sus=400, switch="q3400")  # the example
    assert plan.nodes * plan.rails == 102_400
    assert plan.nodes == 400 * 32  # the B200 RA's SUs of 32 nodes
    assert plan.nodes_per_su == 72  # leaves of 72 endpoint ports, as the B300-XDR RA's Q3400
    clos = plan.clos
    assert clos.levels == 3
    # non-blocking: every leaf has as many uplinks as endpoint ports, the spines as many
    # uplinks as downlinks, and the endpoints fill all but the last SU
    assert clos.leaf_spine_links == clos.leaves * clos.down
    assert clos.spine_core_links >= clos.leaf_spine_links
    assert 102_400 <= clos.leaves * clos.down < 102_400 + plan.rails * 72
    # a three-level fat tree of k-port switches needs about 5/4 switch per k/2... endpoints:
    # 5 x 102,400 / 144 = 3,556 for a full tree (Al-Fares et al.); no more than that here
    assert clos.switches <= 5 * 102_400 / 144 * 1.05


@pytest.mark.slow
def test_spectrum_x_superpod_puts_a_supernic_per_gpu_on_sn5600():
    ib = generate("superpod", system="dgx-h100", sus=1)
    eth = generate("superpod", system="dgx-h100", sus=1, switch="sn5600")
    nics = [d for d in eth.devices() if ".nic" in d.id and "storage" not in d.id]
    assert {d.model for d in nics} == {"bluefield-3-supernic"}
    assert {d.model for d in eth.devices() if d.id.startswith("leaf-")} == {"sn5600"}
    assert not any(d.id.startswith("ufm-") for d in eth.devices())  # UFM is InfiniBand's
    assert "Spectrum-X" in eth.meta.description and "replaced by sn5600" in eth.meta.description
    assert not has_errors(check_layout(eth))
    from rackdesigner.simulation import simulate

    a, b = simulate(ib), simulate(eth)
    # the same 400G per GPU either way; Ethernet has one more node (no UFM slot)
    assert a.bandwidth.per_gpu_scale_out_GBps == b.bandwidth.per_gpu_scale_out_GBps
    assert b.scope.gpus == a.scope.gpus + 8


def test_rail_optimized_ethernet_and_nvl72_spectrum_x_validate():
    for layout in (generate("rail-optimized", system="dgx-b200", nodes=40, switch="sn5600"),
                   generate("superpod", system="gb200-nvl72", racks=1, switch="sn5600")):
        assert not has_errors(check_layout(layout))
        assert kinds(layout)["nic"] > 0
        assert "bluefield-3-supernic" in {d.model for d in layout.devices()}
