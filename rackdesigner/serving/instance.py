"""One serving instance: its parallel layout, what it holds in HBM and how long a decode step
and a prefill chunk take on the drawn design.

An instance of `gpus` GPUs runs `pp` pipeline stages of `gpus / pp` GPUs each. In a stage,
attention is tensor parallel over the stage (heads split, the KV cache split by KV heads) or
data parallel (`attn_dp`: each GPU attends its own sequences with all the attention weights:
TensorRT-LLM's `enable_attention_dp`, SGLang's `--enable-dp-attention`). MoE layers spread the
routed experts over the stage (EP, whole experts) and, with TP attention, combine them with an
all-reduce (TensorRT-LLM's "TEP"); with DP attention every MoE layer sends each token to its
top-k experts' GPUs and back (dispatch and combine all-to-all: "DEP", wide EP). Dense MLPs and
shared experts are split with the attention (TP) or kept whole on every GPU (DP attention).

A decode step (one token for each of the B sequences) on one GPU is priced per part as a
roofline — the larger of its HBM bytes (weights it reads, the KV cache of its sequences) at the
stack's sustained share of HBM bandwidth and its FLOPs at the GPU's sustained GEMM rate — plus
the collectives the layout needs, timed on the drawn links (`links.Links`), kernel gaps per
layer and a per-iteration overhead (the stack profile). A prefill chunk of T tokens is priced
the same way (it is compute-bound at any T worth batching). Communication is not overlapped
with compute (model assumption: decode kernels are too short to hide it), except that a wide-EP
decode step (attention DP, two or more sequences per rank) may run as two micro-batches, one's
dispatch and combine behind the other's compute, when that is faster (`_overlapped`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from rackdesigner.serving import kernels as K
from rackdesigner.serving.links import Links
from rackdesigner.serving.shapes import TokenCosts, weights_per_gpu
from rackdesigner.serving.stacks import Stack
from rackdesigner.workload import gemm as G
from rackdesigner.workload import hardware as H
from rackdesigner.workload.profile import resolve_profile


def default_profile():
    """The default efficiency profile (its memory-bound kernels' bytes per element)."""
    return resolve_profile(None)

#: Share of the peak the fused attention core sustains (training's FlashAttention forward
#: figure, workload/profile.py nemo-2025: 0.55 of the peak; model assumption for serving).
ATTENTION_SHARE = 0.55
#: Bytes per element of an MoE dispatch: FP8 tokens when the model runs in FP8 or FP4 (DeepEP's
#: low-latency dispatch sends FP8; TensorRT-LLM's NVFP4 all-to-all sends FP4), bf16 otherwise;
#: the combine returns bf16 (model assumption from those kernels' documented formats).
DISPATCH_BYTES = {"bf16": 2.0, "fp8": 1.0, "fp4": 1.0}


@dataclass(frozen=True, slots=True)
class Config:
    gpus: int
    attn_dp: bool = False
    pp: int = 1

    @property
    def stage(self) -> int:
        """GPUs of one pipeline stage (the TP / EP group)."""
        return self.gpus // self.pp

    @property
    def batch_step(self) -> int:
        """Batches come in multiples of this: a sequence per attention-DP rank, a micro-batch
        per pipeline stage (fewer leave stages idle, which the step model does not price)."""
        return (self.stage if self.attn_dp else 1) * self.pp

    def describe(self, moe: bool) -> dict[str, int | bool]:
        s = self.stage
        return {"gpus": self.gpus, "tp": 1 if self.attn_dp else s, "pp": self.pp,
                "ep": s if moe else 1, "dp": s if self.attn_dp else 1,
                "attention_dp": self.attn_dp}

    def label(self, moe: bool) -> str:
        s = self.stage
        head = (f"DEP{s}" if self.attn_dp else f"TEP{s}") if moe else f"TP{s}"
        return head + (f"xPP{self.pp}" if self.pp > 1 else "")


class Instance:
    """Step times and memory of one configuration of one model on one GPU model."""

    def __init__(self, costs: TokenCosts, gpu: H.GpuCompute, stack: Stack, config: Config,
                 links: Links) -> None:
        self.c, self.gpu, self.stack, self.cfg, self.links = costs, gpu, stack, config, links
        m = costs.model
        s = config.stage
        self.moe = m.moe is not None
        self.attn_split = 1 if config.attn_dp else s
        self.mlp_split = 1 if config.attn_dp else s
        peak = gpu.peak_tflops(costs.precision) or gpu.bf16_tflops
        # the measured MAMF ceiling (not training's sustained share: serving has its own,
        # `gemm_share`, fitted on the serving calibration rows)
        ceiling = gpu.gemm_ceiling(costs.precision)
        self.flops = peak * 1e12 * ceiling * stack.gemm_share * (
            stack.fp4_gemm_share if costs.precision == "fp4" else 1.0)
        attn_peak = gpu.bf16_tflops if costs.precision == "bf16" else (gpu.fp8_tflops or
                                                                        gpu.bf16_tflops)
        self.attn_flops = attn_peak * 1e12 * ATTENTION_SHARE
        self.hbm = gpu.hbm_TBps * 1e12 * stack.decode_hbm_share
        self.dev = G.Device(gpu.sms, self.flops, self.hbm, costs.w)
        # attention projections at their checkpoint precision (bf16 in NVFP4 MLA checkpoints:
        # shapes.TokenCosts.attn_w), at the bf16 GEMM rate when they are bf16
        bf16 = replace(self.dev, in_bytes=2.0, flops_per_s=gpu.bf16_tflops * 1e12
                       * gpu.gemm_ceiling("bf16") * stack.gemm_share)
        self.attn_dev = self.dev if costs.attn_w == costs.w else bf16
        # the routed experts' grouped GEMMs: each expert a small problem of its own (one
        # expert's weights, a few tokens) at the stack's fitted share of the dense rates
        self.expert_dev = self._experts(self.dev)
        #: routed tokens on the hottest expert rank over the mean (kernels.hot_rank)
        self.hot = K.hot_rank(stack.expert_imbalance, s, m.moe.experts / s) if m.moe else 1.0
        self.devs = (self.dev, self.attn_dev, self.expert_dev)
        #: the draft head's devices: an NVFP4 MLA checkpoint leaves its MTP layer unquantized
        #: (TensorRT-LLM modeling_deepseekv3.py `_get_decoder_layer_quant_config`: "The MTP
        #: layer in the nvfp4 checkpoint is unquantized"; tech blog 1: MTP layers bf16)
        self.draft_devs = (bf16, bf16, self._experts(bf16)) if costs.attn_w != costs.w \
            else self.devs
        self.ops = default_profile()
        self.weights = weights_per_gpu(costs, self.attn_split, self.mlp_split, s, config.pp)

    # ---- memory ------------------------------------------------------------------------------
    def kv_budget(self) -> float:
        """Bytes of KV cache one GPU may hold: usable HBM less weights and the activation
        workspace, times the stack's KV share of what is left (0: the weights do not fit)."""
        free = (H.usable_GB(self.gpu.capacity_GB) - self.stack.activation_GB) * 1e9 \
            - self.weights
        return max(0.0, free * self.stack.kv_fraction)

    def fits(self) -> bool:
        return self.kv_budget() > 0

    def kv_per_sequence(self, context: float) -> float:
        """KV bytes one sequence of `context` tokens takes on a GPU that holds it."""
        shards = 1.0 if self.cfg.attn_dp else self.c.kv_shards(self.cfg.stage)
        return self.c.kv_bytes(context, shards) / self.cfg.pp

    def max_sequences(self, context: float) -> int:
        """Sequences of `context` tokens the instance holds at once (TP: every rank holds a
        slice of each; DP attention: each GPU its own)."""
        per_gpu = int(self.kv_budget() // max(1.0, self.kv_per_sequence(context)))
        n = per_gpu * self.cfg.stage if self.cfg.attn_dp else per_gpu
        return max(0, min(n, self.stack.max_batch * (self.cfg.stage if self.cfg.attn_dp
                                                      else 1)))

    # ---- GEMMs --------------------------------------------------------------------------------
    def _experts(self, dev: G.Device) -> G.Device:
        share = self.stack.expert_gemm_share
        return replace(dev, flops_per_s=dev.flops_per_s * share,
                       bytes_per_s=dev.bytes_per_s * share)

    def layer_gemms(self, tokens: float) -> tuple[list[G.Gemm], list[G.Gemm], float]:
        """(GEMMs of every layer, GEMMs of the MoE layers only, share of MoE layers) one GPU
        runs for `tokens` tokens of its stage; `tokens` is the stage's micro-batch (decode) or
        chunk (prefill). Attention's projections are one GEMM of their weights' width; MoE
        experts one grouped GEMM over the local experts some token picked, each with the
        tokens routed to it (balanced routing)."""
        m, cfg = self.c.model, self.cfg
        s, h = cfg.stage, m.hidden
        local = tokens / s if cfg.attn_dp else tokens  # tokens whose attention runs here
        up = 2 if m.ffn == "swiglu" else 1
        every = [G.Gemm("attn", local, m.attn_params / h / self.attn_split, h)]
        dense, moe = m.dense_layers / m.layers, m.moe_layers / m.layers
        if dense:
            f = m.ffn_hidden / self.mlp_split
            every += [G.Gemm("fc1", local, up * f, h, count=dense),
                      G.Gemm("fc2", local, h, f, count=dense)]
        moe_gemms: list[G.Gemm] = []
        if m.moe:
            k, e, f = m.moe.top_k, m.moe.experts, m.moe.expert_ffn_hidden
            hit = 1.0 - (1.0 - k / e) ** max(tokens, 0.0)  # experts some token picks
            groups = max(1, round(e / s * hit))
            routed = tokens * k / s * self.hot  # token-expert pairs on the hottest GPU
            moe_gemms = [G.Gemm("expert.fc1", routed / groups, up * f, h, groups),
                         G.Gemm("expert.fc2", routed / groups, h, f, groups)]
            if m.moe.shared_experts:
                fs = m.moe.shared_experts * f / self.mlp_split
                moe_gemms += [G.Gemm("shared.fc1", local, up * fs, h),
                              G.Gemm("shared.fc2", local, h, fs)]
        return every, moe_gemms, moe

    def gemm_s(self, tokens: float, devs: tuple[G.Device, ...] | None = None) -> float:
        """Seconds of an average layer's GEMMs (wave-quantized, HBM-bounded: workload/gemm.py)
        on `devs` (dense, attention, experts; default the checkpoint's own)."""
        dense, attn, experts = devs or self.devs
        every, moe_gemms, moe = self.layer_gemms(tokens)
        return (sum(G.gemm_time_s(g, attn if g.name == "attn" else dense) for g in every)
                + moe * sum(G.gemm_time_s(g, experts if g.name.startswith("expert")
                                          else dense) for g in moe_gemms))

    def elementwise_s(self, tokens: float) -> float:
        """Seconds of an average layer's memory-bound kernels for `tokens` tokens of the stage:
        norms, residual adds, RoPE, the MLP activation, MoE router and token permutation, by
        the forward HBM bytes per element of the default efficiency profile (the same fused
        kernels serve inference: workload/profile.py, nemo-2025), plus the stack's fitted time
        per routed token-expert pair (`routed_pair_ns`: a model assumption, docs/serving.md)."""
        m, cfg = self.c.model, self.cfg
        s, h = cfg.stage, m.hidden
        local = tokens / s if cfg.attn_dp else tokens
        op = self.ops.op
        width = (2 * op("norm").bytes_fwd + 2 * op("residual").bytes_fwd) * h
        if m.rope:
            width += op("rope").bytes_fwd * (m.q_width + m.kv_heads * m.head_dim) \
                / self.attn_split
        act = op(m.ffn).bytes_fwd
        dense, moe = m.dense_layers / m.layers, m.moe_layers / m.layers
        elems = local * width + dense * local * act * m.ffn_hidden / self.mlp_split
        pairs = 0.0  # token-expert pairs routed to this GPU
        if m.moe:
            pairs = moe * tokens * m.moe.top_k / s * self.hot  # on the hottest GPU
            elems += (pairs * act * m.moe.expert_ffn_hidden + pairs * h * op("moe_permute")
                      .bytes_fwd + moe * local * m.moe.experts * op("moe_router").bytes_fwd)
        return elems / self.hbm + pairs * self.stack.routed_pair_ns * 1e-9

    # ---- decode ------------------------------------------------------------------------------
    def decode_step(self, batch: int, context: float, draft: int = 0) -> float:
        """Seconds of one decode step of `batch` sequences (the TPOT without speculation).
        With `draft` speculative tokens (MTP / EAGLE-style: a one-layer draft head run once
        per draft token), the step verifies 1 + draft tokens of each sequence at once: its
        GEMMs, attention queries and messages carry them all, the KV cache is read once."""
        m, c, cfg = self.c.model, self.c, self.cfg
        s = cfg.stage
        bm = batch / cfg.pp  # sequences of one pipeline micro-batch
        q = 1 + draft  # query tokens per sequence per step
        L = m.layers
        # the attention core: the KV cache of the GPU's sequences against their scores
        seqs_kv = bm / s if cfg.attn_dp else bm
        kv = seqs_kv * c.kv_bytes(context) / L / (1.0 if cfg.attn_dp else c.kv_shards(s))
        core = max(kv / self.hbm,
                   q * bm * c.attn_core_flops(c.kv_tokens(context)) / s / self.attn_flops)
        if self.stack.kernel_floor_us > 0:  # the per-kernel latency model (kernels.py)
            gaps = 0.0
            layer = self._kernel_layer(q * bm, core)
        else:
            gaps = self.stack.layer_kernels * self.stack.kernel_gap_us * 1e-6
            work = self.gemm_s(q * bm) + self.elementwise_s(q * bm) + core
            layer = work + self._layer_comm(q * bm) + gaps
        if self.overlaps(bm):
            layer = min(layer, self._overlapped(q * bm, core) + gaps)
        local = bm / s if cfg.attn_dp else bm
        logits = G.Gemm("logits", q * local, m.vocab / self.mlp_split, m.hidden)
        vocab_t = G.gemm_time_s(logits, replace(self.dev, in_bytes=2.0))
        stage = L / cfg.pp * layer
        send = self.links.time("send_recv", q * bm * m.hidden * H.ACT_BYTES, 2, s) \
            if cfg.pp > 1 else 0.0
        scheduled = batch / s if cfg.attn_dp else batch  # sequences one scheduler serves
        step = (cfg.pp * stage + vocab_t + (cfg.pp - 1) * send
                + (self.stack.step_overhead_us + self.stack.seq_overhead_us * scheduled) * 1e-6)
        if draft:  # the draft head: one average layer and the logits per draft token
            if self.stack.kernel_floor_us > 0:
                body = self._kernel_layer(bm, 0.0, self.draft_devs)
            else:
                body = self.gemm_s(bm, self.draft_devs) + self.elementwise_s(bm) \
                    + self._layer_comm(bm) + gaps
            head = body + G.gemm_time_s(replace(logits, m=local), replace(self.dev, in_bytes=2.0))
            step += draft * head
        return step

    def _kernel_layer(self, tokens: float, core: float,
                      devs: tuple[G.Device, ...] | None = None) -> float:
        """Seconds of an average decode layer as the kernels the engine launches, each at
        least the stack's floor (serving/kernels.py): the attention projections, the
        attention kernel, the memory-bound kernels, routing and the routed experts' grouped
        GEMMs (the shared expert on its own stream beside them), and the layer's collectives
        — a TP group's all-reduces as the kernel its host gives it."""
        m, cfg = self.c.model, self.cfg
        fl = self.stack.kernel_floor_us * 1e-6
        dense, attn, experts = devs or self.devs
        every, moe_gemms, moe = self.layer_gemms(tokens)
        mla = m.mla is not None
        t = 0.0
        for g in every:
            n = K.ATTN_GEMM_KERNELS[mla] if g.name == "attn" else g.count
            t += K.floored(G.gemm_time_s(g, attn if g.name == "attn" else dense), n, fl)
        routed = sum(G.gemm_time_s(g, experts) for g in moe_gemms
                     if g.name.startswith("expert"))
        shared = sum(G.gemm_time_s(g, dense) for g in moe_gemms
                     if g.name.startswith("shared"))
        if m.moe:
            t += moe * max(K.floored(routed, K.EXPERT_KERNELS, fl), shared)
        split = self.cfg.stage > 1 and not cfg.attn_dp
        # memory-bound kernels: the attention's own, routing, and the norms a fused all-reduce
        # does not carry (attention DP: the post-attention and next-layer RMSNorm)
        kernels = K.ATTN_ELEMENTWISE_KERNELS[mla] + (0 if split else 2) \
            + (moe * K.ROUTER_KERNELS if m.moe else 0)
        t += K.floored(self.elementwise_s(tokens), kernels, fl) + max(core, fl)
        return t + self._kernel_comm(tokens, fl, moe if m.moe else 0.0)

    def _kernel_comm(self, tokens: float, fl: float, moe: float) -> float:
        """Collective seconds of an average layer under the per-kernel model: a TP group's two
        all-reduces as TensorRT-LLM's custom kernels inside an NVLink domain (one host: IPC,
        with the MoE's local reduction fused in; several hosts: MNNVL, with a separate
        finalize kernel) or NCCL across NICs; wide-EP exchanges as the engine times them."""
        s = self.cfg.stage
        if s <= 1:
            return 0.0
        if self.cfg.attn_dp:
            return self._layer_comm(tokens)
        size = tokens * self.c.model.hidden * H.ACT_BYTES
        if not self.links.in_domain:
            return 2.0 * max(fl, self.links.time("all_reduce", size, s))
        ar = K.custom_all_reduce_s(size, s, self.links.nvlink_Bps(s), fl)
        finalize = moe * fl if s > self.links.host_gpus else 0.0
        return 2.0 * ar + finalize

    def overlaps(self, seqs: float) -> bool:
        """Whether a decode step of `seqs` sequences per micro-batch can run as two halves
        overlapping each other's expert all-to-all (wide EP with attention DP, at least two
        sequences per rank)."""
        s = self.cfg.stage
        return bool(self.stack.decode_overlap == "two_batch" and self.moe and self.cfg.attn_dp
                    and s > 1 and seqs >= 2 * s)

    def _overlapped(self, tokens: float, core: float) -> float:
        """An average layer run as two micro-batches of half the tokens, one's dispatch and
        combine hidden behind the other's compute (DeepSeek-V3's decode overlap, arXiv:
        2412.19437 section 3.4; SGLang's two-batch overlap; DeepEP's low-latency hooks): the
        slower of the two halves' compute (each reads the weights again) and their
        communication."""
        half = tokens / 2.0
        compute = 2.0 * (self.gemm_s(half) + self.elementwise_s(half)) + core
        return max(compute, 2.0 * self._layer_comm(half))

    def _layer_comm(self, tokens: float) -> float:
        """Collective seconds of an average layer for `tokens` tokens of the stage."""
        m, cfg = self.c.model, self.cfg
        s = cfg.stage
        if s <= 1:
            return 0.0
        h = m.hidden
        if not cfg.attn_dp:  # one all-reduce after attention, one after the MLP / MoE
            return 2.0 * self.links.time("all_reduce", tokens * h * H.ACT_BYTES, s)
        if not m.moe:
            return 0.0
        share = m.moe_layers / m.layers
        if not self.alltoall:  # every rank gathers every token, then reduce-scatters outputs
            dispatch = self.links.time("all_gather", tokens * h * DISPATCH_BYTES[
                self.c.precision], s)
            combine = self.links.time("reduce_scatter", tokens * h * H.ACT_BYTES, s)
            return share * (dispatch + combine)
        per_gpu = tokens / s * m.moe.top_k * h * self.hot  # what the hottest rank receives
        dispatch = self.links.time("all_to_all", per_gpu * DISPATCH_BYTES[self.c.precision], s)
        combine = self.links.time("all_to_all", per_gpu * H.ACT_BYTES, s)
        return share * (dispatch + combine)

    @property
    def alltoall(self) -> bool:
        """Whether this wide-EP instance's MoE layers exchange tokens with an all-to-all (else
        all-gather and reduce-scatter): always with a stack whose kernels cross nodes (DeepEP);
        with TensorRT-LLM's default ("nvlink") only for an EP group wider than top-k inside
        one NVLink domain — its WideEPMoE.select_alltoall_method_type picks no all-to-all when
        EP <= top-k (nothing to save) and, without multi-node NVLink memory, only DeepEP on an
        opt-in (TRTLLM_CAN_USE_DEEP_EP), else falls back to all-gather/reduce-scatter."""
        m = self.c.model
        if self.stack.moe_alltoall == "any" or m.moe is None:
            return True
        return self.cfg.stage > m.moe.top_k and self.links.in_domain

    # ---- prefill -----------------------------------------------------------------------------
    def prefill_chunk(self, tokens: float, isl: float) -> float:
        """Seconds for the instance to prefill `tokens` prompt tokens of prompts `isl` long
        (through every stage: the latency of one chunk)."""
        m, c, cfg = self.c.model, self.c, self.cfg
        s = cfg.stage
        L = m.layers
        # a chunk passes the stages one after another: each does 1/pp of the layers
        core = tokens * c.attn_core_flops(c.kv_tokens(isl) / 2.0) / s \
            / self.attn_flops  # causal: a prompt token scores half its prompt on average
        layer = self.gemm_s(tokens) + self.elementwise_s(tokens) + core \
            + self._layer_comm(tokens)
        send = 0.0
        if cfg.pp > 1:
            send = (cfg.pp - 1) * self.links.time("send_recv", tokens * m.hidden * H.ACT_BYTES,
                                                  2, s)
        requests = max(1.0, tokens / isl)  # each prompt's last token goes through the logits
        local = requests / s if cfg.attn_dp else requests
        out = G.gemm_time_s(G.Gemm("logits", local, m.vocab / self.mlp_split, m.hidden),
                            replace(self.dev, in_bytes=2.0))
        return L * layer + send + out + L * self.stack.layer_kernels \
            * self.stack.kernel_gap_us * 1e-6 + self.stack.step_overhead_us * 1e-6

    @functools.lru_cache(maxsize=64)  # noqa: B019 (instances live for one estimate)
    def prefill_cached(self, tokens: float, isl: float) -> float:
        return self.prefill_chunk(tokens, isl)

    def prefill_per_request(self, isl: float) -> float:
        """Instance-seconds of prefill one request costs when prompts are batched into chunks
        of the stack's `max_num_tokens` (throughput, not latency)."""
        chunk = float(max(self.stack.max_num_tokens, isl))
        # pp chunks are in flight at once, one per stage
        return self.prefill_cached(chunk, isl) / self.cfg.pp * isl / chunk


__all__ = ["ATTENTION_SHARE", "DISPATCH_BYTES", "Config", "Instance"]
