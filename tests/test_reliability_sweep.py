"""Sweep results carry the reliability columns (issue 37): interruptions per day, MTBF, blast
radius and ETTR on every point, effective tokens/s with a workload."""

from __future__ import annotations

import pytest

from rackdesigner.sweep import parse_spec, run_sweep
from rackdesigner.sweep.reliability import JOB_RELIABILITY_COLUMNS, RELIABILITY_COLUMNS

SPEC = ("schema_version: 1\ngenerate: rail-optimized\n"
        "fixed: {system: dgx-h100, switch: qm9700}\npoints: [{nodes: 4}, {nodes: 8}]\n")


def test_every_point_has_the_reliability_columns_and_more_nodes_fail_more_often():
    result = run_sweep(parse_spec(SPEC), "synchronous")
    for column in RELIABILITY_COLUMNS:
        assert column in result.columns
    assert not set(JOB_RELIABILITY_COLUMNS) & set(result.columns)  # no workload: no job
    small, large = result.rows
    assert (small["status"], large["status"]) == ("ok", "ok")
    assert large["interruptions_per_day"] == pytest.approx(
        2 * small["interruptions_per_day"], rel=0.15)
    assert large["mtbf_hours"] < small["mtbf_hours"]
    assert small["blast_radius_gpus"] >= 8
    assert 0 < large["ettr"] <= small["ettr"] < 1


def test_a_workload_adds_effective_tokens_per_s():
    spec = parse_spec(SPEC.replace("[{nodes: 4}, {nodes: 8}]", "[{nodes: 4}]")
                      + "workload: {model: llama3-8b, tp: 2, gbs: 32}\n")
    row = run_sweep(spec, "synchronous").rows[0]
    assert row["status"] == "ok", row["error"]
    assert 0 < row["effective_tokens_per_s"] < row["tokens_per_s"]


def test_the_pareto_axes_know_which_way_is_better():
    from rackdesigner.sweep.pareto import lower_is_better

    assert lower_is_better("interruptions_per_day") and lower_is_better("blast_radius_gpus")
    assert not lower_is_better("ettr") and not lower_is_better("effective_tokens_per_s")
