"""Cooling: heat split liquid/air, racks against their air limit, CDUs, site limits, rules."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.model import Site, check_layout
from rackdesigner.model.cooling import AIR_PROP, cooling_report
from rackdesigner.model.power import device_draw
from rackdesigner.model.rules import check_racks


def _codes(findings):
    return {f.code for f in findings}


def _rack(layout):
    return next(d.id for d in layout.devices() if layout.catalog.get(d.model).rack is not None)


def test_a_liquid_cooled_rack_sends_its_cold_plated_parts_to_liquid():
    layout = generate("nvl72")
    report = cooling_report(layout)
    cold = sum(device_draw(s)[1] for d in layout.devices()
               if (s := layout.catalog.get(d.model)).kind in ("gpu", "cpu", "nic", "nvswitch"))
    assert report.liquid_w == pytest.approx(cold)
    assert 0.7 < report.liquid_w / (report.liquid_w + report.air_w) < 0.9
    rack = report.racks[_rack(layout)]
    assert rack.liquid_rack and rack.liquid_w == pytest.approx(cold)
    assert "gb200-nvl72" in report.basis


def test_an_air_cooled_design_sends_everything_to_air():
    layout = generate("dgx-h100")
    report = cooling_report(layout)
    assert report.liquid_w == 0 and report.air_w > 10_000
    rack = report.racks[_rack(layout)]
    assert rack.air_limit_w == 57_200 and "rack-42u" in rack.air_basis


def test_a_rack_over_its_air_limit_is_flagged_and_its_own_limit_wins():
    layout = generate("dgx-b200")  # one DGX B200, 14.3 kW, in a rack-42u
    rack = _rack(layout)
    assert "rack-air-limit" not in _codes(check_layout(layout))
    layout.update_device(rack, props=((AIR_PROP, 10_000),))
    findings = [f for f in check_layout(layout) if f.code == "rack-air-limit"]
    assert len(findings) == 1 and findings[0].severity == "error"
    assert findings[0].objects == (rack,)
    assert "14.3 kW of heat to air, above its 10 kW air-cooling limit (set on the rack)" \
        in findings[0].message
    assert "rack-air-limit" in _codes(check_racks(layout))  # what the racks view marks
    assert cooling_report(layout).racks_over_air_limit == [rack]
    layout.update_device(rack, props=((AIR_PROP, 20_000),))
    assert "rack-air-limit" not in _codes(check_layout(layout))


def test_a_design_over_its_site_power_is_flagged_with_the_share_used():
    layout = generate("dgx-b200")
    assert not {"site-power", "site-cooling"} & _codes(check_layout(layout))
    layout.set_meta(site=Site(power_kw=10, cooling_kw=100))
    findings = check_layout(layout)
    power = [f for f in findings if f.code == "site-power"]
    assert len(power) == 1 and power[0].severity == "error"
    assert "uses 143 % of the site's 10 kW" in power[0].message
    assert "site-cooling" not in _codes(findings)
    report = cooling_report(layout)
    assert report.site.headline() == "uses 143 % of the site's 10 kW, 14 % of its 100 kW cooling"
    assert "site-power" in _codes(check_racks(layout))
    layout.set_meta(site=Site(power_kw=5000))
    assert cooling_report(layout).site.headline() == "uses 0 % of the site's 5 MW"
    assert "site-power" not in _codes(check_layout(layout))


def test_serves_on_a_device_that_is_not_a_cdu_is_a_warning():
    layout = generate("dgx-b200")
    rack = _rack(layout)
    layout.update_device(rack, props=(("serves", ("rack-9",)),))
    found = [f for f in check_layout(layout) if f.code == "serves-not-cdu"]
    assert found and found[0].severity == "warning"


def test_site_limits_and_rack_keys_round_trip_in_both_file_forms(tmp_path):
    from rackdesigner.io import dump_layout_text, parse_layout_text
    from rackdesigner.io.compact import dump_compact_text
    from rackdesigner.io.writer import dump_plain_text

    layout = generate("dgx-b200")
    rack = _rack(layout)
    layout.set_meta(site=Site(power_kw=5000, cooling_kw=4500.5))
    layout.update_device(rack, props=((AIR_PROP, 30_000),))
    for text in (dump_layout_text(layout), dump_compact_text(layout)):
        assert "site: {cooling_kw: 4500.5, power_kw: 5000}" in text
        again = parse_layout_text(text, "x.yaml")
        assert again.meta.site == Site(5000, 4500.5)
        assert dict(again.device(rack).props)[AIR_PROP] == 30_000
        assert dump_plain_text(again) == dump_plain_text(layout)


@pytest.mark.parametrize("line, words", [
    ("site: {power_kw: -5}", "site: 'power_kw' must be a positive number of kW"),
    ("site: {power_kw: .nan}", "must be a positive number of kW"),
    ("site: {volts: 5}", "site: unknown key"),
    ("site: 5000", "'site' must be a mapping"),
])
def test_bad_site_limits_are_located(line, words):
    from rackdesigner.io import LayoutFileError, parse_layout_text

    text = f"schema_version: 1\n{line}\ndevices:\n- {{id: r, model: rack-42u}}\n"
    with pytest.raises(LayoutFileError) as err:
        parse_layout_text(text, "site.yaml")
    assert "site.yaml:2" in str(err.value) and words in str(err.value)


@pytest.mark.parametrize("entry, words", [
    ("air_cooling_w: 0", "'air_cooling_w' must be a positive number of watts"),
    ("serves: rack-1", "'serves' must be a list of distinct ids"),
    ("serves: [rack-1, rack-1]", "'serves' must be a list of distinct ids"),
])
def test_bad_rack_and_cdu_keys_are_located(entry, words):
    from rackdesigner.io import LayoutFileError, parse_layout_text

    text = f"schema_version: 1\ndevices:\n- {{id: r, model: rack-42u, {entry}}}\n"
    with pytest.raises(LayoutFileError) as err:
        parse_layout_text(text, "keys.yaml")
    assert "keys.yaml:3" in str(err.value) and words in str(err.value)


def _nvl72_racks(layout):
    return [d.id for d in layout.devices() if d.model == "rack-48u"]


def _add_cdu(layout, cdu_id, serves):
    from rackdesigner.model import Device

    layout.add_device(Device(cdu_id, "supermicro-inrack-cdu", props=(("serves", tuple(serves)),)))


@pytest.mark.slow
def test_a_cdu_undersized_for_its_nvl72_racks_is_flagged():
    layout = generate("superpod", system="gb200-nvl72", racks=2)
    racks = _nvl72_racks(layout)
    assert len(racks) == 2
    _add_cdu(layout, "cdu-1", racks[:1])
    report = cooling_report(layout)
    (load,) = report.cdus
    assert load.capacity_w == 100_000 and load.liquid_w == pytest.approx(
        report.racks[racks[0]].liquid_w)
    assert not load.over  # one NVL72 rack: 97 kW to liquid on a 100 kW CDU
    codes = _codes(check_layout(layout))
    assert "cdu-capacity" not in codes
    assert "rack-no-cdu" in codes  # the second rack's liquid heat has no CDU
    layout.update_device("cdu-1", props=(("serves", tuple(racks)),))
    findings = [f for f in check_layout(layout) if f.code == "cdu-capacity"]
    assert len(findings) == 1 and findings[0].severity == "error"
    assert findings[0].objects[0] == "cdu-1" and set(findings[0].objects[1:]) == set(racks)
    assert "above its 100 kW capacity" in findings[0].message
    assert cooling_report(layout).cdus_over_capacity == ["cdu-1"]
    assert "cdu-capacity" in _codes(check_racks(layout))
    # a second CDU on the same racks shares the load: both within capacity again
    _add_cdu(layout, "cdu-2", racks)
    report = cooling_report(layout)
    assert not report.cdus_over_capacity
    assert sum(c.liquid_w for c in report.cdus) == pytest.approx(report.liquid_w)


def test_a_cdu_serving_a_rack_that_does_not_exist_is_an_error():
    layout = generate("nvl72")
    rack = _nvl72_racks(layout)[0]
    _add_cdu(layout, "cdu-1", [rack, "rack-99", "nvl72-1.tray0.gpu0"])
    found = [f for f in check_layout(layout) if f.code == "cdu-serves-missing"]
    words = " | ".join(sorted(f.message for f in found))
    assert len(found) == 2 and all(f.severity == "error" for f in found)
    assert "serves 'rack-99', which is no such device" in words
    assert "serves 'nvl72-1.tray0.gpu0', which is not a rack" in words


def test_validate_locates_cdu_and_site_findings_at_their_lines(tmp_path, capsys):
    from rackdesigner.cli import main
    from rackdesigner.io import save_layout
    from rackdesigner.model import Device, Site

    layout = generate("nvl72")
    rack = _nvl72_racks(layout)[0]
    layout.add_device(Device("cdu-1", "supermicro-inrack-cdu",
                             props=(("serves", (rack, "rack-77")),)))
    layout.set_meta(site=Site(power_kw=50))
    path = tmp_path / "d.yaml"
    save_layout(layout, path)
    lines = path.read_text().splitlines()
    site_line = next(n for n, t in enumerate(lines, 1) if t.startswith("site:"))
    cdu_line = next(n for n, t in enumerate(lines, 1) if "id: cdu-1" in t)
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"d.yaml:{cdu_line}: error: CDU cdu-1 serves 'rack-77', which is no such device" \
        in out
    assert f"d.yaml:{site_line}: error: the design draws up to" in out
    assert "uses 240 % of the site's 50 kW" in out


def test_a_liquid_rack_without_a_cdu_is_a_finding_before_any_cdu_exists():
    from rackdesigner.commands.cooling import give_cdus

    layout = generate("nvl72")
    assert not cooling_report(layout).cdus  # no CDU placed yet
    found = [f for f in check_layout(layout) if f.code == "rack-no-cdu"]
    assert len(found) == 1 and "Give Liquid Racks CDUs" in found[0].message
    give_cdus(layout).apply(layout)
    assert "rack-no-cdu" not in _codes(check_layout(layout))
    assert give_cdus(layout) is None  # nothing left to give
    air = generate("dgx-b200")
    assert "rack-no-cdu" not in _codes(check_layout(air))  # air-cooled racks need none
