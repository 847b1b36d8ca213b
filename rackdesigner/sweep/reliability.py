"""Reliability columns of sweep results (always on, with the bundled failure library): a
point's interruptions per day, MTBF, the largest set of GPUs one fault stops and the ETTR at
the optimum checkpoint interval, and with a workload the effective tokens/s (tokens/s x the
time that trains; docs/reliability.md)."""

from __future__ import annotations

from typing import Any

RELIABILITY_COLUMNS = ("interruptions_per_day", "mtbf_hours", "blast_radius_gpus", "ettr")
JOB_RELIABILITY_COLUMNS = ("effective_tokens_per_s",)


def reliability_columns(layout: Any, workload: dict[str, Any] | None,
                        estimate: dict[str, Any] | None) -> dict[str, Any]:
    """One point's reliability figures as result columns."""
    import math

    from rackdesigner.reliability import Job, assess, load_library

    job = None
    tokens_per_s = (estimate or {}).get("tokens_per_s")
    if workload is not None and tokens_per_s:
        from rackdesigner.workload.models import resolve_model

        per_gpu = estimate.get("tokens_per_s_per_gpu") if estimate else None
        gpus = round(tokens_per_s / per_gpu) if per_gpu else None
        if gpus:
            job = Job(gpus, tokens_per_s, float(resolve_model(workload["model"]).params))
    a = assess(layout, load_library(), job=job)
    out: dict[str, Any] = {
        "interruptions_per_day": round(a.interruptions_per_day, 4),
        "mtbf_hours": round(a.mtbf_hours, 3) if math.isfinite(a.mtbf_hours) else None,
        "blast_radius_gpus": a.blast_radius_gpus,
        "ettr": round(a.ettr, 4),
    }
    if workload is not None:
        eff = a.effective_tokens_per_s
        out["effective_tokens_per_s"] = round(eff, 1) if eff is not None else None
    return out


__all__ = ["JOB_RELIABILITY_COLUMNS", "RELIABILITY_COLUMNS", "reliability_columns"]
