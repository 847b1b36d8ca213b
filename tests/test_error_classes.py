"""benchmarks/error_classes.py: the experiments behind docs/simulation.md section 9's error
classes must start from the shipped model and leave it as they found it."""

from __future__ import annotations

import pytest
from script_module import script_module

from rackdesigner.simulation import constants as C

TOUCHED = ("SMALL_MESSAGE_FLOOR_US", "SMALL_MESSAGE_OVERLAP_POWER", "BASE_LATENCY_US",
           "HW_LATENCY_US", "NVLS_PIPELINE_FILL_WAVES", "PIPELINE_FILL_WAVES_PER_LEVEL")


@pytest.fixture(scope="module")
def classes():
    with script_module("error_classes") as module:
        yield module


@pytest.fixture(scope="module")
def runs(classes):
    return classes.pvm.load_table(classes.pvm.TABLE)


def _shipped() -> dict:
    return {name: getattr(C, name) for name in TOUCHED}


def test_the_floor_is_what_brings_small_calls_to_the_published_time(classes, runs):
    before = _shipped()
    bare = classes.without_floor(runs)
    shipped = classes.errors(classes.class_rows(runs))
    assert _shipped() == before
    timed = [r.id for r in runs if r.compare == "time_us" and r.data["set"] == "calibration"]
    assert len(timed) >= 3
    mean = {name: sum(abs(errs[rid]) for rid in timed) / len(timed)
            for name, errs in (("floor", shipped), ("bare", bare))}
    assert mean["floor"] < 10 < 40 < mean["bare"], mean
    # NCCL's cost model alone is far below a single-node 8-byte call (15 us against 35)
    assert bare["h100x8-all_reduce-ring-8b"] < -40


@pytest.mark.slow
def test_the_shipped_overlap_power_reproduces_the_shipped_floor_and_figures(classes, runs):
    before = _shipped()
    [scan] = classes.overlap_scan(runs, [C.SMALL_MESSAGE_OVERLAP_POWER])
    assert scan["floor_us"] == pytest.approx(C.SMALL_MESSAGE_FLOOR_US, abs=0.1)
    totals = classes.pvm.summary(classes.pvm.compare_runs(runs))
    assert scan["validation_mean_pct"] == pytest.approx(
        totals["validation"]["mean_abs_error_pct"], abs=0.05)
    assert scan["calibration_mean_pct"] == pytest.approx(
        totals["calibration"]["mean_abs_error_pct"], abs=0.05)
    # the rejected alternatives run and hand the shipped constants back
    other = classes.base_latency_in_floor(runs)
    assert other["validation_mean_pct"] > totals["validation"]["mean_abs_error_pct"]
    nvls = classes.nvls_tree_with_nccl_2_21(runs)
    assert set(nvls) == {"h100x16-all_reduce-nvls_tree-8b"}
    # NVLS steps at the tree Simple steps: the forced NVLS-tree 8-byte call comes within 15 %
    curves = classes.size_curve.load_curves(classes.size_curve.CURVES)
    steps = classes.nvls_steps_as_tree_simple(runs, curves)
    assert abs(steps["rows"]["h100x16-all_reduce-nvls_tree-8b"]) < 15
    assert _shipped() == before


def test_bad_powers_exit_2(classes, capsys):
    assert classes.main(["--powers", "two"]) == 2
    assert "--powers" in capsys.readouterr().err
