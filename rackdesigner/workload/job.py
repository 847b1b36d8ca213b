"""A training job's layout on N GPUs: parallel degrees, batch, precision, recomputation.

Ranks are laid out as Megatron-Core/NeMo do (`parallel_state.initialize_model_parallel`, order
"tp-cp-ep-dp-pp"): TP innermost (consecutive GPUs, inside an NVLink domain when it fits), then
CP, then data parallel ranks (expert parallelism takes the innermost EP of them), pipeline
stages outermost. `groups()` gives each group's shape (stride and size), which is all the
communication model needs; `check()` refuses degrees that do not fit, naming the product that
does not divide.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from rackdesigner.vocabulary.wording import SettingError
from rackdesigner.workload.comm import GroupShape
from rackdesigner.workload.models import ModelSpec

PRECISIONS = ("bf16", "fp8", "fp4")  # as workload/hardware.py PRECISIONS
RECOMPUTE = ("none", "selective", "full")
SHARDING = ("none", "optimizer", "full")
GRAD_DTYPES = ("fp32", "bf16")
#: Megatron-Core's `recompute_modules` (with `recompute_granularity: selective`) the estimator's
#: activation and time terms separate: the attention core (normal checkpointing), and the
#: output-discarding recomputation of the pre-MLP norm and the experts' activation
#: (NVIDIA/Megatron-LM megatron/core/transformer/transformer_config.py, `recompute_modules`).
RECOMPUTE_MODULES = ("core_attn", "layernorm", "moe_act")


#: a job's settings in the design's words (vocabulary/wording.py); the CLI says `--tp`, the
#: Workload tab its fields' labels
JOB_WORDS = MappingProxyType({
    "tp": "TP", "pp": "PP", "cp": "CP", "ep": "EP", "vp": "VP", "dp": "DP", "etp": "expert TP",
    "gbs": "global batch", "mbs": "micro-batch", "seq": "sequence length", "gpus": "GPUs",
    "precision": "precision"})


class JobError(SettingError):
    """Parallel degrees, batch or options that cannot run (the message says which and why,
    naming the job's settings as `{name}`: vocabulary/wording.py)."""

    DESIGN_WORDS = JOB_WORDS


@dataclass(frozen=True, slots=True)
class Job:
    tp: int = 1
    pp: int = 1
    cp: int = 1
    ep: int = 1
    vp: int = 1
    dp: int | None = None  # None: what the GPU count leaves
    gbs: int = 1
    mbs: int = 1
    seq: int | None = None  # None: the model's default
    precision: str = "bf16"
    recompute: str = "selective"
    sharding: str = "optimizer"
    profile: str | None = None  # efficiency profile id or file; None: the default
    grad_dtype: str | None = None  # gradient buffer precision; None: the profile's
    dp_overlap: bool | None = None  # overlap the DP reduction (False: Megatron's "local" DDP)
    sequence_parallel: bool | None = None  # None: the profile's (Megatron 2021 had none)
    etp: int | None = None  # expert tensor parallelism; None: TP (Megatron-Core's default)
    #: what `selective` recomputes, by Megatron-Core's module names (RECOMPUTE_MODULES); None:
    #: the profile's `selective_recompute`
    recompute_modules: tuple[str, ...] | None = None

    @property
    def seq_len(self) -> int:
        """The sequence length of a resolved job (`resolved` fills it in from the model)."""
        if self.seq is None:
            raise JobError("the job is not resolved: it has no sequence length yet")
        return self.seq

    def resolved(self, gpus: int, model: ModelSpec) -> Job:
        """The job with DP and the sequence length filled in, checked against `gpus` and the
        model; raises `JobError` naming what does not fit."""
        for name in ("tp", "pp", "cp", "ep", "vp", "gbs", "mbs", "etp"):
            value = getattr(self, name)
            if name == "etp" and value is None:
                continue
            if not isinstance(value, int) or value < 1:
                raise JobError(f"{{{name}}} must be a whole number of at least 1, got "
                               f"{value!r}")
        if self.precision not in PRECISIONS:
            raise JobError(f"precision must be one of {', '.join(PRECISIONS)}")
        if self.recompute not in RECOMPUTE:
            raise JobError(f"recompute must be one of {', '.join(RECOMPUTE)}")
        modules = self.recompute_modules
        if modules is not None:
            unknown = [m for m in modules if m not in RECOMPUTE_MODULES]
            if unknown:
                name = str(unknown[0]).translate({ord("{"): None, ord("}"): None})[:40]
                raise JobError(f"{{recompute_modules}}: unknown module {name!r} (the "
                               f"estimator models Megatron-Core's "
                               f"{', '.join(RECOMPUTE_MODULES)})")
            if self.recompute != "selective":
                raise JobError("{recompute_modules} need {recompute} selective (Megatron-Core "
                               f"applies them only then), not {self.recompute}")
            modules = tuple(dict.fromkeys(modules))
        if self.sharding not in SHARDING:
            raise JobError(f"sharding must be one of {', '.join(SHARDING)}")
        if self.grad_dtype is not None and self.grad_dtype not in GRAD_DTYPES:
            raise JobError(f"grad_dtype must be one of {', '.join(GRAD_DTYPES)}")
        seq = model.seq_len if self.seq is None else self.seq
        if seq < 1:
            raise JobError(f"{{seq}} must be at least 1, got {seq}")
        mp = self.tp * self.pp * self.cp
        if self.dp is None:
            if gpus % mp:
                fit = gpus // mp * mp
                hint = f"; run it on {fit:,} of them (set {{gpus}} to {fit})" if fit else ""
                raise JobError(f"TP x PP x CP = {self.tp} x {self.pp} x {self.cp} = {mp} does not "
                               f"divide the {gpus:,} GPUs{hint}")
            dp = gpus // mp
        else:
            dp = self.dp
            if dp < 1 or mp * dp != gpus:
                raise JobError(f"TP x PP x CP x DP = {self.tp} x {self.pp} x {self.cp} x {dp} = "
                               f"{mp * dp:,} is not the {gpus:,} GPUs")
        if model.heads % self.tp:
            raise JobError(f"TP {self.tp} does not divide the model's {model.heads} attention "
                           "heads")
        if self.pp > model.layers:
            raise JobError(f"PP {self.pp} exceeds the model's {model.layers} layers")
        if self.vp > 1:
            if self.pp == 1:
                raise JobError("virtual stages ({vp}) need pipeline parallelism ({pp} > 1)")
            # one layer per model chunk, the embedding and the loss taking a chunk each
            # (Megatron-Core's accounted split, workload/stages.py) is the most there can be
            slots = self.pp * self.vp
            if slots > model.layers and slots != model.layers + 2:
                raise JobError(f"PP x VP = {slots} exceeds the model's "
                               f"{model.layers} layers")
        if seq % self.cp or (self.cp > 1 and seq % (2 * self.cp)):
            raise JobError(f"2 x CP = {2 * self.cp} does not divide the sequence length {seq} "
                           "(context parallelism splits it in 2 x CP chunks)")
        if self.tp > 1 and seq % (self.tp * self.cp):
            raise JobError(f"TP x CP = {self.tp * self.cp} does not divide the sequence length "
                           f"{seq} (sequence parallelism splits it across TP)")
        if model.moe is None and self.ep > 1:
            raise JobError(f"EP {self.ep} needs a mixture-of-experts model; {model.name} is dense")
        etp = self.tp if self.etp is None else self.etp
        if model.moe is not None:
            if model.moe.experts % self.ep:
                raise JobError(f"EP {self.ep} does not divide the model's {model.moe.experts} "
                               "experts")
            ranks = self.tp * self.cp * dp
            if ranks % (etp * self.ep):
                raise JobError(f"expert TP x EP = {etp} x {self.ep} = {etp * self.ep} does not "
                               f"divide TP x CP x DP = {self.tp} x {self.cp} x {dp} = {ranks} "
                               "(experts are spread over the ranks of a pipeline stage)")
            if etp > self.tp and etp % self.tp:
                raise JobError(f"expert TP {etp} must divide or be a multiple of TP {self.tp}")
        if self.gbs % (self.mbs * dp):
            raise JobError(f"micro-batch x DP = {self.mbs} x {dp} = {self.mbs * dp} does not "
                           f"divide the global batch {self.gbs}")
        m = self.gbs // (self.mbs * dp)
        if self.vp > 1 and m % self.pp:
            raise JobError(f"with virtual stages the {m} micro-batches per step must be a "
                           f"multiple of PP {self.pp} (global batch / (micro-batch x DP))")
        return replace(self, dp=dp, seq=seq, etp=etp if model.moe is not None else self.etp,
                       recompute_modules=modules)

    # ---- derived (on a resolved job) ---------------------------------------------------------
    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.cp * (self.dp or 1)

    @property
    def sp(self) -> bool:
        """Sequence parallelism: norms, dropout and residuals on 1/TP of the tokens each."""
        return self.sequence_parallel is not False

    @property
    def microbatches(self) -> int:
        return self.gbs // (self.mbs * (self.dp or 1))

    @property
    def expert_tp(self) -> int:
        return self.tp if self.etp is None else self.etp

    def groups(self) -> dict[str, GroupShape]:
        """Shapes of rank 0's groups (see the module docstring for the order). Experts fold
        over a stage's TP x CP x DP ranks as Megatron-Core's MoE parallel folding does: expert TP
        innermost, then EP, then the expert-data-parallel rest."""
        t, c, d, e, et = self.tp, self.cp, self.dp or 1, self.ep, self.expert_tp
        n = self.gpus
        return {
            "tp": GroupShape(1, t),
            "cp": GroupShape(t, c),
            "ep": GroupShape(et, e),
            "dp": GroupShape(t, c * d),  # dense gradients reduce over DP x CP
            "edp": GroupShape(et * e, max(1, t * c * d // (et * e))),  # expert gradients
            "pp": GroupShape(n // self.pp, 2),  # neighbouring stages
        }

    def concurrent_groups(self, key: str, n: int) -> tuple[tuple[int, ...], ...]:
        """First ranks of every group of `groups()[key]` over `n` ranks, by phase: the groups
        of one phase exchange at the same time. Megatron's layout: the groups of one shape
        partition the ranks, all in one phase; PP pairs every stage with the next, and a stage
        talks to one neighbour at a time (1F1B: send forward and receive backward, or the
        reverse), so boundaries after even stages and after odd ones are two phases."""
        shape = self.groups()[key]
        return _concurrent(key, shape.stride, shape.size, self.pp, n)

    def to_dict(self) -> dict[str, Any]:
        return {"tp": self.tp, "pp": self.pp, "cp": self.cp, "ep": self.ep, "vp": self.vp,
                "dp": self.dp, "gbs": self.gbs, "mbs": self.mbs, "seq": self.seq,
                "microbatches": self.microbatches, "precision": self.precision,
                "recompute": self.recompute, "sharding": self.sharding,
                "sequence_parallel": self.tp > 1 and self.sp, "grad_dtype": self.grad_dtype,
                "dp_overlap": self.dp_overlap, "expert_tp": self.etp,
                **({} if self.recompute_modules is None
                   else {"recompute_modules": list(self.recompute_modules)})}

    def label(self) -> str:
        parts = [f"TP{self.tp}", f"PP{self.pp}"]
        if self.vp > 1:
            parts.append(f"VP{self.vp}")
        if self.cp > 1:
            parts.append(f"CP{self.cp}")
        if self.ep > 1:
            parts.append(f"EP{self.ep}")
        if self.etp is not None and self.etp != self.tp:
            parts.append(f"ETP{self.etp}")
        parts += [f"DP{self.dp}", f"mbs {self.mbs}", f"recompute {self.recompute}"]
        if self.recompute_modules is not None:
            parts.append(f"[{', '.join(self.recompute_modules)}]")
        return " ".join(parts)


@lru_cache(maxsize=1024)
def _concurrent(key: str, stride: int, size: int, pp: int, n: int
                ) -> tuple[tuple[int, ...], ...]:
    if key == "pp":
        stage = n // pp
        return tuple(tuple(s * stage + i for s in range(odd, pp - 1, 2) for i in range(stage))
                     for odd in (0, 1) if odd < pp - 1)
    block = stride * size
    return (tuple(b * block + j for b in range(n // block) for j in range(stride)),)


__all__ = ["GRAD_DTYPES", "PRECISIONS", "RECOMPUTE", "RECOMPUTE_MODULES", "SHARDING", "Job",
           "JobError"]
