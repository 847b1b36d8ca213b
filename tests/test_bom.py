"""Bill of materials: parts per model, systems once per instance, cables and optics."""

from __future__ import annotations

import json

import pytest

from rackdesigner.bom import bill_of_materials, format_csv, format_table
from rackdesigner.generators import generate


@pytest.fixture(scope="module")
def superpod_bom():
    return bill_of_materials(generate("superpod", system="dgx-h100", sus=1))


def test_systems_are_counted_once_per_instance(superpod_bom):
    bom = superpod_bom
    assert bom.count("dgx-h100") == 31
    gpu = next(i for i in bom.items if i.model == "h100-sxm5")
    assert (gpu.kind, gpu.count, gpu.in_systems) == ("gpu", 248, 248)
    assert bom.count("qm9700") == 12
    cx7_dual = next(i for i in bom.items if i.model == "connectx-7-dual")
    assert cx7_dual.count - cx7_dual.in_systems == 2  # the UFM adapters are bought separately


def test_cables_match_the_ra_counts(superpod_bom):
    # 252 node+UFM cables and 256 leaf-spine cables (RA-11333-001, 1 SU)
    assert superpod_bom.cable_count() == 252 + 256
    assert all(c.length_m and c.length_m > 0 for c in superpod_bom.cables)
    assert {c.type for c in superpod_bom.cables} <= {"fiber-mm-ndr", "fiber-sm-ndr", "dac-ndr",
                                                     "acc-ndr"}


def test_transceivers_one_per_cage(superpod_bom):
    optics = {t.model: t.count for t in superpod_bom.transceivers}
    fibre_links = sum(c.count for c in superpod_bom.cables if c.type.startswith("fiber"))
    # each DGX NIC end is a single-port OSFP: one 400G transceiver per NIC
    assert optics["mma4z00-ns400"] == 248
    # switch ends are twin-port cages: two fibre ports share one 800G transceiver
    switch_ends = fibre_links * 2 - 248
    assert switch_ends / 2 <= optics["mma4z00-ns"] <= switch_ends


def test_nvl72_bom():
    bom = bill_of_materials(generate("nvl72"))
    counts = {i.model: (i.count, i.in_systems) for i in bom.items}
    assert counts["gb200-nvl72"] == (1, 0)
    assert counts["gb200-compute-tray"] == (18, 18)
    assert counts["nvlink-switch-tray"] == (9, 9)
    assert counts["gb200-gpu"] == (72, 72)
    assert counts["rack-48u"] == (1, 0)
    assert bom.cables == () and bom.transceivers == ()  # NVLink spine and boards are no cables


def test_copper_inside_a_rack_needs_no_transceivers():
    bom = bill_of_materials(generate("single-leaf", system="dgx-h100", nodes=2,
                                     switch="qm9700"))
    assert {c.type for c in bom.cables} == {"dac-ndr"}
    assert bom.cable_count("dac-ndr") == 16
    assert bom.transceivers == ()


def test_xdr_links_get_the_single_mode_fibre_xdr_uses():
    # XDR runs over single-mode fibre only (NVIDIA's XDR LinkX list): the generator gives every
    # link that cable, and the Q3400's twin-port cages take 1.6T transceivers (#35)
    bom = bill_of_materials(generate("fat-tree", switch="q3400", levels=2, endpoints=10))
    assert {c.type for c in bom.cables} == {"fiber-sm-xdr"}
    assert bom.cable_count() == 10  # one leaf, no spines: just the endpoint links
    assert "osfp-1.6t-2xdr4" in {t.model for t in bom.transceivers}


def test_json_shape(superpod_bom):
    data = json.loads(json.dumps(superpod_bom.to_json()))
    assert set(data) == {"items", "cables", "transceivers"}
    assert {"model", "kind", "count"} <= set(data["items"][0])
    assert set(data["cables"][0]) == {"type", "length_m", "count"}
    assert set(data["transceivers"][0]) == {"model", "count"}


def test_text_forms(superpod_bom):
    table = format_table(superpod_bom)
    assert "dgx-h100" in table and "fiber-mm-ndr" in table and "mma4z00-ns" in table
    lines = format_csv(superpod_bom).splitlines()
    assert lines[0] == "section,model,kind,length_m,count,in_systems"
    assert any(line.startswith("item,dgx-h100,system,,31,") for line in lines)
    assert any(line.startswith("cable,fiber-mm-ndr,fiber,") for line in lines)
