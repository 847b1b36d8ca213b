"""A transformer's shape as a value (`ModelSpec`, with its mixture-of-experts, latent-attention
and sliding-window blocks) and the figures derived from it once: parameter counts (total, active,
per block), attention widths, keys per query. `models.py` reads model files into it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_MOE_KEYS = ("experts", "top_k", "expert_ffn_hidden", "shared_experts", "every", "first_dense")


@dataclass(frozen=True, slots=True)
class MoeSpec:
    experts: int
    top_k: int
    expert_ffn_hidden: int
    shared_experts: int = 0
    every: int = 1  # every n-th layer (after the dense ones) is an MoE layer
    first_dense: int = 0  # this many leading layers stay dense


@dataclass(frozen=True, slots=True)
class MlaSpec:
    """Multi-head latent attention (DeepSeek-V2/V3): low-rank query and key/value projections."""

    q_lora_rank: int
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int


@dataclass(frozen=True, slots=True)
class WindowSpec:
    """Sliding-window (banded) attention on every `every`-th layer (from the first): each query
    attends to at most `window` keys (gpt-oss: window 128 on every second layer)."""

    window: int
    every: int = 1


@dataclass(frozen=True, slots=True)
class ModelSpec:
    id: str
    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn_hidden: int
    ffn: str
    vocab: int
    seq_len: int
    source: str
    moe: MoeSpec | None = None
    mla: MlaSpec | None = None
    tie_embeddings: bool = False
    path: str = ""
    head_dim_: int = 0  # per-head width when it is not hidden / heads (gpt-oss: 64 x 64 > 2,880)
    window: WindowSpec | None = None
    dropout: float = 0.0  # hidden and attention dropout in training (GPT-2/3 era: 0.1)
    rope: bool = True  # rotary position embeddings (a kernel per layer); False: learned/ALiBi

    # ---- shape -------------------------------------------------------------------------------
    @property
    def head_dim(self) -> int:
        return self.head_dim_ or self.hidden // self.heads

    @property
    def q_width(self) -> int:
        """Width of the queries (and of the attention output) of one layer, all heads."""
        return self.heads * self.head_dim

    def keys_per_query(self, seq: int) -> float:
        """Keys each query scores, averaged over the layers, in the FLOP convention (causal
        masking not halved): the sequence, or the window on sliding-window layers."""
        if self.window is None:
            return float(seq)
        windowed = sum(1 for i in range(self.layers) if i % self.window.every == 0)
        return (windowed * min(seq, self.window.window)
                + (self.layers - windowed) * seq) / self.layers

    @property
    def qk_dim(self) -> int:
        """Per-head width of queries and keys (scores cost 2 x s x heads x qk_dim per token)."""
        if self.mla:
            return self.mla.qk_nope_head_dim + self.mla.qk_rope_head_dim
        return self.head_dim

    @property
    def v_dim(self) -> int:
        return self.mla.v_head_dim if self.mla else self.head_dim

    def is_moe_layer(self, index: int) -> bool:
        m = self.moe
        if m is None or index < m.first_dense:
            return False
        return (index - m.first_dense) % m.every == 0

    @property
    def moe_layers(self) -> int:
        return _moe_layers(self)

    @property
    def dense_layers(self) -> int:
        return self.layers - self.moe_layers

    # ---- parameters (matmul weights; norms and biases are < 0.1 % and left out) --------------
    @property
    def attn_params(self) -> int:
        h = self.hidden
        if self.mla:
            a = self.mla
            qk = a.qk_nope_head_dim + a.qk_rope_head_dim
            return (h * a.q_lora_rank + a.q_lora_rank * self.heads * qk
                    + h * (a.kv_lora_rank + a.qk_rope_head_dim)
                    + a.kv_lora_rank * self.heads * (a.qk_nope_head_dim + a.v_head_dim)
                    + self.heads * a.v_head_dim * h)
        kv = self.kv_heads * self.head_dim
        return 2 * h * self.q_width + 2 * h * kv

    def mlp_params(self, ffn_hidden: int) -> int:
        return (3 if self.ffn == "swiglu" else 2) * self.hidden * ffn_hidden

    @property
    def expert_params(self) -> int:
        """Weights of one routed expert."""
        return self.mlp_params(self.moe.expert_ffn_hidden) if self.moe else 0

    @property
    def moe_layer_dense_params(self) -> int:
        """Weights of an MoE layer every token uses (router and shared experts)."""
        m = self.moe
        if m is None:
            return 0
        return self.hidden * m.experts + m.shared_experts * self.expert_params

    @property
    def embedding_params(self) -> int:
        return self.vocab * self.hidden * (1 if self.tie_embeddings else 2)

    @property
    def params(self) -> int:
        """All parameters (every expert counted)."""
        total = self.layers * self.attn_params + self.dense_layers * self.mlp_params(
            self.ffn_hidden)
        if self.moe:
            total += self.moe_layers * (self.moe_layer_dense_params
                                        + self.moe.experts * self.expert_params)
        return total + self.embedding_params

    @property
    def active_params(self) -> int:
        """Parameters one token uses (top-k routed experts only)."""
        total = self.layers * self.attn_params + self.dense_layers * self.mlp_params(
            self.ffn_hidden)
        if self.moe:
            total += self.moe_layers * (self.moe_layer_dense_params
                                        + self.moe.top_k * self.expert_params)
        return total + self.embedding_params

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "name": self.name, "layers": self.layers, "hidden": self.hidden,
            "heads": self.heads, "kv_heads": self.kv_heads, "ffn_hidden": self.ffn_hidden,
            "ffn": self.ffn, "vocab": self.vocab, "seq_len": self.seq_len,
            "params_B": round(self.params / 1e9, 2),
            "active_params_B": round(self.active_params / 1e9, 2),
            "moe": None if self.moe is None else {
                k: getattr(self.moe, k) for k in _MOE_KEYS},
            "source": self.source,
        }
        return out


@lru_cache(maxsize=256)
def _moe_layers(model: ModelSpec) -> int:
    return sum(model.is_moe_layer(i) for i in range(model.layers))
