"""Failures: the state in the document, what the simulation leaves out, and N-1 analysis."""

from __future__ import annotations

import json

import pytest

from rackdesigner.analysis.symmetry import classes, device_colours
from rackdesigner.analysis.whatif import WhatIf
from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import dump_layout_text, parse_layout_text
from rackdesigner.io.errors import LayoutFileError
from rackdesigner.model.failures import closure, degraded
from rackdesigner.simulation import simulate


@pytest.fixture(scope="module")
def sp4():
    return generate("superpod", system="dgx-h100", sus=4)


@pytest.fixture(scope="module")
def sp4_whatif(sp4):
    return WhatIf(sp4)


@pytest.fixture(scope="module")
def sp1():
    return generate("superpod", system="dgx-h100", sus=1)


@pytest.mark.slow
def test_one_of_16_spines_costs_about_a_sixteenth_of_bisection_not_the_ring(sp4_whatif):
    spines = sp4_whatif.candidates("spine")
    assert len(spines) == 16
    one = sp4_whatif.scenario(spines[:1])
    drop = -one.delta["bisection_GBps"]
    assert 1 / 32 < drop < 1 / 8
    assert one.stranded_gpus == 0 and one.degraded_gpus == 0 and not one.partitioned
    # all_to_all crosses the spines but the leaves' uplinks still carry its demand; the rail
    # rings never leave their leaf pairs' spine share
    assert -drop <= one.delta["all_to_all_busbw_GBps"] <= 0
    assert abs(one.delta["all_reduce_busbw_GBps"]) < 0.01
    # once the spine layer is the bottleneck, all_to_all follows the lost capacity
    half = sp4_whatif.scenario(spines[:8])
    assert 0.4 < -half.delta["bisection_GBps"] < 0.6
    assert -half.delta["all_to_all_busbw_GBps"] > 0.25
    assert abs(half.delta["all_reduce_busbw_GBps"]) < 0.01


def test_failed_nvl72_switch_tray_costs_every_gpu_a_ninth_of_scale_up():
    whatif = WhatIf(generate("nvl72"))
    trays = [t for t in whatif.candidates("tray") if "switch_tray" in t]
    assert len(trays) == 9
    impact = whatif.scenario(trays[:1])
    assert impact.delta["per_gpu_scale_up_GBps"] == pytest.approx(-1 / 9, abs=1e-3)
    assert impact.degraded_gpus == 72 and impact.stranded_gpus == 0
    assert impact.after["largest_nvlink_domain"] == 72


@pytest.mark.slow
def test_failed_leaf_strands_no_gpu_on_a_rail_optimized_fabric_but_degrades_its_rail(sp1):
    whatif = WhatIf(sp1)
    leaves = whatif.candidates("leaf")
    impact = whatif.scenario(leaves[:1])
    assert impact.stranded_gpus == 0 and not impact.partitioned
    assert impact.degraded_gpus > 0
    assert impact.delta["per_gpu_scale_out_GBps"] < 0
    # the rest of the fabric is untouched: far fewer GPUs are degraded than the design has
    assert impact.degraded_gpus <= 2 * len(whatif._capacity.per_gpu) // len(leaves)


@pytest.mark.slow
def test_failing_every_spine_partitions_the_design_and_says_so(sp4, sp4_whatif):
    impact = sp4_whatif.scenario(sp4_whatif.candidates("spine"))
    assert impact.partitioned and impact.stranded_gpus > 0
    assert impact.delta["bisection_GBps"] == -1.0
    assert impact.delta["all_to_all_busbw_GBps"] == -1.0
    assert any("cannot reach" in m for m in impact.result.messages)


def test_marking_failed_in_the_document_leaves_it_out_and_restoring_gives_identical_figures(sp1):
    layout = sp1.copy()
    before = json.dumps(simulate(layout).to_dict(), sort_keys=True)
    spine = WhatIf(layout).candidates("spine")[0]
    layout.update_device(spine, status="failed")
    result = simulate(layout)
    assert any("marked failed" in m and spine in m for m in result.messages)
    assert json.dumps(result.to_dict(), sort_keys=True) != before
    layout.update_device(spine, status="active")
    assert json.dumps(simulate(layout).to_dict(), sort_keys=True) == before


def test_failed_rack_takes_its_devices_power_and_links(sp1):
    rack = next(g for g in sp1.groups() if g.kind == "rack")
    devices = sp1.group_devices(rack.id)
    down = closure(sp1, [rack.id])
    assert set(devices) <= down.devices
    assert all(k in down.links for d in devices for k in (x.id for x in sp1.links_of(d)))
    rack_device = next(d for d in sp1.devices() if sp1.spec(d.id).kind == "rack")
    mounted = {d.id for d in sp1.devices() if d.rack == rack_device.id}
    assert mounted and mounted <= closure(sp1, [rack_device.id]).devices
    intact = simulate(sp1, loads_for=None).power.total_max_w
    after = simulate(degraded(sp1, down), loads_for=None).power.total_max_w
    assert after < intact


def test_status_is_saved_only_when_failed_and_bad_values_name_the_line(sp1):
    text = dump_layout_text(sp1)
    assert "status" not in text
    layout = sp1.copy()
    link = next(iter(layout.links())).id
    layout.update_link(link, status="failed")
    layout.update_group(next(iter(layout.groups())).id, status="failed")
    saved = dump_layout_text(layout)
    assert saved.count("status: failed") == 2
    again = parse_layout_text(saved)
    assert again.link(link).status == "failed"
    assert dump_layout_text(again) == saved
    bad = saved.replace("status: failed", "status: broken", 1)
    with pytest.raises(LayoutFileError) as err:
        parse_layout_text(bad, "bad.yaml")
    line = next(i for i, t in enumerate(bad.splitlines(), 1) if "broken" in t)
    assert f"bad.yaml:{line}" in str(err.value) and "active, failed" in str(err.value)


@pytest.mark.slow
def test_each_simulates_one_per_symmetry_class_worst_first(sp4, sp4_whatif):
    rows = sp4_whatif.each("switch")
    assert sum(r.count for r in rows) == 48 and len(rows) < 8
    assert all(m.startswith("leaf") for m in rows[0].members)
    assert all(m.startswith("spine") for m in rows[-1].members)
    severities = [r.impact.severity() for r in rows]
    assert severities == sorted(severities, reverse=True)
    # a class's members really fail alike: another member gives the same figures
    other = sp4_whatif.scenario([rows[0].members[-1]])
    assert other.delta == pytest.approx(rows[0].impact.delta, abs=1e-3)
    assert other.degraded_gpus == rows[0].impact.degraded_gpus


def test_symmetry_keeps_different_objects_apart(sp1):
    groups = classes(sp1, [d.id for d in sp1.devices() if sp1.spec(d.id).kind == "switch"])
    for members in groups:
        assert len({m.split("-")[0] for m in members}) == 1  # leaves never with spines


@pytest.mark.parametrize("design", ["sp4", "nvl72", "fat-tree"])
def test_colours_refined_with_numpy_are_the_colours_of_the_tuples(design, sp4):
    layout = {"sp4": lambda: sp4,
              "nvl72": lambda: generate("superpod", system="gb200-nvl72", racks=2),
              "fat-tree": lambda: generate("fat-tree", switch="qm9700", levels=3,
                                           endpoints=64)}[design]()
    tuples = device_colours(layout, array_min_links=10**9)
    assert device_colours(layout, array_min_links=0) == tuples
    assert 1 < len(set(tuples.values())) < len(tuples)  # some alike, not all


@pytest.mark.slow
def test_cli_one_scenario_and_each_as_json(tmp_path, capsys, sp1):
    path = tmp_path / "sp1.yaml"
    path.write_text(dump_layout_text(sp1))
    assert main(["whatif", str(path), "--fail", "spine-1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "rackdesigner.whatif/1" and doc["failed"] == ["spine-1"]
    assert {"stranded_gpus", "degraded_gpus", "partitioned"} <= doc.keys()
    assert doc["intact"]["schema"] == doc["degraded"]["schema"] == "rackdesigner.simulation/1"
    assert main(["whatif", str(path), "--each", "leaf", "--top", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "leaf" and len(doc["scenarios"]) == 1
    row = doc["scenarios"][0]
    assert row["count"] >= 1 and row["delta"]["per_gpu_scale_out_GBps"] < 0
    assert main(["whatif", str(path), "--each", "leaf"]) == 0
    assert "any of the" in capsys.readouterr().out


def test_cli_unknown_id_is_a_clear_error(tmp_path, capsys, sp1):
    path = tmp_path / "sp1.yaml"
    path.write_text(dump_layout_text(sp1))
    assert main(["whatif", str(path), "--fail", "spine-99"]) == 2
    err = capsys.readouterr().err
    assert "spine-99" in err and "Traceback" not in err
    assert main(["whatif", str(path), "--each", "nvswitch", "--top", "0"]) == 2


@pytest.mark.slow
def test_render_heat_draws_the_legend_and_rejects_a_bad_traffic(tmp_path, capsys, sp1):
    pytest.importorskip("PySide6")
    path = tmp_path / "sp1.yaml"
    path.write_text(dump_layout_text(sp1))
    out = tmp_path / "heat.svg"
    assert main(["render", str(path), "--heat", "all_to_all:64M", "-o", str(out)]) == 0
    svg = out.read_text()
    assert "Link utilisation: all_to_all 64 MiB" in svg
    assert main(["render", str(path), "--heat", "all_to_all:lots", "-o", str(out)]) == 2
    assert "COLLECTIVE[:SIZE]" in capsys.readouterr().err


@pytest.mark.slow
def test_each_shows_progress_on_a_terminal(tmp_path, capsys, monkeypatch, sp1):
    import sys

    path = tmp_path / "sp1.yaml"
    path.write_text(dump_layout_text(sp1))
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert main(["whatif", str(path), "--each", "spine"]) == 0
    err = capsys.readouterr().err
    assert "simulating failure classes: 0/" in err and err.rstrip().endswith(
        err.rstrip().split("/")[-1])
    done = err.strip().split("\r")[-1]
    a, b = done.split(": ")[1].split("/")
    assert a == b  # the last line says all classes are done


def test_the_workload_estimate_leaves_failed_parts_out_too(tmp_path):
    from rackdesigner.workload import Estimator, Job
    from rackdesigner.workload.models import load_model_file
    from tests.workload_designs import SMALL_MODEL, tor_cluster

    (tmp_path / "small.yaml").write_text(SMALL_MODEL)
    model = load_model_file(tmp_path / "small.yaml")
    tor = tor_cluster(nodes=8, spines=4)
    job = Job(tp=1, gbs=64)
    intact = Estimator(tor, model).estimate(job)
    tor.update_device("spine-3", status="failed")
    tor.update_device("spine-4", status="failed")
    broken = Estimator(tor, model).estimate(job)
    assert broken.breakdown["dp_exposed_s"] > intact.breakdown["dp_exposed_s"]
    tor.update_device("spine-3", status="active")
    tor.update_device("spine-4", status="active")
    assert Estimator(tor, model).estimate(job).step_time_s == intact.step_time_s


@pytest.mark.slow
def test_racks_whose_failures_cost_the_same_are_one_row_whatever_their_wiring():
    """Issue 38 item 7: the 14 NVL72 racks of a SuperPOD sit on different leaf ports (no two
    are one symmetry class) but losing any one costs the same: one row, not 14."""
    layout = generate("superpod", system="gb200-nvl72", racks=14)
    rows = WhatIf(layout).each("rack")
    compute = [r for r in rows if r.members[0].startswith("nvl72-")]
    assert len(compute) == 1 and compute[0].count == 14
    assert sum(r.count for r in rows) == len(WhatIf(layout).candidates("rack"))
