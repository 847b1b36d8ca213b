"""The compute model follows the shape of each GEMM: whole waves of tiles run at the ceiling
efficiency, a partial wave costs a whole one, thin GEMMs are bound by HBM, and so sharding a
model over more GPUs makes each of them slower per FLOP."""

from __future__ import annotations

import json

import pytest

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.workload import estimate, resolve_model
from rackdesigner.workload import gemm as G
from rackdesigner.workload import hardware as H
from rackdesigner.workload.costs import layer_costs, layer_gemms, logits_gemm
from rackdesigner.workload.job import Job


def _device(gpu_id: str = "h100-sxm5") -> G.Device:
    gpu = H.gpu_compute(gpu_id)
    return G.Device(gpu.sms, gpu.bf16_tflops * 1e12 * H.GEMM_EFFICIENCY,
                    gpu.hbm_TBps * 1e12 * H.HBM_EFFICIENCY, 2.0)


def test_every_bundled_gpu_has_its_sm_count_with_a_source():
    for gpu in H.gpu_table().values():
        # a wave of tiles is one per SM; the H20, an export part of GH100, has 78
        assert 60 <= gpu.sms <= 200, gpu.model
        assert "SM" in gpu.source
    assert H.gpu_compute("a100-sxm4").sms < H.gpu_compute("h100-sxm5").sms


def test_whole_waves_of_whole_tiles_run_at_the_ceiling_efficiency():
    dev = _device()
    rows, cols = G.TILE
    # 12 x 11 = 132 tiles: exactly one wave on the 132 SMs of an H100, three waves when x3
    for m, n in ((12 * rows, 11 * cols), (36 * rows, 11 * cols)):
        g = G.Gemm("full", m, n, 8192)
        assert G.gemm_time_s(g, dev) == pytest.approx(g.flops / dev.flops_per_s, rel=1e-9)


def test_one_tile_more_than_a_full_wave_costs_nearly_two_waves():
    dev = _device()
    rows, cols = G.TILE
    full = G.Gemm("wave", 12 * rows, 11 * cols, 8192)  # 132 tiles: one wave
    over = G.Gemm("wave+1", 7 * rows, 19 * cols, 8192)  # 133 tiles: one more
    assert over.flops / full.flops < 1.01
    assert G.gemm_time_s(over, dev) > 1.9 * G.gemm_time_s(full, dev)


def test_a_thin_gemm_is_bound_by_the_traffic_of_its_operands():
    dev = _device()
    g = G.Gemm("thin", 8192, 8192, 32)  # 32-deep: writes 64k x 1k outputs for little math
    bytes_moved = (8192 * 32 * 2 + 32 * 8192 * 2 + 8192 * 8192 * 2)
    t = G.gemm_time_s(g, dev)
    assert t == pytest.approx(bytes_moved / dev.bytes_per_s, rel=1e-9)
    assert t > 5 * g.flops / dev.flops_per_s


@pytest.mark.parametrize("model_id", ["llama3-70b", "gpt3-175b", "deepseek-v3",
                                      "mixtral-8x7b"])
def test_the_gemm_shapes_account_for_the_flop_convention(model_id):
    """Dense, grouped-query, latent-attention and expert layers: the GEMMs the time comes from
    carry exactly the FLOPs MFU is counted with (docs/workload.md)."""
    model = resolve_model(model_id)
    e = model.moe.experts if model.moe else 1
    job = Job(tp=2, cp=2, ep=min(e, 8), gbs=1024).resolved(512, model)
    assert sum(g.flops for g in layer_gemms(model, job)) == pytest.approx(
        layer_costs(model, job).gemm, rel=1e-12)
    assert logits_gemm(model, job).flops == pytest.approx(layer_costs(model, job).logits,
                                                          rel=1e-12)


def test_sharding_a_model_over_more_tensor_parallel_gpus_makes_each_slower_per_flop():
    """Llama 3 8B on one DGX H100 (TP inside the NVLink domain): the same work cut into
    narrower GEMMs runs at a lower share of peak, so the GPU-time of compute grows with TP."""
    node = generate("dgx-h100")
    runs = {tp: estimate(node, "llama3-8b", tp=tp, gbs=64, seq=4096, sharding="full")
            for tp in (1, 2, 4, 8)}
    eff = [runs[tp].hardware["gemm_efficiency"] for tp in (1, 2, 4, 8)]
    compute = [runs[tp].breakdown["compute_s"] for tp in (1, 2, 4, 8)]
    assert eff == sorted(eff, reverse=True) and eff[0] > eff[-1] + 0.03
    assert compute == sorted(compute) and compute[-1] > 1.03 * compute[0]
    assert all(e <= H.GEMM_EFFICIENCY + 1e-9 for e in eff)
    per_gpu = [runs[tp].tokens_per_s / runs[tp].gpus for tp in (1, 2, 4, 8)]
    assert per_gpu == sorted(per_gpu, reverse=True)


def test_a_small_hidden_size_runs_its_gemms_further_below_the_ceiling():
    """The same 8-GPU TP layout, hidden 8,192 (Llama 3 70B) vs 4,096 (Llama 3 8B): the smaller
    model's sharded GEMMs leave more of the last wave empty."""
    node = generate("dgx-h100")
    small = estimate(node, "llama3-8b", tp=8, gbs=8, seq=2048)
    big = estimate(node, "llama3-70b", tp=8, gbs=8, seq=2048, time_if_too_big=True)
    assert small.hardware["gemm_efficiency"] < big.hardware["gemm_efficiency"]


def test_attention_blocks_that_do_not_fill_a_wave_waste_the_rest():
    full = G.attention_wave_efficiency(2, 33, 2048, 132)  # 2 x 33 x 16 = 1,056 = 8 waves
    assert full == pytest.approx(1.0)
    one_head = G.attention_wave_efficiency(1, 1, 2048, 108)  # 16 blocks on 108 SMs
    assert one_head == pytest.approx(16 / 108)


def test_the_report_names_the_gemms_furthest_below_the_ceiling_and_why(tmp_path, capsys):
    path = tmp_path / "node.yaml"
    save_layout(generate("dgx-h100"), path)
    args = ["estimate", str(path), "--model", "llama3-8b", "--tp", "8", "--gbs", "64"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "furthest below it" in text and "waves, run as" in text
    assert main([*args, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    gemms = {g["gemm"]: g for g in d["gemms"]}
    assert {"qkv", "qkv.dgrad", "qkv.wgrad", "logits"} <= set(gemms)
    assert all(0 < g["of_ceiling"] <= 1.0 and g["bound"] in ("math", "hbm")
               for g in d["gemms"])
    # TP 8 leaves the projection's weight gradient (512 x 4,096 outputs) half a wave of tiles
    assert gemms["proj.wgrad"]["waves"] == 1 and gemms["proj.wgrad"]["of_ceiling"] < 0.6
    assert d["gemm_efficiency"] < 0.8
