"""The step-time model: one training iteration of a job on the design's GPUs.

Per micro-batch, the busiest pipeline stage runs its layers forward and backward, plus the
recomputation the job asks for. Each GEMM of a layer is timed from its shape (`gemm.py`: tile
and wave quantization over the GPU's SMs at the precision's peak x `GEMM_EFFICIENCY`, bounded by
its HBM traffic); backward runs each GEMM's input- and weight-gradient GEMMs. The attention core
runs at the BF16 peak x `ATTENTION_EFFICIENCY` x the share of a wave its thread blocks fill
(twice that backward), memory-bound kernels at the HBM bandwidth (twice backward).
Communication times come from the engine (`comm.CommModel`):

- TP with sequence parallelism: per layer 2 all-gathers + 2 reduce-scatters of the micro-batch's
  activations forward and again backward (and again in a full recomputation), exposed;
- CP: the K/V ring of every attention layer (an all-gather of K and V over the CP group),
  forward and twice backward, overlapped with the attention core (only the excess is exposed);
- EP: dispatch and combine all-to-alls of tokens x top-k x hidden per MoE layer, forward and
  backward, exposed;
- PP: the 1F1B bubble (PP - 1)/VP x (one micro-batch's stage time) and the activation /
  gradient sends between neighbouring stages (blocking for 1F1B; with interleaving only the
  warm-up and cool-down sends are exposed);
- DP: gradient reduce-scatter (+ parameter all-gather) with a distributed optimizer, an
  all-reduce without, overlapped with the last micro-batch's backward (and the first one's
  forward) except the last bucket; with FSDP the per-layer parameter gathers and gradient
  scatters of every micro-batch, overlapped with its compute.

A job whose memory per GPU exceeds the GPU's HBM is refused with the figures (`fits` false, no
time).
"""

from __future__ import annotations

from functools import lru_cache

from rackdesigner.workload import gemm as G
from rackdesigner.workload import hardware as H
from rackdesigner.workload.comm import CommModel
from rackdesigner.workload.costs import (
    activation_bytes_per_layer,
    inflight_microbatches,
    layer_costs,
    layer_gemms,
    layers_per_stage,
    local_params,
    logits_gemm,
    model_flops_per_step,
    moe_permute_bytes,
    moe_share,
)
from rackdesigner.workload.job import Job
from rackdesigner.workload.models import ModelSpec
from rackdesigner.workload.result import Estimate, Memory

GB = 1e9


def memory_per_gpu(model: ModelSpec, job: Job, hbm_GB: float) -> Memory:
    """Weights, gradients, optimizer states and activations on the busiest GPU (resolved job)."""
    lp = local_params(model, job)
    dp_dense = job.cp * (job.dp or 1)
    dp_expert = max(1, dp_dense // job.ep)
    opt_div = (dp_dense, dp_expert) if job.sharding in ("optimizer", "full") else (1, 1)
    all_div = (dp_dense, dp_expert) if job.sharding == "full" else (1, 1)
    weights = H.WEIGHT_BYTES * (lp.dense / all_div[0] + lp.expert / all_div[1])
    if job.sharding == "full":  # FSDP gathers a layer's weights (and prefetches the next)
        weights += 2 * H.WEIGHT_BYTES * lp.total / layers_per_stage(model, job)
    grads = H.GRAD_BYTES * (lp.dense / all_div[0] + lp.expert / all_div[1])
    optim = H.OPTIMIZER_BYTES * (lp.dense / opt_div[0] + lp.expert / opt_div[1])
    ls = layers_per_stage(model, job)
    per_layer = activation_bytes_per_layer(model, job)
    first = ls * per_layer * inflight_microbatches(job)
    if job.recompute == "full":  # the layer being recomputed holds its full activations
        first += activation_bytes_per_layer(model, job, "selective")
    logits = 4.0 * job.mbs * job.seq * model.vocab / (job.tp * job.cp)  # fp32 logits
    last = ls * per_layer + logits
    if job.pp == 1:
        last += first - ls * per_layer
    activations = max(first, last)
    return Memory(weights / GB, grads / GB, optim / GB, activations / GB, hbm_GB)


def estimate_job(model: ModelSpec, job: Job, comm: CommModel, gpu: H.GpuCompute,
                 tokens: float | None = None, *, time_if_too_big: bool = False) -> Estimate:
    """Estimate one resolved `job` on the GPUs of `comm` (see the module docstring). A job that
    does not fit is not timed unless `time_if_too_big` (validation against published runs)."""
    mem = memory_per_gpu(model, job, gpu.hbm_GB)
    peak = gpu.peak_tflops(job.precision) or gpu.bf16_tflops
    if not mem.fits and not time_if_too_big:
        return Estimate(model, job, gpu, mem, None, {}, {}, 0.0, tokens, peak)
    shape = Job(tp=job.tp, cp=job.cp, ep=job.ep, mbs=job.mbs, seq=job.seq,
                precision=job.precision)
    gemm_f, gemm_b, logits_f, logits_b, (layer_flops, logits_flops) = _gemm_times(
        model, shape, gpu)
    hbm_rate = gpu.hbm_TBps * 1e12 * H.HBM_EFFICIENCY
    c = layer_costs(model, job)
    ls = layers_per_stage(model, job)
    elem = ((H.ELEMENTWISE_PASSES / 3.0) * activation_bytes_per_layer(model, job, "selective")
            + moe_permute_bytes(model, job))
    attn_rate = gpu.bf16_tflops * 1e12 * H.ATTENTION_EFFICIENCY * G.attention_wave_efficiency(
        job.mbs, model.heads / job.tp, job.seq / job.cp, gpu.sms)
    core_f = c.attn_core / attn_rate
    elem_f = elem / hbm_rate
    layer_f = gemm_f + core_f + elem_f  # forward of one layer, one micro-batch
    layer_b = gemm_b + 2.0 * (core_f + elem_f)
    fwd = ls * layer_f + logits_f
    bwd = ls * layer_b + logits_b
    recompute = {"none": 0.0, "selective": ls * core_f, "full": ls * layer_f}[job.recompute]
    compute_mb = fwd + bwd + recompute
    gemm_s = ls * (gemm_f + gemm_b) + logits_f + logits_b
    gemm_flops = ls * layer_flops + logits_flops  # forward + backward, one micro-batch

    g = job.groups()
    act = H.ACT_BYTES
    tokens_gpu = job.mbs * job.seq / job.cp  # tokens of one micro-batch on a CP rank
    detail: dict[str, dict] = {}

    def coll(name: str, what: str, group: str, size: float) -> float:
        t = comm.time_s(what, g[group], size)
        if t <= 0:
            return t
        # the groups of this exchange run at once: where they need more than a network link
        # carries, the exchange stretches by that excess (workload/comm.py `contention`)
        stretch, link = comm.contention(what, g[group], size,
                                        job.concurrent_groups(group, len(comm.gpus)))
        t *= stretch
        if name not in detail:
            detail[name] = {"collective": what, "group_size": g[group].size,
                            "bytes": int(size), "time_us": round(t * 1e6, 2),
                            "busbw_GBps": round(comm.busbw_GBps(what, g[group], size)
                                                / stretch, 1)}
            if stretch > 1.0:
                detail[name]["contention"] = {"factor": round(stretch, 3), "link": link}
        return t

    # TP / SP
    tp_mb = 0.0
    if job.tp > 1:
        size = tokens_gpu * model.hidden * act
        per_dir = 2.0 * coll("tp_all_gather", "all_gather", "tp", size) + 2.0 * coll(
            "tp_reduce_scatter", "reduce_scatter", "tp", size)
        passes = 3.0 if job.recompute == "full" else 2.0
        tp_mb = ls * per_dir * passes
    # CP ring
    cp_mb = 0.0
    if job.cp > 1:
        kv_width = (model.heads * (model.qk_dim + model.v_dim) if model.mla
                    else 2 * model.kv_heads * model.head_dim)
        size = job.mbs * job.seq * kv_width / job.tp * act
        ring = coll("cp_kv_all_gather", "all_gather", "cp", size)
        cp_mb = ls * (max(0.0, ring - core_f) + max(0.0, 2.0 * ring - 2.0 * core_f))
    # EP all-to-all
    ep_mb = 0.0
    if model.moe is not None and job.ep > 1:
        size = tokens_gpu / job.tp * model.moe.top_k * model.hidden * act
        a2a = coll("ep_all_to_all", "all_to_all", "ep", size)
        passes = 6.0 if job.recompute == "full" else 4.0
        ep_mb = ls * moe_share(model) * passes * a2a
    stage_mb = compute_mb + tp_mb + cp_mb + ep_mb
    m = job.microbatches
    # PP
    bubble = pp_p2p = 0.0
    if job.pp > 1:
        bubble = (job.pp - 1) / job.vp * stage_mb
        size = tokens_gpu / job.tp * model.hidden * act
        p2p = coll("pp_send_recv", "send_recv", "pp", size)
        sends = 2.0 * m if job.vp == 1 else 2.0 * (job.pp - 1) * job.vp
        pp_p2p = sends * p2p
    # DP
    lp = local_params(model, job)
    dp_exposed = _dp_exposed(job, lp.dense, "dp", coll, fwd, bwd, compute_mb, m)
    if lp.expert > 0:
        dp_exposed += _dp_exposed(job, lp.expert, "edp", coll, fwd, bwd, compute_mb, m)
    dp_n = job.cp * (job.dp or 1)
    shard = (lp.dense / dp_n + lp.expert / max(1, dp_n // job.ep)) if job.sharding != "none" \
        else lp.total
    optimizer = shard * H.OPTIMIZER_BYTES_PER_PARAM / hbm_rate
    breakdown = {
        "compute_s": m * compute_mb,
        "tp_exposed_s": m * tp_mb,
        "cp_exposed_s": m * cp_mb,
        "ep_exposed_s": m * ep_mb,
        "pp_bubble_s": bubble,
        "pp_p2p_s": pp_p2p,
        "dp_exposed_s": dp_exposed,
        "optimizer_s": optimizer,
    }
    step = sum(breakdown.values())
    hw = {"recompute_s": m * recompute,
          "gemm_efficiency": gemm_flops / gemm_s / (peak * 1e12) if gemm_s else 0.0}
    return Estimate(model, job, gpu, mem, step, breakdown, detail,
                    model_flops_per_step(model, job), tokens, peak, hw,
                    gemms=gemm_profiles(model, shape, gpu))


@lru_cache(maxsize=4096)
def _gemm_times(model: ModelSpec, shape: Job, gpu: H.GpuCompute
                ) -> tuple[float, float, float, float, tuple[float, float]]:
    """Forward and backward GEMM time of one average layer and of the output layer, for one
    micro-batch, and their FLOPs (forward + backward) — all that depends on the GEMM shapes
    (`shape` carries the degrees, batch, sequence and precision; cached across a search)."""
    dev = _device(gpu, shape.precision)
    gemms = layer_gemms(model, shape)
    logits = (logits_gemm(model, shape),)
    flops = (3.0 * sum(x.flops for x in gemms), 3.0 * logits[0].flops)
    return (G.forward_s(gemms, dev), G.backward_s(gemms, dev), G.forward_s(logits, dev),
            G.backward_s(logits, dev), flops)


def _device(gpu: H.GpuCompute, precision: str) -> G.Device:
    peak = gpu.peak_tflops(precision) or gpu.bf16_tflops
    return G.Device(gpu.sms, peak * 1e12 * H.GEMM_EFFICIENCY,
                    gpu.hbm_TBps * 1e12 * H.HBM_EFFICIENCY,
                    1.0 if precision == "fp8" and gpu.fp8_tflops else 2.0)


@lru_cache(maxsize=1024)
def gemm_profiles(model: ModelSpec, job: Job, gpu: H.GpuCompute) -> tuple[dict, ...]:
    """Every GEMM of one average layer (`per: layer`; forward, input and weight gradient) and of
    the output layer (`per: stage`, on the last pipeline stage) for one micro-batch on one GPU:
    shape, tiles, waves, bound and share of the ceiling (`gemm.profile`)."""
    dev = _device(gpu, job.precision)
    return tuple([{**p, "per": "layer"} for p in G.profiles(layer_gemms(model, job), dev)]
                 + [{**p, "per": "stage"} for p in G.profiles((logits_gemm(model, job),), dev)])


def _dp_exposed(job: Job, params: float, group: str, coll, fwd: float, bwd: float,
                compute_mb: float, m: int) -> float:
    g = job.groups()[group]
    if g.size <= 1 or params <= 0:
        return 0.0
    grads = params * H.GRAD_BYTES
    weights = params * H.WEIGHT_BYTES
    bucket = min(1.0, H.DDP_BUCKET_PARAMS / params)
    if job.sharding == "full":
        per_mb = (2.0 * coll(f"{group}_param_all_gather", "all_gather", group, weights)
                  + coll(f"{group}_grad_reduce_scatter", "reduce_scatter", group, grads))
        return m * max(0.0, per_mb - compute_mb) + bucket * per_mb
    if job.sharding == "optimizer":
        rs = coll(f"{group}_grad_reduce_scatter", "reduce_scatter", group, grads)
        ag = coll(f"{group}_param_all_gather", "all_gather", group, weights)
        return max(bucket * rs, rs - bwd) + max(bucket * ag, ag - fwd)
    ar = coll(f"{group}_grad_all_reduce", "all_reduce", group, grads)
    return max(bucket * ar, ar - bwd)


__all__ = ["estimate_job", "gemm_profiles", "memory_per_gpu"]
