"""Training-step estimates in sweep results (`workload:` in a spec).

The one place a sweep touches the workload estimator (`rackdesigner.estimate`, JSON schema
`rackdesigner.estimate/1`): `check_workload` refuses a `workload:` value at spec-load time —
unknown options (with the closest match), a model that is neither bundled nor a readable model
file, degrees that are not whole numbers, unknown precision/recomputation/sharding — so nobody
waits for a thousand points to learn it; `estimate_columns` turns one point's estimate into the
result columns listed in `ESTIMATE_COLUMNS`. What depends on the point's GPU count (TP x PP x CP
dividing it, micro-batch x DP dividing the batch, memory) is decided per point: a point whose
job does not divide fails with that reason, a job that does not fit in memory has `fits` false
and no time. Nothing here makes a figure up.
"""

from __future__ import annotations

import difflib
from typing import Any

from rackdesigner.workload.jobfile import token_count

#: Columns taken from an estimate's JSON form (`rackdesigner.estimate/1`), in this order.
#: `time_to_train_days` and `energy_MWh` are filled when the workload gives `tokens`.
ESTIMATE_COLUMNS = ("step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "mfu",
                    "memory_per_gpu_GB", "fits", "energy_kWh_per_step", "time_to_train_days",
                    "energy_MWh")

#: The options of `rackdesigner.estimate` a spec may set (as on the command line).
DEGREES = ("gpus", "tp", "pp", "cp", "ep", "vp", "dp", "gbs", "mbs", "seq", "etp")
CHOICES = {"precision": ("bf16", "fp8", "fp4"), "recompute": ("none", "selective", "full"),
           "sharding": ("none", "optimizer", "full"), "grad_dtype": ("fp32", "bf16"),
           "dp_overlap": (True, False), "layout": ("fixed", "search")}
OPTIONS = ("model", "group", *DEGREES, *CHOICES, "profile", "tokens", "pue")
#: what a search workload (`layout: search`) chooses per point (workload/jobsearch.py)
SEARCHED = ("tp", "pp", "cp", "ep", "vp", "dp", "mbs", "etp", "recompute")


def check_workload(value: Any) -> str | None:
    """Why a spec's `workload:` value cannot be used, or None when it can."""
    if not isinstance(value, dict) or not value:
        return ("'workload' must be a mapping of `rackdesigner estimate` options "
                "(e.g. {model: llama3-70b, tp: 8, pp: 4, gbs: 1024, mbs: 1})")
    for key in value:
        if key not in OPTIONS:
            close = difflib.get_close_matches(str(key), OPTIONS, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            return f"'workload' has no option '{key}'; {hint}(it takes: {', '.join(OPTIONS)})"
    if "model" not in value:
        return "'workload' needs 'model': a bundled id (`rackdesigner models`) or a model file"
    if "gbs" not in value:
        return "'workload' needs 'gbs', the global batch in sequences"
    if value.get("layout") == "search":
        chosen = [k for k in SEARCHED if k in value]
        if chosen:
            return (f"'workload' option '{chosen[0]}': a search workload (layout: search) "
                    "chooses its own degrees on each point; remove it or set layout: fixed")
    for key in DEGREES:
        v = value.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            return f"'workload' option '{key}' must be a whole number of at least 1, got {v!r}"
    for key, allowed in CHOICES.items():
        if key in value and value[key] not in allowed:
            return (f"'workload' option '{key}' must be one of "
                    f"{', '.join(str(a) for a in allowed)}, "
                    f"got {value[key]!r}")
    if "profile" in value:
        from rackdesigner.workload.profile import resolve_profile

        try:
            resolve_profile(str(value["profile"]))
        except ValueError as exc:
            return f"'workload' profile: {exc}"
    if "group" in value and not isinstance(value["group"], str):
        return f"'workload' option 'group' must be a group name, got {value['group']!r}"
    if "pue" in value and (isinstance(value["pue"], bool)
                           or not isinstance(value["pue"], int | float) or value["pue"] < 1):
        return f"'workload' option 'pue' must be a number of at least 1, got {value['pue']!r}"
    if "tokens" in value:
        try:
            token_count(value["tokens"])
        except ValueError as exc:
            return f"'workload' option 'tokens': {exc}"
    if not isinstance(value["model"], str):
        return f"'workload' option 'model' must be a model id or file, got {value['model']!r}"
    from rackdesigner.workload import resolve_model

    try:
        resolve_model(value["model"])
    except ValueError as exc:
        return f"'workload' model: {exc}"
    return None


def estimate_columns(layout: Any, workload: dict[str, Any]) -> dict[str, Any]:
    """One point's estimate as result columns (see `ESTIMATE_COLUMNS`).

    Raises ValueError naming the estimate when the job cannot run on this point's GPUs (the
    point is then reported failed with that reason)."""
    from rackdesigner.workload import estimate
    options = dict(workload)
    model = options.pop("model")
    if "tokens" in options:
        options["tokens"] = token_count(options["tokens"])
    searched = options.pop("layout", "fixed") == "search"
    try:
        if searched:  # each point's own best layout, on its GPUs or fewer
            from rackdesigner.workload import Job
            from rackdesigner.workload.jobsearch import best_layout

            place = {k: options.pop(k) for k in ("gpus", "group", "pue", "tokens")
                     if k in options}
            result = best_layout(layout, model, Job(**options), **place).estimate
        else:
            result = estimate(layout, model, **options)
    except ValueError as exc:  # EstimateError, ModelFileError: the job does not fit this point
        raise ValueError(f"workload: {exc}") from None
    data = result.to_dict()
    return {name: data.get(name) for name in ESTIMATE_COLUMNS}
