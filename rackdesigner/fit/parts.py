"""One part of a composition, measured on a real design: `count` systems of one type on
their own fabric (`generate mixed --systems system:count`), with the figures a site and a
budget check (IT power, heat to liquid and to air, racks, capex, TCO) and the training
throughput of the job re-laid-out on the part's GPUs (the estimator's layout search).

`measure_part` is the task `fit` sends to the sweep engine's workers (local processes or a
Dask cluster): it never raises; a part that cannot be built or has no valid layout comes back
with `error` set."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: The part figures, in the order a part row lists them.
FIGURES = ("gpus", "it_w", "liquid_w", "air_w", "racks", "capex", "tco", "tokens_per_s",
           "gpus_used", "layout")


@dataclass(frozen=True, slots=True)
class PartKey:
    system: str
    count: int  # NVL72 racks or nodes
    switch: str
    oversubscription: float

    @property
    def systems(self) -> str:
        return f"{self.system}:{self.count}"


def build_part(key: PartKey, catalog: Any = None):
    from rackdesigner.generators import generate

    return generate("mixed", catalog, systems=key.systems, switch=key.switch,
                    oversubscription=key.oversubscription)


def measure_part(key: PartKey, job: Any = None) -> dict[str, Any]:
    """The figures of one part (see the module docstring); `job` is a training `JobSpec`, a
    serving `ServeJob` (serving/jobfile.py) or None."""
    row: dict[str, Any] = {"key": key, "error": None}
    try:
        layout = build_part(key)
        row.update(design_figures(layout))
        if job is not None:
            row.update(serving_throughput(layout, job) if hasattr(job, "isl")
                       else throughput(layout, job))
    except (ValueError, KeyError) as exc:  # GeneratorError, EstimateError: data, not a crash
        row["error"] = str(exc).strip("'\"")
    return row


def design_figures(layout: Any) -> dict[str, Any]:
    """IT power, heat to liquid and air, racks, GPUs, capex and TCO of a design (the example
    price book unless the design carries one, the cost model's default assumptions)."""
    from rackdesigner.cost import Assumptions, design_cost, find_price_book
    from rackdesigner.model.cooling import cooling_report

    cooling = cooling_report(layout)
    report = design_cost(layout, find_price_book(layout), Assumptions())
    gpus = sum(1 for d in layout.devices() if layout.catalog.get(d.model).traits.computes)
    return {"gpus": gpus, "it_w": cooling.site.it_max_w, "liquid_w": cooling.liquid_w,
            "air_w": cooling.air_w, "racks": len(cooling.racks),
            "capex": report.capex.total, "tco": report.tco}


#: GPU counts tried besides all of them: all rounded down to these multiples. A batch that
#: DP must divide often has no good layout on an odd count (504 GPUs, a batch of 1024: DP at
#: most 8); leaving a few GPUs idle can be faster, and the search says which.
ROUNDINGS = (64, 128, 256)


def throughput(layout: Any, job: Any) -> dict[str, Any]:
    """Tokens/s of the job's best layout on the design's GPUs (the estimator's layout search
    over TP, PP, DP, CP, EP, micro-batch and recomputation; on all GPUs and on all rounded
    down to `ROUNDINGS`, whichever is fastest): a job written for another GPU count is laid
    out again, never refused for it."""
    from rackdesigner.workload.api import EstimateError
    from rackdesigner.workload.jobsearch import best_layout

    total = sum(1 for d in layout.devices() if layout.catalog.get(d.model).traits.computes)
    counts = sorted({total, *(total - total % r for r in ROUNDINGS)} - {0}, reverse=True)
    try:
        found = best_layout(layout, job.model, job.job, tokens=job.tokens, counts=counts)
    except EstimateError as exc:
        return {"tokens_per_s": None, "gpus_used": 0, "layout": None,
                "error": f"no layout: {exc}"}
    data = found.estimate.to_dict()
    return {"tokens_per_s": data.get("tokens_per_s") or 0.0, "gpus_used": found.estimate.gpus,
            "layout": data.get("parallelism")}


def serving_throughput(layout: Any, job: Any) -> dict[str, Any]:
    """Output tokens/s of the whole part serving `job` (serving/jobfile.py) at its target (its
    interactivity or TTFT; at maximum load without one): output tokens/s per GPU times the GPUs
    served, from the serving estimator on the part's own drawn fabric."""
    from rackdesigner.serving import ServeError, serve

    options = dict(job.options(), gpus=None, group=None)  # the whole part serves
    try:
        result = serve(layout, job.model, **options)
    except (ServeError, ValueError) as exc:
        return {"tokens_per_s": None, "gpus_used": 0, "layout": None,
                "error": f"cannot serve: {exc}"}
    point = result.basis
    if point is None or point.output_per_gpu <= 0:
        why = result.notes[0] if result.notes else "no point meets the target"
        return {"tokens_per_s": None, "gpus_used": 0, "layout": None,
                "error": f"cannot serve: {why}"}
    return {"tokens_per_s": point.output_per_gpu * result.gpus, "gpus_used": result.gpus,
            "layout": dict(point.config)}
