"""`LiveSimulation`: model events in, debounced `simulate` runs on a worker thread, results out.

An edit burst (a drag-wired bundle, an undo macro, typing in the inspector) must cost one run,
and a result is shown only if nothing was asked since it started (newer revision, scope or
options). Those rules are the shared `BackgroundJob` (`ui/jobs.py`), which the Problems dock
uses too: debounce, a snapshot taken on the GUI thread when the run starts (`Layout.snapshot()`
is O(1): the design is an immutable state, so no later edit can reach what the worker reads),
one run in flight, stale results dropped and counted, errors reported.

Only changes that can move a figure ask for a run (`event.affects_simulation`: pure moves and
renames do not). The panel follows a `Document` (`follow_document`: its `changed` and
`replaced` signals); standalone (tests, scripts) it subscribes to a Layout directly.

Garbage-collector tuning for big designs is not done here: it is the application's
(`ui/heap.py`, applied on every document replacement).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Signal

from rackdesigner.model import Layout
from rackdesigner.simulation import SimulationInputError, SimulationResult, simulate
from rackdesigner.ui.jobs import BackgroundJob, JobResult
from rackdesigner.ui.panel.figures import rack_power_by_category

log = logging.getLogger(__name__)
DEBOUNCE_MS = 200

Scope = str | tuple[str, ...] | None  # whole layout, a group id, or GPU ids


@dataclass(frozen=True)
class LiveResult:
    """One finished run: the result (or why there is none) for a revision, scope and options."""

    request: int
    revision: int
    scope: Scope
    algorithm: str
    result: SimulationResult | None
    error: str = ""
    rack_split: dict[str, dict[str, float]] = field(default_factory=dict)
    elapsed_s: float = 0.0  # simulate + rack split, on the worker
    torn: bool = False  # kept for readers of older results; a snapshot can no longer tear


def _simulate(snapshot: Layout | None, params: tuple[Scope, str, float | None, str]) -> tuple:
    """The worker's job on a snapshot: (result, rack split, error). A bad input is an error
    to show; anything else raises (the job logs the traceback and reports it)."""
    scope, algorithm, pue, placement = params
    if snapshot is None:
        return None, {}, "no design open"
    try:
        result = simulate(snapshot, scope, algorithm=algorithm, pue=pue, placement=placement)
    except SimulationInputError as exc:
        return None, {}, str(exc)
    members = (set(snapshot.group_devices(scope)) if isinstance(scope, str)
               and snapshot.has_group(scope) else None)
    return result, rack_power_by_category(snapshot, result, members), ""


def _live(job: JobResult) -> LiveResult:
    scope, algorithm = job.params[:2]
    if job.error:
        error = f"the simulation failed on this design ({job.error})"
        return LiveResult(job.request, job.revision, scope, algorithm, None, error, {},
                          job.elapsed_s)
    result, split, error = job.value
    return LiveResult(job.request, job.revision, scope, algorithm, result, error, split,
                      job.elapsed_s)


class LiveSimulation(QObject):
    result_ready = Signal(object)  # LiveResult, only for the newest request
    busy_changed = Signal(bool)  # a run is pending or in flight ("updating")
    result_dropped = Signal(object)  # LiveResult that arrived after a newer request

    def __init__(self, layout: Layout | None = None, parent: QObject | None = None, *,
                 debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.job = BackgroundJob(_simulate, self, debounce_ms=debounce_ms)
        self.job.result_ready.connect(self._on_job_result_ready)
        self.job.result_dropped.connect(self._on_job_result_dropped)
        self.job.busy_changed.connect(self.busy_changed)
        self._unsubscribe: Callable[[], None] | None = None
        self._scope: Scope = None
        self._algorithm = "auto"
        self._pue: float | None = None
        self._placement = "contiguous"
        self.latest: LiveResult | None = None
        if layout is not None:
            self.set_layout(layout)

    # ---- inputs -----------------------------------------------------------------------------
    @property
    def layout(self) -> Layout | None:
        return self.job.layout

    @property
    def scope(self) -> Scope:
        return self._scope

    @property
    def algorithm(self) -> str:
        return self._algorithm

    @property
    def runs(self) -> int:
        return self.job.runs

    @property
    def dropped(self) -> int:
        return self.job.dropped

    def follow_document(self, document: Any) -> None:
        """Follow a `Document`: its `changed` events and `replaced` designs, nothing else."""
        document.changed.connect(self.on_event)
        document.replaced.connect(lambda layout: self.set_layout(layout, subscribe=False))
        self.set_layout(document.layout, subscribe=False)

    def set_layout(self, layout: Layout | None, *, subscribe: bool = True) -> None:
        """Follow another design: recompute at once (no debounce for a file just opened).
        `subscribe` listens to the Layout itself (standalone use, without a Document)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.job.set_layout(layout)
        self._scope = None
        if layout is not None and subscribe:
            self._unsubscribe = layout.subscribe(self.on_event)
        self.request(immediate=True)

    def set_scope(self, scope: Scope) -> None:
        if isinstance(scope, list):
            scope = tuple(scope)
        if scope != self._scope:
            self._scope = scope
            self.request()

    def set_options(self, *, algorithm: str | None = None, pue: float | None = None,
                    placement: str | None = None) -> None:
        changed = False
        if placement is not None and placement != self._placement:
            self._placement, changed = placement, True
        if algorithm is not None and algorithm != self._algorithm:
            self._algorithm, changed = algorithm, True
        if pue is not None and pue != self._pue:
            self._pue, changed = pue, True
        if changed:
            self.request()

    def on_event(self, event: Any) -> None:
        if getattr(event, "affects_simulation", True):
            self.request()

    def request(self, *, immediate: bool = False) -> None:
        """Ask for a run reflecting the current state (trailing debounce unless `immediate`)."""
        self.job.set_params((self._scope, self._algorithm, self._pue, self._placement))
        self.job.request(immediate=immediate)

    # ---- results ----------------------------------------------------------------------------
    def _on_job_result_ready(self, job: JobResult) -> None:
        self.latest = _live(job)
        self.result_ready.emit(self.latest)

    def _on_job_result_dropped(self, job: JobResult) -> None:
        self.result_dropped.emit(_live(job))

    @property
    def busy(self) -> bool:
        return self.job.busy

    def flush(self, timeout_ms: int = 30_000) -> LiveResult | None:
        """Start what is pending now and wait (processing events) until the newest result is in."""
        self.job.flush(timeout_ms)
        return self.latest

    def close(self) -> None:
        """Stop listening and wait for a run in flight (the window is closing)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.job.close()
