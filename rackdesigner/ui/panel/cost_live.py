"""`CostLive`: the Cost tab's figures, computed on a worker from a snapshot (`BackgroundJob`).

Parameters are the price book asked for (a file, or None for the book in effect:
environment, data folder, the design's embedded book, the bundled example), the running-cost
`Assumptions` and, optionally, the Workload tab's job (`JobSpec`) with the tokens to train. The
worker finds and reads the book itself (a file read is not GUI work) and returns a
`CostOutcome`: the `CostReport`, or why there is none (a bad price book, located, with nothing
changed), and why the job could not be costed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from rackdesigner.cost import Assumptions, CostReport
from rackdesigner.model import Layout
from rackdesigner.ui.jobs import BackgroundJob, JobResult

DEBOUNCE_MS = 250


@dataclass(frozen=True)
class CostOutcome:
    report: CostReport | None
    error: str = ""  # why there is no report (a bad price book…)
    job_error: str = ""  # why the training job could not be costed
    revision: int = 0


def _cost(snapshot: Layout | None, params: tuple) -> CostOutcome:
    from rackdesigner.cost import PriceBookError, design_cost, find_price_book
    from rackdesigner.workload import EstimateError, ModelFileError

    book_path, assumptions, job = params
    if snapshot is None:
        return CostOutcome(None, "no design open")
    try:
        book = find_price_book(snapshot, book_path)
    except PriceBookError as exc:
        return CostOutcome(None, f"Cannot use the price book: {exc}",
                           revision=snapshot.revision)
    report = design_cost(snapshot, book, assumptions)
    job_error = ""
    if job is not None:
        if not job.tokens:
            job_error = "set the tokens to train in the Workload tab to see the cost to train"
        else:
            try:
                report = design_cost(snapshot, book, assumptions, job=job)
            except (EstimateError, ModelFileError, ValueError) as exc:
                job_error = f"the Workload tab's job cannot run here: {exc}"
    return CostOutcome(report, "", job_error, snapshot.revision)


class CostLive(QObject):
    outcome_ready = Signal(object)  # CostOutcome of the newest request
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None, *,
                 debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.job = BackgroundJob(_cost, self, debounce_ms=debounce_ms)
        self.job.result_ready.connect(self._on_job_result_ready)
        self.job.busy_changed.connect(self.busy_changed)
        self.book_path: str | None = None
        self.assumptions = Assumptions()
        self.training: Any = None
        self.latest: CostOutcome | None = None

    @property
    def layout(self) -> Layout | None:
        return self.job.layout

    def set_layout(self, layout: Layout | None) -> None:
        self.job.set_layout(layout)
        self.request(immediate=True, idle=True)  # after the views' first paint

    def set_inputs(self, *, book_path: Any = ..., assumptions: Assumptions | None = None,
                   training: Any = ...) -> None:
        """Change what the figures are computed with (`...`: unchanged) and recompute."""
        if book_path is not ...:
            self.book_path = book_path
        if assumptions is not None:
            self.assumptions = assumptions
        if training is not ...:
            self.training = training
        self.request()

    def on_event(self, event: Any) -> None:
        """A design edit: recompute (a move changes no cost but a cable length may)."""
        self.request()

    def request(self, *, immediate: bool = False, idle: bool = False) -> None:
        self.job.set_params((self.book_path, self.assumptions, self.training))
        self.job.request(immediate=immediate, idle=idle)

    def _on_job_result_ready(self, job: JobResult) -> None:
        if job.error:
            self.latest = CostOutcome(None, f"the cost could not be computed ({job.error})")
        else:
            self.latest = job.value
        self.outcome_ready.emit(self.latest)

    def flush(self, timeout_ms: int = 30_000) -> CostOutcome | None:
        self.job.flush(timeout_ms)
        return self.latest

    def close(self) -> None:
        self.job.close()


__all__ = ["CostLive", "CostOutcome"]
