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
#: mean |error| 19.4 % — then the InferenceX rows were read as published (total tokens per GPU,
#: with MTP: 79.7 % and 20.3 %, both InferenceX max-load rows 60-80 % optimistic) and the
#: routed experts got their fitted grouped-GEMM share: 80.4 % and 16.3 %; dense models at 8 %
#: and MoE models at 17-43 %. The gate sits below
#: so that a merge moving training's GEMM constants by a hair does not fail it; a real
#: regression does. Points on the curve (tokens/s per GPU at a tokens/s per user) are
#: reported by the script and asserted below, not gated: the model misses them widely.
WITHIN_25_BOUND = 0.78
#: The kinds of published point the gate covers: saturation throughput and the speed of one
#: sequence. Curve points in between (InferenceX at 125 tok/s/user) are reported, not gated.
GATED_POINTS = ("max_load", "min_latency")
VALIDATION_MEAN_BOUND = 0.22
CALIBRATION_MEAN_BOUND = 0.16  # 13.8 % over 15 rows


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
    # InferenceX's iso-interactivity points are read off the interpolated Pareto curve of a
    # 72-GPU deployment searched by the tool (with MTP, as published); the model misses them
    # widely in the curve's middle (docs/serving.md), but it must give a figure at each up to
    # 250 (its curves end short of InferenceX's 286 and 309: one sequence of TEP8 is 4-12 %
    # slow) and rank the rack above the B200 nodes where InferenceX does (1.35x-4.39x at 75-150)
    points = {(r.system, r.interactivity): p for r, p, _ in results if r.point == "interactivity"}
    assert {s for s, _ in points} == {"nvl72", "dgx-b200-x9-roce"}
    assert all(p > 0 for (_, x), p in points.items() if x <= 250)
    for x in (75, 100, 125, 150):
        assert points[("nvl72", x)] > points[("dgx-b200-x9-roce", x)]


def _speed_rows(results, attention_dp: bool):
    return [(r, e) for r, _, e in results
            if r.point == "speed" and r.config["attention_dp"] is attention_dp]


def test_small_tep8_decode_matches_inferencex_per_point(results):
    # InferenceX's own layout, batch and MTP depth (benchmarks/serving_runs.yaml, point speed):
    # TEP8 inside one node's NVLink at 1-9 sequences, on both systems, within 20 % of the
    # published tok/s/user (4-18 % slow: the experts' fitted grouped-GEMM share is a mean over
    # batch sizes) — the step the curve's most interactive end is made of
    rows = [(r, e) for r, e in _speed_rows(results, False) if r.batch <= 9]
    assert {r.system for r, _ in rows} == {"nvl72", "dgx-b200-x9-roce"} and len(rows) >= 8
    assert all(abs(e) < 0.20 for _, e in rows), [(r.name, round(e, 3)) for r, e in rows]


@pytest.mark.xfail(strict=True, reason=(
    "at InferenceX's own wide-EP layouts (DEP4-DEP32, attention DP), batches and MTP depths the "
    "model's decode is 7-40 % faster than published on both systems, most on the rack's "
    "DEP16/DEP32; the dispatch/combine all-to-all is not it (priced about as TensorRT-LLM's "
    "measured NVLinkOneSided kernels); the missing per-layer cost is the bf16 attention of "
    "NVIDIA's NVFP4 checkpoint and per-kernel floors, which only the experimental "
    "trtllm-kernels profile prices (tests/test_serving_kernels.py): "
    "docs/serving.md"))
def test_wide_ep_decode_matches_inferencex_per_point(results):
    rows = _speed_rows(results, True)
    assert len(rows) >= 8
    assert all(abs(e) <= 0.25 for _, e in rows), [(r.name, round(e, 3)) for r, e in rows]


def test_dense_models_are_close_everywhere(results):
    dense = [e for r, _, e in results if r.model.startswith("llama")]
    assert max(abs(e) for e in dense) < 0.35
    assert sum(abs(e) for e in dense) / len(dense) < 0.12


# ---- GB200 NVL72 vs 8-GPU B200 nodes on DeepSeek-R1, 1k/1k, FP4 ----------------------------
@pytest.fixture(scope="module")
def r1_curves():
    # as InferenceX ran them: MTP (draft depths 1-3 per configuration, as its recipes chose)
    nvl = serve(generate("nvl72"), "deepseek-r1", precision="fp4", isl=1024, osl=1024, mtp=3)
    roce = generate("superpod", system="dgx-b200", nodes=9, switch="sn5600")  # CX-7 RoCEv2
    b200 = serve(roce, "deepseek-r1", precision="fp4", isl=1024, osl=1024, gpus=72, mtp=3)
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
    # published: the rack wins most "in the 75-175 tok/s/user band" (the InferenceX blog), up to
    # 4.39x at 125: wide EP stays on NVLink in the rack; on the B200 nodes TensorRT-LLM has no
    # all-to-all across NVLink domains (it all-gathers), so their recipes stay at EP8 in a node
    peak = max(_ratio(r1_curves, x) for x in range(75, 176, 5))
    assert peak >= 3.0
    # and the rack is ahead all through the band, as published (1.35x at 75 to 1.93x at 175)
    assert all(_ratio(r1_curves, x) > 1.0 for x in range(75, 176, 25))


def test_r1_ratio_at_the_published_middle_point(r1_curves):
    # the band at the middle, at the published point itself (not the model's peak)
    assert 4.39 * 0.75 <= _ratio(r1_curves, 125) <= 4.39 * 1.25


@pytest.mark.xfail(strict=True, reason=(
    "published peak 4.39x (125 tok/s/user), 3.30x at 150 and 1.93x at 175; the model's B200 "
    "nodes fall off where InferenceX's do (537, 424 vs 583, 429 tok/s/GPU at 150, 175) but its "
    "rack keeps its throughput to ~200 tok/s/user (wide-EP decode 1.3-1.4x faster than "
    "published at DEP16-DEP32), so the ratio overshoots to ~20x at 150-225: docs/serving.md"))
def test_r1_middle_peak_is_not_overshot(r1_curves):
    assert max(_ratio(r1_curves, x) for x in range(75, 176, 5)) <= 4.39 * 1.25


def _top(curves) -> float:
    """The most interactive end both curves reach (a little inside it: the last point of each
    curve is one batch-1 configuration)."""
    return 0.85 * min(curves[0][0].per_user, curves[1][0].per_user)


@pytest.mark.xfail(strict=True, reason=(
    "published: even at ~225 and B200 ahead by ~1.2x above ~250 tok/s/user; with MTP the "
    "model's rack keeps a several-fold lead there (wide EP over 32-64 GPUs of NVLink at 1-4 "
    "sequences per GPU, priced faster than the published DEP32 at 4 per GPU: 164 tok/s/user), "
    "and the two meet only at batch 1 (TEP8 inside 8 GPUs on both): docs/serving.md"))
def test_r1_lead_is_gone_at_the_most_interactive_end(r1_curves):
    # small batches fit in one node's NVLink on both: nothing left for the rack to win
    assert _ratio(r1_curves, _top(r1_curves)) <= 1.2


@pytest.mark.xfail(strict=True, reason="published: B200 ahead by ~1.2x above ~250 tok/s/user "
                   "(MTP, software); the model has the two even at batch 1 (same HBM "
                   "bandwidth, NVLink inside a node for both) and the rack ahead just below; a "
                   "slower Grace host, the one hardware difference found, puts the rack below "
                   "the B200 nodes at max load, against the published 1.17x: docs/serving.md, "
                   "mechanisms tried")
def test_r1_b200_ahead_at_the_most_interactive_end(r1_curves):
    assert _ratio(r1_curves, _top(r1_curves)) < 1.0


def test_r1_batch_one_is_even_on_both_systems(r1_curves):
    # one sequence per instance: TEP8 inside 8 GPUs of NVLink on both systems, within 5 % of
    # each other (InferenceX: 286 and 309 tok/s/user with MTP3, the B200 slightly ahead)
    assert r1_curves[0][0].per_user == pytest.approx(r1_curves[1][0].per_user, rel=0.05)


@pytest.mark.xfail(strict=True, reason=(
    "InferenceX's curves end at 14,659 and 12,515 total tokens/s per GPU (17.8 and 21.3 "
    "tok/s/user); the model, with MTP, is 40-50 % above both at 25 tok/s/user (its wide-EP "
    "decode steps are 1.1-1.4x faster than published at the same layout and batch): "
    "docs/serving.md"))
def test_r1_each_curve_meets_inferencex_at_the_high_throughput_end(r1_curves):
    # InferenceX's tok/s/GPU is total tokens (input + output) over prefill and decode GPUs
    for curve, published in ((r1_curves[0], 14659), (r1_curves[1], 12515)):
        total = throughput_at(curve, 25) * 2  # 1k/1k: input and output tokens alike
        assert total == pytest.approx(published, rel=0.25)
