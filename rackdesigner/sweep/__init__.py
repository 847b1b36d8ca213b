"""Design-space sweeps as Dask tasks (Qt-free): a spec of generator options or edits in, one
result row per point out (parameters, headline figures, status and error).

`load_spec(path)` reads and checks a spec (`spec.py`), `run_sweep(spec, scheduler)` runs its
points on Dask (`runner.py`; local processes by default, a `dask.distributed` scheduler by
address), `write_results(result, path)` writes CSV, JSON or Parquet (`results.py`), and
`pareto_front` picks the non-dominated points for two figures (`pareto.py`).
"""

from __future__ import annotations

from rackdesigner.sweep.pareto import pareto_front
from rackdesigner.sweep.point import FAILED, INVALID, OK, build_point_layout, evaluate_point
from rackdesigner.sweep.results import ResultsError, read_results, write_results
from rackdesigner.sweep.runner import (
    DEFAULT_SCHEDULER,
    SweepCancelled,
    SweepResult,
    SweepRunError,
    run_sweep,
)
from rackdesigner.sweep.spec import SweepSpec, SweepSpecError, load_spec, parse_spec

__all__ = [
    "DEFAULT_SCHEDULER",
    "FAILED",
    "INVALID",
    "OK",
    "ResultsError",
    "SweepCancelled",
    "SweepResult",
    "SweepRunError",
    "SweepSpec",
    "SweepSpecError",
    "build_point_layout",
    "evaluate_point",
    "load_spec",
    "pareto_front",
    "parse_spec",
    "read_results",
    "run_sweep",
    "write_results",
]
