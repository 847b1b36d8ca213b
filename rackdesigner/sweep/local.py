"""Local-process sweeps that survive a dead worker (issue 31 §5).

Dask's process scheduler runs the points on a `ProcessPoolExecutor`; when one worker dies —
`kill -9`, the out-of-memory killer, a crash in native code — the executor is broken and every
point still running or waiting fails with `BrokenProcessPool`: the whole sweep used to end with
a traceback and no results file. The Dask-cluster path already marks a lost task's point failed
and goes on; this module gives the local path the same promise ("a failed point does not stop
the sweep", docs/sweeps.md):

1. the points run as Dask tasks, one task per submission (`chunksize=1`), and the scheduler's
   callbacks record which points were handed to a worker and which came back;
2. when the pool breaks, the points that had come back are kept; the ones that were running
   when it broke are each run again *alone*, in a fresh process, so a death is pinned on the
   point that causes it (a point that was only a bystander succeeds there) — one that kills its
   process again is marked failed with the process's exit (signal 9: kill -9 or the OOM killer);
3. a new pool is built for the points that never started, and so on until every point has a row.

Each round settles at least one point, so a sweep ends after at most one round per point.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from typing import Any

#: Test hook: a worker process running the point with this index kills itself with SIGKILL
#: (as `kill -9` or the OOM killer would). Read only in worker processes, never in the caller.
KILL_POINT_ENV = "RACKDESIGNER_TEST_KILL_SWEEP_POINT"
_POLL_S = 0.2

Progress = Callable[[int, int], None]


class WorkerLost(RuntimeError):
    """The process running a point died before it returned the point's row."""


def die_if_asked(index: int) -> None:
    """The test hook of `KILL_POINT_ENV` (a no-op unless set, and in the calling process)."""
    wanted = os.environ.get(KILL_POINT_ENV)
    if wanted and wanted == str(index) and multiprocessing.parent_process() is not None:
        os.kill(os.getpid(), signal.SIGKILL)


def run_processes(spec: Any, points: list[tuple[int, dict]], workers: int | None,
                  progress: Progress | None,
                  cancel: threading.Event | None) -> list[dict[str, Any]]:
    """Every point's row, on local worker processes; a point whose worker died is failed."""
    from concurrent.futures.process import BrokenProcessPool

    rows: dict[int, dict[str, Any]] = {}
    pending = list(points)
    total = len(points)

    def settle(row: dict[str, Any]) -> None:
        rows[row["point"]] = row
        if progress is not None:
            progress(len(rows), total)

    while pending:
        started: set[int] = set()
        try:
            _run_round(spec, pending, workers, started, settle, cancel)
        except BrokenProcessPool:
            lost = [(i, p) for i, p in pending if i in started and i not in rows]
            if not lost:  # cannot happen (a pool breaks under a task), but never loop
                lost = [next((i, p) for i, p in pending if i not in rows)]
            for index, params in lost:
                settle(run_alone(spec, index, params, cancel))
        pending = [(i, p) for i, p in pending if i not in rows]
    return list(rows.values())


def _run_round(spec: Any, pending: list[tuple[int, dict]], workers: int | None,
               started: set[int], settle: Callable[[dict[str, Any]], None],
               cancel: threading.Event | None) -> None:
    import dask
    from dask.callbacks import Callback

    from rackdesigner.sweep.runner import SweepCancelled, run_point

    tasks = [dask.delayed(run_point, pure=False)(spec, i, p) for i, p in pending]
    index_of = {task.key: i for task, (i, _) in zip(tasks, pending, strict=True)}

    def pretask(key, dsk, state) -> None:
        if key in index_of:
            started.add(index_of[key])

    def posttask(key, result, dsk, state, worker_id) -> None:
        if isinstance(result, dict) and "point" in result:
            settle(result)
        if cancel is not None and cancel.is_set():
            raise SweepCancelled("the sweep was cancelled")

    with Callback(pretask=pretask, posttask=posttask):
        dask.compute(*tasks, scheduler="processes", chunksize=1,
                     num_workers=workers or os.cpu_count() or 1)


def run_alone(spec: Any, index: int, params: dict[str, Any],
              cancel: threading.Event | None = None) -> dict[str, Any]:
    """One point in a fresh process of its own: its row, or a failed row naming how the
    process ended when it died without one."""
    from rackdesigner.sweep.runner import SweepCancelled, failed_row

    context = multiprocessing.get_context("spawn")  # as Dask's pool: no fork of a threaded caller
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_alone_main, args=(send, spec, index, params),
                              name=f"rackdesigner-sweep-point-{index}", daemon=True)
    process.start()
    send.close()
    row: dict[str, Any] | None = None
    try:
        while row is None:
            if cancel is not None and cancel.is_set():
                process.kill()
                raise SweepCancelled("the sweep was cancelled")
            if receive.poll(_POLL_S):
                try:
                    row = receive.recv()
                except EOFError:  # the process ended without a row
                    break
            elif not process.is_alive() and not receive.poll(0):
                break
    finally:
        process.join(timeout=None if row is not None else 5.0)
        if process.is_alive():
            process.kill()
            process.join()
        receive.close()
    if row is not None:
        return row
    return failed_row(spec, index, params, WorkerLost(
        f"the worker process running this point died, {exit_reason(process.exitcode)}; "
        "the other points were run on a new pool"))


def exit_reason(code: int | None) -> str:
    """A process's end in words: `killed by signal 9 (SIGKILL: kill -9 or the out-of-memory
    killer)`, `exit status 1`."""
    if code is None:
        return "no exit status"
    if code >= 0:
        return f"exit status {code}"
    number = -code
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    cause = ": kill -9 or the out-of-memory killer" if number == signal.SIGKILL else ""
    return f"killed by signal {number} ({name}{cause})"


def _alone_main(send: Any, spec: Any, index: int, params: dict[str, Any]) -> None:
    from rackdesigner.sweep.runner import run_point

    send.send(run_point(spec, index, params))
    send.close()
