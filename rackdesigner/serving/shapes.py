"""What one token costs a served model: weight bytes, KV-cache bytes and FLOPs per layer.

Pure arithmetic over a `ModelSpec` (workload/models.py), the shared source of every model's
shape. Serving reads weights at the precision the checkpoint is quantized to (NVIDIA's FP8 and
NVFP4 checkpoints: the transformer GEMM weights; embeddings and the output layer stay bf16), and
keeps the KV cache in FP8 when the model runs in FP8 or FP4 (the KV-cache dtype of those
checkpoints), in bf16 otherwise (`KV_BYTES`, a stack may override it).

KV bytes per token and layer follow the attention: grouped-query attention keeps K and V of
`kv_heads` heads; multi-head latent attention (DeepSeek-V2/V3) keeps the compressed latent and
the shared RoPE key (kv_lora_rank + qk_rope_head_dim values, DeepSeek-V2 paper arXiv:2405.04434
section 2.1.2); sliding-window layers keep at most `window` tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.workload import hardware as H
from rackdesigner.workload.models import ModelSpec, resolve_model

#: Served names that are another bundled model's shape: DeepSeek-R1 is the DeepSeek-V3
#: architecture post-trained (DeepSeek-R1 paper arXiv:2501.12948 section 2: "built upon
#: DeepSeek-V3-Base"; config.json identical); Llama 3.3 70B has Llama 3 70B's architecture
#: (meta-llama/Llama-3.3-70B-Instruct config.json: 80 layers, hidden 8,192, 64 heads, 8 KV heads,
#: FFN 28,672; vocabulary 128,256); Llama 3.1 8B has Llama 3 8B's (meta-llama/Llama-3.1-8B
#: config.json: 32 layers, hidden 4,096, 32 heads, 8 KV heads, FFN 14,336; only the RoPE
#: scaling for 128k contexts differs, which the estimate does not read).
ALIASES = {"deepseek-r1": "deepseek-v3", "llama3.3-70b": "llama3-70b", "llama3.1-8b": "llama3-8b"}
#: Bytes per weight at each serving precision (NVFP4: 4-bit values + an FP8 scale per 16).
WEIGHT_BYTES = {"bf16": 2.0, "fp8": 1.0, "fp4": H.INPUT_BYTES["fp4"]}
#: KV-cache bytes per element by the serving precision (model assumption: FP8 KV cache with FP8
#: and FP4 weights, as NVIDIA's ModelOpt checkpoints ship it; bf16 otherwise).
KV_BYTES = {"bf16": 2.0, "fp8": 1.0, "fp4": 1.0}
#: Attention projections left unquantized (bf16) by an NVFP4 checkpoint (`TokenCosts.attn_w`)
BF16_ATTENTION_BYTES = 2.0


def served_model(ref: str | ModelSpec) -> ModelSpec:
    """A bundled model, an alias of one (`deepseek-r1`, `llama3.3-70b`) or a model file."""
    if isinstance(ref, str) and ref.lower() in ALIASES:
        return resolve_model(ALIASES[ref.lower()])
    return resolve_model(ref)


@dataclass(frozen=True, slots=True)
class TokenCosts:
    """Per-layer figures of one model at one precision (averaged over the layers)."""

    model: ModelSpec
    precision: str
    kv_dtype_bytes: float
    #: whether an NVFP4 checkpoint of a latent-attention model keeps its attention projections
    #: (and its MTP draft layer) in bf16, as NVIDIA's ModelOpt checkpoints do (`attn_w`)
    bf16_attention: bool = False

    @property
    def w(self) -> float:
        return WEIGHT_BYTES[self.precision]

    @property
    def attn_w(self) -> float:
        """Bytes per attention-projection weight: bf16 in an NVFP4 checkpoint of a
        latent-attention model (NVIDIA's DeepSeek-R1-0528-NVFP4 hf_quant_config.json, ModelOpt
        0.31: `exclude_modules` lm_head and every layer's `self_attn*`; TensorRT-LLM tech blog
        1, precision table: attention modules bf16), else the serving precision's."""
        if self.bf16_attention and self.precision == "fp4" and self.model.mla:
            return BF16_ATTENTION_BYTES
        return self.w

    # ---- KV cache ----------------------------------------------------------------------------
    def kv_values_per_layer(self) -> float:
        """Values one token keeps per layer (all heads)."""
        m = self.model
        if m.mla:
            return float(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim)
        return 2.0 * m.kv_heads * m.head_dim

    def kv_tokens(self, context: float) -> float:
        """Tokens of KV kept per layer on average for a sequence of `context` tokens."""
        m = self.model
        if m.window is None:
            return context
        windowed = sum(1 for i in range(m.layers) if i % m.window.every == 0)
        return (windowed * min(context, m.window.window)
                + (m.layers - windowed) * context) / m.layers

    def kv_bytes(self, context: float, shards: float = 1.0) -> float:
        """KV bytes of one sequence of `context` tokens over all layers, on one GPU holding
        1/`shards` of its heads."""
        return (self.model.layers * self.kv_tokens(context) * self.kv_values_per_layer()
                * self.kv_dtype_bytes / shards)

    def kv_shards(self, tp: int) -> float:
        """How many ways TP splits the KV cache: by KV heads (a head is never split: beyond
        `kv_heads` ranks it is replicated); MLA's latent is shared by the heads, so every TP
        rank keeps all of it (vLLM and TensorRT-LLM: why DeepSeek is served with attention
        data parallelism)."""
        if self.model.mla:
            return 1.0
        return float(min(tp, self.model.kv_heads))

    # ---- weights -----------------------------------------------------------------------------
    def attn_weight_bytes(self) -> float:
        return self.model.attn_params * self.attn_w

    def dense_mlp_bytes(self) -> float:
        return self.model.mlp_params(self.model.ffn_hidden) * self.w

    def expert_bytes(self) -> float:
        return self.model.expert_params * self.w

    def shared_bytes(self) -> float:
        m = self.model.moe
        return 0.0 if m is None else (m.shared_experts * self.model.expert_params
                                      + self.model.hidden * m.experts) * self.w

    def embed_bytes(self) -> float:
        """Embedding table and output layer (bf16)."""
        return self.model.embedding_params * 2.0

    # ---- FLOPs per token ---------------------------------------------------------------------
    def attn_core_flops(self, keys: float) -> float:
        """Score and value FLOPs of one query over `keys` keys in one layer (all heads). MLA
        decodes in the absorbed form (queries scored against the latent: kv_lora + rope wide,
        values read from the latent: kv_lora wide; DeepSeek-V2 section 2.1.2)."""
        m = self.model
        if m.mla:
            return 2.0 * m.heads * (2 * m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * keys
        return 2.0 * m.heads * (m.qk_dim + m.v_dim) * keys


def token_costs(model: ModelSpec, precision: str, kv_bytes: float | None = None,
                bf16_attention: bool = False) -> TokenCosts:
    return TokenCosts(model, precision, KV_BYTES[precision] if kv_bytes is None else kv_bytes,
                      bf16_attention)


def weights_per_gpu(c: TokenCosts, attn_split: int, mlp_split: int, experts_split: int,
                    pp: int) -> float:
    """Weight bytes one GPU holds: attention split `attn_split` ways (1: attention data
    parallel, every GPU keeps all of it), dense MLPs and shared experts `mlp_split` ways,
    routed experts `experts_split` ways, layers over `pp` stages, plus the embedding and
    output layers (split with the MLPs, on the first and last stage)."""
    m = c.model
    moe = m.moe_layers
    per_layer = (m.layers * c.attn_weight_bytes() / attn_split
                 + m.dense_layers * c.dense_mlp_bytes() / mlp_split
                 + moe * c.shared_bytes() / mlp_split)
    if m.moe:
        per_layer += moe * m.moe.experts * c.expert_bytes() / experts_split
    return per_layer / pp + c.embed_bytes() / mlp_split / (1 if pp == 1 else 2)


__all__ = ["ALIASES", "KV_BYTES", "WEIGHT_BYTES", "TokenCosts", "served_model", "token_costs",
           "weights_per_gpu"]
