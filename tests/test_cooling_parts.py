"""Cooling parts with catalog figures: an in-row CDU serving several racks of its row, a
rear-door heat exchanger taking air heat into water, and infrastructure (PDUs, CDUs, doors)
that adds no IT power (The Green Grid's PUE definition) so the power figure stays complete."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.model import Device, Site, check_layout
from rackdesigner.model.cdus import cdu_models, missing_cdus
from rackdesigner.model.cooling import AIR_PROP, cooling_report
from rackdesigner.model.rules import check_racks
from rackdesigner.simulation.power import design_specs, power_of

XDU = "vertiv-xdu1350"


def _codes(findings):
    return {f.code for f in findings}


def _racks(layout):
    return [d.id for d in layout.devices() if layout.catalog.get(d.model).rack is not None]


@pytest.fixture(scope="module")
def nvl72_pod():
    return generate("superpod", system="gb200-nvl72", racks=8)


def test_the_catalog_states_an_in_row_cdu_and_a_rear_door_with_sources(catalog):
    xdu, door = catalog.get(XDU), catalog.get("ibm-rdhx")
    assert xdu.fact("placement") == "in-row" and xdu.fact("cooling_kw") > 1000
    assert door.fact("air_kw") > 0
    for spec in (xdu, door, catalog.get("supermicro-inrack-cdu"), catalog.get("ap8886")):
        assert spec.power.basis == "facility" and spec.power.max_w == 0
        assert spec.power.source in spec.sources  # every figure names its source
    # the default CDU of "give every liquid rack its CDU" stays the in-rack one
    assert cdu_models(generate("nvl72"))[0].id == "supermicro-inrack-cdu"


def test_one_in_row_cdu_serves_several_racks_of_its_row_and_is_checked_against_them(nvl72_pod):
    layout = nvl72_pod.copy()
    racks = [r for r in _racks(layout) if cooling_report(layout).racks[r].liquid_w > 0]
    assert len(racks) == 8
    devices, served = missing_cdus(layout, model=XDU)
    assert served == 8
    report0 = cooling_report(layout)
    heat = sum(report0.racks[r].liquid_w for r in racks)
    # fewer in-row CDUs than racks: each serves several racks, none above its capacity
    assert len(devices) == max(1, -(-heat // 1_368_000))
    assert len(devices) < len(racks)
    for device in devices:
        layout.add_device(device)
    report = cooling_report(layout)
    assert not report.unserved and not report.cdus_over_capacity
    assert sum(c.liquid_w for c in report.cdus) == pytest.approx(report.liquid_w)
    assert all(len(c.serves) > 1 for c in report.cdus)
    assert "rack-no-cdu" not in _codes(check_layout(layout))
    # the same racks on one in-rack CDU's 100 kW: over capacity, an error the Racks view marks
    layout.update_device(devices[0].id, model="supermicro-inrack-cdu")
    found = [f for f in check_layout(layout) if f.code == "cdu-capacity"]
    assert found and found[0].severity == "error"
    assert "cdu-capacity" in _codes(check_racks(layout))


def test_a_rear_door_takes_air_heat_into_water_and_never_raises_the_total(catalog):
    layout = generate("dgx-b200")  # one air-cooled DGX B200, 14.3 kW, in a rack-42u
    rack = _racks(layout)[0]
    before = cooling_report(layout)
    layout.add_device(Device("rdhx-1", "ibm-rdhx", props=(("serves", (rack,)),)))
    after = cooling_report(layout)
    door = after.racks[rack].door_w
    # the door takes all of this rack's air heat (below its 17.6 kW) into water
    assert door == pytest.approx(before.racks[rack].air_w)
    assert after.racks[rack].air_w == pytest.approx(before.racks[rack].air_w - door)
    assert after.air_w == pytest.approx(before.air_w - door)
    assert after.liquid_w == pytest.approx(before.liquid_w + door)
    assert after.liquid_w + after.air_w == pytest.approx(before.liquid_w + before.air_w)
    assert after.door_w == pytest.approx(door)
    assert "serves-not-cdu" not in _codes(check_layout(layout))


def test_a_rear_door_clears_a_rack_over_its_air_limit_only_up_to_its_capacity():
    layout = generate("superpod", system="dgx-b200", nodes=4)  # racks of DGX B200
    rack = max(_racks(layout), key=lambda r: cooling_report(layout).racks[r].air_w)
    heat = cooling_report(layout).racks[rack].air_w
    assert heat > 17_600  # more air heat than one door takes
    layout.update_device(rack, props=((AIR_PROP, 5_000),))
    assert "rack-air-limit" in _codes(check_layout(layout))
    layout.add_device(Device("rdhx-1", "ibm-rdhx", props=(("serves", (rack,)),)))
    after = cooling_report(layout).racks[rack]
    assert after.door_w == pytest.approx(17_600)  # capped at the door's capacity
    assert after.air_w == pytest.approx(heat - 17_600)
    flagged = [f for f in check_layout(layout) if f.code == "rack-air-limit"]
    assert (after.air_w > 5_000) == bool(flagged)
    if flagged:
        assert "after its rear door's 17.6 kW" in flagged[0].message
    layout.update_device(rack, props=((AIR_PROP, heat - 17_600 + 1),))
    assert "rack-air-limit" not in _codes(check_layout(layout))


def test_a_rear_door_lowers_the_sites_air_load_against_its_air_limit():
    layout = generate("dgx-b200")
    rack = _racks(layout)[0]
    air = cooling_report(layout).air_w
    layout.set_meta(site=Site(air_kw=air / 1000 * 0.5))
    assert cooling_report(layout).site.over_air
    assert "site-air" in _codes(check_layout(layout))
    layout.add_device(Device("rdhx-1", "ibm-rdhx", props=(("serves", (rack,)),)))
    assert not cooling_report(layout).site.over_air
    assert "site-air" not in _codes(check_layout(layout))


def test_pdus_and_cdus_keep_the_power_figure_complete(catalog):
    layout = generate("nvl72")
    rack = _racks(layout)[0]
    assert power_of(layout, design_specs(layout), None, 1.0).complete
    layout.add_device(Device("pdu-1", "ap8886", rack=rack))
    layout.add_device(Device("cdu-1", "supermicro-inrack-cdu", props=(("serves", (rack,)),)))
    layout.add_device(Device("cdu-2", XDU, props=(("serves", (rack,)),)))
    report = power_of(layout, design_specs(layout), None, 1.0)
    assert report.complete and "without a figure" not in report.headline
    assert report.devices_without_power == 0


def test_the_generators_cdu_option_gives_a_row_its_in_row_cdus():
    from rackdesigner.generators import GeneratorError

    layout = generate("mixed", systems="gb200-nvl72:8", cdus=1, cdu=XDU)
    report = cooling_report(layout)
    cdus = [c for c in report.cdus]
    assert cdus and all(c.model == XDU for c in cdus)
    assert len(cdus) < sum(1 for h in report.racks.values() if h.liquid_w > 0)
    assert not report.unserved and not report.cdus_over_capacity
    assert not {"rack-no-cdu", "cdu-capacity"} & _codes(check_layout(layout))
    with pytest.raises(GeneratorError, match="not a CDU model"):
        generate("mixed", systems="gb200-nvl72:8", cdus=1, cdu="qm9700")
    with pytest.raises(GeneratorError, match="applies with"):
        generate("nvl72", cdu=XDU)


def test_the_catalog_listing_says_infrastructure_power_is_facility_power(capsys):
    from rackdesigner.cli import main

    assert main(["catalog"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line}
    for model in ("ap8886", "ibm-rdhx", XDU):
        assert rows[model].rstrip().endswith("0 (facility)")
