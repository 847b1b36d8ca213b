"""The per-kernel latency model of a decode step (the default `trtllm` stack profile,
rackdesigner/serving/kernels.py): every kernel of a layer takes at least the stack's floor, a
tensor-parallel group's all-reduce is the kernel its host gives it (one host: CUDA IPC with the
MoE's reduction fused; several hosts on NVLink: MNNVL plus a separate finalize kernel), and an
NVFP4 DeepSeek checkpoint keeps its attention and MTP layer in bf16. Checked against
InferenceX's per-point speeds at their own layouts (docs/serving.md, mechanisms tried)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from script_module import script_module

from rackdesigner.generators import generate
from rackdesigner.serving import serve
from rackdesigner.serving.api import speed_at
from rackdesigner.serving.instance import Config, Instance
from rackdesigner.serving.kernels import (
    IMBALANCE_EP,
    IMBALANCE_SLOTS,
    NVLINK_HOP_US,
    ONE_SHOT_MAX_BYTES,
    custom_all_reduce_s,
    hot_rank,
)
from rackdesigner.serving.links import Links
from rackdesigner.serving.shapes import served_model, token_costs
from rackdesigner.serving.stacks import resolve_stack
from rackdesigner.workload import hardware as H
from rackdesigner.workload.comm import CommModel
from rackdesigner.workload.models import resolve_model

KERNELS = "trtllm"
TEP8 = {"gpus": 8, "attention_dp": False, "pp": 1}


@pytest.fixture(scope="module")
def rack():
    return generate("nvl72")


@pytest.fixture(scope="module")
def nodes():
    return generate("superpod", system="dgx-b200", nodes=9, switch="sn5600")


def _speed(layout, batch: int, stack: str, gpus: int = 72) -> float:
    return speed_at(layout, "deepseek-r1", TEP8, batch, precision="fp4", isl=1024, osl=1024,
                    gpus=gpus, mtp=3, stack=stack)


def test_tp_group_across_hosts_is_slower_than_inside_one(rack, nodes):
    # TEP8 on a GB200 rack spans two 4-GPU compute trays: MNNVL all-reduce and the MoE's
    # finalize as a kernel of its own; on a DGX B200 it stays on one baseboard (IPC, fused).
    # Same HBM, same NVLink: the host boundary is the difference (InferenceX: 286 vs 309)
    gb200, b200 = _speed(rack, 1, KERNELS), _speed(nodes, 1, KERNELS)
    assert b200 > gb200


def test_a_higher_kernel_floor_never_speeds_a_step_up(nodes):
    comm = CommModel(nodes, CommModel.layout_gpus(nodes)[:8])
    gpu = H.gpu_compute(comm.gpu_model())
    base = resolve_stack(KERNELS)
    for cfg in (Config(8), Config(8, attn_dp=True)):
        steps = []
        for floor in (1.0, 4.0, 8.0, 16.0):
            inst = Instance(token_costs(resolve_model("deepseek-v3"), "fp4"), gpu,
                            replace(base, kernel_floor_us=floor), cfg, Links(comm, 8))
            steps.append(inst.decode_step(8 * (cfg.batch_step), 2048, 3))
        assert steps == sorted(steps) and steps[0] < steps[-1], cfg


def test_one_shot_all_reduce_goes_two_shot_above_its_workspace():
    bw = 500e9
    # a tiny message is one NVLink hop over the kernel floor
    tiny = custom_all_reduce_s(64, 8, bw, 5e-6)
    assert 5e-6 < tiny < 5e-6 + 2 * NVLINK_HOP_US * 1e-6
    # above the one-shot workspace: two hops, but each GPU moves 2 (n-1)/n of the buffer
    # instead of reading n-1 whole copies
    size = 64e6
    assert size * 8 > ONE_SHOT_MAX_BYTES
    assert custom_all_reduce_s(size, 8, bw, 0.0) == pytest.approx(
        2 * NVLINK_HOP_US * 1e-6 + 2 * size * 7 / 8 / bw)
    assert custom_all_reduce_s(1e3, 1, bw, 5e-6) == 0.0


def test_nvfp4_deepseek_checkpoint_keeps_attention_in_bf16():
    ds, llama = resolve_model("deepseek-v3"), resolve_model("llama3-70b")
    quantized = token_costs(ds, "fp4").attn_weight_bytes()
    modelopt = token_costs(ds, "fp4", bf16_attention=True).attn_weight_bytes()
    assert modelopt == pytest.approx(quantized * 2.0 / H.INPUT_BYTES["fp4"])
    # only latent-attention NVFP4 checkpoints: Llama's and FP8 ones are unchanged
    assert token_costs(llama, "fp4", bf16_attention=True).attn_weight_bytes() == \
        token_costs(llama, "fp4").attn_weight_bytes()
    assert token_costs(ds, "fp8", bf16_attention=True).attn_weight_bytes() == \
        token_costs(ds, "fp8").attn_weight_bytes()


def test_inferencex_per_point_speeds_with_the_kernel_model():
    # the 20 per-point layouts (TEP8 at 1-32 sequences, DEP4-DEP32 at 4-256 per GPU) within
    # 25 % on both systems (wide EP was 7-40 % fast before the kernel model) — the floor is
    # fitted on the calibration rows (TensorRT-LLM's batch-1 rows), so InferenceX's per-point
    # speeds check it independently (docs/serving.md)
    with script_module("serving_validation") as v:
        rows = [r for r in v.load_rows() if r.point == "speed"]
        errs = [(r.name, v.predict(r) / r.measured_per_gpu - 1.0) for r in rows]
    assert len(errs) >= 20
    assert all(abs(e) <= 0.25 for _, e in errs), [(n, round(e, 3)) for n, e in errs]


def test_b200_nodes_win_one_sequence_with_the_kernel_model(rack, nodes):
    # who wins at the most interactive end (InferenceX: B200 309 vs GB200 286 tok/s/user)
    nvl = serve(rack, "deepseek-r1", precision="fp4", isl=1024, osl=1024, mtp=3, stack=KERNELS)
    b200 = serve(nodes, "deepseek-r1", precision="fp4", isl=1024, osl=1024, gpus=72, mtp=3,
                 stack=KERNELS)
    assert b200.pareto[0].per_user > nvl.pareto[0].per_user


def test_routing_imbalance_slows_large_wide_ep_batches_as_measured(rack):
    # TensorRT-LLM tech blog 4, Table 1: DeepSeek-R1 at EP 32 with the EP load balancer (9 expert
    # slots per rank): the hottest rank receives 1.109x the mean routed tokens
    assert hot_rank(0.109, IMBALANCE_EP, IMBALANCE_SLOTS) == pytest.approx(1.109)
    # more experts per rank average the hot ones out; one rank has nobody to wait for
    assert 1.0 < hot_rank(0.109, 4, 64) < hot_rank(0.109, 8, 32) < hot_rank(0.109, 32, 8)
    assert hot_rank(0.109, 1, 256) == 1.0
    # the step waits for the hottest rank: DEP16 at 256 sequences per GPU (compute-bound
    # experts, InferenceX's max-load decode) is slower than with balanced routing, DEP32 at 4
    # per GPU (weight-bound: every local expert is read either way) hardly moves
    comm = CommModel(rack, CommModel.layout_gpus(rack))
    gpu = H.gpu_compute(comm.gpu_model())
    base = resolve_stack(KERNELS)
    costs = token_costs(resolve_model("deepseek-v3"), "fp4", bf16_attention=True)

    def step(ep: int, per_gpu: int, draft: int, imbalance: float) -> float:
        inst = Instance(costs, gpu, replace(base, expert_imbalance=imbalance),
                        Config(ep, attn_dp=True), Links(comm, ep))
        return inst.decode_step(ep * per_gpu, 1536, draft)

    assert step(16, 256, 1, 0.109) > 1.05 * step(16, 256, 1, 0.0)
    assert step(32, 4, 3, 0.109) < 1.01 * step(32, 4, 3, 0.0)


def test_only_stacks_that_document_a_two_batch_decode_overlap_run_one(rack):
    # SGLang (enable_two_batch_overlap) and vLLM (--enable-dbo) hide one micro-batch's
    # dispatch and combine behind the other's compute; TensorRT-LLM documents no such mode: the
    # same wide-EP layout at a large batch is slower on it, and equal where a step cannot split
    assert resolve_stack("trtllm").decode_overlap == "none"
    assert resolve_stack("sglang").decode_overlap == resolve_stack("vllm").decode_overlap \
        == "two_batch"
    pin = {"gpus": 16, "attention_dp": True, "pp": 1}

    def speed(stack: str, batch: int) -> float:
        return speed_at(rack, "deepseek-r1", pin, batch, precision="fp4", isl=1024, osl=1024,
                        gpus=72, mtp=1, stack=stack)

    assert speed("trtllm", 8192) < 0.95 * speed("sglang", 8192)
    assert speed("trtllm", 16) == pytest.approx(speed("sglang", 16))


def test_each_gpu_pays_for_the_token_expert_pairs_routed_to_it(nodes):
    # the stack's fitted cost per routed pair (docs/serving.md, "Stacks"): one GPU running
    # Qwen3-30B-A3B takes all 8 pairs of a token in each of its 48 MoE layers, each of
    # Qwen3-235B-A22B's eight TEP8 ranks one pair of its 8 in each of 94; a dense model none
    comm = CommModel(nodes, CommModel.layout_gpus(nodes)[:8])
    gpu = H.gpu_compute(comm.gpu_model())
    base = resolve_stack(KERNELS)
    assert base.routed_pair_ns > 0

    def added(model: str, cfg: Config) -> float:
        chunks = [Instance(token_costs(served_model(model), "fp4"), gpu,
                           replace(base, routed_pair_ns=ns), cfg, Links(comm, cfg.gpus))
                  .prefill_chunk(8192.0, 2048.0) for ns in (0.0, base.routed_pair_ns)]
        return chunks[1] - chunks[0]

    pair_s = base.routed_pair_ns * 1e-9
    assert added("qwen3-30b-a3b", Config(1)) == pytest.approx(8192 * 8 * 48 * pair_s)
    # ... on the hottest of the eight ranks (16 experts each): the step waits for it
    hot = hot_rank(base.expert_imbalance, 8, 128 // 8)
    assert hot > 1.0
    assert added("qwen3-235b-a22b", Config(8)) == pytest.approx(8192 * 1 * 94 * pair_s * hot)
    assert added("llama3.1-8b", Config(1)) == 0.0
