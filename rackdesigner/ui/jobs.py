"""`BackgroundJob`: debounced work on a snapshot of the design, on a worker thread, newest only.

Every view that computes something from the design while the user keeps editing — the Problems
dock, the live panel, and the views to come — follows the same rules, so they live here once:

- **debounce**: `request()` restarts a trailing single-shot timer; a burst of edits (a drag-wired
  bundle, an undo macro, typing) costs one run. `request(immediate=True)` skips the wait (a file
  was just opened, an option changed).
- **snapshot**: when a run starts, the design is snapshotted on the GUI thread
  (`Layout.snapshot()`, O(1): the state is immutable) and the worker only ever sees that
  snapshot — no copy on the worker, no torn reads, no locks.
- **one in flight**: a single worker thread; a request made meanwhile starts when the run ends,
  so a slow design cannot pile up workers.
- **drop stale**: a result is delivered only if no newer request was made since its run started
  (and, with `follow_revision`, if the design is still at the snapshot's revision — edits made
  without a request then trigger a new run by themselves). Older results are counted in
  `dropped` and announced by `result_dropped`.
- **report errors**: an exception in the work is a bug: its traceback is logged and the result
  carries the message (`JobResult.error`), so the view can say it instead of going blank.

- **cancel**: closing the window stops the run in flight instead of waiting for it: a
  simulation of a 32k-GPU design takes seconds, and Quit sat 25-45 s behind it. Python cannot
  kill a thread, but it can raise an exception in one (`PyThreadState_SetAsyncExc`, the
  mechanism behind KeyboardInterrupt): the worker's next bytecode raises `Cancelled` and the
  run unwinds through its `with`/`finally` blocks. Work runs on immutable snapshots and writes
  nothing but caches that are complete or absent, so an unwound run leaves nothing half-done
  (`Worker`). A run made stale by a newer request is stopped too when `cancel_stale` is set
  (off by default: such a run's caches often serve the next one).

`flush()` runs what is pending and waits for the newest result (processing events);
`run_now()` computes on the GUI thread at once (what the Problems dock's `flush` does for tests).
"""

from __future__ import annotations

import ctypes
import importlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEventLoop, QObject, QThreadPool, QTimer, Signal

from rackdesigner.model import Layout
from rackdesigner.ui.job_result import FREEZE_MIN_DEVICES, JobResult, Work, execute

log = logging.getLogger(__name__)
DEBOUNCE_MS = 200


CANCELLED = "cancelled"


class Cancelled(BaseException):  # like KeyboardInterrupt: `except Exception` lets it by
    """Raised in a worker thread whose run was cancelled (`Worker.cancel`)."""


def _raise_in(ident: int, exc: type[BaseException] | None) -> None:
    """Make thread `ident` raise `exc` at its next bytecode (None: forget one not raised)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(ident), ctypes.py_object(exc) if exc is not None else None)


#: Code that must not be interrupted half-way: Python-level locks that an exception between
#: their acquire and release would leave held (importing a module, logging, `threading`'s
#: conditions and events). A cancel waits until the worker is out of them.
_UNINTERRUPTIBLE = ("<frozen importlib", os.path.dirname(logging.__file__),
                    threading.__file__, importlib.__file__.rsplit(os.sep, 1)[0])


def _interruptible(frame: Any) -> bool:
    """The thread whose innermost frame is `frame` may be interrupted there (looking at the
    frames of the run only, down to `Worker.run`)."""
    while frame is not None and frame.f_code is not _RUN_CODE:
        if frame.f_code.co_filename.startswith(_UNINTERRUPTIBLE):
            return False
        frame = frame.f_back
    return True


class Worker:
    """One run at a time on some thread, which another thread may stop (`cancel`).

    At most one `Cancelled` is raised per run, never while the run is inside code that holds a
    Python-level lock (an import: a cancelled import left its module lock held and the next
    import of that module hung), and one sent too late to land (the run had ended) is withdrawn
    before the thread goes on, so it never reaches other code."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ident: int | None = None
        self._sent = False

    def run(self, fn: Callable[[], Any]) -> tuple[bool, Any]:
        """`fn()` on the calling thread: (True, its value), or (False, None) if cancelled."""
        ident = threading.get_ident()
        with self._lock:
            self._ident, self._sent = ident, False
        ok, value = False, None
        try:  # noqa: SIM105 (no Python-level context manager here: it could be interrupted)
            value, ok = fn(), True
        except Cancelled:
            pass
        try:
            self._end(ident)
        except Cancelled:  # it landed on the way out: nothing is pending any more
            self._end(ident)
        return ok, value

    def _end(self, ident: int) -> None:
        with self._lock:
            self._ident = None
            _raise_in(ident, None)

    @property
    def running(self) -> bool:
        return self._ident is not None

    def cancel(self, timeout_s: float = 10.0, *, again: bool = False) -> bool:
        """Stop the run in flight (True), or do nothing when none is (False). The worker
        thread does not run while this looks at where it is (this thread holds the GIL), so
        the exception lands at its next bytecode, outside any uninterruptible code; inside
        such code this waits for it to come out (an import: milliseconds). `again` sends it
        once more: Python ignores an exception raised inside a weak-reference callback or a
        `__del__` (it only reports it, see `_ignore_cancelled`), so the first may be lost."""
        deadline = time.monotonic() + timeout_s
        while True:
            with self._lock:
                if self._ident is None or (self._sent and not again):
                    return False
                if _interruptible(sys._current_frames().get(self._ident)):
                    self._sent = True
                    _raise_in(self._ident, Cancelled)
                    return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)  # let the worker get out of it


_RUN_CODE = Worker.run.__code__


def _ignore_cancelled(hook: Callable[[Any], None]) -> Callable[[Any], None]:
    """`sys.unraisablehook` that passes over a `Cancelled` raised where Python ignores
    exceptions (a weak-reference callback run while the worker freed an object): the run goes
    on and is stopped again (`Worker.cancel(again=True)`); nothing to report."""

    def unraisable(info: Any) -> None:
        if not isinstance(info.exc_value, Cancelled):
            hook(info)

    return unraisable


sys.unraisablehook = _ignore_cancelled(sys.unraisablehook)


class _Relay(QObject):
    """Lives on the GUI thread; the worker emits through it, so delivery is queued."""

    finished = Signal(object)


#: how long a run waits for the job it yields to (`BackgroundJob.yield_to`), and how often
#: it looks again
YIELD_MAX_MS = 1500
YIELD_STEP_MS = 10
#: how long after an `idle` request its run starts: a timer, not a zero-time call, because
#: Qt delivers a zero-time call among the posted events, before the views' paint that the
#: open posts after it (seen: the Problems run of a 32k-GPU design started 0.15 s before the
#: canvas's first paint ended); a timer fires only when the posted events (the paint among
#: them, however long it takes) are done and 50 ms have passed: the paint starts within a
#: few milliseconds of the open's end, and at the sizes where this matters the results come
#: seconds later anyway.
IDLE_MS = 50


class BackgroundJob(QObject):
    result_ready = Signal(object)  # JobResult for the newest request
    result_dropped = Signal(object)  # JobResult that a newer request (or edit) made stale
    busy_changed = Signal(bool)  # a run is pending or in flight

    def __init__(self, work: Work, parent: QObject | None = None, *,
                 debounce_ms: int = DEBOUNCE_MS, follow_revision: bool = False,
                 cancel_stale: bool = False) -> None:
        super().__init__(parent)
        self.work = work
        self.follow_revision = follow_revision
        #: a newer request stops the run in flight (its result would be dropped anyway)
        self.cancel_stale = cancel_stale
        self.cancelled = 0  # runs stopped before their end
        self._worker = Worker()
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self.debounce_ms = debounce_ms
        self._timer.timeout.connect(self._start_pending)
        self._relay = _Relay(self)
        self._relay.finished.connect(self._on_worker_finished)
        self._layout: Layout | None = None
        self._params: Any = None
        self._request = 0  # id of the newest request
        self._in_flight: int | None = None
        self._pending = False  # the newest request has not started yet
        self._busy = False
        self._closed = False
        self.latest: JobResult | None = None
        self.runs = 0  # worker runs started
        self.dropped = 0  # results discarded because they were stale
        #: while this says so (another job's run, quicker and waited on: the Problems check),
        #: a run waits for it, up to `YIELD_MAX_MS`: two runs of one process share one
        #: interpreter lock, and the quick one would take as long as the slow one
        self.yield_to: Callable[[], bool] | None = None
        self._yielded_ms = 0

    # ---- inputs -----------------------------------------------------------------------------
    @property
    def layout(self) -> Layout | None:
        return self._layout

    @property
    def request_id(self) -> int:
        return self._request

    def set_layout(self, layout: Layout | None) -> None:
        """Work on another design from now on (the caller then asks for a run)."""
        self._layout = layout

    def set_params(self, params: Any) -> None:
        """Parameters handed to the work with the snapshot (scope, options…)."""
        self._params = params

    def request(self, *, immediate: bool = False, soon: bool = False,
                idle: bool = False) -> None:
        """Ask for a run reflecting the current design (trailing debounce unless `immediate`;
        `soon`: when the GUI thread is next idle, i.e. once the edit being made is whole —
        unless a debounced request is waiting, which it then joins). `idle` with `immediate`
        (a design just opened): the run starts from the event loop `IDLE_MS` later, after the
        views' first paint, not before it — a run holds the interpreter lock the paint's
        Python needs (at 32k GPUs three runs started at the open took 0.45 s of the first
        paint's 0.6 s). The job is busy from now on either way."""
        if self._closed:
            return
        self._request += 1
        self._pending = True
        self._set_busy(True)
        if self.cancel_stale and self._in_flight is not None and self._worker.cancel():
            self.cancelled += 1
        if immediate:
            self._timer.stop()
            if idle:
                QTimer.singleShot(IDLE_MS, self, lambda: self._start_pending(yielding=False))
            else:
                self._start_pending(yielding=False)
        elif soon and not (self._timer.isActive() and self._timer.interval() > 0):
            self._timer.start(0)
        else:
            self._timer.start(self.debounce_ms)  # restarting is the debounce

    # ---- running ----------------------------------------------------------------------------
    def _start_pending(self, yielding: bool = True) -> None:
        """Start the pending request's run (if none is in flight); unless `yielding` is off
        (an immediate request), after the job it yields to (`yield_to`)."""
        if not self._pending or self._in_flight is not None or self._closed:
            return
        if (yielding and self.yield_to is not None and self._yielded_ms < YIELD_MAX_MS
                and self.yield_to()):
            self._yielded_ms += YIELD_STEP_MS
            self._timer.start(YIELD_STEP_MS)
            return
        self._yielded_ms = 0
        self._pending = False
        request, params = self._request, self._params
        snapshot = self._layout.snapshot() if self._layout is not None else None  # GUI thread
        self._in_flight = request
        self.runs += 1
        work, relay, worker = self.work, self._relay, self._worker
        revision = snapshot.revision if snapshot is not None else 0

        def task() -> None:
            ok, result = worker.run(lambda: execute(work, request, snapshot, params))
            if not ok:
                result = JobResult(request, snapshot, revision, params, None, CANCELLED)
            relay.finished.emit(result)

        self._pool.start(task)

    def _is_current(self, result: JobResult) -> bool:
        if result.request != self._request:
            return False
        if self.follow_revision and self._layout is not None:
            return result.revision == self._layout.revision
        return True

    def _on_worker_finished(self, result: JobResult) -> None:
        self._in_flight = None
        if self._closed:
            return
        if self._is_current(result):
            self._deliver(result)
        else:
            self.dropped += 1
            log.debug("dropped a result for request %d (newest %d)", result.request,
                      self._request)
            self.result_dropped.emit(result)
            if not self._pending and result.request == self._request:
                self._pending = True  # the design changed without a request: run again
        if self._pending and not self._timer.isActive():
            self._start_pending()
        elif not self._pending and self._in_flight is None:
            self._set_busy(False)

    def _deliver(self, result: JobResult) -> None:
        self.latest = result
        if not self._pending and self._in_flight is None:
            self._set_busy(False)
        self.result_ready.emit(result)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def in_flight(self) -> bool:
        return self._in_flight is not None

    # ---- synchronous ------------------------------------------------------------------------
    def run_now(self) -> JobResult:
        """Compute on this thread now and deliver it; a run in flight becomes stale."""
        self._timer.stop()
        self._request += 1
        self._pending = False
        snapshot = self._layout.snapshot() if self._layout is not None else None
        result = execute(self.work, self._request, snapshot, self._params)
        if self._in_flight is None:
            self._set_busy(False)
        self._deliver(result)
        return result

    def flush(self, timeout_ms: int = 30_000) -> JobResult | None:
        """Start what is pending now and wait (processing events) for the newest result."""
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
                log.warning("BackgroundJob.flush timed out after %d ms", timeout_ms)
        return self.latest

    def cancel(self) -> bool:
        """Stop the run in flight now (its result is dropped); False when none is running."""
        stopped = self._worker.cancel()
        self.cancelled += stopped
        return stopped

    def close(self, timeout_ms: int = 10_000) -> None:
        """Stop the run in flight and wait for its thread to let go (the window is closing):
        the run unwinds at its next bytecode, so this returns at once."""
        self._closed = True
        self._timer.stop()
        self.cancel()
        waited = 0
        while not self._pool.waitForDone(50):
            waited += 50
            if waited >= timeout_ms:
                log.warning("a background run did not stop within %d ms", timeout_ms)
                return
            self._worker.cancel(again=True)  # the first landed where it was ignored


__all__ = ["CANCELLED", "DEBOUNCE_MS", "FREEZE_MIN_DEVICES", "BackgroundJob", "Cancelled",
           "JobResult", "Work", "Worker", "execute"]
