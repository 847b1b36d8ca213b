"""The throughput-interactivity curve: every configuration and batch an instance can run, in
aggregated or disaggregated (xPyD) serving, reduced to its Pareto frontier.

Aggregated: one instance prefills and decodes (in-flight batching with chunked prefill). At B
sequences, a request's life costs the instance OSL decode steps shared by the B sequences plus
its own prefill: every B requests take T = OSL x step(B) + B x prefill-per-request, so each
sequence sees a token every T / OSL (prefill chunks stall the decode steps they ride on) and the
instance delivers B x OSL / T tokens per second. TTFT = one prompt's prefill plus a step.

Disaggregated: prefill instances and decode instances, the KV cache moved between them over the
drawn path (prefill GPUs first in rank order, decode GPUs after). A decode instance at batch B
finishes B / (OSL x step(B)) requests a second, a prefill instance 1 / prefill-per-request; the
pool sizes are the integers x (prefill) and y (decode) that fit the scope's GPUs and best match
the two rates (the tool's choice of xPyD); the system runs at the slower pool's rate. TTFT =
prefill + KV transfer + a decode step. Queueing delay is not modelled (model assumption).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rackdesigner.serving.instance import Config, Instance

MODES = ("aggregated", "disaggregated", "best")
#: Tokens a sequence gains per decode step with 0, 1, 2, 3 speculative draft tokens (the mean
#: acceptance length): DeepSeek-R1 FP4 with autoregressive MTP layers on 8 B200, ISL/OSL 1k/2k,
#: strict acceptance — 1.92, 2.58, 2.82 (NVIDIA TensorRT-LLM tech blog 1, "Pushing Latency
#: Boundaries: Optimizing DeepSeek-R1 Performance on NVIDIA B200 GPUs", table "Autoregressive MTP
#: Layers", docs/source/blogs/tech_blog/ in NVIDIA/TensorRT-LLM). Consistent with the DeepSeek-V3
#: technical report (arXiv:2412.19437 section 5.4.3: the second token accepted 85-90 % of the
#: time). Used for every model (model assumption: other models and draft heads accept alike).
ACCEPTED = (1.0, 1.92, 2.58, 2.82)
ACCEPTANCE = ACCEPTED[1] - 1.0  # the first draft token's acceptance
MAX_DRAFT = len(ACCEPTED) - 1


def tokens_per_step(draft: int) -> float:
    """Expected tokens a sequence gains per decode step with `draft` speculative tokens."""
    return ACCEPTED[draft]


@dataclass(frozen=True, slots=True)
class Point:
    mode: str
    output_per_gpu: float
    total_per_gpu: float
    per_user: float
    ttft_s: float
    tpot_s: float
    concurrency: int
    config: dict[str, Any] = field(compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"output_tokens_per_s_per_gpu": round(self.output_per_gpu, 2),
                "total_tokens_per_s_per_gpu": round(self.total_per_gpu, 2),
                "tokens_per_s_per_user": round(self.per_user, 2),
                "ttft_s": round(self.ttft_s, 4), "tpot_s": round(self.tpot_s, 5),
                "concurrency": self.concurrency, "mode": self.mode, "config": self.config}


def batches(limit: int, step: int = 1) -> list[int]:
    """Batch sizes tried: powers of two times `step` up to `limit`, and `limit` itself."""
    out: set[int] = set()
    b = 1
    while b * step <= limit:
        out.add(b * step)
        b *= 2
    if limit >= step:
        out.add(limit - limit % step)
    return sorted(out)


def aggregated(inst: Instance, isl: int, osl: int, n_gpus: int, draft: int = 0
               ) -> Iterable[Point]:
    ctx = isl + osl / 2.0
    cap = inst.max_sequences(isl + osl)
    if cap < 1:
        return
    cfg = inst.cfg
    moe = inst.moe
    per_req = inst.prefill_per_request(isl)
    first = inst.prefill_cached(isl, isl)
    instances = inst.links.instances  # aligned to the NVLink domains (links.aligned_starts)
    gain = tokens_per_step(draft)
    for b in batches(cap, cfg.batch_step):
        step = inst.decode_step(b, ctx, draft)
        cycle = osl / gain * step + b * per_req
        out = b * osl / cycle / cfg.gpus
        desc = dict(cfg.describe(moe), batch=b, label=cfg.label(moe), prefill=None,
                    decode=None, mtp=draft)
        yield Point("aggregated", out, out * (isl + osl) / osl, osl / cycle, first + step,
                    cycle / osl, b * instances, desc)


def disaggregated(prefills: list[Instance], decode: Instance, isl: int, osl: int,
                  n_gpus: int, transfer: Callable[[Instance, Instance, int], float],
                  draft: int = 0) -> Iterable[Point]:
    """Points of one decode configuration with the prefill configuration that gives each
    batch the most tokens per GPU."""
    ctx = isl + osl / 2.0
    cap = decode.max_sequences(isl + osl)
    gd = decode.cfg.gpus
    if cap < 1 or not prefills:
        return
    pre = [(p, 1.0 / p.prefill_per_request(isl), p.prefill_cached(isl, isl)) for p in prefills
           if p.cfg.gpus + gd <= n_gpus]
    gain = tokens_per_step(draft)
    for b in batches(cap, decode.cfg.batch_step):
        step = decode.decode_step(b, ctx, draft)
        r_d = b * gain / (osl * step)
        best: Point | None = None
        for p, r_p, first in pre:
            gp = p.cfg.gpus
            ratio = r_d / r_p
            # pools no larger than the scope, nor than the instances that fit its NVLink
            # domains (links.aligned_starts; each pool counted alone: a model assumption)
            y = min(max(1, math.floor(n_gpus / (gd + ratio * gp))), decode.links.instances)
            x = max(1, math.ceil(ratio * y))
            while y >= 1 and (x * gp + y * gd > n_gpus or x > p.links.instances):
                y -= 1
                x = max(1, math.ceil(ratio * y))
            if y < 1:
                continue
            rate = min(y * r_d, x * r_p)
            out = rate * osl / (x * gp + y * gd)
            if best is not None and out <= best.output_per_gpu:
                continue
            ttft = first + transfer(p, decode, x) + step
            conf = dict(decode.cfg.describe(decode.moe), batch=b, mtp=draft,
                        label=f"{x}P{y}D", prefill={
                            "instances": x, **p.cfg.describe(p.moe), "label": p.cfg.label(p.moe)},
                        decode={"instances": y, **decode.cfg.describe(decode.moe),
                                "label": decode.cfg.label(decode.moe)})
            # a full decode pool holds b sequences per instance; it is fed at `rate`
            busy = min(1.0, rate / (y * r_d))
            best = Point("disaggregated", out, out * (isl + osl) / osl, gain / step, ttft,
                         step / gain, round(b * y * busy), conf)
        if best is not None:
            yield best


def pareto(points: Iterable[Point]) -> list[Point]:
    """The points no other point beats on both tokens/s per GPU and tokens/s per user, from
    the most interactive to the highest throughput."""
    ordered = sorted(points, key=lambda p: (-p.per_user, -p.output_per_gpu))
    out: list[Point] = []
    for p in ordered:
        if not out or p.output_per_gpu > out[-1].output_per_gpu:
            out.append(p)
    return out


def at_target(front: list[Point], interactivity: float) -> Point | None:
    """The highest-throughput frontier point giving each user at least `interactivity`."""
    ok = [p for p in front if p.per_user >= interactivity]
    return max(ok, key=lambda p: p.output_per_gpu) if ok else None


def throughput_at(front: list[Point], interactivity: float) -> float | None:
    """Tokens/s per GPU of the frontier at exactly `interactivity` tokens/s per user,
    interpolated between its neighbouring points in log-log space (the public dashboards
    compare curves so, on an interpolated Pareto); None outside the curve's range."""
    pts = sorted((p.per_user, p.output_per_gpu) for p in front)
    for (u0, t0), (u1, t1) in itertools.pairwise(pts):
        if u0 <= interactivity <= u1:
            if u1 == u0:
                return max(t0, t1)
            f = math.log(interactivity / u0) / math.log(u1 / u0)
            return math.exp(math.log(t0) + f * (math.log(t1) - math.log(t0)))
    if pts and interactivity == pts[-1][0]:
        return pts[-1][1]
    return None


__all__ = ["ACCEPTANCE", "ACCEPTED", "MAX_DRAFT", "MODES", "Config", "Point", "aggregated",
           "at_target", "batches", "disaggregated", "pareto", "throughput_at", "tokens_per_step"]
