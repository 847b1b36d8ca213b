"""The comparison with published training runs (benchmarks/workload_validation.py and
benchmarks/workload_runs.yaml): the runs cover several stacks, GPUs and scales, each with its
source, split into a calibration set (what the fitted constant was chosen against) and a
validation set that only checks it — and CI fails when the validation error rises."""

from __future__ import annotations

import pytest
from script_module import script_module

#: Mean absolute error of the validation set when this gate was set (docs/workload.md):
#: 10.7 % over 59 runs (was 14.0 % over 47 before the MoE, memory and pipeline-split work);
#: the bound leaves room for engine changes of under a point, no more (the issue asks 12 %).
#: Issue 33 (FP8 GEMM share, BF16 output layer, pipeline engines, sync-free MoE dispatch): the
#: same 59 runs 9.3 %; with its 33 new runs (GB300, 26.04/26.06 dense and MoE, MT-NLG) 11.9 %
#: over 92 — the 26.04.01 MoE runs (synced dispatch, between the 25.x and 26.06 levels) alone
#: add a point; the bound is now the issue's own 12 %, with little room left.
#: Merged with the collectives' fabric tuning (vendor-tuned by default: multi-node rings at the
#: level NVIDIA publishes for its reference architectures), the 92 runs read 12.1 % while every
#: run took the default; the bound was raised to 12.5 % until a run's tuning was an input.
#: Now each run states the tuning its cluster ran (benchmarks/workload_runs.yaml `tuning:`:
#: Selene's 2021-22 runs and the cloud clusters typical-defaults, NVIDIA's NeMo tables
#: vendor-tuned) and the estimate takes it: 11.99 % over the 92, the issue's 12 % again.
#: With overlapped collectives running 1.2 times their standalone time (hardware.OVERLAP_STRETCH,
#: fitted on the shape of a calibration FSDP series, issue 33 W4): 11.6 %.
#: Fourth round: 23 more NeMo rows (26.04.01 dense, 26.06 Llama 3.1 405B, 26.08 MoE), no model
#: change: 11.0 % over 130.
VALIDATION_MEAN_BOUND = 0.12
#: ... and of the calibration set (12.7 % over 31 runs: its 13 MoE runs are where the MoE
#: dispatch constant was fitted, 19.2 % mean; its 18 dense runs 8.1 %; 11.1 % over 36 now, with
#: the FSDP weak-scaling series).
CALIBRATION_MEAN_BOUND = 0.14
#: Published layouts the memory model may refuse: none. (NeMo 25.11's gpt-oss-120b on 64 H100
#: is compared at its recipe's micro-batch 1, the table's row being inconsistent: see
#: benchmarks/workload_runs.yaml and docs/workload.md.)
MAY_NOT_FIT: set[str] = set()

# the published runs are simulated once per module (about 10 s quiet): the whole gate is slow
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def validation():
    with script_module("workload_validation") as module:
        yield module


@pytest.fixture(scope="module")
def results(validation):
    return validation.evaluate(validation.load_runs())


def test_the_runs_cover_what_the_issue_asks(validation):
    runs = validation.load_runs()
    assert len(runs) >= 40
    assert {"A100", "H100"} <= {r.gpu for r in runs}
    assert {"B200", "GB200"} & {r.gpu for r in runs}
    assert {"megatron-2021", "nemo-2024", "nemo-2025", "pytorch-fsdp"} <= {r.stack for r in runs}
    assert any(r.kind == "moe" for r in runs) and any(r.kind == "dense" for r in runs)
    assert max(r.job["gpus"] for r in runs) >= 1920 and min(r.job["gpus"] for r in runs) <= 8
    for s in ("calibration", "validation"):
        assert sum(r.set == s for r in runs) >= 15, s
    # every TP-across run is compared with a TP-inside run of the same publication and model
    across = [r for r in runs if r.kind == "tp-across"]
    assert len(across) >= 2
    for run in across:
        assert run.job["tp"] > 8
        assert any(r.source == run.source and r.model == run.model and r.kind == "tp-inside"
                   for r in runs)
    for run in runs:
        assert run.source and run.measured > 0 and run.unit in ("s", "tok", "tf_eq3")
        assert run.set in ("calibration", "validation")


def test_the_validation_error_stays_within_its_bound(validation, results):
    """The CI gate: the runs no constant was fitted on stay as close as they were."""
    val = validation.summary([r for r in results if r.run.set == "validation"])
    cal = validation.summary([r for r in results if r.run.set == "calibration"])
    assert val["mean_abs"] <= VALIDATION_MEAN_BOUND, val
    assert cal["mean_abs"] <= CALIBRATION_MEAN_BOUND, cal


def test_no_published_dense_layout_is_refused_for_memory(results):
    """Teams ran these layouts: the memory model admits them (FlashAttention-consistent
    activations, the stack's gradient precision, the GPU's capacity less a stated reserve)."""
    refused = {r.run.name for r in results if not r.estimate.fits}
    assert refused <= MAY_NOT_FIT, refused


def test_the_old_stacks_are_estimated_without_a_per_run_factor(results):
    """Each stack's runs land near their measurements with the same constants: the
    small-hidden-size runs of 2021 (unfused softmax) and of FSDP on A100 included."""
    by_stack: dict[str, list[float]] = {}
    for r in results:
        if r.run.kind != "moe":
            by_stack.setdefault(r.run.stack, []).append(abs(r.error))
    for stack, errs in by_stack.items():
        # the DeepSpeed 2021 pipelines (MT-NLG, +12..+16 %) included: estimated under the
        # fabric tuning Selene ran then (typical-defaults), not the vendor-tuned default
        if len(errs) >= 3:
            assert sum(errs) / len(errs) < 0.15, (stack, errs)
        else:  # a stack held by one or two runs has no mean to speak of: each run within 25 %
            # (megatron-bridge-2026: Qwen2.5 72B TP 8 on GB200, +20 %, docs/workload.md W5)
            assert max(errs) < 0.25, (stack, errs)
    small = [r for r in results if r.run.name in ("GPT 1.7B, 32 A100", "MPT 125M, 8 A100")]
    assert len(small) == 2 and all(abs(r.error) < 0.15 for r in small)


def test_megatron_flops_follow_the_papers_own_shortcut(validation):
    """Narayanan et al.'s Eq. (3) against their Eq. (4) shortcut, 8 x parameters x tokens
    (forward, backward and the recomputed forward): within 10 % for the 162.2B model."""
    flops = validation.narayanan_flops(128, 32, 20480)
    assert abs(flops / (8 * 162.2e9 * 128 * 2048) - 1) < 0.10
    # a longer sequence costs more than in proportion (the attention term)
    assert validation.narayanan_flops(128, 32, 20480, seq=4096) > 2 * flops


@pytest.mark.parametrize("precision,name", [("bf16", "GEMM_SUSTAINED"),
                                            ("fp8", "GEMM_SUSTAINED_FP8")])
def test_the_shipped_gemm_shares_are_what_the_calibration_runs_fit(precision, name, monkeypatch,
                                                                   capsys):
    """Issue 33: each precision's GEMM share is the calibration set's least-error value (a grid
    of the shipped value and its neighbours 0.02 apart); the validation runs play no part."""
    from rackdesigner.workload import compute
    from rackdesigner.workload import hardware as H

    shipped = getattr(H, name)
    monkeypatch.setattr(H, name, shipped)  # restored whatever the scan leaves
    with script_module("workload_calibrate") as calibrate:
        best = calibrate.fit_gemm(calibrate.load_runs(), {},  # fits on the calibration ones
                                  [round(shipped + d, 2) for d in (-0.02, 0, 0.02)], precision)
    compute.layer_times.cache_clear()
    capsys.readouterr()
    assert best == pytest.approx(shipped)


def test_fsdp_gathers_become_exposed_at_scale_as_the_published_series_shows(validation,
                                                                             results):
    """Issue 33, W4: Llama 3 70B with FSDP on 64 to 592 B200 (weak scaling) slows by 21 %
    measured; the estimate follows that shape within 3 % at every size (it was flat within 4 %
    when overlap hid every gather), and no run of the series is faster than a smaller one."""
    ratios = validation.series_ratios(results)
    assert len(ratios) >= 4
    for name, measured, estimated in ratios:
        assert estimated == pytest.approx(measured, rel=0.03), name
    series = sorted((r for r in results if r.run.kind == "fsdp-scaling"),
                    key=lambda r: r.run.job["gpus"])
    steps = [r.predicted for r in series]
    assert steps == sorted(steps) and steps[-1] > 1.15 * steps[0]


def test_the_shipped_overlap_stretch_is_what_the_calibration_series_fits(monkeypatch, capsys):
    """OVERLAP_STRETCH is the least-error value on the calibration FSDP series' shape (a grid of
    the shipped value and its neighbours 0.05 apart); no validation run plays a part."""
    from rackdesigner.workload import compute
    from rackdesigner.workload import hardware as H

    shipped = H.OVERLAP_STRETCH
    monkeypatch.setattr(H, "OVERLAP_STRETCH", shipped)  # restored whatever the scan leaves
    with script_module("workload_calibrate") as calibrate:
        best = calibrate.fit_overlap(calibrate.load_runs(), {},
                                     [round(shipped + d, 2) for d in (-0.05, 0, 0.05)])
    compute.layer_times.cache_clear()
    capsys.readouterr()
    assert best == pytest.approx(shipped)


def test_the_moe_host_wait_is_what_the_sync_free_recipes_removed():
    """Issue 33 W3 (docs/workload.md; benchmarks/workload_moe_residuals.py): with the host
    dispatch wait at zero, the sync-free stack's MoE runs on NVL72 racks leave under a
    millisecond per MoE layer and micro-batch — gpt-oss excepted, whose miss (its attention) is
    not dispatch — while every Qwen3 run of the synced 25.x stack leaves more."""
    with script_module("workload_moe_residuals") as residuals:
        rows = residuals.rows(None)
    free = [r for r in rows if r["stack"] == "nemo-2026" and "H100" not in r["run"]]
    assert len(free) >= 16
    for r in free:
        if r["run"].startswith("gpt-oss"):
            assert r["ms_per_layer_mb"] > 3.0, r
        else:
            assert abs(r["ms_per_layer_mb"]) < 1.0, r
    synced = [r for r in rows if r["stack"] == "nemo-2025" and r["run"].startswith("Qwen3")]
    assert len(synced) >= 10 and min(r["ms_per_layer_mb"] for r in synced) > 0.5
