"""Training workloads on a design: models, step-time and memory estimates, layout search.

Pure Python (no Qt). `estimate(layout, model, ...)` answers "how fast will this model train on
this design": compute from per-layer FLOPs and the GPU's peak, communication from the simulation
engine's collective model on the drawn graph (`comm.py` is the only module that calls it),
memory per GPU against HBM. docs/workload.md explains the model and compares it with published
training runs.
"""

from __future__ import annotations

from rackdesigner.workload.api import EstimateError, Estimator, estimate
from rackdesigner.workload.job import Job, JobError
from rackdesigner.workload.models import (
    ModelFileError,
    ModelSpec,
    bundled_ids,
    bundled_models,
    load_model_file,
    resolve_model,
)
from rackdesigner.workload.result import SCHEMA, Estimate

__all__ = ["SCHEMA", "Estimate", "EstimateError", "Estimator", "Job", "JobError",
           "ModelFileError", "ModelSpec", "bundled_ids", "bundled_models", "estimate",
           "load_model_file", "resolve_model"]
