"""Serving software-stack profiles as data (`resources/serving/stacks.yaml`): what an engine
class leaves of the hardware (HBM share of a decode step, GEMM share of prefill, per-iteration
overhead) and its memory and batching limits. Every figure is sourced in the file or fitted on
the calibration rows of `benchmarks/serving_runs.yaml`; a stack without calibration rows of its
own inherits its `base`'s fitted figures (said in its sources)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any

from rackdesigner._resources import resources_root
from rackdesigner.yamlfile import read_resource

DEFAULT_STACK = "trtllm"


class StackError(ValueError):
    """An unknown stack id (the message lists the known ones)."""


@dataclass(frozen=True, slots=True)
class Stack:
    id: str
    name: str
    kv_fraction: float
    max_batch: int
    max_num_tokens: int
    activation_GB: float
    decode_hbm_share: float
    step_overhead_us: float
    seq_overhead_us: float
    fp4_gemm_share: float
    gemm_share: float
    layer_kernels: int
    kernel_gap_us: float
    #: the routed experts' grouped GEMMs' share of the dense GEMM rates (bandwidth and math)
    expert_gemm_share: float = 1.0
    #: the shortest a decode kernel takes under CUDA graphs (launch, grid start, drain), µs;
    #: 0: the decode step is priced by its work plus `layer_kernels` gaps instead
    kernel_floor_us: float = 0.0
    #: routing imbalance: the hottest EP rank's routed tokens over the mean, less one, as
    #: measured at EP 32 with 9 expert slots per rank (serving/kernels.hot_rank); 0: balanced
    expert_imbalance: float = 0.0
    #: GPU time per token-expert pair routed to a GPU, per MoE layer, ns (fitted; model
    #: assumption: what the pair costs beyond its GEMM FLOPs and the bytes priced for it)
    routed_pair_ns: float = 0.0
    #: where a wide-EP (attention-DP) instance sends tokens to their experts with an all-to-all:
    #: "any" layout (DeepEP's intra- and inter-node kernels), or "nvlink" — only an EP group
    #: wider than top-k inside one NVLink domain; every other one all-gathers the tokens and
    #: reduce-scatters the outputs (TensorRT-LLM's default)
    moe_alltoall: str = "any"
    #: attention projections of an NVFP4 latent-attention checkpoint: "fp4" (quantized like the
    #: rest) or "bf16" (left unquantized, with the MTP layer: NVIDIA's ModelOpt checkpoints)
    fp4_attention: str = "fp4"
    #: whether a wide-EP decode step may run as two micro-batches, one's dispatch and combine
    #: behind the other's compute: "two_batch" (SGLang's two-batch overlap, vLLM's dual-batch
    #: overlap) or "none" (an engine that documents no such mode)
    decode_overlap: str = "two_batch"
    sources: tuple[str, ...] = ()


_INTS = ("max_batch", "max_num_tokens", "layer_kernels")
#: keys whose values are words, and the words
_WORDS = {"moe_alltoall": ("any", "nvlink"), "fp4_attention": ("fp4", "bf16"),
          "decode_overlap": ("two_batch", "none")}
_NUMBERS = tuple(f.name for f in fields(Stack)
                 if f.name not in ("id", "name", "sources", *_WORDS))
_OPTIONAL = ("expert_gemm_share", "kernel_floor_us", "expert_imbalance",
             "routed_pair_ns")  # keys with a default


@lru_cache(maxsize=1)
def stacks() -> dict[str, Stack]:
    path = resources_root() / "serving" / "stacks.yaml"
    raw = read_resource(path)["stacks"]
    out: dict[str, Stack] = {}

    def build(key: str) -> Stack:
        if key in out:
            return out[key]
        d = raw[key]
        base = build(d["base"]) if "base" in d else None
        values: dict[str, Any] = {}
        for name in _NUMBERS:
            if name in d:
                values[name] = (int if name in _INTS else float)(d[name])
            elif base is not None:
                values[name] = getattr(base, name)
            elif name in _OPTIONAL:
                continue
            else:
                raise KeyError(f"{path}: stack {key!r} lacks {name!r}")
        for name, allowed in _WORDS.items():
            value = d.get(name, getattr(base, name) if base is not None else None)
            if value is not None:
                if value not in allowed:
                    raise KeyError(f"{path}: stack {key!r}: {name} must be one of "
                                   f"{', '.join(allowed)}, got {value!r}")
                values[name] = value
        out[key] = Stack(key, str(d["name"]), sources=tuple(d.get("sources", ())), **values)
        return out[key]

    for key in raw:
        build(key)
    return out


def resolve_stack(ref: str | None) -> Stack:
    table = stacks()
    key = ref or DEFAULT_STACK
    if key not in table:
        close = difflib.get_close_matches(key, list(table), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise StackError(f"unknown serving stack {key!r}{hint}; known: {', '.join(table)}")
    return table[key]


__all__ = ["DEFAULT_STACK", "Stack", "StackError", "resolve_stack", "stacks"]
