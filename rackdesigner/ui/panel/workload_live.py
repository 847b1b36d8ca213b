"""`LiveEstimate`: the Workload tab's worker — debounced estimates of a job on the design.

Runs on the shared `BackgroundJob` (ui/jobs.py), like the live panel and the Problems dock:
model events and option changes are debounced, the job snapshots the design on the GUI thread
and estimates the snapshot on its worker (one layout, or the best layout by search), and a
result is shown only if nothing was asked since it started. `flush()` runs what is pending now
and waits.
Estimates run only while the tab is on screen (`set_active`): a hidden tab only remembers that
its figures are stale and recomputes when it is shown again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QObject, Signal

from rackdesigner.model import Layout
from rackdesigner.model.failures import closure, restored
from rackdesigner.ui.jobs import BackgroundJob, JobResult
from rackdesigner.workload import Estimate, EstimateError, Estimator, Job, ModelFileError
from rackdesigner.workload.jobsearch import best_layout

log = logging.getLogger(__name__)

#: the job's settings as the Workload tab labels its fields (the rest in the design's words)
TAB_WORDS = {"gbs": "Batch", "mbs": "Micro", "gpus": "GPUs", "precision": "Precision",
             "tp": "TP", "pp": "PP", "vp": "VP", "cp": "CP", "ep": "EP"}


def tab_text(exc: Exception) -> str:
    """An estimate's error as the Workload tab says it: its settings by the tab's labels."""
    if isinstance(exc, EstimateError):
        return exc.worded(lambda name: TAB_WORDS.get(name) or exc.design_word(name))
    return str(exc)
DEBOUNCE_MS = 250


@dataclass(frozen=True)
class WorkloadRequest:
    """What to estimate: a model (bundled id or file), a job, or the best layout for its batch."""

    model: str
    job: Job
    best: bool = False
    tokens: float | None = None
    gpus: int | None = None  # the first N GPUs of the design (None: all)
    pue: float | None = None  # facility power = IT power x PUE (None: the default)
    scope: str | tuple[str, ...] | None = None  # the panel's scope: a group id or GPU ids
    fabric_tuning: str | None = None  # the panel's fabric setting (None: the default)


@dataclass(frozen=True)
class WorkloadOutcome:
    request: int
    revision: int
    estimate: Estimate | None
    error: str = ""
    why: str = ""  # best layout: why it wins
    elapsed_s: float = 0.0
    #: failures are marked: the same job on the intact design (the figures' reference)
    intact: Estimate | None = None
    failed: tuple[str, ...] = ()  # the ids marked failed (empty: none)


def run_request(request_id: int, layout: Layout, req: WorkloadRequest) -> WorkloadOutcome:
    """The worker's job: snapshot `layout`, estimate on the snapshot; never raises."""
    start = time.perf_counter()
    try:
        snapshot = layout.copy()
    except RuntimeError as exc:  # an edit is under way: a newer request follows
        return WorkloadOutcome(request_id, layout.revision, None, str(exc))
    try:
        down = closure(snapshot)
        if down:  # what-if: estimate without the failed parts, and the intact design beside
            intact = _estimate(restored(snapshot), req)
            try:
                outcome = _estimate(snapshot, req, down.devices)  # Estimator leaves them out
            except (EstimateError, ModelFileError) as exc:
                named = ", ".join(down.marked[:3]) + (" …" if len(down.marked) > 3 else "")
                return WorkloadOutcome(request_id, snapshot.revision, None,
                                       f"with {named} failed: {tab_text(exc)}",
                                       elapsed_s=time.perf_counter() - start,
                                       intact=intact.estimate, failed=down.marked)
            return replace(outcome, request=request_id, revision=snapshot.revision,
                           intact=intact.estimate, failed=down.marked,
                           elapsed_s=time.perf_counter() - start)
        outcome = _estimate(snapshot, req)
        return replace(outcome, request=request_id, revision=snapshot.revision,
                       elapsed_s=time.perf_counter() - start)
    except (EstimateError, ModelFileError) as exc:
        error = tab_text(exc)
    except Exception as exc:  # a bug must not take the designer down: say it, log it
        log.exception("workload estimate failed")
        error = f"the estimate failed ({type(exc).__name__}: {exc})"
    return WorkloadOutcome(request_id, snapshot.revision, None, error,
                           elapsed_s=time.perf_counter() - start)


def _estimate(snapshot: Layout, req: WorkloadRequest,
              gone: frozenset[str] = frozenset()) -> WorkloadOutcome:
    """One estimate (or the best layout) of `req` on `snapshot`; errors propagate."""
    scope = req.scope
    if isinstance(scope, tuple) and gone:
        scope = tuple(g for g in scope if g not in gone)
    if req.best:  # all the GPUs, or fewer when that is faster (workload/jobsearch.py)
        found = best_layout(snapshot, req.model, req.job, gpus=req.gpus, pue=req.pue,
                            group=scope if isinstance(scope, str) else None,
                            gpu_ids=scope if isinstance(scope, tuple) else None,
                            tokens=req.tokens, fabric_tuning=req.fabric_tuning)
        return WorkloadOutcome(0, 0, found.estimate, "",
                               f"best of {found.considered:,} layouts: {found.why}")
    # a manual layout that does not fit is still timed, and the tab marks it so
    est = Estimator(snapshot, req.model, gpus=req.gpus, pue=req.pue,
                    group=scope if isinstance(scope, str) else None,
                    gpu_ids=scope if isinstance(scope, tuple) else None,
                    fabric_tuning=req.fabric_tuning)
    return WorkloadOutcome(0, 0, est.estimate(req.job, req.tokens, time_if_too_big=True))


def _work(snapshot: Layout | None, req: WorkloadRequest | None) -> WorkloadOutcome:
    """The BackgroundJob's work: one estimate on the snapshot the job took on the GUI thread."""
    if snapshot is None or req is None:
        return WorkloadOutcome(0, 0, None, "no design open")
    return run_request(0, snapshot, req)


class LiveEstimate(QObject):
    """The Workload tab's live estimate on the shared `BackgroundJob` (debounce, GUI-thread
    snapshot, one run in flight, stale results dropped, errors reported); on top of it only
    what is the tab's own: run only while shown, remember staleness while hidden."""

    result_ready = Signal(object)  # WorkloadOutcome of the newest request
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None, *, debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.job = BackgroundJob(_work, self, debounce_ms=debounce_ms)
        self.job.result_ready.connect(self._on_job_result_ready)
        self.job.busy_changed.connect(self.busy_changed)
        self._unsubscribe: Callable[[], None] | None = None
        self._req: WorkloadRequest | None = None
        self._closed = False
        self._active = False
        self._stale = False
        self.latest: WorkloadOutcome | None = None

    @property
    def layout(self) -> Layout | None:
        return self.job.layout

    @property
    def runs(self) -> int:
        return self.job.runs

    def set_layout(self, layout: Layout | None) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.job.set_layout(layout)
        if layout is not None:
            self._unsubscribe = layout.subscribe(self._on_layout_event)
        self.request()

    def set_request(self, req: WorkloadRequest | None) -> None:
        if req != self._req:
            self._req = req
            self.job.set_params(req)
            self.request()

    def _on_layout_event(self, event: Any) -> None:
        if getattr(event, "affects_simulation", True):
            self.request()

    def set_active(self, active: bool) -> None:
        """Compute only while shown; becoming active catches up with what was asked meanwhile."""
        self._active = active
        if active and self._stale:
            self.request()

    def request(self) -> None:
        if self._closed or self._req is None:
            return
        if not self._active:
            self._stale = True
            return
        self._stale = False
        self.job.request()

    def _on_job_result_ready(self, result: JobResult) -> None:
        if result.ok:
            outcome = replace(result.value, request=result.request)
        else:  # a bug in the estimator: say it instead of going blank
            outcome = WorkloadOutcome(result.request, result.revision, None,
                                      f"the estimate failed ({result.error})")
        self.latest = outcome
        self.result_ready.emit(outcome)

    def kick(self) -> None:
        """Start what is pending even while the tab is hidden (the heat map needs the job the
        search finds); the result arrives through `result_ready`."""
        if self._stale and not self._active and not self._closed:
            self._active = True
            self.request()
            self._active = False

    def flush(self, timeout_ms: int = 60_000) -> WorkloadOutcome | None:
        """Start what is pending now and wait (processing events) for the newest result."""
        if self._closed:
            return self.latest
        if self._stale and not self._active:  # asked for explicitly: run even when hidden
            self._active = True
            self.request()
            self._active = False
        self.job.flush(timeout_ms)
        return self.latest

    def close(self) -> None:
        self._closed = True
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.job.close()


__all__ = ["LiveEstimate", "WorkloadOutcome", "WorkloadRequest", "run_request"]
