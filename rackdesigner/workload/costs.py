"""FLOPs, parameters and activation bytes of a transformer under a job's parallel layout.

FLOP convention (docs/workload.md): a multiply-add is 2 FLOPs; per token and layer the forward
pass costs 2 x (matmul weights the token uses) plus the attention core 2 x s x heads x
(qk_dim + v_dim) (QK^T and AV over the whole sequence: causal masking is *not* halved, as in
Narayanan et al. 2021 and Korthikanti et al. 2022); the backward pass costs twice the forward;
the output layer (logits) counts, the embedding lookup does not. Model FLOPs exclude
recomputation (MFU); hardware FLOPs include it.

Activation memory follows Korthikanti et al. 2022 (arXiv:2205.05198, section 4), generalised
from their GELU/MHA layer to SwiGLU, grouped-query attention, experts and fused attention: per
layer and token, in bytes per hidden-size element, attention: the QKV input 2, Q 2, K and V
4 x kv_heads/heads, the attention output (the projection's input) 2, a dropout mask 1 when the
model trains with dropout (11 for GPT's MHA); MLP: the fc1 input 2, its output 2 x f/h (x 2 for
SwiGLU's gate and up), the fc2 input 2 x f/h, a dropout mask 1 (19 for GELU with 4h); two norm
inputs 4. The s x s scores (softmax output 2, and with attention dropout its mask 1 and output
2: 5 x heads x s / h) are stored only when attention is unfused and not recomputed: fused
(FlashAttention) kernels recompute them from Q, K, V and the output in the backward pass. Full
recomputation keeps only the layer input. With FP8, the GEMM inputs are kept in FP8 (one
byte), and the fused attention still keeps its bf16 output beside the projection's FP8 copy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rackdesigner.workload.gemm import Gemm
from rackdesigner.workload.job import Job
from rackdesigner.workload.models import ModelSpec


@dataclass(frozen=True, slots=True)
class LayerCosts:
    """Forward FLOPs of one average layer for one micro-batch, on one GPU (already / TP x CP)."""

    gemm: float  # matmuls (attention projections, MLP or experts)
    attn_core: float  # QK^T and AV
    logits: float  # output layer (last stage only)


def layer_costs(model: ModelSpec, job: Job) -> LayerCosts:
    tokens = job.mbs * job.seq_len
    split = job.tp * job.cp
    mlp_dense = model.mlp_params(model.ffn_hidden)
    moe_active = (model.moe_layer_dense_params + model.moe.top_k * model.expert_params
                  if model.moe else 0)
    mlp_avg = (model.dense_layers * mlp_dense + model.moe_layers * moe_active) / model.layers
    gemm = 2.0 * tokens * (model.attn_params + mlp_avg) / split
    core = (2.0 * tokens * model.keys_per_query(job.seq_len) * model.heads
            * (model.qk_dim + model.v_dim) / split)
    logits = 2.0 * tokens * model.hidden * model.vocab / split
    return LayerCosts(gemm, core, logits)


def layer_gemms(model: ModelSpec, job: Job) -> tuple[Gemm, ...]:
    """The forward GEMMs of one average layer for one micro-batch on one GPU, with their shapes.

    M is the micro-batch's tokens on a CP rank (sequence parallelism gathers the TP group's
    tokens before each column-parallel GEMM); TP splits the output of the column-parallel GEMMs
    (QKV, fc1) and the inner dimension of the row-parallel ones (projection, fc2); the
    replicated ones (router, MLA's down-projections) run on the rank's own tokens / TP. An MoE
    layer's local experts (experts / EP, each with its share of the EP group's routed tokens)
    run as one grouped GEMM. `count` weighs dense-MLP and MoE GEMMs by their share of the
    layers. Their FLOPs add up to `layer_costs(...).gemm`."""
    m = job.mbs * job.seq_len / job.cp
    t = job.tp
    h = model.hidden
    out: list[Gemm] = []
    if model.mla:
        a = model.mla
        qk = a.qk_nope_head_dim + a.qk_rope_head_dim
        out += [Gemm("q_down", m / t, a.q_lora_rank, h),  # replicated: SP-local tokens
                Gemm("q_up", m, model.heads * qk / t, a.q_lora_rank),
                Gemm("kv_down", m / t, a.kv_lora_rank + a.qk_rope_head_dim, h),
                Gemm("kv_up", m, model.heads * (a.qk_nope_head_dim + a.v_head_dim) / t,
                     a.kv_lora_rank),
                Gemm("proj", m, h, model.heads * a.v_head_dim / t)]
    else:
        kv = model.kv_heads * model.head_dim
        q = model.q_width
        out += [Gemm("qkv", m, (q + 2 * kv) / t, h), Gemm("proj", m, h, q / t)]
    up = 2 if model.ffn == "swiglu" else 1

    def mlp(name: str, ffn_hidden: float, share: float, groups: int = 1,
            rows: float = m, split: int = t) -> list[Gemm]:
        return [Gemm(name + ".fc1", rows, up * ffn_hidden / split, h, groups, share),
                Gemm(name + ".fc2", rows, h, ffn_hidden / split, groups, share)]

    share = moe_share(model)
    if share < 1.0:
        out += mlp("mlp", model.ffn_hidden, 1.0 - share)
    if model.moe:
        e = model.moe
        out.append(Gemm("router", m / t, e.experts, h, 1, share))  # on SP-local tokens
        if e.shared_experts:
            out += mlp("shared", e.shared_experts * e.expert_ffn_hidden, share)
        local = max(1, e.experts // job.ep)
        et = job.expert_tp  # the expert-TP group gathers its ranks' sequence-parallel tokens
        rows = m / t * et * e.top_k * job.ep / e.experts  # per local expert (balanced routing)
        out += mlp("experts", e.expert_ffn_hidden, share, local, rows, et)
    return tuple(out)


def logits_gemm(model: ModelSpec, job: Job) -> Gemm:
    return Gemm("logits", job.mbs * job.seq_len / job.cp, model.vocab / job.tp, model.hidden)


def model_flops_per_step(model: ModelSpec, job: Job) -> float:
    """Model FLOPs of one optimizer step over all GPUs (forward + backward, no recompute);
    `job` is resolved."""
    c = layer_costs(model, job)
    per_mb = (model.layers * (c.gemm + c.attn_core) + c.logits) * job.tp * job.cp
    return 3.0 * per_mb * job.gbs / job.mbs


def layers_per_stage(model: ModelSpec, job: Job) -> int:
    """Layers on the busiest pipeline stage (uneven splits put the extra layer somewhere)."""
    return math.ceil(model.layers / job.pp)


def moe_share(model: ModelSpec) -> float:
    return model.moe_layers / model.layers


# ---- parameters on one GPU ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class LocalParams:
    dense: float  # parameters replicated over DP x CP (attention, dense MLP, shared experts)
    expert: float  # routed-expert parameters (replicated over the expert-data-parallel ranks)

    @property
    def total(self) -> float:
        return self.dense + self.expert


def local_params(model: ModelSpec, job: Job, layers: float | None = None,
                 embedding: bool = True) -> LocalParams:
    """Parameters on one GPU of a stage with `layers` transformer layers (default: the busiest
    stage's ⌈L/PP⌉) and, with `embedding`, the input embedding or the output layer (both
    without pipeline parallelism)."""
    ls = layers_per_stage(model, job) if layers is None else layers
    share = moe_share(model)
    mlp_dense = model.mlp_params(model.ffn_hidden)
    per_layer_dense = (model.attn_params + (1 - share) * mlp_dense
                       + share * model.moe_layer_dense_params)
    embed = model.vocab * model.hidden if embedding else 0
    if job.pp == 1:
        embed = model.embedding_params
    dense = (ls * per_layer_dense + embed) / job.tp
    expert = 0.0
    if model.moe:
        expert = (ls * share * model.moe.experts * model.expert_params
                  / (job.expert_tp * job.ep))
    return LocalParams(dense, expert)


# ---- activations -------------------------------------------------------------------------------
def activation_bytes_per_layer(model: ModelSpec, job: Job, recompute: str | None = None,
                               flash: bool = True) -> float:
    """Bytes one layer keeps for the backward pass, for one micro-batch, on one GPU (`flash`:
    the attention kernel is fused and never stores the scores)."""
    recompute = recompute or job.recompute
    sbh = job.mbs * job.seq_len * model.hidden / (job.tp * job.cp)  # elements
    if recompute == "full":
        return 2.0 * sbh
    h = model.hidden
    # widths relative to hidden (MLA: as an MHA layer; Megatron recomputes its up-projections)
    q = 1.0 if model.mla else model.q_width / h
    kv = 1.0 if model.mla else model.kv_heads * model.head_dim / h
    g = 1.0 if job.precision in ("fp8", "fp4") else 2.0  # kept in FP8 (TE; fp4: assumed alike)
    mask = 1.0 if model.dropout > 0 else 0.0
    # QKV input, Q, K and V, the attention output (+ its FP8 copy for the projection), mask
    attn = g + 2.0 * q + 4.0 * kv + 2.0 * q + (2.0 - g) * q + mask
    up = 2.0 if model.ffn == "swiglu" else 1.0

    def mlp(ffn_hidden: int, copies: float) -> float:  # fc1 output, fc2 input, mask
        fr = ffn_hidden / h
        return copies * (mask + 2.0 * fr * up + g * fr)

    dense_mlp = g + mlp(model.ffn_hidden, 1.0)
    share = moe_share(model)
    moe_mlp = 0.0
    if model.moe:
        moe_mlp = g + mlp(model.moe.expert_ffn_hidden,
                          model.moe.top_k + model.moe.shared_experts)
    units = attn + (1 - share) * dense_mlp + share * moe_mlp + 4.0
    mods = job.recompute_modules if recompute == "selective" else None
    units -= recomputed_module_units(model, job, mods)
    if (recompute == "none" or "core_attn" not in (mods or ("core_attn",))) and not flash:
        # softmax output (+ dropout mask and output)
        units += (2.0 + 3.0 * (model.dropout > 0)) * model.heads * job.seq_len / h
    if job.tp > 1 and not job.sp:  # without sequence parallelism every TP rank keeps the norm
        # inputs, the dropout masks and the inputs of QKV and fc1 whole (Korthikanti, eq. 1)
        units += (job.tp - 1) * (4.0 + 2.0 * mask + 2.0 * g)
    return units * sbh


def recomputed_module_units(model: ModelSpec, job: Job,
                            modules: tuple[str, ...] | None) -> float:
    """Bytes per hidden-size element (as `activation_bytes_per_layer` counts them) of one
    average layer that Megatron-Core's output-discarding recomputation frees
    (`recompute_modules`; NVIDIA/Megatron-LM transformer_layer.py, moe/experts.py):
    `layernorm` the pre-MLP norm's output, the MoE block's input (Transformer Engine fuses the
    other norms into the next linear layer, an IdentityOp Megatron-Core does not recompute);
    `moe_act` the routed experts' activation output, the fc2 input of each of the top-k copies.
    Dense models free nothing."""
    if not modules or model.moe is None:
        return 0.0
    g = 1.0 if job.precision in ("fp8", "fp4") else 2.0
    units = 0.0
    if "layernorm" in modules:
        units += g
    if "moe_act" in modules:
        units += model.moe.top_k * g * model.moe.expert_ffn_hidden / model.hidden
    return moe_share(model) * units


def _op_checkpoint_matmuls(model: ModelSpec) -> list[float]:
    """Output widths (relative to hidden) of a layer's matmuls in the order PyTorch runs them
    (torchtitan's Llama: wq, wk, wv, wo, then w1, w3, w2; a GELU MLP: fc1, fc2). MoE layers count
    their top-k experts' matmuls (and shared experts) in the MLP's place."""
    h = model.hidden
    kv = model.kv_heads * model.head_dim / h
    out = [model.q_width / h, kv, kv, 1.0]
    if model.moe is not None and moe_share(model) >= 0.5:
        f = model.moe.expert_ffn_hidden * (model.moe.top_k + model.moe.shared_experts) / h
    else:
        f = model.ffn_hidden / h
    out += [f, f, 1.0] if model.ffn == "swiglu" else [f, 1.0]
    return out


def op_checkpoint_bytes_per_layer(model: ModelSpec, job: Job) -> float:
    """Bytes one layer keeps under PyTorch's op-level selective checkpointing as torchtitan
    applies it (`selective_ac_option: op`): the outputs of the matmuls and of the fused
    attention are saved except every second matmul, which is recomputed with everything else
    (torchtitan `_apply_ac_to_transformer_block`: "Saves output of all compute ops, except every
    second mm"); plus the block's input, the checkpoint's own. bf16 throughout."""
    sbh = job.mbs * job.seq_len * model.hidden / (job.tp * job.cp)
    saved = sum(w for i, w in enumerate(_op_checkpoint_matmuls(model)) if i % 2 == 0)
    return 2.0 * (1.0 + saved + model.q_width / model.hidden) * sbh


def op_checkpoint_recompute_share(model: ModelSpec) -> float:
    """Share of a layer's matmul FLOPs the op-level policy recomputes (every second matmul; each
    matmul's FLOPs scale with its output width, all take the hidden size in except wo and w2)."""
    widths = _op_checkpoint_matmuls(model)
    inner = [1.0] * len(widths)
    inner[3] = model.q_width / model.hidden  # wo reads the attention output
    inner[-1] = widths[-3] if model.ffn == "swiglu" else widths[-2]  # w2 / fc2 reads the MLP width
    flops = [w * k for w, k in zip(widths, inner, strict=True)]
    return sum(f for i, f in enumerate(flops) if i % 2 == 1) / sum(flops)


def moe_permute_bytes(model: ModelSpec, job: Job) -> float:
    """HBM traffic of the MoE token permutation of one average layer, forward (one micro-batch,
    one GPU): dispatch and combine each read and write tokens x top-k x hidden bf16 values."""
    if model.moe is None:
        return 0.0
    tokens = job.mbs * job.seq_len / (job.tp * job.cp)
    return moe_share(model) * 2 * 2 * tokens * model.moe.top_k * model.hidden * 2.0


__all__ = [
    "LayerCosts",
    "LocalParams",
    "activation_bytes_per_layer",
    "layer_costs",
    "layer_gemms",
    "layers_per_stage",
    "local_params",
    "logits_gemm",
    "model_flops_per_step",
    "moe_permute_bytes",
    "moe_share",
    "op_checkpoint_bytes_per_layer",
    "op_checkpoint_recompute_share",
    "recomputed_module_units",
]
