"""One design's column of a comparison (`cost/compare.py`): its simulated, costed, served and
reliability figures, and the cost to train with the work failures lose."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rackdesigner.cost.assumptions import Assumptions
from rackdesigner.cost.pricebook import PriceBook
from rackdesigner.cost.report import CostReport, design_cost
from rackdesigner.model import Layout
from rackdesigner.simulation.ranges import FigureRange

GiB = 1 << 30  # the default message size of a comparison's busbw rows


@dataclass(frozen=True)
class DesignFigures:
    """What one design contributes to a comparison."""

    label: str
    cost: CostReport
    gpus: int
    nvlink_domain: int
    busbw: float | None
    all_to_all: float | None
    bisection: float | None
    busbw_range: FigureRange | None = None
    all_to_all_range: FigureRange | None = None
    serving: Any = None  # a serving.ServeResult with a serving job (`compare --serve`)
    reliability: Any = None  # reliability.Assessment: interruptions, ETTR, effective days
    problems: tuple[int, int] | None = None  # design-rule (errors, warnings), as `validate`

    def effective_cost_to_train(self) -> float | None:
        return effective_cost_to_train(self.cost, self.reliability)


def figures(label: str, layout: Layout, book: PriceBook, assumptions: Assumptions, *,
            job: Any = None, tokens: float | None = None, size: int = GiB,
            serve_job: Any = None, failures: Any = None) -> DesignFigures:
    """Simulate, cost and assess the reliability of one design (its comparison column); with a
    serving job (serving/jobfile.py) also serve it, at the design's $/GPU-hour; `failures` is
    the failure library (default: the bundled one)."""
    from rackdesigner.cost.compare_facility import problems
    from rackdesigner.simulation import simulate

    result = simulate(layout, pue=assumptions.pue, loads_for=None)

    def point(name: str) -> Any:
        if not result.scope.collectives_available:
            return None
        return result.point_at(name, size)  # the one "busbw at size S" rule

    def busbw(name: str) -> float | None:
        p = point(name)
        return p.busbw_GBps if p is not None else None

    def spread(name: str) -> FigureRange | None:
        p = point(name)
        return result.ranges(p)[0] if p is not None else None

    cost = design_cost(layout, book, assumptions, job=job, tokens=tokens, label=label)
    served = None
    if serve_job is not None:
        from rackdesigner.serving import serve

        served = serve(layout, serve_job.model, pue=assumptions.pue,
                       usd_per_gpu_hour=cost.usd_per_gpu_hour, **serve_job.options())
    return DesignFigures(label, cost, result.scope.gpus, result.scope.largest_nvlink_domain,
                         busbw("all_reduce"), busbw("all_to_all"),
                         result.bandwidth.bisection_GBps, spread("all_reduce"),
                         spread("all_to_all"), served,
                         training_reliability(layout, cost, failures), problems(layout))



def effective_cost_to_train(cost: CostReport, reliability: Any) -> float | None:
    """Cost to train with the work failures lose: $/GPU-hour x the job's GPUs x the
    effective hours (`reliability.Assessment.effective_days`)."""
    days = reliability.effective_days() if reliability is not None else None
    t, rate = cost.training, cost.usd_per_gpu_hour
    if t is None or days is None or rate is None or not math.isfinite(days):
        return None
    return rate * t.gpus * days * 24


def training_reliability(layout: Layout, cost: CostReport, failures: Any = None) -> Any:
    """The design's reliability assessment (`reliability.assess`), for the cost's training
    job when it has one; `failures` is the failure library (default: the bundled one)."""
    from rackdesigner.reliability import Job, assess, load_library
    from rackdesigner.workload.models import resolve_model

    t = cost.training
    job = None
    if t is not None:
        job = Job(t.gpus, t.tokens_per_s, float(resolve_model(t.model).params), t.tokens,
                  t.model)
    return assess(layout, failures if failures is not None else load_library(), job=job)
