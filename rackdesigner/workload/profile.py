"""Efficiency profiles: what a software stack does that the hardware figures do not say.

The same GPU runs the same model at different speeds under Megatron-LM 2021 (softmax over the
s x s scores in HBM, no communication overlap in tensor parallelism), NeMo 2025 (fused
attention, Transformer Engine's fused norm + FP8 cast, tensor-parallel collectives pipelined
with the GEMMs, the expert all-to-all overlapped with another micro-batch) or PyTorch FSDP. A
profile names those choices once, with their sources, so that no figure is tuned per run: the
kind of attention kernel and its efficiency, the HBM bytes and kernel launches of every
memory-bound operation (norms, residual adds, dropout, activations, RoPE, FP8 casts, softmax,
cross-entropy, MoE permutation), the gap a kernel boundary costs, which collectives overlap
compute, how many SMs an overlapped collective takes from the GEMMs, the gradient-buffer
precision and the optimizer's bytes per parameter.

Bundled profiles live in `resources/workload/profiles/` (one file each); a user writes their own
(`--profile FILE`), usually as `base: nemo-2025` plus the keys that differ. Every error names the
file and line (`ProfileError`).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from rackdesigner._resources import resources_root
from rackdesigner.workload.models import ModelFileError, _compose, _Reader, _short

SCHEMA_VERSION = 1
DEFAULT_PROFILE = "nemo-2025"
ATTENTION_KINDS = ("flash", "unfused")
GRAD_DTYPES = ("fp32", "bf16")
#: What `--recompute selective` recomputes under a stack: Megatron's attention core, or
#: PyTorch's op-level selective checkpointing (every second matmul and the elementwise ops).
SELECTIVE_KINDS = ("attention", "ops")
#: Memory-bound operations a profile prices, per element of what they touch (docs/workload.md).
OPS = ("norm", "residual", "dropout", "gelu", "swiglu", "rope", "fp8_cast", "softmax",
       "attn_dropout", "cross_entropy", "moe_permute", "moe_router")
#: Operations whose output may carry the FP8 cast of the next GEMM's input (no cast kernel).
CAST_FUSIBLE = ("norm", "activation", "attention")
ARCHS = ("ampere", "hopper", "blackwell")
_TOP = ("schema_version", "name", "summary", "base", "attention", "attention_efficiency",
        "kernel_gap_us", "sequence_parallel", "ops", "fp8_casts_fused_into", "overlap",
        "grad_dtype", "weight_bytes", "optimizer_state_bytes", "optimizer_bytes_per_param",
        "fp8_param_gather", "moe", "selective_recompute", "pipeline", "sources")
_PIPELINE = ("scatter_gather", "sends_per_microbatch")
_OVERLAP = ("tp", "dp", "ep", "fsdp_prefetch", "comm_sms")
_OP_KEYS = ("bytes", "kernels")
_MOE = ("grouped_gemm_streams", "dispatch_host_us")


class ProfileError(ModelFileError):
    """A profile file (or name) that cannot be used: `file:line: what was expected`."""


@dataclass(frozen=True, slots=True)
class OpCost:
    """HBM bytes per element and kernel launches of one memory-bound operation."""

    bytes_fwd: float
    bytes_bwd: float
    kernels_fwd: int
    kernels_bwd: int


@dataclass(frozen=True, slots=True)
class Profile:
    id: str
    name: str
    summary: str
    attention: str  # flash: fused kernel, scores stay on chip; unfused: scores go through HBM
    attention_fwd: float  # share of the BF16 peak fused attention sustains, forward
    attention_bwd: float  # ... backward (counted as FlashAttention does: 2.5 x forward FLOPs)
    attention_by_arch: tuple[tuple[str, float, float], ...]  # (arch, forward, backward) overrides
    kernel_gap_us: float  # GPU idle per kernel boundary (launch and tail)
    sequence_parallel: bool  # TP splits norms, dropout and residuals over the tokens too
    ops: tuple[tuple[str, OpCost], ...]
    fp8_fused: frozenset[str]  # where the FP8 cast of the next GEMM's input is fused
    tp_overlap: bool  # TP/SP all-gather and reduce-scatter pipelined with their GEMMs
    dp_overlap: bool  # gradient reduction and parameter gather overlapped (buckets)
    ep_overlap: bool  # expert all-to-all overlapped with another micro-batch's compute
    fsdp_prefetch: int  # layers whose weights FSDP gathers ahead
    comm_sms: int  # SMs an overlapped collective takes from compute
    grad_dtype: str  # gradient buffer (accumulation and reduction) precision
    weight_bytes: int  # bytes per parameter the model keeps (2: bf16 + fp32 master in the
    optimizer_state_bytes: int  # optimizer state; 4: fp32 parameters are the master, FSDP)
    optimizer_bytes: float  # HBM traffic of the optimizer step per local parameter
    sources: tuple[str, ...]
    path: str = ""
    fp8_param_gather: bool = False  # FP8 jobs keep and gather the weights in FP8
    moe_streams: int = 0  # grouped GEMM as one GEMM per local expert on this many streams (0: one
    #                        grouped kernel)
    moe_dispatch_us: float = 0.0  # host time per MoE layer and micro-batch the GPU waits for
    selective_recompute: str = "attention"  # what `selective` recomputes (SELECTIVE_KINDS)
    pp_scatter_gather: bool = True  # each TP rank sends 1/TP of a stage's activations
    pp_sends: int = 2  # blocking sends/receives per micro-batch on a stage's critical path

    def op(self, name: str) -> OpCost:
        for key, cost in self.ops:
            if key == name:
                return cost
        raise KeyError(name)

    @property
    def flash(self) -> bool:
        return self.attention == "flash"

    def attention_efficiency(self, arch: str) -> tuple[float, float]:
        """(forward, backward) share of the BF16 peak fused attention sustains on `arch`."""
        for name, fwd, bwd in self.attention_by_arch:
            if name == arch:
                return fwd, bwd
        return self.attention_fwd, self.attention_bwd

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "summary": self.summary,
                "attention": self.attention,
                "attention_efficiency": {"forward": self.attention_fwd,
                                         "backward": self.attention_bwd,
                                         **{a: {"forward": f, "backward": b}
                                            for a, f, b in self.attention_by_arch}},
                "kernel_gap_us": self.kernel_gap_us, "sequence_parallel": self.sequence_parallel,
                "ops": {k: {"bytes": [c.bytes_fwd, c.bytes_bwd],
                            "kernels": [c.kernels_fwd, c.kernels_bwd]} for k, c in self.ops},
                "fp8_casts_fused_into": sorted(self.fp8_fused),
                "overlap": {"tp": self.tp_overlap, "dp": self.dp_overlap,
                            "ep": self.ep_overlap, "fsdp_prefetch": self.fsdp_prefetch,
                            "comm_sms": self.comm_sms},
                "grad_dtype": self.grad_dtype, "weight_bytes": self.weight_bytes,
                "optimizer_state_bytes": self.optimizer_state_bytes,
                "optimizer_bytes_per_param": self.optimizer_bytes,
                "fp8_param_gather": self.fp8_param_gather,
                "moe": {"grouped_gemm_streams": self.moe_streams,
                        "dispatch_host_us": self.moe_dispatch_us},
                "selective_recompute": self.selective_recompute,
                "pipeline": {"scatter_gather": self.pp_scatter_gather,
                             "sends_per_microbatch": self.pp_sends},
                "sources": list(self.sources)}


# ---- finding profiles ----------------------------------------------------------------------
def profiles_dir() -> Path:
    return resources_root() / "workload" / "profiles"


def bundled_profile_ids() -> list[str]:
    return sorted(p.stem for p in profiles_dir().glob("*.yaml"))


def bundled_profiles() -> list[Profile]:
    return [resolve_profile(i) for i in bundled_profile_ids()]


def resolve_profile(ref: str | Profile | None) -> Profile:
    """A bundled id (`nemo-2025`), a profile file's path, or None for the default."""
    if isinstance(ref, Profile):
        return ref
    return _resolve(ref or DEFAULT_PROFILE)


@lru_cache(maxsize=64)
def _resolve(ref: str) -> Profile:
    ids = bundled_profile_ids()
    if ref in ids:
        return load_profile_file(profiles_dir() / f"{ref}.yaml")
    path = Path(ref)
    if path.suffix in (".yaml", ".yml") or path.exists():
        return load_profile_file(path)
    close = difflib.get_close_matches(ref, ids, n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise ProfileError(ref, f"no bundled efficiency profile {ref!r} and no such file{hint}; "
                       f"bundled: {', '.join(ids)}")


def load_profile_file(path: str | Path, _chain: tuple[str, ...] = ()) -> Profile:
    node = _compose(path, ProfileError)
    return _ProfileReader(str(path), Path(path).stem, _chain).profile(node)


class _ProfileReader(_Reader):
    def __init__(self, path: str, stem: str, chain: tuple[str, ...]) -> None:
        super().__init__(path, stem)
        self.chain = chain

    def fail(self, line: int | None, message: str) -> ProfileError:
        return ProfileError(self.path, message, line)

    def number(self, node: Any, line: int, what: str, lo: float, hi: float) -> float:
        v = self.value(node)
        if isinstance(v, bool) or not isinstance(v, int | float) or not lo <= v <= hi:
            raise self.fail(line, f"{what} must be a number from {lo:g} to {hi:g}, got "
                            f"{_short(v)}")
        return float(v)

    def pair(self, node: Any, line: int, what: str, integer: bool = False) -> tuple:
        v = self.value(node)
        if isinstance(node, yaml.SequenceNode):
            v = [self.value(n) for n in node.value]
        if (not isinstance(v, list) or len(v) != 2
                or any(isinstance(x, bool) or not isinstance(x, int if integer else int | float)
                       or x < 0 for x in v)):
            kind = "whole numbers" if integer else "numbers"
            raise self.fail(line, f"{what} must be [forward, backward], two {kind} of at least "
                            f"0, got {_short(v)}")
        return tuple(v)

    def profile(self, root: Any) -> Profile:
        if root is None:
            raise self.fail(None, "the file is empty; expected an efficiency profile "
                            "(schema_version: 1, name, base or the full set of keys)")
        e = self.mapping(root, _TOP, "the profile file")
        node, line = e.get("schema_version", (None, root.start_mark.line + 1))
        if self.value(node) != SCHEMA_VERSION:
            raise self.fail(line, f"schema_version must be {SCHEMA_VERSION}, got "
                            f"{_short(self.value(node))}")
        base = None
        if "base" in e:
            node, line = e["base"]
            ref = self.value(node)
            if not isinstance(ref, str) or not ref:
                raise self.fail(line, f"base must be a profile id or file, got {_short(ref)}")
            if ref in self.chain or ref == self.stem:
                raise self.fail(line, f"base {ref!r} refers back to itself")
            beside = Path(self.path).parent / ref
            try:
                base = (load_profile_file(beside, (*self.chain, self.stem))
                        if beside.suffix in (".yaml", ".yml") and beside.exists()
                        else resolve_profile(ref))
            except ProfileError as exc:
                raise self.fail(line, f"base {ref!r}: {exc}") from None
        else:
            missing = [k for k in _TOP if k not in e
                       and k not in ("base", "summary", "fp8_param_gather", "moe",
                                     "selective_recompute", "pipeline")]
            if missing:
                raise self.fail(root.start_mark.line + 1, "missing required keys "
                                + ", ".join(missing) + " (or give base: a bundled profile)")
        out: dict[str, Any] = {} if base is None else {
            f: getattr(base, f) for f in Profile.__dataclass_fields__}
        out.update(id=self.stem, path=self.path)
        out.setdefault("attention_by_arch", ())
        out["name"] = self.text(e, "name") if "name" in e else out.get("name", self.stem)
        out["summary"] = self.text(e, "summary") if "summary" in e else out.get("summary", "")
        if "attention" in e:
            node, line = e["attention"]
            kind = self.value(node)
            if kind not in ATTENTION_KINDS:
                raise self.fail(line, f"attention must be one of {', '.join(ATTENTION_KINDS)}, "
                                f"got {_short(kind)}")
            out["attention"] = kind
        if "attention_efficiency" in e:
            node, line = e["attention_efficiency"]
            a = self.mapping(node, ("forward", "backward", *ARCHS), "attention_efficiency", line)
            for key, field in (("forward", "attention_fwd"), ("backward", "attention_bwd")):
                if key in a:
                    out[field] = self.number(*a[key], f"attention_efficiency.{key}", 0.01, 1.0)
                elif base is None:
                    raise self.fail(line, f"attention_efficiency is missing {key!r}")
            by_arch = dict((n, (f, b)) for n, f, b in out.get("attention_by_arch", ()))
            for arch in ARCHS:
                if arch in a:
                    sub = self.mapping(a[arch][0], ("forward", "backward"),
                                       f"attention_efficiency.{arch}", a[arch][1])
                    if set(sub) != {"forward", "backward"}:
                        raise self.fail(a[arch][1], f"attention_efficiency.{arch} needs forward "
                                        "and backward")
                    by_arch[arch] = tuple(self.number(*sub[k], f"attention_efficiency.{arch}.{k}",
                                                      0.01, 1.0) for k in ("forward", "backward"))
            out["attention_by_arch"] = tuple((n, *v) for n, v in sorted(by_arch.items()))
        if "kernel_gap_us" in e:
            out["kernel_gap_us"] = self.number(*e["kernel_gap_us"], "kernel_gap_us", 0, 1000)
        if "sequence_parallel" in e:
            out["sequence_parallel"] = self.flag(e, "sequence_parallel", True)
        if "selective_recompute" in e:
            node, line = e["selective_recompute"]
            if self.value(node) not in SELECTIVE_KINDS:
                raise self.fail(line, "selective_recompute must be one of "
                                + ", ".join(SELECTIVE_KINDS))
            out["selective_recompute"] = self.value(node)
        if "fp8_param_gather" in e:
            out["fp8_param_gather"] = self.flag(e, "fp8_param_gather", False)
        if "moe" in e:
            node, line = e["moe"]
            o = self.mapping(node, _MOE, "moe", line)
            if "grouped_gemm_streams" in o:
                out["moe_streams"] = self.integer(o, "grouped_gemm_streams", minimum=0)
            if "dispatch_host_us" in o:
                out["moe_dispatch_us"] = self.number(*o["dispatch_host_us"],
                                                     "moe.dispatch_host_us", 0, 1e6)
        if "ops" in e:
            out["ops"] = self.ops(*e["ops"], dict(out.get("ops", ())))
        if "fp8_casts_fused_into" in e:
            node, line = e["fp8_casts_fused_into"]
            items = [self.value(n) for n in node.value] if isinstance(
                node, yaml.SequenceNode) else None
            if items is None or any(i not in CAST_FUSIBLE for i in items):
                raise self.fail(line, "fp8_casts_fused_into must be a list of "
                                + ", ".join(CAST_FUSIBLE))
            out["fp8_fused"] = frozenset(items)
        if "overlap" in e:
            node, line = e["overlap"]
            o = self.mapping(node, _OVERLAP, "overlap", line)
            for key in ("tp", "dp", "ep"):
                if key in o:
                    out[f"{key}_overlap"] = self.flag(o, key, False)
            if "fsdp_prefetch" in o:
                out["fsdp_prefetch"] = self.integer(o, "fsdp_prefetch", minimum=0)
            if "comm_sms" in o:
                out["comm_sms"] = self.integer(o, "comm_sms", minimum=0)
            if base is None and any(k not in o for k in _OVERLAP):
                raise self.fail(line, "overlap needs " + ", ".join(_OVERLAP))
        if "pipeline" in e:
            node, line = e["pipeline"]
            o = self.mapping(node, _PIPELINE, "pipeline", line)
            if "scatter_gather" in o:
                out["pp_scatter_gather"] = self.flag(o, "scatter_gather", True)
            if "sends_per_microbatch" in o:
                out["pp_sends"] = self.integer(o, "sends_per_microbatch", minimum=1)
        if "grad_dtype" in e:
            node, line = e["grad_dtype"]
            if self.value(node) not in GRAD_DTYPES:
                raise self.fail(line, f"grad_dtype must be one of {', '.join(GRAD_DTYPES)}")
            out["grad_dtype"] = self.value(node)
        for key in ("weight_bytes", "optimizer_state_bytes"):
            if key in e:
                out[key] = self.integer(e, key, minimum=0)
        if "optimizer_bytes_per_param" in e:
            out["optimizer_bytes"] = self.number(*e["optimizer_bytes_per_param"],
                                                 "optimizer_bytes_per_param", 0, 1000)
        if "sources" in e:
            node, line = e["sources"]
            items = [self.value(n) for n in node.value] if isinstance(
                node, yaml.SequenceNode) else None
            if not items or any(not isinstance(i, str) or not i.strip() for i in items):
                raise self.fail(line, "sources must be a list of texts (where each figure "
                                "comes from)")
            out["sources"] = tuple(items)
        return Profile(**out)

    def ops(self, node: Any, line: int, inherited: dict[str, OpCost]
            ) -> tuple[tuple[str, OpCost], ...]:
        table = self.mapping(node, OPS, "ops", line)
        merged = dict(inherited)
        for name, (op_node, op_line) in table.items():
            entry = self.mapping(op_node, _OP_KEYS, f"ops.{name}", op_line)
            old = merged.get(name)
            if "bytes" in entry:
                b = self.pair(*entry["bytes"], f"ops.{name}.bytes")
            elif old is not None:
                b = (old.bytes_fwd, old.bytes_bwd)
            else:
                raise self.fail(op_line, f"ops.{name} needs bytes: [forward, backward]")
            if "kernels" in entry:
                k = self.pair(*entry["kernels"], f"ops.{name}.kernels", integer=True)
            elif old is not None:
                k = (old.kernels_fwd, old.kernels_bwd)
            else:
                raise self.fail(op_line, f"ops.{name} needs kernels: [forward, backward]")
            merged[name] = OpCost(float(b[0]), float(b[1]), int(k[0]), int(k[1]))
        missing = [o for o in OPS if o not in merged]
        if missing:
            raise self.fail(line, "ops is missing " + ", ".join(missing))
        return tuple((o, merged[o]) for o in OPS)


__all__ = ["DEFAULT_PROFILE", "OPS", "OpCost", "Profile", "ProfileError", "bundled_profile_ids",
           "bundled_profiles", "load_profile_file", "profiles_dir", "resolve_profile"]
