"""What a failure costs a training job: the workload estimate on the intact and the degraded design.

`whatif --job FILE` (and the Single Failures table when the Workload tab has a job) estimates the
same job (workload/jobfile.py: model, degrees, batch, GPUs) on both designs with the workload
estimator, which leaves failed parts out as `simulate` does. Three figures are compared: step
time, tokens per second and facility energy per token (facility power x step time / tokens per
step). A degraded design on which the job cannot run as written (its GPUs are gone, so the
degrees no longer divide them; or its GPUs cannot reach each other) says why, and counts as
losing the job entirely.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rackdesigner.model import Layout
from rackdesigner.workload import Estimate, EstimateError, ModelFileError
from rackdesigner.workload.jobfile import JobSpec
from rackdesigner.workload.jobsearch import estimate_spec

#: compared figures, and whether a larger value is better
WORKLOAD_FIGURES = {"step_time_s": False, "tokens_per_s": True, "energy_J_per_token": False}
WORKLOAD_LABELS = {"step_time_s": "step time (s)", "tokens_per_s": "tokens/s",
                   "energy_J_per_token": "energy per token (J)"}


@dataclass(frozen=True)
class JobOutcome:
    """The job's figures on one design, or why it cannot run there."""

    figures: dict[str, float | None] = field(default_factory=dict)
    error: str = ""
    label: str = ""  # model and layout, for reports

    @property
    def ran(self) -> bool:
        return not self.error

    def to_dict(self) -> dict[str, Any]:
        if self.error:
            return {"error": self.error}
        return {k: (round(v, 6) if v is not None else None) for k, v in self.figures.items()}


def job_outcome(layout: Layout, spec: JobSpec) -> JobOutcome:
    """Estimate `spec` on `layout` (failed parts left out) and keep the compared figures."""
    try:  # a search job lays itself out on what survives (workload/jobsearch.py)
        est = estimate_spec(layout, spec)
    except EstimateError as exc:  # a job file's settings are its keys (gpus, tp)
        return JobOutcome(error=exc.worded(str))
    except ModelFileError as exc:
        return JobOutcome(error=str(exc))
    return outcome_of(est)


def outcome_of(est: Estimate) -> JobOutcome:
    label = f"{est.model.name} {est.job.label()} on {est.gpus:,} GPUs"
    if est.step_time_s is None:
        return JobOutcome(error=f"{label} does not fit in memory", label=label)
    tps = est.tokens_per_s
    energy = est.power_w[1] / tps if tps else None
    return JobOutcome({"step_time_s": est.step_time_s, "tokens_per_s": tps,
                       "energy_J_per_token": energy}, label=label)


def job_deltas(intact: JobOutcome, after: JobOutcome) -> dict[str, float | None]:
    """Relative change per figure; a job that no longer runs loses all its tokens/s (-1) and
    has no step time or energy (None)."""
    out: dict[str, float | None] = {}
    for key in WORKLOAD_FIGURES:
        a = intact.figures.get(key)
        b = after.figures.get(key)
        if not after.ran:
            out[key] = -1.0 if key == "tokens_per_s" else None
        elif a is None or b is None or a == 0:
            out[key] = None
        else:
            out[key] = round((b - a) / a, 6)
    return out


def job_loss(delta: dict[str, float | None] | None) -> float:
    """How much of the job's throughput a failure costs (0 .. 1; 0 without a job)."""
    if not delta:
        return 0.0
    v = delta.get("tokens_per_s")
    return max(0.0, -v) if v is not None else 0.0


__all__ = ["WORKLOAD_FIGURES", "WORKLOAD_LABELS", "JobOutcome", "job_deltas", "job_loss",
           "job_outcome", "outcome_of"]
