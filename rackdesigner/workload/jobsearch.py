"""A job that lays itself out on each design: the best layout over the GPU counts worth trying.

A job written for 1,024 GPUs (TP 8, EP 32, DP 4 ...) does not divide a 1,008-GPU design, and a
design that lost one NVL72 rack of fourteen has 936 GPUs on which the layout search may only
find pipelines with a 22 % bubble, where 864 GPUs lose ~14 %. A *search* job (`layout: search`
in a job file, or the Workload tab's "best" layout) names the model, the batch, the precision
and the tokens; each design gets the fastest layout the search finds on all of its GPUs **or on
fewer**: whole NVLink domains at a time, down to `MIN_SHARE` of them (at most `MAX_COUNTS`
counts tried: first those on which the batch spreads furthest over data-parallel replicas of a
domain each, then evenly spread). The winner is the highest tokens/s; the estimate's label says
when it leaves GPUs idle, and how many. On a cut fabric the job runs on the largest connected
part (a failure's job impact is the best layout on what survives).

Compare, `cost --job`, `whatif --job`, sweeps and the Workload tab all call `estimate_spec`, so a
job file means the same thing everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from math import gcd

from rackdesigner.model import Layout
from rackdesigner.workload.api import EstimateError, Estimator
from rackdesigner.workload.job import Job
from rackdesigner.workload.result import Estimate
from rackdesigner.workload.search import search

#: the fewest GPUs a search job may settle on, as a share of those it was given (a layout on
#: fewer is a different cluster, not a way to run this job on this one)
MIN_SHARE = 0.75
#: GPU counts searched at most (all GPUs, then fewer): each is a whole layout search
MAX_COUNTS = 4


@dataclass(frozen=True)
class Found:
    """The best layout found: its estimate, why it wins, and the GPUs it leaves idle."""

    estimate: Estimate
    why: str
    considered: int
    idle_gpus: int


def gpu_counts(gpus: int, domain: int, gbs: int | None = None) -> list[int]:
    """The GPU counts a search job tries: all `gpus`, then whole `domain`s fewer, down to
    `MIN_SHARE` of them, at most `MAX_COUNTS` in all, largest first. With the global batch
    `gbs`, the counts on which it divides over the most replicas of one domain each come first
    (`gcd(count / domain, gbs)`: 1,008 B200 GPUs and a batch of 256 have no layout that uses
    them all without a deep pipeline, 768 have 32 replicas of TP 8), then evenly spread ones."""
    if domain < 2 or gpus <= domain:
        return [gpus]
    top = gpus // domain * domain
    low = max(domain, -(-int(gpus * MIN_SHARE) // domain) * domain)
    fewer = [c for c in range(top, low - 1, -domain) if c != gpus]
    if len(fewer) < MAX_COUNTS:
        return [gpus, *fewer]
    chosen: list[int] = []
    if gbs is not None and gbs > 0:
        by_batch = sorted(fewer, key=lambda c: (gcd(c // domain, gbs), c), reverse=True)
        chosen = [c for c in by_batch[:MAX_COUNTS - 2] if gcd(c // domain, gbs) > 1]
    step = (len(fewer) - 1) / (MAX_COUNTS - 2)
    for c in (fewer[round(i * step)] for i in range(MAX_COUNTS - 1)):
        if len(chosen) < MAX_COUNTS - 1 and c not in chosen:
            chosen.append(c)
    return [gpus, *sorted(chosen, reverse=True)]


def best_layout(layout: Layout, model: str, base: Job, *, gpus: int | None = None,
                group: str | None = None, gpu_ids: Sequence[str] | None = None,
                pue: float | None = None, tokens: float | None = None,
                counts: Sequence[int] | None = None,
                fabric_tuning: str | None = None) -> Found:
    """The fastest layout of `base`'s batch and precision on the design's GPUs (all of them,
    or fewer: `gpu_counts`, or the caller's `counts`, largest first); `EstimateError` when no
    count has one that fits."""
    whole = Estimator(layout, model, gpus=gpus, group=group, gpu_ids=gpu_ids, pue=pue,
                      fabric_tuning=fabric_tuning, largest_part=True)
    if counts is None:
        counts = gpu_counts(whole.gpus, whole.comm.nvlink_domain(), base.gbs)
    best: Found | None = None
    errors: list[str] = []
    considered = 0
    for count in counts:
        est = whole if count == whole.gpus else Estimator(
            layout, model, gpus=count, group=group, gpu_ids=gpu_ids, pue=pue,
            fabric_tuning=fabric_tuning, largest_part=True)
        try:
            found = search(est, base, top=1, tokens=tokens)
        except EstimateError as exc:
            errors.append(str(exc))
            continue
        considered += found.considered
        if not found.ranked:
            continue
        top = found.ranked[0]
        tps = top.estimate.tokens_per_s or 0.0
        if best is None or tps > (best.estimate.tokens_per_s or 0.0):
            best = Found(top.estimate, top.why, 0, whole.gpus - count)
    if best is None:
        if considered:
            raise EstimateError(f"no layout of {model} on {whole.gpus:,} GPUs (or on fewer, "
                                f"down to {counts[-1]:,}) fits in memory ({considered:,} "
                                "layouts tried)")
        raise EstimateError(errors[0] if errors else f"no valid layout on {whole.gpus:,} GPUs")
    why = best.why
    if best.idle_gpus:
        why = (f"on {whole.gpus - best.idle_gpus:,} of the {whole.gpus:,} GPUs (faster than "
               f"any layout on all of them; {best.idle_gpus:,} idle): {why}")
    return replace(best, why=why, considered=considered)


def estimate_spec(layout: Layout, spec, tokens: float | None = None,
                  pue: float | None = None) -> Estimate:
    """A job file's job (`workload.jobfile.JobSpec`) on `layout`: its own degrees, or with
    `layout: search` the best layout `best_layout` finds there."""
    tokens = tokens if tokens is not None else spec.tokens
    pue = pue if pue is not None else spec.pue
    if getattr(spec, "search", False):
        return best_layout(layout, spec.model, spec.job, gpus=spec.gpus, group=spec.group,
                           pue=pue, tokens=tokens).estimate
    est = Estimator(layout, spec.model, gpus=spec.gpus, group=spec.group, pue=pue)
    return est.estimate(spec.job, tokens)


__all__ = ["MAX_COUNTS", "MIN_SHARE", "Found", "best_layout", "estimate_spec", "gpu_counts"]
