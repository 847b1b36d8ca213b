"""What a what-if scenario compares: the figures of one simulation (`figures`), their relative
change (`deltas`), and one scenario's result (`Impact`, `ClassImpact` for a row of an N-1
table); each GPU's NVLink and NIC capacity (for the degraded-GPU count) is the simulation's
stage value (`simulation.stages.gpu_capacity`). Read by
`whatif.py` and the live panel."""

from __future__ import annotations

from dataclasses import dataclass, field

from rackdesigner.analysis.whatif_job import (
    WORKLOAD_FIGURES,
    JobOutcome,
    job_loss,
)
from rackdesigner.simulation import SimulationResult

#: The figures compared, in the order the panel and the CLI list them (power last: it falls).
FIGURES = ("largest_nvlink_domain", "per_gpu_scale_up_GBps", "per_gpu_scale_out_GBps",
           "bisection_GBps", "all_reduce_busbw_GBps", "all_to_all_busbw_GBps", "power_max_w")
FIGURE_LABELS = {
    "largest_nvlink_domain": "largest NVLink domain",
    "per_gpu_scale_up_GBps": "scale-up per GPU",
    "per_gpu_scale_out_GBps": "scale-out per GPU",
    "bisection_GBps": "bisection",
    "all_reduce_busbw_GBps": "all_reduce busbw",
    "all_to_all_busbw_GBps": "all_to_all busbw",
    "power_max_w": "power (max)",
}
DEFAULT_SIZE = 2**30
_TOL = 1e-9


def figures(result: SimulationResult, size: int = DEFAULT_SIZE) -> dict[str, float | None]:
    """The compared figures of one simulation; collectives at `size` bytes (None: unavailable)."""
    out: dict[str, float | None] = {
        "largest_nvlink_domain": float(result.scope.largest_nvlink_domain),
        "per_gpu_scale_up_GBps": result.bandwidth.per_gpu_scale_up_GBps,
        "per_gpu_scale_out_GBps": result.bandwidth.per_gpu_scale_out_GBps,
        "bisection_GBps": result.bandwidth.bisection_GBps,
    }
    for name in ("all_reduce", "all_to_all"):
        point = result.point_at(name, size)
        out[f"{name}_busbw_GBps"] = None if point is None else point.busbw_GBps
    out["power_max_w"] = result.power.total_max_w
    return out


def deltas(intact: dict[str, float | None], after: dict[str, float | None]
           ) -> dict[str, float | None]:
    """Relative change per figure (-0.0625 = 1/16 less); an unavailable figure counts as 0."""
    out: dict[str, float | None] = {}
    for key in FIGURES:
        a, b = intact.get(key), after.get(key)
        if a is None or a == 0:
            out[key] = None
            continue
        out[key] = round(((b or 0.0) - a) / a, 6)
    return out


@dataclass(frozen=True)
class Impact:
    """One scenario against the intact design."""

    failed: tuple[str, ...]
    failed_gpus: int
    stranded_gpus: int
    degraded_gpus: int
    partitioned: bool
    intact: dict[str, float | None]
    after: dict[str, float | None]
    delta: dict[str, float | None]
    result: SimulationResult | None = field(default=None, compare=False, repr=False)
    #: with a training job (`WhatIf(job=...)`): its figures on both designs and the change
    job_intact: JobOutcome | None = None
    job_after: JobOutcome | None = None
    job_delta: dict[str, float | None] | None = None

    def worst(self) -> float:
        """The largest relative loss among the figures and the job's tokens/s (0 when nothing
        drops; power ignored)."""
        losses = [-v for k, v in self.delta.items() if v is not None and k != "power_max_w"]
        return max([0.0, job_loss(self.job_delta), *losses])

    def severity(self) -> tuple:
        """Sort key, larger is worse: GPUs lost (failed or stranded), then the largest relative
        loss of a figure, then GPUs degraded."""
        return (self.stranded_gpus + self.failed_gpus, round(self.worst(), 6),
                self.degraded_gpus)


@dataclass(frozen=True)
class ClassImpact:
    """One row of an N-1 table: every member of `members` fails the same way."""

    members: tuple[str, ...]
    impact: Impact

    @property
    def count(self) -> int:
        return len(self.members)


def _alike(a: Impact, b: Impact) -> bool:
    if (a.stranded_gpus, a.degraded_gpus, a.failed_gpus) != (
            b.stranded_gpus, b.degraded_gpus, b.failed_gpus):
        return False
    pairs = [(a.delta.get(k), b.delta.get(k)) for k in FIGURES]
    pairs += [((a.job_delta or {}).get(k), (b.job_delta or {}).get(k)) for k in WORKLOAD_FIGURES]
    for x, y in pairs:
        if x is None or y is None:
            if (x is None) != (y is None):
                return False
        elif abs(x - y) > 1e-3:
            return False
    return True
