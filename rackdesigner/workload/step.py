"""The step-time model: one training iteration of a job on the design's GPUs.

Per micro-batch, the busiest pipeline stage runs its layers forward and backward, plus the
recomputation the job asks for; `compute.py` prices that work (GEMMs by their shapes, attention,
memory-bound kernels by their bytes, launch gaps) under the job's efficiency profile
(`profile.py`). Communication times come from the engine (`comm.CommModel`) and overlap as the
profile says:

- TP with sequence parallelism: per layer 2 all-gathers + 2 reduce-scatters of the micro-batch's
  activations forward and again backward (and in a full recomputation); pipelined with the
  layer's GEMMs where the profile overlaps TP (the first of the TP chunks stays exposed);
- CP: the K/V ring of every attention layer, overlapped with the attention core;
- EP: dispatch and combine all-to-alls per MoE layer, forward and backward; where the profile
  overlaps EP and there are at least two micro-batches, each hides behind the other
  micro-batch's compute of the same layer (Megatron-Core's 1F1B all-to-all overlap), except one
  micro-batch's worth at the start and end of the step;
- PP: the 1F1B bubble (PP - 1)/VP x one micro-batch's stage time and the sends between stages;
- DP: gradient reduce-scatter (+ parameter all-gather) with a distributed optimizer, an
  all-reduce without, overlapped with the last micro-batch's backward (and the first one's
  forward) except the last bucket when the profile and the job overlap it; FSDP gathers each
  layer's weights the profile's prefetch depth ahead and scatters its gradients behind the next
  layer's backward, every micro-batch.

Every overlapped collective takes the profile's SMs from the compute it hides behind, so that
compute runs that much slower while they overlap. A job whose memory per GPU exceeds the usable
HBM is refused with the figures (`fits` false, no time) unless asked to time it anyway.
"""

from __future__ import annotations

from rackdesigner.workload import hardware as H
from rackdesigner.workload.comm import CommModel
from rackdesigner.workload.compute import (
    LayerTimes,
    gemm_profiles,
    layer_times,
    module_recompute_s,
)
from rackdesigner.workload.costs import (
    local_params,
    model_flops_per_step,
    moe_share,
    op_checkpoint_recompute_share,
)
from rackdesigner.workload.job import Job
from rackdesigner.workload.memory import GRAD_BYTES, grad_dtype, memory_per_gpu
from rackdesigner.workload.models import ModelSpec
from rackdesigner.workload.profile import Profile
from rackdesigner.workload.result import Estimate
from rackdesigner.workload.stages import candidates


def estimate_job(model: ModelSpec, job: Job, comm: CommModel, gpu: H.GpuCompute,
                 profile: Profile, tokens: float | None = None, *,
                 time_if_too_big: bool = False) -> Estimate:
    """Estimate one resolved `job` on the GPUs of `comm` (see the module docstring). A job that
    does not fit is not timed unless `time_if_too_big` (`--time-anyway`)."""
    mem = memory_per_gpu(model, job, gpu, profile)
    peak = gpu.peak_tflops(job.precision) or gpu.bf16_tflops
    if not mem.fits and not time_if_too_big:
        return Estimate(model, job, gpu, mem, None, {}, {}, 0.0, tokens, peak, profile=profile)
    shape = Job(tp=job.tp, cp=job.cp, ep=job.ep, mbs=job.mbs, seq=job.seq,
                precision=job.precision, sequence_parallel=job.sp, etp=job.etp)
    lt, out_layer = layer_times(model, shape, gpu, profile)
    share = min(0.5, profile.comm_sms / gpu.sms)  # SMs an overlapped collective takes
    selective = lt.attn_f
    if profile.selective_recompute == "ops":  # every second matmul and the elementwise kernels
        selective = lt.gemm_f * op_checkpoint_recompute_share(model) + lt.elem_f + lt.gap_f
    elif job.recompute_modules is not None:  # Megatron-Core's recompute_modules, by module
        selective = ((lt.attn_f if "core_attn" in job.recompute_modules else 0.0)
                     + module_recompute_s(model, shape, gpu, profile, job.recompute_modules))
    recompute = {"none": 0.0, "selective": selective, "full": lt.forward}[job.recompute]
    layer_f, layer_b = lt.forward, lt.backward + recompute
    # the pipeline's pace: the stage with the most work (stages.py: with the embedding and the
    # loss accounted, a middle stage's layers or the last stage's fewer plus the output layer)
    ls, with_out = max(candidates(model, job),
                       key=lambda c: c[0] * (layer_f + layer_b) + (
                           out_layer.forward + out_layer.backward if c[1] else 0.0))
    out = out_layer if with_out else _NO_LAYER
    fwd = ls * layer_f + out.forward
    bwd = ls * layer_b + out.backward
    compute_mb = fwd + bwd

    g = job.groups()
    act = H.ACT_BYTES
    tokens_gpu = job.mbs * job.seq_len / job.cp  # tokens of one micro-batch on a CP rank
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

    def hidden(c: float, behind: float) -> float:
        """Exposed time of `c` seconds of communication (its standalone time) overlapped with
        `behind` seconds of compute: it runs `OVERLAP_STRETCH` times longer beside the compute
        (hardware.py); what of that does not fit behind it, plus the slowdown of the compute
        it shares the SMs with."""
        c *= H.OVERLAP_STRETCH
        return max(0.0, c - behind) + min(c, behind) * share

    # TP / SP
    tp_mb = 0.0
    if job.tp > 1:
        size = tokens_gpu * model.hidden * act
        if job.sp:
            per_pass = 2.0 * coll("tp_all_gather", "all_gather", "tp", size) + 2.0 * coll(
                "tp_reduce_scatter", "reduce_scatter", "tp", size)
        else:  # Megatron before sequence parallelism: an all-reduce after each row-parallel GEMM
            per_pass = 2.0 * coll("tp_all_reduce", "all_reduce", "tp", size)
        passes = [(per_pass, lt.gemm_f), (per_pass, lt.gemm_b)]
        if job.recompute == "full":
            passes.append((per_pass, lt.gemm_f))
        if profile.tp_overlap:
            tp_mb = ls * sum(max(hidden(c, gt), c / job.tp) for c, gt in passes)
        else:
            tp_mb = ls * sum(c for c, _ in passes)
    # CP ring
    cp_mb = 0.0
    if job.cp > 1:
        kv_width = (model.heads * (model.qk_dim + model.v_dim) if model.mla
                    else 2 * model.kv_heads * model.head_dim)
        size = job.mbs * job.seq_len * kv_width / job.tp * act
        ring = coll("cp_kv_all_gather", "all_gather", "cp", size)
        cp_mb = ls * (hidden(ring, lt.attn_f) + hidden(2.0 * ring, lt.attn_b))
    m = job.microbatches
    # MoE dispatch on the host: dropless routing syncs each MoE layer's forward (and its
    # recomputation), the GPU waits while the host issues the layer (profile moe.dispatch_host_us)
    host_layer = 0.0
    if model.moe is not None:
        host_layer = (moe_share(model) * (2.0 if job.recompute == "full" else 1.0)
                      * profile.moe_dispatch_us * 1e-6)
    dispatch_mb = ls * host_layer
    # EP all-to-all
    ep_step = 0.0
    if model.moe is not None and job.ep > 1:
        size = tokens_gpu / job.tp * model.moe.top_k * model.hidden * act
        a2a = coll("ep_all_to_all", "all_to_all", "ep", size)
        a2a_passes = 6.0 if job.recompute == "full" else 4.0
        per_layer = moe_share(model) * a2a_passes * a2a
        if profile.ep_overlap and m >= 2:
            # behind another micro-batch's compute, and the host time it waits on (the
            # communication stream runs while the compute stream waits for the host)
            ov = hidden(per_layer, layer_f + layer_b + host_layer)
            ep_step = ls * (m * ov + (per_layer - ov))
        else:
            ep_step = ls * m * per_layer
    ep_mb = ep_step / m
    stage_mb = compute_mb + tp_mb + cp_mb + ep_mb + dispatch_mb
    # PP
    bubble = pp_p2p = 0.0
    if job.pp > 1:
        bubble = (job.pp - 1) / job.vp * stage_mb
        # Megatron's scatter/gather optimization: each TP rank sends 1/TP of the activations
        # (Narayanan et al. 2021, section 4.1); DeepSpeed's pipeline engine sends them whole
        size = (tokens_gpu / (job.tp if profile.pp_scatter_gather else 1)
                * model.hidden * act)
        p2p = coll("pp_send_recv", "send_recv", "pp", size)
        sends = (profile.pp_sends * m if job.vp == 1
                 else profile.pp_sends * (job.pp - 1) * job.vp)
        pp_p2p = sends * p2p
        # the fill and drain pass every stage's sends too (one micro-batch's per stage)
        bubble += (job.pp - 1) / job.vp * profile.pp_sends * p2p
    # DP
    lp = local_params(model, job, ls, with_out)
    grad_bytes = GRAD_BYTES[grad_dtype(job, profile)]
    overlap = profile.dp_overlap if job.dp_overlap is None else job.dp_overlap
    # the distributed optimizer gathers the weights it keeps: FP8 ones in FP8 (fp8_param_gather)
    gather = 1 if H.is_low(job.precision) and profile.fp8_param_gather else H.WEIGHT_BYTES
    dp = _DataParallel(job, coll, hidden, grad_bytes, overlap, profile.fsdp_prefetch, ls, gather)
    dp_exposed = dp.exposed(lp.dense, "dp", lt, layer_f, layer_b, fwd, bwd, m)
    if lp.expert > 0:
        dp_exposed += dp.exposed(lp.expert, "edp", lt, layer_f, layer_b, fwd, bwd, m)
    dp_n = job.cp * (job.dp or 1)
    edp = max(1, job.tp * dp_n // (job.expert_tp * job.ep))
    shard = (lp.dense / dp_n + lp.expert / edp) if job.sharding != "none" else lp.total
    optimizer = shard * profile.optimizer_bytes / (gpu.hbm_TBps * 1e12 * H.HBM_EFFICIENCY)
    breakdown = {
        "compute_s": m * compute_mb,
        "tp_exposed_s": m * tp_mb,
        "cp_exposed_s": m * cp_mb,
        "ep_exposed_s": ep_step,
        "moe_dispatch_s": m * dispatch_mb,
        "pp_bubble_s": bubble,
        "pp_p2p_s": pp_p2p,
        "dp_exposed_s": dp_exposed,
        "optimizer_s": optimizer,
    }
    step = sum(breakdown.values())
    gemm_s = ls * lt.gemm + out.gemm + (ls * lt.gemm_f if job.recompute == "full" else 0.0)
    gemm_flops = ls * lt.flops + out.flops + (ls * lt.flops / 3 if job.recompute == "full"
                                              else 0.0)
    hw = {"recompute_s": m * ls * recompute,
          "gemm_efficiency": gemm_flops / gemm_s / (peak * 1e12) if gemm_s else 0.0,
          "attention_s": m * ls * (lt.attn_f + lt.attn_b),
          "memory_bound_s": m * (ls * (lt.elem_f + lt.elem_b) + out.elem_f + out.elem_b),
          "launch_gaps_s": m * (ls * (lt.gap_f + lt.gap_b) + out.gap_f + out.gap_b)}
    return Estimate(model, job, gpu, mem, step, breakdown, detail,
                    model_flops_per_step(model, job), tokens, peak, hw,
                    gemms=gemm_profiles(model, shape, gpu, profile), profile=profile)


_NO_LAYER = LayerTimes(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


class _DataParallel:
    """Exposed time of the data-parallel exchanges of one kind of parameter (dense or expert)."""

    def __init__(self, job: Job, coll, hidden, grad_bytes: int, overlap: bool, prefetch: int,
                 layers: float, gather_bytes: int = H.WEIGHT_BYTES) -> None:
        self.job, self.coll, self.hidden = job, coll, hidden
        self.grad_bytes, self.overlap, self.prefetch, self.layers = (grad_bytes, overlap,
                                                                     prefetch, layers)
        self.gather_bytes = gather_bytes

    def exposed(self, params: float, group: str, lt: LayerTimes, layer_f: float,
                layer_b: float, fwd: float, bwd: float, m: int) -> float:
        job, coll, hidden = self.job, self.coll, self.hidden
        if job.groups()[group].size <= 1 or params <= 0:
            return 0.0
        grads = params * self.grad_bytes
        weights = params * (H.WEIGHT_BYTES if job.sharding == "full" else self.gather_bytes)
        bucket = min(1.0, H.DDP_BUCKET_PARAMS / params)
        if job.sharding == "full":
            per_layer = 1.0 / self.layers
            ag = coll(f"{group}_param_all_gather", "all_gather", group, weights * per_layer)
            rs = coll(f"{group}_grad_reduce_scatter", "reduce_scatter", group,
                      grads * per_layer)
            if self.prefetch < 1:
                return m * self.layers * (2.0 * ag + rs)
            # each layer's gather hides behind the previous layer's compute, its scatter behind
            # the next one's backward; the first gather and the last scatter do not
            per_mb = (self.layers * (self.hidden(ag, layer_f) + self.hidden(ag + rs, layer_b))
                      + ag + rs)
            return m * per_mb
        if job.sharding == "optimizer":
            rs = coll(f"{group}_grad_reduce_scatter", "reduce_scatter", group, grads)
            ag = coll(f"{group}_param_all_gather", "all_gather", group, weights)
            if not self.overlap:
                return rs + ag
            return (max(bucket * rs, hidden(rs, bwd)) + max(bucket * ag, hidden(ag, fwd)))
        ar = coll(f"{group}_grad_all_reduce", "all_reduce", group, grads)
        if not self.overlap:
            return ar
        return max(bucket * ar, hidden(ar, bwd))


__all__ = ["estimate_job", "grad_dtype", "memory_per_gpu"]
