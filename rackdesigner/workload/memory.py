"""Memory per GPU of a training job: weights, gradients, optimizer state and activations on the
busiest pipeline rank (docs/workload.md#memory).

Per local parameter, as the efficiency profile keeps them: Megatron/NeMo bf16 weights (FP8 where
the stack keeps FP8 weights for an FP8 job: Megatron's `fp8_param_gather`, one byte — two on
Hopper, whose FP8 GEMMs read only the TN layout so Transformer Engine keeps a transposed copy), the
gradient buffer in its precision, fp32 master weights + Adam moments divided by DP x CP with the
distributed optimizer; FSDP shards everything and gathers a layer's (and the prefetched ones')
bf16 weights. Activations per layer follow Korthikanti et al. 2022 (`costs.py`), held as the
pipeline schedule holds them on each rank (`stages.py`); the first, second and last ranks are
compared and the largest total is reported.
"""

from __future__ import annotations

from rackdesigner.workload import hardware as H
from rackdesigner.workload.costs import (
    activation_bytes_per_layer,
    local_params,
    op_checkpoint_bytes_per_layer,
)
from rackdesigner.workload.job import Job
from rackdesigner.workload.models import ModelSpec
from rackdesigner.workload.profile import Profile
from rackdesigner.workload.result import Memory
from rackdesigner.workload.stages import Stage, inflight_layers, stages

GB = 1e9
GRAD_BYTES = {"fp32": 4, "bf16": 2}


def grad_dtype(job: Job, profile: Profile) -> str:
    return job.grad_dtype or profile.grad_dtype


def weight_bytes(job: Job, gpu: H.GpuCompute, profile: Profile) -> float:
    """Bytes per local parameter of the weights the model keeps (see the module docstring)."""
    if H.is_low(job.precision) and profile.fp8_param_gather and job.sharding != "full":
        return min(float(profile.weight_bytes), H.fp8_weight_bytes(gpu))
    return float(profile.weight_bytes)


def memory_per_gpu(model: ModelSpec, job: Job, gpu: H.GpuCompute, profile: Profile) -> Memory:
    """Weights, gradients, optimizer states and activations on the busiest GPU (resolved job)."""
    best: Memory | None = None
    for stage in stages(model, job):
        mem = _stage_memory(model, job, gpu, profile, stage)
        if best is None or mem.total_GB > best.total_GB:
            best = mem
    assert best is not None
    return best


def _stage_memory(model: ModelSpec, job: Job, gpu: H.GpuCompute, profile: Profile,
                  stage: Stage) -> Memory:
    lp = local_params(model, job, stage.layers, stage.embedding or stage.output)
    dp_dense = job.cp * (job.dp or 1)
    dp_expert = max(1, job.tp * dp_dense // (job.expert_tp * job.ep))
    opt_div = (dp_dense, dp_expert) if job.sharding in ("optimizer", "full") else (1, 1)
    all_div = (dp_dense, dp_expert) if job.sharding == "full" else (1, 1)
    sharded = lp.dense / all_div[0] + lp.expert / all_div[1]
    weights = weight_bytes(job, gpu, profile) * sharded
    grad_bytes = GRAD_BYTES[grad_dtype(job, profile)]
    grads = grad_bytes * sharded
    if job.sharding == "full":  # FSDP gathers a layer's bf16 weights (and the prefetched ones)
        layer = lp.total / max(1.0, stage.layers)
        weights += (1 + profile.fsdp_prefetch) * H.WEIGHT_BYTES * layer
        grads += grad_bytes * layer  # one layer's unsharded gradient before its reduce-scatter
    optim = profile.optimizer_state_bytes * (lp.dense / opt_div[0] + lp.expert / opt_div[1])
    if job.recompute == "selective" and profile.selective_recompute == "ops":
        per_layer = op_checkpoint_bytes_per_layer(model, job)
    else:
        per_layer = activation_bytes_per_layer(model, job, flash=profile.flash)
    acts = inflight_layers(job, stage) * per_layer
    if job.recompute == "full":  # the layer being recomputed holds its full activations
        acts += activation_bytes_per_layer(model, job, "selective", profile.flash)
    if stage.output:  # fp32 logits of the micro-batch whose loss is computed
        acts += 4.0 * job.mbs * job.seq_len * model.vocab / (job.tp * job.cp)
    return Memory(weights / GB, grads / GB, optim / GB, acts / GB, gpu.capacity_GB)


__all__ = ["GRAD_BYTES", "grad_dtype", "memory_per_gpu", "weight_bytes"]
