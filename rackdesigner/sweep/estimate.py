"""The hook for training-step estimates in sweep results (`workload:` in a spec).

The estimator itself is issue 16's (`rackdesigner.estimate(layout, **options)`, JSON schema
`rackdesigner.estimate/1`), built in parallel with the sweeps. This module is the one place a
sweep touches it: `check_workload` refuses a `workload:` key at spec-load time while no
estimator is present (so nobody waits for a thousand points to learn it), and
`estimate_columns` turns one estimate into the result columns listed in `ESTIMATE_COLUMNS`.
Nothing here fakes a figure: without the estimator there is no estimate column at all.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

#: Columns taken from an estimate's JSON form (`rackdesigner.estimate/1`), in this order.
ESTIMATE_COLUMNS = ("step_time_s", "tokens_per_s", "mfu", "memory_per_gpu_GB", "fits")


def estimator() -> Callable[..., Any] | None:
    """`rackdesigner.estimate` when this build has it (issue 16), else None."""
    module = importlib.import_module("rackdesigner")
    try:  # a lazy attribute of the package once the workload package is there
        found = module.estimate
    except (AttributeError, ImportError):
        return None
    return found if callable(found) else None


def check_workload(value: Any) -> str | None:
    """Why a spec's `workload:` value cannot be used, or None when it can."""
    if not isinstance(value, dict) or not value:
        return ("'workload' must be a mapping of `rackdesigner estimate` options "
                "(e.g. {model: llama3-70b, tp: 8, pp: 4, gbs: 1024, mbs: 1})")
    if estimator() is None:
        return ("'workload' needs the training-step estimator (rackdesigner.estimate, issue "
                "16), which this RackDesigner does not have yet; remove 'workload' to sweep "
                "the fabric figures only")
    return None


def estimate_columns(layout: Any, workload: dict[str, Any]) -> dict[str, Any]:
    """One point's estimate as result columns (see `ESTIMATE_COLUMNS`)."""
    estimate = estimator()
    if estimate is None:
        raise RuntimeError("the training-step estimator (rackdesigner.estimate) is missing on "
                           "this worker")
    result = estimate(layout, **workload)
    data = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    return {name: data.get(name) for name in ESTIMATE_COLUMNS}
