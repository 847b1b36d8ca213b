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
#: and MoE models at 17-43 %. Round 4 (2026-12-02): the per-kernel decode model became the
#: default, its floor fitted on the 4 batch-1 rows, which moved to calibration: 134 gated rows,
#: 82.8 % within 25 %, mean 15.2 %; then (serve6) the Qwen3-235B rows pinned to the table's TP8
#: and trtllm-bench's 4096-sequence cap: 84.3 % and 14.9 %; then (serve8) a fitted GPU cost per
#: routed token-expert pair, with the host per-sequence constant refitted: 87.3 % and 13.1 %
#: (every validation row: 82.3 % and 17.5 %); round 5 merged (serve7's routing imbalance,
#: serve10's refit of the pair cost around it): 86.6 % and 13.2 %, every validation row 83.4 %
#: and 16.5 %. The gate sits a few rows below so that a merge moving training's GEMM constants
#: by a hair does not fail it; a real regression does.
WITHIN_25_BOUND = 0.84
#: The kinds of published point the gate covers: saturation throughput and the speed of one
#: sequence. Curve points in between (InferenceX at 125 tok/s/user) are reported, not gated.
GATED_POINTS = ("max_load", "min_latency")
VALIDATION_MEAN_BOUND = 0.15
#: Every validation row, curve points included (InferenceX's iso-interactivity and per-point
#: rows): issue 32's own bar, >= 80 % within 25 % and a mean |error| <= 20 %.
ALL_WITHIN_25_BOUND, ALL_MEAN_BOUND = 0.80, 0.20
CALIBRATION_MEAN_BOUND = 0.16  # 10.9 % over 19 rows since serve10 (12.8 % before the pair cost)


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
    # the max-load rows at 1k/1k, and TensorRT-LLM's batch-1 rows that set the kernel floor
    assert cal and all((r.isl, r.osl) == (1000, 1000) or r.point == "min_latency" for r in cal)
    assert {r.source for r in cal if r.point == "min_latency"} == {"trtllm-blog1"}
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
    every = validation.summary([x for x in results if x[0].set == "validation"])
    assert every["within_25"] >= ALL_WITHIN_25_BOUND, every
    assert every["mean_abs_error"] <= ALL_MEAN_BOUND, every
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


def _served(validation, row):
    return serve(validation.design(row.system), row.model, precision=row.precision,
                 isl=row.isl, osl=row.osl, gpus=row.gpus, mode=row.mode, stack=row.engine,
                 pin=row.config)


def test_a_vendor_table_runs_the_layout_its_header_names(validation):
    # NVIDIA's table names TP (and PP where used) per column: a multi-GPU row pins its pipeline
    # depth, or the model would search layouts the table did not run — the Qwen3-235B rows ran
    # as TEP2xPP4 / TEP4xPP2 until round 4, 37-64 % slow on decode-heavy shapes and 45-69 %
    # fast on prefill-heavy ones; as the header's TP8 that signature is gone (docs/serving.md)
    rows = [r for r in validation.load_rows() if r.source == "trtllm-perf" and r.gpus > 1]
    assert rows and all(r.config.get("pp") == 1 for r in rows), [
        r.name for r in rows if r.config.get("pp") != 1]
    row = next(r for r in rows if r.model == "qwen3-235b-a22b" and (r.isl, r.osl) == (2048, 128))
    curve = _served(validation, row)
    assert curve.max_load.config["label"] == "TEP8"


def test_saturation_runs_as_many_sequences_as_trtllm_bench_allows(validation):
    # trtllm-bench sizes max_batch_size from the KV cache, capped at 4096 (bench/build/
    # tuning.py), not the LLM API's 2048: Qwen3-235B on 8 B200 at 128/128 holds far more
    # than 4096 sequences in its KV cache, so the saturation point runs 4096
    row = next(r for r in validation.load_rows()
               if r.model == "qwen3-235b-a22b" and r.system == "dgx-b200"
               and (r.isl, r.osl) == (128, 128))
    curve = _served(validation, row)
    assert curve.max_load.concurrency == 4096


def _speed_rows(results, attention_dp: bool):
    return [(r, e) for r, _, e in results
            if r.point == "speed" and r.config["attention_dp"] is attention_dp]


def test_small_tep8_decode_matches_inferencex_per_point(results):
    # InferenceX's own layout, batch and MTP depth (benchmarks/serving_runs.yaml, point speed):
    # TEP8 inside one node's NVLink at 1-9 sequences, on both systems, within 25 % of the
    # published tok/s/user (8-22 % slow: the kernel floor is fitted on TensorRT-LLM's own
    # batch-1 rows of February 2025, which InferenceX's 2026 runs beat by 13-22 % on the same
    # layout) — the step the curve's most interactive end is made of
    rows = [(r, e) for r, e in _speed_rows(results, False) if r.batch <= 9]
    assert {r.system for r, _ in rows} == {"nvl72", "dgx-b200-x9-roce"} and len(rows) >= 8
    assert all(abs(e) < 0.25 for _, e in rows), [(r.name, round(e, 3)) for r, e in rows]


def test_wide_ep_decode_matches_inferencex_per_point(results):
    # InferenceX's wide-EP layouts (DEP4-DEP32, attention DP) at their batches and MTP depths:
    # within 25 % once every DP rank reads the checkpoint's bf16 attention unsplit and each
    # kernel takes its floor (they were 7-40 % fast without: docs/serving.md, round 4)
    rows = _speed_rows(results, True)
    assert len(rows) >= 8
    assert all(abs(e) <= 0.25 for _, e in rows), [(r.name, round(e, 3)) for r, e in rows]


def test_inferencex_iso_table_is_its_dashboard_interpolating_its_deployments(validation,
                                                                           results):
    # the mechanism behind the curve's middle (docs/serving.md): the blog's iso-interactivity
    # figures come back from its nine / eleven deployments' published tok/s/user and tok/s/GPU
    # by the dashboard's monotone cubic interpolation (+0.6 to +27 %), so the rack's 4,130 at
    # 125 tok/s/user is a chord across DEP32 at 4 -> 64 sequences per GPU, which no run measured
    curve = validation.recipe_curve(results)
    assert len(curve) == 27
    from_published = [(r, pub) for r, pub, _ in curve]
    assert all(pub is not None and abs(pub / r.measured_per_gpu - 1.0) < 0.30
               for r, pub in from_published), [(r.name, pub) for r, pub in from_published]
    # ...and the model prices each of those deployments' tok/s/GPU within 30 % (its speed at the
    # layout, batch and depth, times the decode slots, over prefill + decode GPUs)
    deployments = validation.recipe_points(results, "nvl72", True)
    assert any(u < 170 for u, _ in deployments) and any(u > 200 for u, _ in deployments)
    for row, pred, _ in results:
        if row.point == "speed":
            gpus = row.instances * row.config["gpus"] + row.prefill_gpus
            model = row.instances * row.batch * pred * 2 / gpus
            assert model == pytest.approx(row.tput, rel=0.30), row.name


def test_monotone_interpolation_stays_between_its_points(validation):
    pts = [(17.8, 14659.4), (43.3, 12659.7), (91.0, 7698.0), (164.4, 1149.1), (207.3, 363.3)]
    assert validation.monotone_at(pts, 91.0) == pytest.approx(7698.0)
    for x in range(18, 207, 7):
        y = validation.monotone_at(pts, float(x))
        lo, hi = max(p for p in pts if p[0] <= x), min(p for p in pts if p[0] >= x)
        assert hi[1] <= y <= lo[1], x  # a falling curve: between its neighbours, no overshoot
    assert validation.monotone_at(pts, 300.0) is None


#: the one dense row past the guard's 35 % (docs/serving.md, "Where not to trust it"): held to
#: the bound by the strict xfail below, not by a looser bound here
DENSE_MISS = "Llama 3.1 405B B200 FP4 1000/2000"


def test_dense_models_are_close_everywhere(results):
    dense = [(r.name, e) for r, _, e in results if r.model.startswith("llama")]
    assert sum(abs(e) for _, e in dense) / len(dense) < 0.12
    others = [(n, e) for n, e in dense if n != DENSE_MISS]
    assert len(others) == len(dense) - 1
    assert max(abs(e) for _, e in others) < 0.35, max(others, key=lambda ne: abs(ne[1]))


@pytest.mark.xfail(strict=True, reason=(
    "+38.0 % (1,702 against 1,233 tok/s/GPU; +38.6 % at serve8's constants, +27 % before "
    "round 5): the host's per-sequence time, 1.875 us as the calibration rows fit it since "
    "serve10 (15 until round 5), no longer stands for part of the step; the table has "
    "1000/2000 below 1000/1000 (a 3,000-token sequence leaves the KV cache fewer sequences), "
    "the model runs both at 512 sequences: docs/serving.md, Where not to trust it"))
def test_dense_405b_on_b200_at_1000_2000_is_inside_the_dense_bound(results):
    [e] = [e for r, _, e in results if r.name == DENSE_MISS]
    assert abs(e) < 0.35


QWEN_235B_MISS = "Qwen3-235B-A22B B200 FP4 500/2000"


def test_moe_models_on_one_gpu_and_on_tep8_are_both_in_the_band(results):
    # one set of constants for both Qwen3 MoE models of TensorRT-LLM's table (docs/serving.md):
    # Qwen3-235B's TEP8 decode at thousands of sequences (-30 to -51 % on B200's decode-heavy
    # shapes while 15 us of host time per sequence stood for what the pairs cost) and
    # Qwen3-30B's prefill on one GPU (+54 / +44 / +19 % at 2048/128, 5000/500, 20000/2000):
    # each GPU pays for the token-expert pairs routed to it, eight per token on the 30B's one
    # GPU, one per token on each of the 235B's eight
    def rows(model: str, regime: str, but: str = "") -> list[float]:
        return [e for r, _, e in results if r.model == model and r.regime == regime
                and r.set == "validation" and r.name.split()[-3] == "B200" and r.name != but]
    # 500/2000 is held by its own strict xfail below (serve10's refit: -26 %)
    decode_heavy = rows("qwen3-235b-a22b", "decode-heavy", but=QWEN_235B_MISS)
    assert len(decode_heavy) == 2 and all(abs(e) <= 0.25 for e in decode_heavy), decode_heavy
    prefill_heavy = rows("qwen3-30b-a3b", "prefill-heavy")
    assert len(prefill_heavy) == 3 and all(abs(e) < 0.35 for e in prefill_heavy), prefill_heavy
    for model in ("qwen3-235b-a22b", "qwen3-30b-a3b"):
        errs = [abs(e) for r, _, e in results if r.model == model and r.set == "validation"]
        assert sum(errs) / len(errs) < 0.25, model


@pytest.mark.xfail(strict=True, reason=(
    "-26.3 % (5,264 against 7,140 tok/s/GPU; -24.8 % at serve8's constants): serve10's refit "
    "moves the host's per-sequence time from 1.25 to 1.875 us, which TEP8's decode at "
    "thousands of sequences pays on every iteration: docs/serving.md, serve10 refit"))
def test_qwen3_235b_on_b200_at_500_2000_is_in_the_band(results):
    [e] = [e for r, _, e in results if r.name == QWEN_235B_MISS]
    assert abs(e) <= 0.25


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


@pytest.mark.xfail(strict=True, reason=(
    "published 4.39x at 125 tok/s/user is InferenceX's dashboard interpolating between two of "
    "its recipes (DEP32 at 4 sequences per GPU with 3 draft tokens, 164 tok/s/user, and at 64 "
    "with 1, 91); the model, with every one of those recipes' speeds within 25 %, searches the "
    "batches between them (DEP32 at 16-64 per GPU with 3 draft tokens), at the speeds those two "
    "published steps imply (test below), and puts the rack 8.0x ahead; the published steps "
    "themselves allow ~8.0x (benchmarks/serving_middle.py): docs/serving.md, round 5"))
def test_r1_ratio_at_the_published_middle_point(r1_curves):
    # the band at the middle, at the published point itself (not the model's peak)
    assert 4.39 * 0.75 <= _ratio(r1_curves, 125) <= 4.39 * 1.25


@pytest.mark.xfail(strict=True, reason=(
    "published peak 4.39x (125 tok/s/user), 3.30x at 150 and 1.93x at 175, interpolated "
    "between InferenceX's recipes; the model's rack runs the batches between them (DEP32-64 at "
    "8-64 sequences per GPU with 3 draft tokens; the published DEP32 steps allow ~6.5x at 150 "
    "on their own) and its B200 nodes fall 21-23 % under InferenceX's at 150-175 (TEP8 slow), "
    "so the ratio reaches ~11x at 150: docs/serving.md"))
def test_r1_middle_peak_is_not_overshot(r1_curves):
    assert max(_ratio(r1_curves, x) for x in range(75, 176, 5)) <= 4.39 * 1.25


@pytest.fixture(scope="module")
def middle():
    with script_module("serving_middle") as module:
        yield module


def test_r1_rack_middle_batches_run_at_the_published_dep32_steps(middle):
    # InferenceX's DEP32 steps (17.2 ms at 16 tokens per GPU, 21.1 ms at 128) imply the speed
    # of the batches its recipes skipped (8-32 sequences per GPU with 3 draft tokens: 32-128
    # tokens, between the two); the model's speeds of those layouts are within 10 % of them:
    # its middle is not a cost it forgets but batches InferenceX did not run (64 per GPU, 256
    # tokens, lies beyond the published steps: reported, not asserted)
    inside = [e for e in middle.envelope() if e["tokens"] <= 128]
    assert len(inside) == 3
    for e in inside:
        assert e["model_speed"] == pytest.approx(e["speed"], rel=0.10), e


def test_r1_rack_middle_is_what_the_published_steps_allow(middle, r1_curves):
    # the rack's curve at 100, 125 and 150 tok/s/user (total tokens, as InferenceX counts)
    # within 25 % of what the published points plus those batches give — above InferenceX's
    # table, which interpolates across the recipe gap (6,781, 4,130 and 1,922)
    points = middle.middle()
    assert [m["x"] for m in points] == [100, 125, 150]
    for m in points:
        assert m["allowed"] > 1.3 * m["table_rack"]
    for m in points[:2]:  # 150: its own strict xfail below
        model = 2.0 * throughput_at(r1_curves[0], m["x"])  # 1k/1k: input + output
        assert model == pytest.approx(m["allowed"], rel=0.25), m


@pytest.mark.xfail(strict=True, reason=(
    "5,020 total tok/s/GPU against the 3,772 the published DEP32 steps allow (+33 %; 5,044 at "
    "serve8's constants, failing since the merge, 8441fb0): the rack's curve at 150 lies "
    "between DEP32 at 16 sequences per GPU with 3 draft tokens (157 tok/s/user, 2,012 output "
    "tok/s/GPU) and at 32 with 2 (142, 3,295), a step no published recipe has: "
    "docs/serving.md, serve10 refit"))
def test_r1_rack_at_150_is_what_the_published_steps_allow(middle, r1_curves):
    [m] = [m for m in middle.middle() if m["x"] == 150]
    assert 2.0 * throughput_at(r1_curves[0], 150) == pytest.approx(m["allowed"], rel=0.25), m


def test_r1_wide_ep_exchange_is_not_cheaper_than_tensorrt_llm_kernels(middle):
    # the model's dispatch + combine on the drawn NVL72 against TensorRT-LLM's published
    # NVLinkOneSided latencies (tech blog 18, EP 8-64, 1-2048 tokens per rank): never more than
    # 10 % faster, up to 45 % slower at small batches — the rack's fast middle is not a cheap
    # all-to-all
    ratios = [model / pub for _, model, pub in middle.alltoall_compare()]
    assert len(ratios) == 48
    assert min(ratios) >= 0.9 and max(ratios) <= 1.5


def _top(curves) -> float:
    """The most interactive end both curves reach (a little inside it: the last point of each
    curve is one batch-1 configuration)."""
    return 0.85 * min(curves[0][0].per_user, curves[1][0].per_user)


@pytest.mark.xfail(strict=True, reason=(
    "published: even at ~225 and B200 ahead by ~1.2x above ~250 tok/s/user; the model has "
    "the two even at 250 (0.96x) but the rack 2.1x ahead at ~220 (TEP32 at 16 sequences with "
    "3 draft tokens, a layout no published run has; a 2026 kernel floor for the B200 nodes' "
    "slow TEP8 widens the gap, 2.4x at 225, since it speeds TEP32 more; MNNVL all-reduce and "
    "4-head MLA checked, neither slows it): docs/serving.md, the most interactive end"))
def test_r1_lead_is_gone_at_the_most_interactive_end(r1_curves):
    # small batches fit in one node's NVLink on both: nothing left for the rack to win
    assert _ratio(r1_curves, _top(r1_curves)) <= 1.2


@pytest.mark.xfail(strict=True, reason="published: B200 ahead by ~1.2x above ~250 tok/s/user; "
                   "the model's B200 nodes do win one sequence (270 vs 259 tok/s/user, "
                   "published 309 vs 286) and are ahead at 250 (0.96x), but at 0.85 of the "
                   "curves' ends (~220) the rack's TEP32 at 16 sequences, a layout no "
                   "published run has, keeps it 2.1x ahead: docs/serving.md, the most "
                   "interactive end")
def test_r1_b200_ahead_at_the_most_interactive_end(r1_curves):
    assert _ratio(r1_curves, _top(r1_curves)) < 1.0


def test_r1_batch_one_is_even_on_both_systems(r1_curves):
    # one sequence per instance: TEP8 inside 8 GPUs of NVLink on both systems, within 5 % of
    # each other (InferenceX: 286 and 309 tok/s/user with MTP3, the B200 slightly ahead)
    assert r1_curves[0][0].per_user == pytest.approx(r1_curves[1][0].per_user, rel=0.05)


def test_r1_each_curve_meets_inferencex_at_the_high_throughput_end(r1_curves):
    # InferenceX's tok/s/GPU is total tokens (input + output) over prefill and decode GPUs;
    # its curves end at 14,659 and 12,515 (17.8 and 21.3 tok/s/user)
    for curve, published in ((r1_curves[0], 14659), (r1_curves[1], 12515)):
        total = throughput_at(curve, 25) * 2  # 1k/1k: input and output tokens alike
        assert total == pytest.approx(published, rel=0.25)
