"""The site model: facility power (IT x PUE) over the feed, the liquid loop, air, floor
positions and the power hierarchy, as rules, a headline and JSON; bad site input located."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from rackdesigner.generators import generate
from rackdesigner.io import LayoutFileError, parse_layout_text
from rackdesigner.io.site_read import load_site
from rackdesigner.model import Site, check_layout
from rackdesigner.model.cooling import cooling_report
from rackdesigner.model.items import PowerNode
from rackdesigner.model.rules import check_racks
from rackdesigner.model.site import PUE_AIR, PUE_LIQUID

ROOT = Path(__file__).resolve().parents[1]


def _codes(findings):
    return {f.code for f in findings}


def _racks(layout):
    return [d.id for d in layout.devices() if layout.catalog.get(d.model).rack is not None]


@pytest.fixture(scope="module")
def nvl72_use():
    layout = generate("nvl72")
    return layout, cooling_report(layout).site


def test_facility_power_is_it_times_the_cooling_mix_pue(nvl72_use):
    _, use = nvl72_use
    assert PUE_LIQUID < use.pue < PUE_AIR  # mostly liquid, some air
    assert use.facility_w == pytest.approx(use.it_max_w * use.pue)
    assert use.liquid_w + use.air_w == pytest.approx(use.it_max_w)


def test_facility_power_over_the_feed_is_an_error_while_it_power_fits(nvl72_use):
    layout, use = nvl72_use
    it_kw = use.it_max_w / 1000
    # the feed holds the IT draw but not IT x PUE: only facility power says so
    layout.set_meta(site=Site(power_kw=it_kw * 1.05, facility_power_kw=it_kw * 1.05))
    found = [f for f in check_layout(layout) if f.code.startswith("site")]
    assert [f.code for f in found] == ["site-facility-power"]
    assert found[0].severity == "error" and "PUE" in found[0].message
    assert "site-facility-power" in _codes(check_racks(layout))  # the racks view marks it
    layout.set_meta(site=Site(facility_power_kw=it_kw * 1.3))
    assert "site-facility-power" not in _codes(check_layout(layout))
    layout.set_meta(site=Site(facility_power_kw=it_kw * 1.3, pue=1.4))  # a stated PUE wins
    assert "site-facility-power" in _codes(check_layout(layout))
    layout.set_meta(site=Site())


def test_the_liquid_loop_binds_liquid_racks_and_not_air_ones():
    nvl = generate("nvl72")
    air = generate("dgx-b200")
    liquid_kw = cooling_report(nvl).site.liquid_w / 1000
    assert liquid_kw > 50
    for layout in (nvl, air):
        layout.set_meta(site=Site(liquid_kw=liquid_kw / 2))
    assert "site-liquid" in _codes(check_layout(nvl))
    assert "site-liquid" not in _codes(check_layout(air))  # all air: the loop is not used
    use = cooling_report(nvl).site
    assert use.liquid_share == pytest.approx(2.0)
    assert "uses 200 % of the liquid loop" in use.headline()


def test_the_headline_names_each_stated_limit():
    layout = generate("nvl72")
    use = cooling_report(layout).site
    layout.set_meta(site=Site(facility_power_kw=use.facility_w / 1000 / 0.96,
                              liquid_kw=use.liquid_w / 1000 / 0.82, rack_positions=10))
    headline = cooling_report(layout).site.headline()
    assert headline.startswith("uses 96 % of facility power (")
    assert "82 % of the liquid loop" in headline and "of 10 rack positions" in headline
    data = cooling_report(layout).to_dict()["site"]
    for key in ("facility_power_kw", "it_power_kw", "liquid_kw", "air_kw"):
        assert data[key] > 0
    assert data["facility_share"] == pytest.approx(0.96, abs=1e-3)


def test_more_racks_than_floor_positions_and_air_over_capacity_are_errors():
    layout = generate("dgx-b200")
    racks = len(_racks(layout))
    layout.set_meta(site=Site(rack_positions=racks))
    assert "site-floor" not in _codes(check_layout(layout))
    air_kw = cooling_report(layout).site.air_w / 1000
    layout.set_meta(site=Site(rack_positions=max(1, racks - 1) if racks > 1 else None,
                              air_kw=air_kw * 0.9))
    codes = _codes(check_layout(layout))
    assert "site-air" in codes
    if racks > 1:
        assert "site-floor" in codes


def _tree(racks, pdu_kw, redundancy="N", units=1):
    return (PowerNode("feed-a", "feed", 10_000),
            PowerNode("swbd-1", "switchboard", 5_000, parent="feed-a"),
            PowerNode("pdu-1", "pdu", pdu_kw, units, redundancy, "swbd-1", tuple(racks)))


def test_a_power_level_over_its_redundant_capacity_is_an_error():
    layout = generate("nvl72")
    racks = _racks(layout)
    rack_kw = sum(cooling_report(layout).racks[r].liquid_w + cooling_report(layout).racks[r].air_w
                  for r in racks) / 1000
    layout.set_meta(site=Site(power=_tree(racks, rack_kw * 0.8, "N+1", 3)))
    assert "site-power-node" not in _codes(check_layout(layout))  # 2 of 3 units: 1.6x
    layout.set_meta(site=Site(power=_tree(racks, rack_kw * 0.8, "2N", 2)))  # half: 0.8x
    over = [f for f in check_layout(layout) if f.code == "site-power-node"]
    assert len(over) == 1 and "pdu pdu-1" in over[0].message and "2N" in over[0].message
    assert set(over[0].objects) == set(racks)  # the racks view marks the racks below it


def test_a_rack_on_no_pdu_is_an_error_at_the_rack():
    layout = generate("nvl72")
    racks = _racks(layout)
    layout.set_meta(site=Site(power=_tree(racks[1:], 10_000)))
    unfed = [f for f in check_layout(layout) if f.code == "rack-no-feed"]
    assert [f.objects for f in unfed] == [(racks[0],)] and unfed[0].severity == "error"


def test_the_site_block_round_trips_and_old_site_files_still_load():
    layout = generate("dgx-b200")
    site = Site(power_kw=50, facility_power_kw=80, liquid_kw=10, liquid_supply_c=45,
                air_kw=60, rack_positions=4, power=_tree(_racks(layout), 40, "2N", 2))
    layout.set_meta(site=site)
    from rackdesigner.io.writer import dump_plain_text

    again = parse_layout_text(dump_plain_text(layout), "x.yaml")
    assert again.meta.site == site
    old = parse_layout_text("schema_version: 1\nsite: {power_kw: 5000, cooling_kw: 4500}\n",
                            "old.yaml")
    assert old.meta.site == Site(5000, 4500)
    new_name = parse_layout_text("schema_version: 1\nsite: {it_power_kw: 5000}\n", "n.yaml")
    assert new_name.meta.site == Site(5000)


BAD = [
    ("site: {liquid_kw: -5}", 2, "'liquid_kw' must be a positive number of kW"),
    ("site: {rack_positions: 2.5}", 2, "'rack_positions' must be a whole number"),
    ("site: {pue: 0.9}", 2, "'pue' must be between 1 and 5"),
    ("site:\n  power:\n  - {id: f, level: feed, capacity_kw: 100, parent: f}", 4, "feeds itself"),
    ("site:\n  power:\n  - {id: p, level: pdu, capacity_kw: 10, racks: [r]}", 4,
     "rack r would be on no feed"),
    ("site:\n  power:\n  - {id: f, level: feed, capacity_kw: 0}", 4, "'capacity_kw' must be a "
     "positive number"),
    ("site:\n  power:\n  - {id: f, level: feed, capacity_kw: 10}\n"
     "  - {id: s, level: switchboard, capacity_kw: 10, parent: f, units: 3, redundancy: 2N}", 5,
     "2N needs an even number of units"),
    ("site:\n  power:\n  - {id: f, level: feed, capacity_kw: 10}\n"
     "  - {id: s, level: switchboard, capacity_kw: 10, parent: p}\n"
     "  - {id: p, level: pdu, capacity_kw: 10, parent: s}", 5, "which is not above it"),
]


@pytest.mark.parametrize("block, line, words", BAD)
def test_bad_site_input_is_located(block, line, words):
    text = f"schema_version: 1\n{block}\ndevices:\n- {{id: r, model: rack-42u}}\n"
    with pytest.raises(LayoutFileError) as err:
        parse_layout_text(text, "d.yaml")
    assert f"d.yaml:{line}:" in str(err.value) and words in str(err.value)


def test_a_site_file_shares_the_format(tmp_path):
    path = tmp_path / "SITE.yaml"
    path.write_text("facility_power_kw: 2000\nliquid_kw: 1000\nair_kw: 1200\n")
    assert load_site(path) == Site(facility_power_kw=2000, liquid_kw=1000, air_kw=1200)
    path.write_text("site:\n  facility_power_kw: 2000\n  liquid_kw: -1\n")
    with pytest.raises(LayoutFileError) as err:
        load_site(path)
    assert f"{path}:3:" in str(err.value)


def test_validate_reports_site_errors_at_the_site_line(tmp_path):
    layout = generate("nvl72")
    use = cooling_report(layout).site
    layout.set_meta(site=replace(Site(), liquid_kw=use.liquid_w / 2000))
    from rackdesigner.io import save_layout

    path = tmp_path / "d.yaml"
    save_layout(layout, path)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1)
                if t.startswith("site:"))
    run = subprocess.run([sys.executable, "-m", "rackdesigner", "validate", "-q", str(path)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 1
    assert f"{path}:{line}: error: the design sends" in run.stdout
