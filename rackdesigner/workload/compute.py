"""Compute time of one layer and of the output layer, for one micro-batch on one GPU.

Three kinds of work, each priced by what bounds it:

- **GEMMs** by their shapes (`gemm.py`: tile and wave quantization at the GPU's measured GEMM
  ceiling, never faster than their operands' HBM traffic); backward as the input- and
  weight-gradient GEMMs;
- **attention**: with a fused kernel (the profile's `attention: flash`) the causal work it does
  — blocks above the diagonal skipped, a sliding window's keys only — at the profile's share of
  the BF16 peak times the share of a wave its thread blocks fill, backward 2.5 x the forward
  FLOPs (FlashAttention recomputes the scores); unfused, QK^T and AV as batched GEMMs by their
  shapes (the s x s scores are their output and input) plus the softmax and dropout kernels by
  their bytes over the scores;
- **memory-bound kernels** (norms, residual adds, dropout, activation, RoPE, FP8 casts, MoE
  permutation; cross-entropy on the output layer) by the HBM bytes per element the profile
  gives, at `hardware.HBM_EFFICIENCY` of the bandwidth, plus the profile's gap for every kernel
  launched (GEMMs and attention kernels included).

Everything here depends only on the layer's shapes (model, TP, CP, EP, micro-batch, sequence,
precision), the GPU and the profile, so it is cached across a search.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from rackdesigner.workload import gemm as G
from rackdesigner.workload import hardware as H
from rackdesigner.workload.costs import layer_gemms, logits_gemm, moe_share
from rackdesigner.workload.job import Job
from rackdesigner.workload.models import ModelSpec
from rackdesigner.workload.profile import Profile

#: The output layer (logits) runs in BF16 in FP8 training: Megatron-Core's output layer is a
#: tensor_parallel.ColumnParallelLinear, not a Transformer Engine module, so TE's fp8_autocast
#: does not reach it (megatron/core/models/gpt/gpt_model.py); torchtitan's float8 converter
#: leaves the `output` module out by default (torchtitan docs/float8.md, filter_fqns). Its GEMMs
#: are priced at the BF16 ceiling whatever the job's precision.
OUTPUT_LAYER = "bf16"
#: FlashAttention counts its backward pass as 2.5 x the forward FLOPs (it recomputes the
#: scores: five matmuls against two; the FlashAttention-2/3 benchmarks report it so).
FLASH_BACKWARD_FLOPS = 2.5


@dataclass(frozen=True, slots=True)
class LayerTimes:
    """Seconds of one average layer (or of the output layer), one micro-batch, one GPU."""

    gemm_f: float
    gemm_b: float
    attn_f: float  # attention core (fused kernel, or unfused GEMMs + softmax + dropout)
    attn_b: float
    elem_f: float  # memory-bound kernels
    elem_b: float
    gap_f: float  # kernel launch gaps
    gap_b: float
    flops: float  # GEMM FLOPs, forward + backward (for the achieved GEMM efficiency)

    @property
    def forward(self) -> float:
        return self.gemm_f + self.attn_f + self.elem_f + self.gap_f

    @property
    def backward(self) -> float:
        return self.gemm_b + self.attn_b + self.elem_b + self.gap_b

    @property
    def gemm(self) -> float:
        return self.gemm_f + self.gemm_b


def device(gpu: H.GpuCompute, precision: str) -> G.Device:
    peak = gpu.peak_tflops(precision) or gpu.bf16_tflops
    low = H.is_low(precision) and gpu.peak_tflops(precision)
    return G.Device(gpu.sms, peak * 1e12 * gpu.gemm_efficiency(precision),
                    gpu.hbm_TBps * 1e12 * H.HBM_EFFICIENCY,
                    H.INPUT_BYTES[precision] if low else 2.0)


@lru_cache(maxsize=4096)
def layer_times(model: ModelSpec, shape: Job, gpu: H.GpuCompute, profile: Profile
                ) -> tuple[LayerTimes, LayerTimes]:
    """(average layer, output layer) for `shape`'s degrees, micro-batch, sequence and
    precision."""
    dev = device(gpu, shape.precision)
    gemms = _with_streams(layer_gemms(model, shape), profile)
    gemm_f, gemm_b = G.forward_s(gemms, dev), G.backward_s(gemms, dev)
    flops = 3.0 * sum(g.flops for g in gemms)
    attn_f, attn_b, attn_k = _attention(model, shape, gpu, profile)
    elem_f, elem_b, kern_f, kern_b = _memory_bound(model, shape, gemms, profile)
    n_gemm = sum(g.kernels for g in gemms)
    gap = profile.kernel_gap_us * 1e-6
    hbm = gpu.hbm_TBps * 1e12 * H.HBM_EFFICIENCY
    layer = LayerTimes(gemm_f, gemm_b, attn_f, attn_b, elem_f / hbm, elem_b / hbm,
                       gap * (n_gemm + attn_k[0] + kern_f), gap * (2 * n_gemm + attn_k[1] + kern_b),
                       flops)
    logits = logits_gemm(model, shape)
    ce = profile.op("cross_entropy")
    elems = logits.m * logits.n
    out_dev = device(gpu, OUTPUT_LAYER)  # BF16 in FP8 training too
    out = LayerTimes(G.gemm_time_s(logits, out_dev),
                     G.backward_s((logits,), out_dev), 0.0, 0.0, elems * ce.bytes_fwd / hbm,
                     elems * ce.bytes_bwd / hbm, gap * (1 + ce.kernels_fwd),
                     gap * (2 + ce.kernels_bwd), 3.0 * logits.flops)
    return layer, out


def module_recompute_s(model: ModelSpec, shape: Job, gpu: H.GpuCompute, profile: Profile,
                       modules: tuple[str, ...]) -> float:
    """Seconds of one average layer's recomputed forward of Megatron-Core's output-discarding
    `recompute_modules` (costs.recomputed_module_units frees their outputs): the MoE layers'
    pre-MLP norm (`layernorm`) and the experts' activation (`moe_act`), priced as
    `_memory_bound` prices their forward (the profile's bytes per element and kernels)."""
    if model.moe is None:
        return 0.0
    hbm = gpu.hbm_TBps * 1e12 * H.HBM_EFFICIENCY
    gap = profile.kernel_gap_us * 1e-6
    share = moe_share(model)
    seconds = 0.0
    if "layernorm" in modules:
        tokens = shape.mbs * shape.seq_len / shape.cp
        local = tokens / shape.tp if shape.sp else tokens
        c = profile.op("norm")
        seconds += share * (local * model.hidden * c.bytes_fwd / hbm + c.kernels_fwd * gap)
    if "moe_act" in modules:
        up = 2 if model.ffn == "swiglu" else 1
        fc1 = [g for g in layer_gemms(model, shape) if g.name == "experts.fc1"]
        c = profile.op("swiglu" if model.ffn == "swiglu" else "gelu")
        seconds += sum(g.m * g.n / up * g.groups * g.count for g in fc1) * c.bytes_fwd / hbm
        seconds += sum(g.count for g in fc1) * c.kernels_fwd * gap
    return seconds


def _with_streams(gemms: tuple[G.Gemm, ...], profile: Profile) -> tuple[G.Gemm, ...]:
    """The local experts' GEMMs as the stack runs them (profile `moe.grouped_gemm_streams`)."""
    if not profile.moe_streams:
        return gemms
    return tuple(replace(g, streams=profile.moe_streams) if g.name.startswith("experts.") else g
                 for g in gemms)


@lru_cache(maxsize=1024)
def gemm_profiles(model: ModelSpec, job: Job, gpu: H.GpuCompute,
                  profile: Profile | None = None) -> tuple[dict, ...]:
    """Every GEMM of one average layer (`per: layer`; forward, input and weight gradient) and of
    the output layer (`per: stage`, on the last pipeline stage) for one micro-batch on one GPU:
    shape, tiles, waves, bound and share of the ceiling (`gemm.profile`)."""
    dev = device(gpu, job.precision)
    gemms = layer_gemms(model, job) if profile is None else _with_streams(
        layer_gemms(model, job), profile)
    out_dev = device(gpu, OUTPUT_LAYER)
    return tuple([{**p, "per": "layer"} for p in G.profiles(gemms, dev)]
                 + [{**p, "per": "stage"} for p in G.profiles((logits_gemm(model, job),),
                                                              out_dev)])


def _attention(model: ModelSpec, job: Job, gpu: H.GpuCompute, profile: Profile
               ) -> tuple[float, float, tuple[int, int]]:
    """Forward and backward seconds of the attention core of one average layer and its kernel
    launches."""
    b, s, cp, tp = job.mbs, job.seq_len, job.cp, job.tp
    heads = model.heads / tp
    qk, v = model.qk_dim, model.v_dim
    if profile.flash:
        keys = _causal_keys(model, s)
        flops = 2.0 * b * (s / cp) * heads * (qk + v) * keys
        rate = gpu.bf16_tflops * 1e12 * G.attention_wave_efficiency(b, heads, s / cp, gpu.sms)
        eff_f, eff_b = profile.attention_efficiency(gpu.arch)
        return (flops / (rate * eff_f), FLASH_BACKWARD_FLOPS * flops / (rate * eff_b), (1, 2))
    # unfused: the scores are a batched GEMM's output, the softmax's input and output, AV's input
    dev = device(gpu, "bf16")  # attention stays in BF16 in FP8 training
    groups = max(1, round(b * heads))
    qk_gemm = G.Gemm("attn.qk", s / cp, s, qk, groups)
    av_gemm = G.Gemm("attn.av", s / cp, v, s, groups)
    fwd = G.gemm_time_s(qk_gemm, dev) + G.gemm_time_s(av_gemm, dev)
    bwd = sum(G.gemm_time_s(x, dev) for g in (qk_gemm, av_gemm) for x in (g.dgrad(), g.wgrad()))
    scores = b * heads * (s / cp) * s
    soft = profile.op("softmax")
    byte_f, byte_b = scores * soft.bytes_fwd, scores * soft.bytes_bwd
    kernels = (2 + soft.kernels_fwd, 4 + soft.kernels_bwd)
    if model.dropout > 0:
        drop = profile.op("attn_dropout")
        byte_f, byte_b = byte_f + scores * drop.bytes_fwd, byte_b + scores * drop.bytes_bwd
        kernels = (kernels[0] + drop.kernels_fwd, kernels[1] + drop.kernels_bwd)
    hbm = gpu.hbm_TBps * 1e12 * H.HBM_EFFICIENCY
    return fwd + byte_f / hbm, bwd + byte_b / hbm, kernels


def _causal_keys(model: ModelSpec, seq: int) -> float:
    """Keys a query's fused-attention kernel computes against, averaged over queries and layers:
    causal blocks up to the diagonal ((s + block) / 2), or the window plus a block."""
    blk = G.ATTENTION_BLOCK
    causal = min(seq, (seq + blk) / 2.0)
    if model.window is None:
        return causal
    w = model.window
    windowed = sum(1 for i in range(model.layers) if i % w.every == 0)
    local = min(causal, w.window + blk)
    return (windowed * local + (model.layers - windowed) * causal) / model.layers


def _memory_bound(model: ModelSpec, job: Job, gemms: tuple[G.Gemm, ...], profile: Profile
                  ) -> tuple[float, float, float, float]:
    """HBM bytes (forward, backward) and kernel launches (forward, backward) of one average
    layer's memory-bound kernels."""
    h = model.hidden
    tokens = job.mbs * job.seq_len / job.cp  # the micro-batch's, on this CP rank
    local = tokens / job.tp if job.sp else tokens  # sequence parallelism: 1/TP of them each
    byte_f = byte_b = kern_f = kern_b = 0.0

    def add(op: str, elements: float, times: float = 1.0) -> None:
        nonlocal byte_f, byte_b, kern_f, kern_b
        c = profile.op(op)
        byte_f += elements * c.bytes_fwd
        byte_b += elements * c.bytes_bwd
        kern_f += times * c.kernels_fwd
        kern_b += times * c.kernels_bwd

    add("norm", 2 * local * h, 2)
    add("residual", 2 * local * h, 2)
    if model.dropout > 0:
        add("dropout", 2 * local * h, 2)
    act = "swiglu" if model.ffn == "swiglu" else "gelu"
    up = 2 if model.ffn == "swiglu" else 1
    fc1 = [g for g in gemms if g.name.endswith(".fc1")]
    act_elements = sum(g.m * g.n / up * g.groups * g.count for g in fc1)
    add(act, act_elements, sum(g.count for g in fc1))
    if model.rope:
        rope_width = (model.heads * model.mla.qk_rope_head_dim + model.mla.qk_rope_head_dim
                      if model.mla else model.q_width + model.kv_heads * model.head_dim)
        add("rope", tokens * rope_width / job.tp)
    if H.is_low(job.precision):  # FP4 casts priced as FP8 ones (model assumption)
        casts = [g for g in gemms if g.name != "router"]
        fused = profile.fp8_fused
        # forward: the inputs of the GEMMs whose producer does not write FP8 itself
        fwd = 0.0
        sites = 0.0
        for g in casts:
            after_norm = g.name in ("qkv", "q_down", "kv_down") or g.name.endswith(".fc1")
            after_attn = g.name == "proj"
            if (after_norm and "norm" in fused) or (after_attn and "attention" in fused) or (
                    g.name.endswith(".fc2") and "activation" in fused):
                continue
            if g.name in ("q_up", "kv_up"):
                continue  # their input is the down-projection's output, cast with it
            fwd += g.m * g.k * g.groups * g.count
            sites += g.count
        # backward: every GEMM's output gradient is cast (and transposed) for dgrad and wgrad
        bwd = sum(g.m * g.n * g.groups * g.count for g in casts)
        c = profile.op("fp8_cast")
        byte_f += fwd * c.bytes_fwd
        byte_b += bwd * c.bytes_bwd
        kern_f += sites * c.kernels_fwd
        kern_b += sum(g.count for g in casts) * c.kernels_bwd
    if model.moe is not None:
        routed = local * model.moe.top_k * h * moe_share(model)
        add("moe_permute", routed, moe_share(model))
        # the router's softmax / top-k over its logits (fp32), on the SP rank's tokens
        add("moe_router", local * model.moe.experts * moe_share(model), moe_share(model))
    return byte_f, byte_b, kern_f, kern_b


__all__ = ["FLASH_BACKWARD_FLOPS", "LayerTimes", "device", "gemm_profiles", "layer_times",
           "module_recompute_s"]
