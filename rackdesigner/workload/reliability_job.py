"""A job file's (or the Workload tab's) training job as the failure model reads it
(`reliability.Job`): its GPUs, tokens/s, parameters (the checkpoint's size) and tokens to
train, from the workload estimate of the design — one function for the `reliability` verb and
the designer's Reliability tab. Here, not in `reliability`, since the workload engine sits above
the failure model."""

from __future__ import annotations

from typing import Any

from rackdesigner.model import Layout
from rackdesigner.reliability.report import Job


def job_figures(layout: Layout, spec: Any, pue: float | None = None) -> Job:
    """The `Job` of `spec` (a `workload.jobfile.JobSpec`) on `layout`; raises the workload's
    `EstimateError` (or `ModelFileError`) when it cannot run there."""
    from rackdesigner.workload.api import Estimator

    est = Estimator(layout, spec.model, gpus=spec.gpus, group=spec.group,
                    pue=pue).estimate(spec.job, spec.tokens)
    return Job(est.gpus, est.tokens_per_s, float(est.model.params), spec.tokens,
               f"{est.model.id} on {est.label}")


__all__ = ["job_figures"]
