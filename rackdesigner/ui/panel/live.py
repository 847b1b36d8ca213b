"""`LiveSimulation`: model events in, debounced `simulate` runs on a worker thread, results out.

Why this shape: an edit burst (a drag-wired bundle, an undo macro, typing in the inspector)
must cost one run, so events restart a trailing single-shot timer (`DEBOUNCE_MS`); the run
works on its own `layout.copy()`; and a result is shown only if nothing was asked since it
started (newer revision, scope or options) — an older one is dropped and counted in `dropped`.
One run is in flight at a time: a request made meanwhile starts when the current run ends, so a
slow design cannot pile up workers. `flush()` runs what is pending now and waits for it.

The copy is taken on the worker, not the GUI thread (it used to take 30–70 ms for a 1,016-GPU
SuperPOD; since `Layout.copy()` shares the immutable values it is ~1 ms, ~46 ms at 16k GPUs, so
keeping it off the GUI thread still matters at scale). That is safe because the GUI thread is
the only writer: an edit that overlaps the copy bumps the request id (every figure-changing
mutation emits an event that calls `request()` on the GUI thread before the worker's result can
be delivered there), so a snapshot that might be torn always belongs to a dropped result; a copy
that trips over a dict changing size is marked `torn` and dropped the same way.

A big document is moved out of the garbage collector's way when it is opened (`settle_heap`):
a worker's run allocates a snapshot's worth of objects, which triggers full collections, and a
full collection over a SuperPOD-sized heap holds the GIL — hence the GUI thread — for 40–85 ms.
Frozen, the document costs those collections nothing (measured: worst stall 84 → 26 ms).
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from PySide6.QtCore import QEventLoop, QObject, QThreadPool, QTimer, Signal

from rackdesigner.analysis.whatif import MarkedImpact, marked_impact
from rackdesigner.model import Layout
from rackdesigner.model.failures import degraded
from rackdesigner.simulation import SimulationInputError, SimulationResult, simulate
from rackdesigner.ui.panel.figures import rack_power_by_category

log = logging.getLogger(__name__)
DEBOUNCE_MS = 200
SETTLE_MIN_DEVICES = 1000  # below this a full collection is too quick to matter

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
    elapsed_s: float = 0.0  # copy + simulate + rack split, on the worker
    torn: bool = False  # the copy raced an edit (always superseded by a newer request)
    impact: MarkedImpact | None = None  # failures marked: the intact design and the losses


def _status_only(event: Any) -> bool:
    """A Fail / Restore: the intact design (and its cached figures) did not change."""
    old, new = getattr(event, "old", None), getattr(event, "new", None)
    return (old is not None and new is not None and hasattr(new, "status")
            and old.status != new.status and replace(old, status=new.status) == new)


def _run(request: int, layout: Layout, scope: Scope, algorithm: str,
         pue: float | None, placement: str = "contiguous", intact_cache: dict | None = None,
         structure: int = 0, heat: tuple[str, int] | None = None) -> LiveResult:
    """The worker's job: snapshot `layout`, simulate the snapshot; never raises."""
    start = time.perf_counter()
    try:
        snapshot = layout.copy()
    except RuntimeError as exc:  # "changed size during iteration": an edit is under way
        return LiveResult(request, layout.revision, scope, algorithm, None, str(exc), {},
                          time.perf_counter() - start, torn=True)
    try:
        if heat is not None:  # the heat map's traffic: its per-link list built here, off the GUI
            result = simulate(snapshot, scope, algorithm=algorithm, pue=pue,
                              placement=placement, loads_for=heat)
            if result.link_loads is not None:
                result.link_loads.entries  # noqa: B018 (cached_property: computed now)
        else:
            result = simulate(snapshot, scope, algorithm=algorithm, pue=pue,
                              placement=placement)
        members = (set(snapshot.group_devices(scope)) if isinstance(scope, str)
                   and snapshot.has_group(scope) else None)
        # failed devices draw nothing: split the racks' power of the design simulated
        split = rack_power_by_category(degraded(snapshot), result, members)

        def intact(design: Layout) -> SimulationResult:
            return simulate(design, scope, algorithm=algorithm, pue=pue, placement=placement)

        impact = marked_impact(snapshot, result, intact, intact_cache,
                               (structure, scope, algorithm, pue, placement))
        return LiveResult(request, snapshot.revision, scope, algorithm, result, "", split,
                          time.perf_counter() - start, impact=impact)
    except SimulationInputError as exc:
        error = str(exc)
    except Exception as exc:  # a bug must not take the designer down: say it, log it
        log.exception("simulation failed")
        error = f"the simulation failed on this design ({type(exc).__name__}: {exc})"
    return LiveResult(request, snapshot.revision, scope, algorithm, None, error, {},
                      time.perf_counter() - start)


def settle_heap() -> None:
    """Collect garbage once, then freeze what survives (the open document) out of future
    collections; objects frozen earlier (a closed document) are unfrozen first so they can go."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


class _Relay(QObject):
    """Lives on the GUI thread; the worker emits through it, so delivery is queued."""

    finished = Signal(object)


class LiveSimulation(QObject):
    result_ready = Signal(object)  # LiveResult, only for the newest request
    busy_changed = Signal(bool)  # a run is pending or in flight ("updating")
    result_dropped = Signal(object)  # LiveResult that arrived after a newer request

    def __init__(self, layout: Layout | None = None, parent: QObject | None = None, *,
                 debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._relay = _Relay(self)
        self._relay.finished.connect(self._on_worker_finished)
        self._layout: Layout | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._scope: Scope = None
        self._algorithm = "auto"
        self._pue: float | None = None
        self._placement = "contiguous"
        self._heat: tuple[str, int] | None = None  # (collective, bytes) of the heat map
        self._structure = 0  # bumped by every edit but Fail / Restore (intact figures' key)
        self._intact_cache: dict = {}
        self._request = 0  # id of the newest request
        self._in_flight: int | None = None
        self._pending = False  # the newest request has not started yet
        self._busy = False
        self._closed = False
        self.latest: LiveResult | None = None
        self.runs = 0  # runs started (tests: a burst of edits is one run)
        self.dropped = 0  # results discarded because a newer request was made
        if layout is not None:
            self.set_layout(layout)

    # ---- inputs -----------------------------------------------------------------------------
    @property
    def layout(self) -> Layout | None:
        return self._layout

    @property
    def scope(self) -> Scope:
        return self._scope

    @property
    def algorithm(self) -> str:
        return self._algorithm

    def set_layout(self, layout: Layout | None) -> None:
        """Follow another document: recompute at once (no debounce for a file just opened)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._layout = layout
        self._scope = None
        self._structure += 1
        if layout is not None:
            self._unsubscribe = layout.subscribe(self._on_layout_event)
            if layout.device_count() >= SETTLE_MIN_DEVICES:
                settle_heap()
        self.request(immediate=True)

    def set_scope(self, scope: Scope) -> None:
        if isinstance(scope, list):
            scope = tuple(scope)
        if scope != self._scope:
            self._scope = scope
            self.request()

    def set_heat(self, heat: tuple[str, int] | None) -> None:
        """List per-link loads of (collective, bytes) in every result (None: the default)."""
        if heat != self._heat:
            self._heat = heat
            self.request(immediate=True)

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

    def _on_layout_event(self, event: Any) -> None:
        if not _status_only(event):
            self._structure += 1
        if getattr(event, "affects_simulation", True):
            self.request()

    # ---- scheduling -------------------------------------------------------------------------
    def request(self, *, immediate: bool = False) -> None:
        """Ask for a run reflecting the current state (trailing debounce unless `immediate`)."""
        if self._closed:
            return
        self._request += 1
        self._pending = True
        self._set_busy(True)
        if immediate:
            self._timer.stop()
            self._start_pending()
        else:
            self._timer.start()  # restarting is the debounce

    def _on_timer_timeout(self) -> None:
        self._start_pending()

    def _start_pending(self) -> None:
        if not self._pending or self._in_flight is not None or self._closed:
            return
        self._pending = False
        request = self._request
        if self._layout is None:
            self._deliver(LiveResult(request, 0, None, self._algorithm, None, "no design open"))
            return
        self._in_flight = request
        self.runs += 1
        args = (request, self._layout, self._scope, self._algorithm, self._pue,
                self._placement, self._intact_cache, self._structure, self._heat)
        relay = self._relay
        self._pool.start(lambda: relay.finished.emit(_run(*args)))

    def _on_worker_finished(self, live: LiveResult) -> None:
        self._in_flight = None
        if self._closed:
            return
        if live.torn and live.request == self._request:  # cannot happen (see above): be safe
            self._pending = True
        elif live.request != self._request:
            self.dropped += 1
            log.debug("dropped a result for request %d (newest %d)", live.request, self._request)
            self.result_dropped.emit(live)
        else:
            self._deliver(live)
        if self._pending and not self._timer.isActive():
            self._start_pending()

    def _deliver(self, live: LiveResult) -> None:
        self.latest = live
        if not self._pending and self._in_flight is None:
            self._set_busy(False)
        self.result_ready.emit(live)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)

    @property
    def busy(self) -> bool:
        return self._busy

    def flush(self, timeout_ms: int = 30_000) -> LiveResult | None:
        """Start what is pending now and wait (processing events) until the newest result is in."""
        if self._closed:
            return self.latest
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
            if self._busy:
                log.warning("LiveSimulation.flush timed out after %d ms", timeout_ms)
        return self.latest

    def close(self) -> None:
        """Stop listening and wait for a run in flight (the window is closing)."""
        self._closed = True
        self._timer.stop()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._pool.waitForDone()
