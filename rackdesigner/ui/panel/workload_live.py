"""`LiveEstimate`: the Workload tab's worker — debounced estimates of a job on the design.

Same shape as `LiveSimulation` (live.py): model events and option changes restart a trailing
single-shot timer; the run copies the layout on a `QThreadPool` worker and estimates the copy
(one layout, or the best layout by search); a result is shown only if nothing was asked since
it started. One run is in flight at a time. `flush()` runs what is pending now and waits.
Estimates run only while the tab is on screen (`set_active`): a hidden tab only remembers that
its figures are stale and recomputes when it is shown again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QEventLoop, QObject, QThreadPool, QTimer, Signal

from rackdesigner.model import Layout
from rackdesigner.model.failures import closure, restored
from rackdesigner.workload import Estimate, EstimateError, Estimator, Job, ModelFileError
from rackdesigner.workload.search import search

log = logging.getLogger(__name__)
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
                                       f"with {named} failed: {exc}",
                                       elapsed_s=time.perf_counter() - start,
                                       intact=intact.estimate, failed=down.marked)
            return replace(outcome, request=request_id, revision=snapshot.revision,
                           intact=intact.estimate, failed=down.marked,
                           elapsed_s=time.perf_counter() - start)
        outcome = _estimate(snapshot, req)
        return replace(outcome, request=request_id, revision=snapshot.revision,
                       elapsed_s=time.perf_counter() - start)
    except (EstimateError, ModelFileError) as exc:
        error = str(exc)
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
    est = Estimator(snapshot, req.model, gpus=req.gpus, pue=req.pue,
                    group=scope if isinstance(scope, str) else None,
                    gpu_ids=scope if isinstance(scope, tuple) else None)
    if req.best:
        found = search(est, req.job, top=1, tokens=req.tokens)
        if not found.ranked:
            return WorkloadOutcome(0, 0, None, f"no layout of the {est.gpus:,} GPUs fits in "
                                   f"memory ({found.considered:,} tried)")
        best = found.ranked[0]
        return WorkloadOutcome(0, 0, best.estimate, "",
                               f"best of {found.considered:,} layouts: {best.why}")
    return WorkloadOutcome(0, 0, est.estimate(req.job, req.tokens))


class _Relay(QObject):
    finished = Signal(object)


class LiveEstimate(QObject):
    result_ready = Signal(object)  # WorkloadOutcome of the newest request
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None, *, debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._start_pending)
        self._relay = _Relay(self)
        self._relay.finished.connect(self._on_worker_finished)
        self._layout: Layout | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._req: WorkloadRequest | None = None
        self._request = 0
        self._in_flight: int | None = None
        self._pending = False
        self._busy = False
        self._closed = False
        self._active = False
        self._stale = False
        self.latest: WorkloadOutcome | None = None
        self.runs = 0

    @property
    def layout(self) -> Layout | None:
        return self._layout

    def set_layout(self, layout: Layout | None) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._layout = layout
        if layout is not None:
            self._unsubscribe = layout.subscribe(self._on_layout_event)
        self.request()

    def set_request(self, req: WorkloadRequest | None) -> None:
        if req != self._req:
            self._req = req
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
        self._request += 1
        self._pending = True
        self._set_busy(True)
        self._timer.start()

    def _start_pending(self) -> None:
        if not self._pending or self._in_flight is not None or self._closed:
            return
        self._pending = False
        request = self._request
        if self._layout is None or self._req is None:
            self._deliver(WorkloadOutcome(request, 0, None, "no design open"))
            return
        self._in_flight = request
        self.runs += 1
        args = (request, self._layout, self._req)
        relay = self._relay
        self._pool.start(lambda: relay.finished.emit(run_request(*args)))

    def _on_worker_finished(self, outcome: WorkloadOutcome) -> None:
        self._in_flight = None
        if self._closed:
            return
        if outcome.request == self._request:
            self._deliver(outcome)
        if self._pending and not self._timer.isActive():
            self._start_pending()

    def _deliver(self, outcome: WorkloadOutcome) -> None:
        self.latest = outcome
        if not self._pending and self._in_flight is None:
            self._set_busy(False)
        self.result_ready.emit(outcome)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)

    def flush(self, timeout_ms: int = 60_000) -> WorkloadOutcome | None:
        """Start what is pending now and wait (processing events) for the newest result."""
        if self._closed:
            return self.latest
        if self._stale and not self._active:  # asked for explicitly: run even when hidden
            self._active = True
            self.request()
            self._active = False
        self._timer.stop()
        self._start_pending()
        if self._busy:
            loop = QEventLoop()
            self.busy_changed.connect(loop.quit)
            guard = QTimer()
            guard.setSingleShot(True)
            guard.timeout.connect(loop.quit)
            guard.start(timeout_ms)
            while self._busy and guard.isActive():
                loop.exec()
            self.busy_changed.disconnect(loop.quit)
            guard.stop()
        return self.latest

    def close(self) -> None:
        self._closed = True
        self._timer.stop()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._pool.waitForDone()


__all__ = ["LiveEstimate", "WorkloadOutcome", "WorkloadRequest", "run_request"]
