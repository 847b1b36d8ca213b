"""The comparison with published serving measurements (benchmarks/serving_validation.py and
benchmarks/serving_runs.yaml): every row has a source, rows are split into calibration (what
the stack's fitted constants were chosen against: ISL/OSL 1000/1000) and validation (every other
shape, which only checks them) — and CI fails when the validation error rises. Plus the
published GB200 NVL72 / 8-GPU B200 ratio on DeepSeek-R1 at 1k/1k, by interactivity."""

from __future__ import annotations

import pytest
from script_module import script_module

from rackdesigner.generators import generate
from rackdesigner.serving import serve
from rackdesigner.serving.frontier import throughput_at

#: Measured when the gate was set (docs/serving.md): 138 gated validation rows from three
#: sources (132 max-load rows of NVIDIA's TensorRT-LLM table, 2 max-load rows of SemiAnalysis
#: InferenceX, 4 batch-1 rows of TensorRT-LLM's DeepSeek-R1 latency blog), 81.2 % within 25 %,
#: mean |error| 19.4 % — the issue's target (>= 80 %, <= 20 %) met with about a point to spare;
#: dense models at 8 % and MoE models at 40 %. The gate sits below
#: so that a merge moving training's GEMM constants by a hair does not fail it; a real
#: regression does. Points on the curve (tokens/s per GPU at a tokens/s per user) are
#: reported by the script and asserted below, not gated: the model misses them widely.
WITHIN_25_BOUND = 0.78
#: The kinds of published point the gate covers: saturation throughput and the speed of one
#: sequence. Curve points in between (InferenceX at 125 tok/s/user) are reported, not gated.
GATED_POINTS = ("max_load", "min_latency")
VALIDATION_MEAN_BOUND = 0.22
CALIBRATION_MEAN_BOUND = 0.16  # 14.0 % over 15 rows


@pytest.fixture(scope="module")
def validation():
    with script_module("serving_validation") as module:
        yield module


@pytest.fixture(scope="module")
def results(validation):
    return validation.compare(validation.load_rows())


def test_rows_cover_gpus_models_and_shapes_each_with_its_source(validation):
    rows = validation.load_rows()
    assert len(rows) >= 100
    assert {r.system for r in rows} >= {"dgx-h100", "dgx-h200", "dgx-b200", "nvl72"}
    assert {r.precision for r in rows} >= {"fp8", "fp4"}
    assert len({r.model for r in rows}) >= 4
    assert {r.regime for r in rows} == {"balanced", "decode-heavy", "prefill-heavy"}
    cal = [r for r in rows if r.set == "calibration"]
    assert cal and all((r.isl, r.osl) == (1000, 1000) for r in cal)
    # more than one publisher: every source is declared, and none holds every row
    sources = {r.source for r in rows}
    assert len(sources) >= 2
    declared = validation.load_sources()
    assert sources <= set(declared)
    assert all(sum(r.source == s for r in rows) < len(rows) for s in sources)


def test_rows_of_each_source_are_reported_apart(validation, results, capsys):
    validation.main([])
    out = capsys.readouterr().out
    for source in {r.source for r, _, _ in results}:
        assert any(line.startswith("source") and f" {source} " in line
                   for line in out.splitlines()), source


def test_validation_rows_are_within_the_gate(validation, results):
    val = validation.summary([x for x in results if x[0].set == "validation"
                              and x[0].point in GATED_POINTS])
    assert val["within_25"] >= WITHIN_25_BOUND, val
    assert val["mean_abs_error"] <= VALIDATION_MEAN_BOUND, val
    cal = validation.summary([x for x in results if x[0].set == "calibration"])
    assert cal["mean_abs_error"] <= CALIBRATION_MEAN_BOUND, cal


def test_interactivity_points_are_compared_on_the_curve(results):
    # InferenceX's 125 tok/s/user points are read off the interpolated Pareto curve of a
    # 72-GPU deployment searched by the tool; the model is pessimistic there (no MTP in it,
    # docs/serving.md), but it must give a figure and rank the rack above the B200 nodes
    points = {r.system: p for r, p, _ in results if r.point == "interactivity"}
    assert set(points) == {"nvl72", "dgx-b200-x9-roce"}
    assert points["nvl72"] > points["dgx-b200-x9-roce"] > 0


def test_dense_models_are_close_everywhere(results):
    dense = [e for r, _, e in results if r.model.startswith("llama")]
    assert max(abs(e) for e in dense) < 0.35
    assert sum(abs(e) for e in dense) / len(dense) < 0.12


# ---- GB200 NVL72 vs 8-GPU B200 nodes on DeepSeek-R1, 1k/1k, FP4 ----------------------------
@pytest.fixture(scope="module")
def r1_curves():
    nvl = serve(generate("nvl72"), "deepseek-r1", precision="fp4", isl=1024, osl=1024)
    roce = generate("superpod", system="dgx-b200", nodes=9, switch="sn5600")  # CX-7 RoCEv2
    b200 = serve(roce, "deepseek-r1", precision="fp4", isl=1024, osl=1024, gpus=72)
    return list(nvl.pareto), list(b200.pareto), nvl.max_load, b200.max_load


def _ratio(curves, x: float) -> float:
    """NVL72 / B200 tokens/s per GPU at `x` tokens/s per user, on the interpolated curves."""
    a, b = throughput_at(curves[0], x), throughput_at(curves[1], x)
    assert a is not None and b is not None
    return a / b


def test_r1_ratio_at_the_high_throughput_end(r1_curves):
    # published 1.17x at the curves' high-throughput end; ~1.1x at ~25 tok/s/user
    assert 0.95 <= r1_curves[2].output_per_gpu / r1_curves[3].output_per_gpu <= 1.4
    assert 0.95 <= _ratio(r1_curves, 25) <= 1.4


def test_r1_ratio_in_the_middle_is_several_fold(r1_curves):
    # published up to 4.39x at 125 tok/s/user (with MTP, which lifts per-user speed; the
    # model has none, so its middle sits lower): wide EP stays on NVLink in the rack and
    # crosses RoCE between B200 nodes. The model's peak overshoots (about 9x near 90 tok/s per
    # user since decode overlaps two micro-batches: the B200 nodes' middle is the pessimistic
    # side, 65 % under InferenceX at 125 tok/s/user; docs/serving.md), so the bound says
    # "several-fold", no more.
    peak = max(_ratio(r1_curves, x) for x in range(40, 121, 5))
    assert 3.0 <= peak <= 10.0


@pytest.mark.xfail(strict=True, reason=(
    "published 4.39x at 125 tok/s/user (InferenceX, with MTP); the model reads ~1.2x there "
    "without MTP (both curves fall off past ~110 tok/s/user; its several-fold peak sits near "
    "90) and ~2.0x with --mtp 3 (its peak moves to ~250): docs/serving.md"))
def test_r1_ratio_at_the_published_middle_point(r1_curves):
    # the band at the middle, at the published point itself (not the model's peak)
    assert 4.39 * 0.75 <= _ratio(r1_curves, 125) <= 4.39 * 1.25


def _top(curves) -> float:
    """The most interactive end both curves reach (a little inside it: the last point of each
    curve is one batch-1 configuration)."""
    return 0.85 * min(curves[0][0].per_user, curves[1][0].per_user)


def test_r1_lead_is_gone_at_the_most_interactive_end(r1_curves):
    # small batches fit in one node's NVLink on both: nothing left for the rack to win
    assert _ratio(r1_curves, _top(r1_curves)) <= 1.2


@pytest.mark.xfail(strict=True, reason="published: B200 ahead by ~1.2x above ~250 tok/s/user "
                   "(MTP, software); the model has the two even (same HBM bandwidth, NVLink "
                   "inside a node for both); a slower Grace host, the one hardware difference "
                   "found, puts the rack below the B200 nodes at max load, against the "
                   "published 1.17x: docs/serving.md, mechanisms tried")
def test_r1_b200_ahead_at_the_most_interactive_end(r1_curves):
    assert _ratio(r1_curves, _top(r1_curves)) < 1.0
