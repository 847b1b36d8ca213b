"""`serve(layout, model, ...)`: what a design does for a served model (the public entry).

Binds the scope's GPUs the way training's `Estimator` does (all, a group, the first N; failed
parts left out), tries every instance layout that fits (TP, PP, EP, attention-DP) at every
batch, aggregated and disaggregated, and returns the Pareto curve, the point at a target, the
saturation throughput, the KV capacity, and the dollars and energy per token.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from pathlib import Path
from types import MappingProxyType
from typing import Any

from rackdesigner.model import Layout
from rackdesigner.serving.frontier import (
    MAX_DRAFT,
    MODES,
    Point,
    aggregated,
    at_target,
    disaggregated,
    pareto,
    tokens_per_step,
)
from rackdesigner.serving.instance import Config, Instance
from rackdesigner.serving.links import Links
from rackdesigner.serving.shapes import ALIASES, served_model, token_costs
from rackdesigner.serving.stacks import Stack, StackError, resolve_stack
from rackdesigner.vocabulary.wording import SettingError, counted
from rackdesigner.workload import hardware as H
from rackdesigner.workload.api import EstimateError, Estimator
from rackdesigner.workload.comm import CommError
from rackdesigner.workload.models import ModelFileError, ModelSpec

SCHEMA = "rackdesigner.serve/1"
#: Widest instance tried (GPUs): beyond the largest NVLink domain of today's racks (72) wide EP
#: runs over the network, which the estimate then prices; 128 keeps the search bounded.
MAX_INSTANCE = 128
PIPELINE = (1, 2, 4)


class ServeError(SettingError):
    """A serving question that cannot be answered (unknown model, ISL 0, a precision the GPU
    lacks, no GPUs): the message says which setting and why."""

    DESIGN_WORDS = MappingProxyType({
        "model": "model", "precision": "precision", "isl": "input length",
        "osl": "output length", "gpus": "GPUs", "group": "group", "mode": "mode",
        "interactivity": "interactivity", "ttft": "TTFT", "stack": "stack",
        "mtp": "speculative tokens"})


@dataclass(frozen=True, slots=True)
class ServeResult:
    model: ModelSpec
    gpu_model: str
    gpus: int
    precision: str
    isl: int
    osl: int
    mode: str
    stack: Stack
    pareto: tuple[Point, ...]
    at: Point | None
    max_load: Point | None
    kv_capacity: dict[str, Any] | None
    power_w: float  # facility power of the scope
    usd_per_gpu_hour: float | None = None
    notes: tuple[str, ...] = field(default=())
    served_as: str = ""  # the id asked for when it is an alias (deepseek-r1)
    mtp: int = 0  # speculative draft tokens per decode step

    @property
    def title(self) -> str:
        """"DeepSeek-R1 (deepseek-v3 shape)" for an alias, else the model's name."""
        return (f"{self.served_as} ({self.model.id} shape)" if self.served_as
                else self.model.name)

    @property
    def basis(self) -> Point | None:
        """The point the cost and energy figures are for: the target's, else max load."""
        return self.at or self.max_load

    @property
    def usd_per_million_tokens(self) -> float | None:
        p = self.basis
        if p is None or not self.usd_per_gpu_hour or p.output_per_gpu <= 0:
            return None
        return self.usd_per_gpu_hour / (p.output_per_gpu * 3600.0) * 1e6

    @property
    def tokens_per_s_per_mw(self) -> float | None:
        p = self.basis
        if p is None or self.power_w <= 0:
            return None
        return p.output_per_gpu * self.gpus / (self.power_w / 1e6)

    @property
    def joules_per_output_token(self) -> float | None:
        p = self.basis
        if p is None or p.output_per_gpu <= 0:
            return None
        return self.power_w / (p.output_per_gpu * self.gpus)

    def to_dict(self) -> dict[str, Any]:
        def r(v: float | None, d: int) -> float | None:
            return None if v is None else round(v, d)

        return {"schema": SCHEMA, "model": self.served_as or self.model.id,
                "model_shape": self.model.id, "gpu_model": self.gpu_model,
                "gpus": self.gpus, "precision": self.precision, "isl": self.isl,
                "osl": self.osl, "mode": self.mode, "stack": self.stack.id, "mtp": self.mtp,
                "pareto": [p.to_dict() for p in self.pareto],
                "at": None if self.at is None else self.at.to_dict(),
                "max_load": None if self.max_load is None else self.max_load.to_dict(),
                "kv_capacity": self.kv_capacity,
                "usd_per_million_tokens": r(self.usd_per_million_tokens, 4),
                "tokens_per_s_per_mw": r(self.tokens_per_s_per_mw, 1),
                "joules_per_output_token": r(self.joules_per_output_token, 4),
                "notes": list(self.notes)}


def configs(model: ModelSpec, n_gpus: int, pin: dict[str, int | bool] | None = None
            ) -> list[Config]:
    """The instance layouts tried on `n_gpus` GPUs (`pin`: tp, pp, ep, attention_dp fixed)."""
    pin = pin or {}
    out = []
    s = 1
    while s <= min(n_gpus, MAX_INSTANCE):
        for pp in PIPELINE:
            if s * pp > n_gpus or (pp > 1 and model.layers < 2 * pp):
                continue
            for dp in ((False, True) if model.moe else (False,)):
                if dp and s == 1:
                    continue
                if model.moe and s > 1 and model.moe.experts % s:
                    continue
                if not dp and s > model.heads:
                    continue
                cfg = Config(s * pp, dp, pp)
                desc = cfg.describe(model.moe is not None)
                if all(desc.get(k) == v for k, v in pin.items()):
                    out.append(cfg)
        s *= 2
    return out


def draft_depths(mtp: int) -> tuple[int, ...]:
    """Speculative draft depths the search tries with `--mtp N`: 1 to N (none without it). A
    deployment sets the depth per configuration — the Dynamo TensorRT-LLM recipes behind
    InferenceX's DeepSeek-R1 runs use 3 draft tokens at batch 1-16 and 1 at 64-768 sequences
    per GPU (SemiAnalysisAI/InferenceX configs, dsr1-fp4-*-dynamo-trt) — since at a large
    batch the rejected draft tokens cost compute a smaller depth does not spend."""
    return tuple(range(1, mtp + 1)) or (0,)


def serve(layout: Layout | str | PathLike, model: str | ModelSpec, *, precision: str = "fp8",
          isl: int = 1024, osl: int = 1024, gpus: int | None = None, group: str | None = None,
          gpu_ids: Sequence[str] | None = None,
          mode: str = "best", interactivity: float | None = None, ttft: float | None = None,
          stack: str | None = None, pue: float | None = None,
          usd_per_gpu_hour: float | None = None,
          pin: dict[str, int | bool] | None = None, mtp: int = 0) -> ServeResult:
    """The serving curve of `model` on the design's GPUs (see the module docstring).

    Raises `ServeError` for input that cannot be served (naming the setting), `ModelFileError`
    for a bad model file. A model that fits in no layout is returned with an empty curve and a
    note giving the figures (never timed)."""
    if not isinstance(layout, Layout):
        from rackdesigner.io import load_layout

        layout = load_layout(Path(layout))
    for name, value in (("isl", isl), ("osl", osl)):
        if not isinstance(value, int) or value < 1:
            raise ServeError(f"{{{name}}} must be a whole number of tokens of at least 1, got "
                             f"{value!r}", option=name)
    if isinstance(mtp, bool) or not isinstance(mtp, int) or not 0 <= mtp <= MAX_DRAFT:
        raise ServeError(f"{{mtp}} must be a whole number from 0 to {MAX_DRAFT}, got {mtp!r}",
                         option="mtp")
    if mode not in MODES:
        raise ServeError(f"{{mode}} must be one of {', '.join(MODES)}", option="mode")
    if interactivity is not None and not interactivity > 0:
        raise ServeError("{interactivity} must be a positive tokens/s per user",
                         option="interactivity")
    if ttft is not None and not ttft > 0:
        raise ServeError("{ttft} must be a positive number of seconds", option="ttft")
    try:
        spec = served_model(model)
    except ModelFileError as exc:
        raise ServeError(f"{exc} (aliases: {', '.join(sorted(ALIASES))})",
                         option="model") from None
    try:
        the_stack = resolve_stack(stack)
    except StackError as exc:
        raise ServeError(str(exc), option="stack") from None
    try:
        est = Estimator(layout, spec, gpus=gpus, group=group, gpu_ids=gpu_ids, pue=pue)
    except EstimateError as exc:
        option = exc.option or ("group" if group is not None and "group" in str(exc)
                                else None)
        raise ServeError(exc.template, option=option) from None
    gpu = est.gpu
    problem = H.precision_error(gpu, precision)
    if problem:
        raise ServeError(f"{problem}: set {{precision}} to one it has", option="precision")
    result = _Run(est, spec, gpu, precision, isl, osl, the_stack, mtp).result(
        mode, interactivity, ttft, usd_per_gpu_hour, pin)
    alias = model.lower() if isinstance(model, str) and model.lower() in ALIASES else ""
    return replace(result, served_as=alias)


def speed_at(layout: Layout, model: str | ModelSpec, pin: dict[str, int | bool], batch: int,
             *, precision: str = "fp8", isl: int = 1024, osl: int = 1024,
             gpus: int | None = None, mtp: int = 0, stack: str | None = None) -> float:
    """Tokens/s one user of a decode instance gets (1 / TPOT) in the layout `pin` names (it must
    name one: gpus, attention_dp, pp) at `batch` sequences with `mtp` draft tokens, mid-way
    through its output — the figure a published per-point table gives beside its layout and
    concurrency (benchmarks/serving_validation.py, point "speed")."""
    spec = served_model(model)
    est = Estimator(layout, spec, gpus=gpus)
    run = _Run(est, spec, est.gpu, precision, isl, osl, resolve_stack(stack), mtp)
    found = configs(spec, est.gpus, pin)
    if len(found) != 1:
        raise ServeError(f"{{model}} has {len(found)} layouts matching {pin} on {est.gpus} GPUs",
                         option="model")
    step = run.instance(found[0]).decode_step(batch, isl + osl / 2.0, mtp)
    return tokens_per_step(mtp) / step


class _Run:
    def __init__(self, est: Estimator, model: ModelSpec, gpu: H.GpuCompute, precision: str,
                 isl: int, osl: int, stack: Stack, mtp: int = 0) -> None:
        self.est, self.model, self.gpu = est, model, gpu
        self.mtp = mtp
        self.precision, self.isl, self.osl, self.stack = precision, isl, osl, stack
        self.costs = token_costs(model, precision,
                                 bf16_attention=stack.fp4_attention == "bf16")
        self.n = est.gpus
        self._links: dict[int, Links] = {}

    def links(self, size: int) -> Links:
        if size not in self._links:
            self._links[size] = Links(self.est.comm, size)
        return self._links[size]

    def instance(self, cfg: Config) -> Instance:
        return Instance(self.costs, self.gpu, self.stack, cfg, self.links(cfg.gpus))

    def transfer(self, p: Instance, d: Instance, x: int) -> float:
        """KV of one prompt from a prefill GPU to a decode GPU, each shard in parallel."""
        shard = self.costs.kv_bytes(self.isl) / p.cfg.gpus
        start = x * p.cfg.gpus
        if start >= self.n:
            return 0.0
        return self.links(1).time("send_recv", shard, 2, stride=start)

    def result(self, mode: str, interactivity: float | None, ttft: float | None,
               usd: float | None, pin: dict[str, int | bool] | None) -> ServeResult:
        notes: list[str] = []
        cands = [self.instance(c) for c in configs(self.model, self.n, pin)]
        fitting = [i for i in cands if i.max_sequences(self.isl + self.osl) >= 1]
        points: list[Point] = []
        try:
            # draft depths tried: up to --mtp, as serving recipes pick per configuration (the
            # Dynamo TensorRT-LLM recipes InferenceX ran: 3 at small batches, 1 at the most
            # throughput; docs/serving.md)
            for draft in draft_depths(self.mtp):
                if mode in ("aggregated", "best"):
                    for inst in fitting:
                        points.extend(aggregated(inst, self.isl, self.osl, self.n, draft))
                if mode in ("disaggregated", "best") and self.n >= 2:
                    prefills = [i for i in fitting if i.cfg.pp == 1]
                    for inst in fitting:
                        points.extend(disaggregated(prefills, inst, self.isl, self.osl, self.n,
                                                    self.transfer, draft))
        except CommError as exc:
            raise ServeError(str(exc)) from None
        if not fitting:
            notes.append(self._refusal(cands))
        if ttft is not None:
            kept = [p for p in points if p.ttft_s <= ttft]
            if points and not kept:
                notes.append(f"no configuration reaches a TTFT of {ttft:g} s (best "
                             f"{min(p.ttft_s for p in points):.3g} s)")
            points = kept
        front = pareto(points)
        at = at_target(front, interactivity) if interactivity is not None else None
        if interactivity is not None and at is None and front:
            notes.append(f"no configuration gives {interactivity:g} tokens/s per user (most "
                         f"interactive: {front[0].per_user:.1f})")
        max_load = max(points, key=lambda p: p.output_per_gpu) if points else None
        kv = None
        if max_load is not None:
            cfg = next(i for i in fitting if i.cfg.label(i.moe) in (
                max_load.config["label"], (max_load.config.get("decode") or {}).get("label")))
            kv = {"context_tokens": self.isl + self.osl, "config": cfg.cfg.label(cfg.moe),
                  "requests_per_gpu": round(cfg.max_sequences(self.isl + self.osl)
                                            / cfg.cfg.gpus, 2),
                  "weights_GB_per_gpu": round(cfg.weights / 1e9, 2)}
        notes += [text for _, text in self.est.comm.warnings()]
        notes.append("model assumptions: balanced experts, " + (
            f"up to {counted(self.mtp, 'speculative token')} per step (the depth chosen "
            "per configuration), " + ", ".join(f"{tokens_per_step(d):g}" for d in
                                               draft_depths(self.mtp))
            + " tokens gained per step (DeepSeek-R1's published MTP acceptance)"
            if self.mtp else "no speculative decoding") + ", no queueing delay, no prefix "
            "caching; docs/serving.md")
        _, facility = self.est.comm.power_w()
        return ServeResult(self.model, self.gpu.model, self.n, self.precision, self.isl,
                           self.osl, mode, self.stack, tuple(front), at, max_load, kv,
                           facility, usd, tuple(notes), mtp=self.mtp)

    def _refusal(self, cands: list[Instance]) -> str:
        widest = min(cands, key=lambda i: i.weights, default=None)
        usable = H.usable_GB(self.gpu.capacity_GB)
        if widest is None:
            return f"{self.model.name} has no layout on {self.n} GPUs"
        return (f"{self.model.name} does not fit: at its widest layout on {self.n} GPUs "
                f"({widest.cfg.label(widest.moe)}) the weights alone take "
                f"{widest.weights / 1e9:.1f} GB per GPU at {self.precision}, the "
                f"{self.gpu.model} has {usable:.1f} GB usable less "
                f"{self.stack.activation_GB:g} GB of activations; not timed")


__all__ = ["SCHEMA", "ServeError", "ServeResult", "configs", "draft_depths", "serve",
           "speed_at"]
