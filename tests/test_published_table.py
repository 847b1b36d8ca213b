"""The published nccl-tests table and the script that compares it with the engine.

The table (benchmarks/published/nccl_tests.yaml) is what the engine is validated against, so it
must keep covering what issue 10 asks (single- and multi-node, latency and bandwidth regions,
each run with its source), and a broken entry must be reported with file:line.
"""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from script_module import script_module


def _efa(run) -> bool:
    """A run over AWS EFA (its own transport family and gate)."""
    return "EFA" in str(run.data["fabric"])


@pytest.fixture(scope="module")
def pvm():
    with script_module("published_vs_model") as module:
        yield module


def test_table_covers_single_and_multi_node_small_and_large_messages(pvm):
    runs = pvm.load_table(pvm.TABLE)
    assert len(runs) >= 12
    sizes = [r.data["size_bytes"] for r in runs]
    assert any(s <= 1 << 20 for s in sizes), "no latency-region (<= 1 MiB) run"
    assert any(16 << 20 <= s <= 128 << 20 for s in sizes), "no mid-size run"
    assert any(s >= 1 << 30 for s in sizes), "no >= 1 GiB run"
    assert any(r.multi_node for r in runs) and any(not r.multi_node for r in runs)
    assert {"all_reduce", "all_gather", "reduce_scatter", "send_recv"} <= {
        r.data["collective"] for r in runs}
    assert any(r.data["nodes"] >= 16 for r in runs)
    for r in runs:
        assert r.data["source"]["url"].startswith("https://"), r.id


def test_a_broken_entry_names_file_line_and_what_was_expected(pvm, tmp_path):
    text = pvm.TABLE.read_text(encoding="utf-8")
    first = text.index("    size_bytes: ")
    broken = text[:first] + text[text.index("\n", first) + 1:]  # drop the first size_bytes
    path = tmp_path / "table.yaml"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(pvm.TableError) as info:
        pvm.load_table(path)
    first_run_line = broken[:broken.index("  - id:")].count("\n") + 1
    assert f"{path}:{first_run_line}:" in str(info.value)
    assert "size_bytes" in str(info.value)


def test_script_exits_2_on_a_bad_table(pvm, tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("schema: something-else\nruns: []\n", encoding="utf-8")
    assert pvm.main(["--table", str(path)]) == 2
    assert f"{path}:1:" in capsys.readouterr().err


def test_compares_a_run_with_the_engine_and_reports_the_error(pvm, capsys):
    assert pvm.main(["--json", "--only", "h100x8-all_reduce-ring-8g"]) == 0
    out = json.loads(capsys.readouterr().out)
    (row,) = out["rows"]
    assert row["skipped"] is None
    assert math.isfinite(row["simulated"]) and row["simulated"] > 0
    expected = (row["simulated"] - row["published"]) / row["published"] * 100
    assert row["error_pct"] == pytest.approx(expected, abs=0.01)
    assert out["summary"]["all"]["runs"] == 1


@pytest.mark.slow
def test_a_run_without_a_buildable_design_is_listed_with_its_reason(pvm):
    run = pvm.load_table(pvm.TABLE)[0]
    note = "no generator builds this system yet"
    unbuilt = dataclasses.replace(run, data={**run.data, "design": None, "design_note": note})
    rows = pvm.compare_runs([unbuilt])
    assert rows[0].simulated is None and rows[0].skipped == note
    assert pvm.summary(rows)["all"]["runs"] == 0


def test_multi_rack_nvl72_runs_count_as_multi_node(pvm):
    # NVLink inside each rack, InfiniBand between racks: the run crosses the network
    runs = {r.data["id"]: r for r in pvm.load_table(pvm.TABLE)}
    assert runs["gb200nvl72x2-all_reduce-16g"].multi_node
    assert not runs["gb200nvl72-all_reduce-8g"].multi_node


#: The CI gate of issue 22: the engine's error on the VALIDATION runs (nothing is fitted on
#: them) may not rise above these bounds, set from today's figures (issue 33, fabric tuning
#: as an input and the tree's per-channel limit, 2026-12-02: validation 79 runs, mean |error|
#: 6.3 %, worst +58.8 %, 5 runs beyond 15 %; calibration 30 runs, mean 2.5 %;
#: docs/simulation.md section 9). Lower them when the engine improves; raising them needs a
#: reason in the docs.
VALIDATION_MEAN_BOUND_PCT = 7.0
VALIDATION_WORST_BOUND_PCT = 59.5
#: the acceptance check holds every run to 15 %: no more validation runs may fall outside it
VALIDATION_BEYOND_15_MAX = 5
CALIBRATION_MEAN_BOUND_PCT = 3.0


@pytest.mark.slow
def test_validation_error_does_not_rise_above_its_bound(pvm):
    runs = pvm.load_table(pvm.TABLE)
    sets = {r.data["set"] for r in runs}
    assert sets == {"calibration", "validation"}
    rows = pvm.compare_runs(runs)
    assert not [r.run.id for r in rows if r.skipped], "every published run must be compared"
    # the EFA rows have a gate of their own (test_the_efa_rows_hold_their_own_bound): their
    # mid-size misses are the aws-ofi-nccl tuner's algorithm choice, which is not modelled
    rows = [r for r in rows if not _efa(r.run)]
    totals = pvm.summary(rows)
    val, cal = totals["validation"], totals["calibration"]
    assert val["runs"] >= 70 and cal["runs"] >= 20
    assert val["mean_abs_error_pct"] <= VALIDATION_MEAN_BOUND_PCT, val
    assert abs(val["worst_error_pct"]) <= VALIDATION_WORST_BOUND_PCT, val
    beyond = sorted(r.run.id for r in rows
                    if r.run.data["set"] == "validation" and abs(r.error_pct) > 15.0)
    assert len(beyond) <= VALIDATION_BEYOND_15_MAX, beyond
    assert cal["mean_abs_error_pct"] <= CALIBRATION_MEAN_BOUND_PCT, cal


#: The EFA rows' gate (issue 33, EFA as a transport family, 2026-12-02: p5.48xlarge all_reduce
#: and all_to_all at 2-32 nodes, the algorithm per size from the aws-ofi-nccl tuner's regions;
#: calibration 4 runs, mean |error| 1.9 %; validation 36 runs, mean 13.7 %, worst +45.9 %, the
#: 8 GiB all_reduce runs at 8-32 nodes within 11 %; docs/simulation.md, EFA).
EFA_VALIDATION_MEAN_BOUND_PCT = 14.5
EFA_LARGE_BOUND_PCT = 12.0  # the 8 GiB validation runs: the family's bandwidth level
EFA_CALIBRATION_MEAN_BOUND_PCT = 3.0


@pytest.mark.slow
def test_the_efa_rows_hold_their_own_bound(pvm):
    runs = [r for r in pvm.load_table(pvm.TABLE) if _efa(r)]
    rows = pvm.compare_runs(runs)
    assert len(rows) >= 25 and not [r.run.id for r in rows if r.skipped]
    totals = pvm.summary(rows)
    val, cal = totals["validation"], totals["calibration"]
    assert cal["runs"] >= 4 and val["runs"] >= 20
    # calibration rows only at 2 and 4 nodes: the 8-32 node runs are never fitted on
    assert {r.run.data["nodes"] for r in rows if r.run.data["set"] == "calibration"} <= {2, 4}
    assert val["mean_abs_error_pct"] <= EFA_VALIDATION_MEAN_BOUND_PCT, val
    assert cal["mean_abs_error_pct"] <= EFA_CALIBRATION_MEAN_BOUND_PCT, cal
    large = [r for r in rows if r.run.data["set"] == "validation"
             and r.run.data["collective"] == "all_reduce" and r.run.data["size_bytes"] >= 8 << 30]
    assert len(large) >= 3
    assert all(abs(r.error_pct) <= EFA_LARGE_BOUND_PCT for r in large), [
        (r.run.id, r.error_pct) for r in large]


def test_the_fabric_tuning_each_b200_stack_ran_gives_its_level(pvm):
    """The same 4 nodes, rails and NCCL with NCCL's default IB settings and with the vendor's
    (2 QPs per connection, adaptive routing for every message) differ by 25 %: a stack setting,
    which each row states (design.tuning); the model run with that setting lands within 15 %
    of each, and the vendor-tuned figure is the higher one."""
    runs = [r for r in pvm.load_table(pvm.TABLE) if "-ring-8g-fa-" in r.id]
    rows = {r.run.id: r for r in pvm.compare_runs(runs)}
    assert len(rows) == 6
    for coll in ("all_reduce", "all_gather", "reduce_scatter"):
        low = rows[f"b200x32-{coll}-ring-8g-fa-nccl-default-ib"]
        high = rows[f"b200x32-{coll}-ring-8g-fa-vendor-ib"]
        assert low.run.data["design"]["tuning"] == "typical-defaults"
        assert high.run.data["design"]["tuning"] == "vendor-tuned"
        assert low.simulated < high.simulated, coll
        assert abs(low.error_pct) < 15 and abs(high.error_pct) < 15, coll


def test_every_multi_node_run_states_its_fabric_tuning(pvm):
    from rackdesigner.vocabulary import FABRIC_TUNINGS

    for run in pvm.load_table(pvm.TABLE):
        if run.multi_node and run.data.get("design"):
            assert run.data["design"].get("tuning") in FABRIC_TUNINGS, run.id


@pytest.mark.slow
def test_the_derived_constants_are_what_the_calibration_runs_give(pvm):
    """`--derive` refits the constants from the calibration runs alone: the shipped values must
    be those (to the precision they are written with), so nobody tunes them by hand."""
    from rackdesigner.simulation import constants as C
    from rackdesigner.simulation.transport import family
    from rackdesigner.vocabulary import FABRIC_TUNINGS

    derived = pvm.derive(pvm.load_table(pvm.TABLE))
    for tuning in FABRIC_TUNINGS:
        ib = family("infiniband", tuning)
        assert ib.nic_efficiency_2_domains == pytest.approx(
            derived[f"{tuning}.nic_efficiency_2_domains"], abs=0.005), tuning
        assert ib.nic_efficiency_per_doubling == pytest.approx(
            derived[f"{tuning}.nic_efficiency_per_doubling"], abs=0.002), tuning
        assert ib.nic_efficiency_floor == pytest.approx(
            derived[f"{tuning}.nic_efficiency_floor"], abs=0.005), tuning
        roce = family("ethernet", tuning).nic_efficiency_2_domains / ib.nic_efficiency_2_domains
        assert roce == pytest.approx(derived["roce_efficiency"], abs=0.005)
    efa = family("efa")
    for key in ("nic_efficiency_2_domains", "nic_efficiency_per_doubling",
                "nic_efficiency_floor"):
        assert getattr(efa, key) == pytest.approx(derived[f"efa.{key}"], abs=0.005), key
        # one level whatever the tuning (NCCL_IB_* settings are not the plugin's)
        assert getattr(family("efa", "typical-defaults"), key) == getattr(efa, key)
    assert pytest.approx(derived["mnnvl_tree_net_nics"], abs=0.05) == C.MNNVL_TREE_NET_NICS
    assert pytest.approx(derived["small_message_floor_us"], abs=0.1) == C.SMALL_MESSAGE_FLOOR_US
