"""Mechanisms of the step-time model named by issue #33 (training half): each test checks the
direction or the bound the mechanism sets, not a figure copied from the output."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.workload import estimate
from rackdesigner.workload import hardware as H


@pytest.fixture(scope="module")
def b200():
    return generate("dgx-b200")


# ---- W1: FP8 --------------------------------------------------------------------------------
def test_the_output_layer_runs_in_bf16_under_fp8(b200):
    """Megatron-Core's output layer is not a Transformer Engine module: its GEMMs take as long
    in an FP8 job as in a BF16 one, while the layers' GEMMs get faster."""
    bf16 = estimate(b200, "llama3-8b", gpus=8, gbs=16, mbs=2, precision="bf16")
    fp8 = estimate(b200, "llama3-8b", gpus=8, gbs=16, mbs=2, precision="fp8")

    def times(e, per):
        return [g["time_us"] for g in e.gemms if g["per"] == per]

    assert times(fp8, "stage") == times(bf16, "stage")
    assert sum(times(fp8, "layer")) < 0.75 * sum(times(bf16, "layer"))


@pytest.mark.parametrize("system,gpu", [("dgx-b200", "b200"), ("dgx-h100", "h100-sxm5")])
def test_fp8_speeds_a_step_up_less_than_its_gemm_ceiling(system, gpu):
    """Only the GEMMs of the layers get faster in FP8 (attention, the output layer, the
    memory-bound kernels do not, and the casts are added): the step's speed-up stays above one
    and below the ratio of the two GEMM ceilings."""
    design = generate(system)
    g = H.gpu_compute(gpu)
    assert g is not None and g.fp8_tflops
    ceiling = ((g.fp8_tflops * g.gemm_efficiency("fp8"))
               / (g.bf16_tflops * g.gemm_efficiency("bf16")))
    for model, tp in (("llama3-8b", 1), ("llama3-70b", 8)):
        bf16 = estimate(design, model, gpus=8, gbs=16, mbs=1, tp=tp, precision="bf16",
                        time_if_too_big=True)
        fp8 = estimate(design, model, gpus=8, gbs=16, mbs=1, tp=tp, precision="fp8",
                       time_if_too_big=True)
        speedup = bf16.step_time_s / fp8.step_time_s
        assert 1.0 < speedup < ceiling, (model, speedup, ceiling)


def test_fp8_gemms_sustain_less_of_their_ceiling_than_bf16():
    """The FP8 share is fitted apart from the BF16 one and is the lower (issue #33 W1)."""
    assert H.GEMM_SUSTAINED_FP8 < H.GEMM_SUSTAINED <= 1.0
    g = H.gpu_compute("b200")
    assert g is not None
    assert g.gemm_efficiency("fp8") < g.gemm_efficiency("bf16")


# ---- W6: 2021-era Megatron-DeepSpeed pipelines ---------------------------------------------
def test_deepspeeds_pipeline_engine_sends_whole_activations_and_blocks():
    """DeepSpeed's pipeline engine sends the whole activation from every TP rank (no
    scatter/gather) with four blocking sends/receives per micro-batch: the same job's pipeline
    traffic costs more than under Megatron-LM's engine, and nothing else moves."""
    design = generate("superpod", system="dgx-a100", nodes=32)
    job = dict(gpus=256, tp=8, pp=8, gbs=64, mbs=1, recompute="full", sharding="none",
               time_if_too_big=True)
    megatron = estimate(design, "gpt3-175b", profile="megatron-2021", **job)
    deepspeed = estimate(design, "gpt3-175b", profile="megatron-deepspeed-2021", **job)
    assert deepspeed.breakdown["compute_s"] == pytest.approx(megatron.breakdown["compute_s"])
    assert deepspeed.breakdown["pp_p2p_s"] > 8 * megatron.breakdown["pp_p2p_s"]
    assert deepspeed.breakdown["pp_bubble_s"] > megatron.breakdown["pp_bubble_s"]
    assert deepspeed.comm["pp_send_recv"]["bytes"] == 8 * megatron.comm["pp_send_recv"]["bytes"]


# ---- W3: the MoE host wait is the dropless dispatch's sync, gone with sync-free dispatch -----
def test_sync_free_dispatch_removes_the_moe_host_wait_and_nothing_else():
    design = generate("nvl72")
    moe = dict(gpus=8, ep=8, etp=1, gbs=64, mbs=4, precision="fp8")
    synced = estimate(design, "qwen3-30b-a3b", profile="nemo-2025", **moe)
    free = estimate(design, "qwen3-30b-a3b", profile="nemo-2026", **moe)
    assert synced.breakdown["moe_dispatch_s"] > 0 and free.breakdown["moe_dispatch_s"] == 0
    assert free.breakdown["compute_s"] == pytest.approx(synced.breakdown["compute_s"])
    assert free.step_time_s < synced.step_time_s
    dense = dict(gpus=8, gbs=16, mbs=2, precision="fp8")
    assert (estimate(design, "llama3-8b", profile="nemo-2026", **dense).step_time_s
            == pytest.approx(estimate(design, "llama3-8b", profile="nemo-2025",
                                      **dense).step_time_s))


# ---- W5: dense TP 8 on GB200 under a general Megatron-Bridge recipe ---------------------------
def test_a_general_recipe_exposes_the_tp_collectives_the_performance_scripts_hide():
    """Megatron-Bridge's general recipes pass no communication-overlap config: on a TP-8 job of
    one NVL72 rack the sequence-parallel all-gathers and reduce-scatters run exposed, so the TP
    exposure and the step grow against the performance stack's, and the GEMMs are untouched."""
    design = generate("nvl72")
    job = dict(gpus=64, tp=8, pp=4, gbs=64, mbs=2)
    perf = estimate(design, "llama3-70b", profile="nemo-2025", **job)
    general = estimate(design, "llama3-70b", profile="megatron-bridge-2026", **job)
    assert general.breakdown["tp_exposed_s"] > 3 * perf.breakdown["tp_exposed_s"] > 0
    assert general.step_time_s > perf.step_time_s
    assert general.gemms == perf.gemms
    # no TP: nothing to expose, and only the unfused RoPE / cross-entropy kernels differ
    alone = dict(gpus=8, gbs=16, mbs=2)
    assert (estimate(design, "llama3-8b", profile="megatron-bridge-2026", **alone)
            .breakdown["tp_exposed_s"] == 0.0)
