"""Layout search: enumerate the valid parallel layouts of a job and rank them by step time.

Candidates: TP over the powers of two that divide the heads and stay inside the largest NVLink
domain (TP across domains is never better on today's fabrics), PP over the divisors of what is
left (at most one stage per layer), CP for long sequences, EP over the divisors of the expert
count, virtual stages, micro-batch sizes and the three recomputation modes; DP is what remains
of the GPU count and must divide the global batch. Memory is checked first (it needs no
communication figures), so layouts that do not fit cost nothing; the engine's figures are
shared across candidates through the estimator's per-shape cache.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from rackdesigner.workload import hardware as H
from rackdesigner.workload.api import EstimateError, Estimator
from rackdesigner.workload.job import RECOMPUTE, Job
from rackdesigner.workload.memory import memory_per_gpu
from rackdesigner.workload.result import Estimate

MBS_CHOICES = (1, 2, 4)
VP_CHOICES = (1, 2, 4, 8)
SUGGEST_MAX_PP = 8  # suggestions prefer layouts with at most this many pipeline stages
MIN_CP_CHUNK = 4096  # CP is considered only when every rank still holds this many tokens


@dataclass(frozen=True)
class Ranked:
    estimate: Estimate
    why: str


@dataclass(frozen=True)
class SearchResult:
    ranked: tuple[Ranked, ...]  # fitting layouts, fastest first
    considered: int  # valid layouts
    refused: int  # valid layouts that do not fit in memory
    simulations: int  # engine runs (distinct group shapes)


def _pow2_upto(n: int) -> list[int]:
    out, v = [], 1
    while v <= n:
        out.append(v)
        v *= 2
    return out


def candidates(est: Estimator, base: Job) -> list[Job]:
    """Every valid layout for `base`'s batch, precision and sharding on the estimator's GPUs."""
    model, n = est.model, est.gpus
    domain = est.comm.nvlink_domain()
    seq = base.seq or model.seq_len
    tps = [t for t in _pow2_upto(min(domain, model.heads)) if n % t == 0
           and model.heads % t == 0]
    cps = [c for c in _pow2_upto(seq // MIN_CP_CHUNK or 1) if c == 1 or seq >= 2 * MIN_CP_CHUNK]
    eps = ([e for e in range(1, model.moe.experts + 1) if model.moe.experts % e == 0]
           if model.moe else [1])
    out: list[Job] = []
    for t in tps:
        for c in cps:
            rest = n // t
            if rest % c:
                continue
            rest //= c
            for p in (p for p in range(1, min(rest, model.layers) + 1) if rest % p == 0):
                d = rest // p
                for e in eps:
                    if (d * c) % e:
                        continue
                    for vp in VP_CHOICES:
                        if vp > 1 and (p == 1 or p * vp > model.layers):
                            continue
                        for mbs in MBS_CHOICES:
                            for rc in RECOMPUTE:
                                job = replace(base, tp=t, pp=p, cp=c, ep=e, vp=vp, dp=None,
                                              mbs=mbs, recompute=rc,
                                              recompute_modules=base.recompute_modules
                                              if rc == "selective" else None)
                                try:
                                    out.append(est.resolve(job))
                                except EstimateError:
                                    continue
    return out


def search(est: Estimator, base: Job, top: int = 5, tokens: float | None = None,
           progress: Callable[[int, int], None] | None = None) -> SearchResult:
    if H.precision_error(est.gpu, base.precision):
        raise EstimateError(f"{H.precision_error(est.gpu, base.precision)}: set {{precision}} "
                            "to bf16")
    jobs = candidates(est, base)
    if not jobs:
        raise EstimateError(f"no valid layout of {est.gpus:,} GPUs for a global batch of "
                            f"{base.gbs} (DP must divide it){_what_would_work(est, base)}")
    fitting: list[Estimate] = []
    refused = 0
    for i, job in enumerate(jobs):
        if progress is not None and i % 64 == 0:
            progress(i, len(jobs))
        if not memory_per_gpu(est.model, job, est.gpu, est.profile_of(job)).fits:
            refused += 1
            continue
        try:
            fitting.append(est.estimate(job, tokens))
        except EstimateError:
            continue  # a group that cannot communicate on this design
    if progress is not None:
        progress(len(jobs), len(jobs))
    fitting.sort(key=lambda e: (e.step_time_s, e.memory.total_GB))
    best = fitting[:top]
    ranked = tuple(Ranked(e, _why(e, best[0] if best else None)) for e in best)
    return SearchResult(ranked, len(jobs), refused, est.comm.simulations)


def _data_parallel_degrees(est: Estimator, base: Job, gpus: int, max_pp: int) -> set[int]:
    """The DP degrees TP x PP x CP x DP = `gpus` allows with PP <= `max_pp` (the rules of
    `candidates`, batch aside)."""
    model = est.model
    domain = est.comm.nvlink_domain()
    seq = base.seq or model.seq_len
    tps = [t for t in _pow2_upto(min(domain, model.heads)) if gpus % t == 0
           and model.heads % t == 0]
    cps = [c for c in _pow2_upto(seq // MIN_CP_CHUNK or 1) if c == 1 or seq >= 2 * MIN_CP_CHUNK]
    out: set[int] = set()
    for t in tps:
        for c in cps:
            if (gpus // t) % c:
                continue
            rest = gpus // t // c
            out.update(rest // p for p in range(1, min(rest, model.layers, max_pp) + 1)
                       if rest % p == 0)
    return out


def _what_would_work(est: Estimator, base: Job) -> str:
    """'; a global batch of A or B works here, or N of the GPUs' — the nearest fixes, naming
    the settings to change as `{gbs}`, `{gpus}` (each surface words them: vocabulary/wording.py)."""
    n, gbs = est.gpus, base.gbs
    batches: list[int] = []
    fewer = None
    # first what a planner would pick (at most SUGGEST_MAX_PP pipeline stages), then anything
    for max_pp in (SUGGEST_MAX_PP, est.model.layers):
        multiples = {d * base.mbs for d in _data_parallel_degrees(est, base, n, max_pp)}
        below = max((gbs // m * m for m in multiples if gbs // m), default=0)
        above = min((-(-gbs // m) * m for m in multiples), default=0)
        batches = batches or [b for b in dict.fromkeys((below, above)) if b and b != gbs]
        fewer = fewer or next((m for m in range(n - 1, max(n // 2, n - 4096), -1)
                               if any(gbs % (d * base.mbs) == 0
                                      for d in _data_parallel_degrees(est, base, m, max_pp))),
                              None)
    hints = []
    if batches:
        hints.append(f"a global batch of {' or '.join(f'{b:,}' for b in batches)} works on "
                     f"these GPUs ({{gbs}})")
    if fewer is not None:
        hints.append(f"{gbs:,} works on {fewer:,} of them ({{gpus}})")
    return "; " + ", or ".join(hints) if hints else ": try another global batch ({gbs})"


def _why(e: Estimate, best: Estimate | None) -> str:
    b = e.breakdown
    t = e.step_time_s or 1.0
    parts = [f"compute {b['compute_s'] / t:.0%}",
             f"exposed comm {e.exposed_comm_s() / t:.0%}",
             f"bubble {b['pp_bubble_s'] / t:.0%}",
             f"memory {e.memory.total_GB:.0f} of {e.memory.usable_GB:.0f} GB usable"]
    if best is not None and best is not e and best.step_time_s and e.step_time_s is not None:
        diffs = {k: b[k] - best.breakdown[k] for k in b}
        worst = max(diffs, key=lambda k: diffs[k])
        if diffs[worst] > 0:
            parts.append(f"{(e.step_time_s - best.step_time_s) / best.step_time_s:+.1%} vs best, "
                         f"mostly {worst.removesuffix('_s').replace('_', ' ')}")
    return "; ".join(parts)


__all__ = ["Ranked", "SearchResult", "candidates", "search"]
