"""Run a sweep's points as Dask tasks: local threads or processes, or a `dask.distributed`
scheduler given by address (`tcp://host:8786`), so a user with a cluster scales out with no
code change.

Why Dask and this shape: each point is independent and seconds to minutes long, so one task per
point is the whole graph. Locally the plain Dask schedulers need no set-up (processes by
default: generating and simulating is pure Python and holds the GIL). With an address the
points are submitted as futures to the running scheduler; the spec travels to each worker once
(`scatter`), and the workers need RackDesigner importable (same version) — a worker that cannot
import it makes its points fail with that message instead of hanging. Rows come back in point
order whatever order tasks finish in, so every scheduler gives the same results. A local worker
process that dies (kill -9, the OOM killer) fails its point only: `local.py` rebuilds the pool.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rackdesigner.sweep.point import FAILED, OK, evaluate_point, figure_columns
from rackdesigner.sweep.spec import SweepSpec

log = logging.getLogger(__name__)
LOCAL_SCHEDULERS = ("processes", "threads", "synchronous")
DEFAULT_SCHEDULER = "processes"
CONNECT_TIMEOUT_S = 10.0

Progress = Callable[[int, int], None]


class SweepRunError(RuntimeError):
    """The sweep as a whole cannot run (scheduler unreachable, cancelled); says why."""


class SweepCancelled(SweepRunError):
    pass


@dataclass(frozen=True)
class SweepResult:
    """Rows (one per point, in point order) and the column order they are written in."""

    spec: SweepSpec
    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    scheduler: str = ""
    elapsed_s: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    def failed(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if r.get("status") == FAILED]

    def not_ok(self) -> list[dict[str, Any]]:
        return [r for r in self.rows if r.get("status") != OK]


def result_columns(spec: SweepSpec) -> tuple[str, ...]:
    return ("point", *spec.parameter_names(), *figure_columns(spec))


def is_address(scheduler: str) -> bool:
    return "://" in scheduler or (":" in scheduler and scheduler not in LOCAL_SCHEDULERS)


#: The protocols dask.distributed connects over (distributed.comm registry).
PROTOCOLS = ("tcp", "tls", "ws", "wss", "ucx", "inproc")
PROBE_TIMEOUT_S = 3.0


def check_address(address: str) -> None:
    """Refuse at once an address dask.distributed cannot use (`foo://bar` waited 20 s and then
    raised), and one where nothing listens (`tcp://127.0.0.1:1` took 10 s to fail): a plain TCP
    connection is tried first, with a short timeout."""
    import socket

    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme not in PROTOCOLS:
        raise SweepRunError(f"scheduler address {address!r}: unknown protocol {scheme!r} "
                            f"(expected {', '.join(p + '://' for p in PROTOCOLS)} HOST:PORT)")
    if scheme in ("ucx", "inproc"):
        return
    host, colon, port_text = rest.rstrip("/").rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise SweepRunError(f"scheduler address {address!r}: expected {scheme}://HOST:PORT "
                            "(e.g. tcp://10.0.0.5:8786)")
    try:
        with socket.create_connection((host, int(port_text)), timeout=PROBE_TIMEOUT_S):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise SweepRunError(f"cannot reach the Dask scheduler at {address}: {reason} (is "
                            "`dask scheduler` running there?)") from None


def run_sweep(spec: SweepSpec, scheduler: Any = DEFAULT_SCHEDULER, *,
              workers: int | None = None, progress: Progress | None = None,
              cancel: threading.Event | None = None) -> SweepResult:
    """Evaluate every point of `spec` on Dask.

    `scheduler` is "processes", "threads", "synchronous", a scheduler address, or a
    `distributed.Client`. `progress(done, total)` is called as points finish (from the thread
    that called `run_sweep`); setting `cancel` stops the sweep with `SweepCancelled`.
    """
    points = list(enumerate(spec.points(), start=1))
    start = time.perf_counter()
    if progress is not None:
        progress(0, len(points))
    if isinstance(scheduler, str) and scheduler in LOCAL_SCHEDULERS:
        rows = _run_local(spec, points, scheduler, workers, progress, cancel)
        label = scheduler
    elif isinstance(scheduler, str) and not is_address(scheduler):
        raise SweepRunError(f"unknown scheduler {scheduler!r}: use processes, threads, "
                            "synchronous or a dask.distributed address (tcp://host:8786)")
    else:
        rows = _run_distributed(spec, points, scheduler, progress, cancel)
        label = scheduler if isinstance(scheduler, str) else "distributed client"
    columns = result_columns(spec)
    ordered = tuple({c: row.get(c) for c in columns}
                    for row in sorted(rows, key=lambda r: r["point"]))
    return SweepResult(spec, columns, ordered, label, time.perf_counter() - start)


def _run_local(spec: SweepSpec, points: list[tuple[int, dict]], scheduler: str,
               workers: int | None, progress: Progress | None,
               cancel: threading.Event | None) -> list[dict[str, Any]]:
    if scheduler == "processes":  # a worker's death costs its point, not the sweep
        from rackdesigner.sweep.local import run_processes

        return run_processes(spec, points, workers, progress, cancel)
    import dask
    from dask.callbacks import Callback

    tasks = [dask.delayed(run_point, pure=False)(spec, i, p) for i, p in points]
    total = len(tasks)
    done = 0

    def posttask(key, result, dsk, state, worker_id) -> None:
        nonlocal done
        if isinstance(result, dict) and "point" in result:
            done += 1
            if progress is not None:
                progress(done, total)
        if cancel is not None and cancel.is_set():
            raise SweepCancelled("the sweep was cancelled")

    options: dict[str, Any] = {"scheduler": scheduler}
    if scheduler != "synchronous":
        options["num_workers"] = workers or os.cpu_count() or 1
    with Callback(posttask=posttask):
        return list(dask.compute(*tasks, **options))


def _run_distributed(spec: SweepSpec, points: list[tuple[int, dict]], scheduler: Any,
                     progress: Progress | None,
                     cancel: threading.Event | None) -> list[dict[str, Any]]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise SweepRunError(f"running on the Dask cluster at {scheduler} needs dask.distributed,"
                            " an optional part of RackDesigner: pip install "
                            "'rackdesigner[cluster]' (local processes and threads need "
                            "nothing extra)") from None

    own = not isinstance(scheduler, Client)
    if own:
        check_address(scheduler)
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
        except Exception as exc:  # distributed raises OSError, TimeoutError, ValueError...
            raise SweepRunError(f"cannot reach the Dask scheduler at {scheduler}: {exc} "
                                "(is `dask scheduler` running there?)") from None
    else:
        client = scheduler
    try:
        if not client.scheduler_info().get("workers"):
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        shared = client.scatter(spec, broadcast=True, hash=False)
        run = uuid.uuid4().hex[:8]
        futures = [client.submit(run_point, shared, i, p, key=f"sweep-{run}-{i}",
                                 pure=False) for i, p in points]
        by_key = {f.key: (i, p) for f, (i, p) in zip(futures, points, strict=True)}
        rows: list[dict[str, Any]] = []
        for done, future in enumerate(as_completed(futures, loop=client.loop), start=1):
            if cancel is not None and cancel.is_set():
                client.cancel(futures)
                raise SweepCancelled("the sweep was cancelled")
            index, params = by_key[future.key]
            if future.status == "finished":
                rows.append(future.result())
            else:
                rows.append(failed_row(spec, index, params, future.exception()))
            if progress is not None:
                progress(done, len(futures))
        return rows
    except TimeoutError:
        raise SweepRunError(f"the Dask scheduler at {scheduler} has no workers (start one with "
                            f"`dask worker {scheduler}`)") from None
    finally:
        if own:
            client.close()


def run_point(spec: SweepSpec, index: int, params: dict[str, Any]) -> dict[str, Any]:
    """The sweep's Dask task: one point (`evaluate_point`) with the garbage collector held off
    in the worker while it builds, checks and simulates a whole design (a third of the time
    on a large design; the library leaves the collector alone, `model/gcpause.py`)."""
    from rackdesigner.model.gcpause import gc_paused
    from rackdesigner.sweep.local import die_if_asked

    die_if_asked(index)
    with gc_paused():
        return evaluate_point(spec, index, params)


def failed_row(spec: SweepSpec, index: int, params: dict[str, Any],
               exc: BaseException | None) -> dict[str, Any]:
    """A point's row when its task could not give one: figures empty, `error` says why."""
    text = f"{type(exc).__name__}: {exc}" if exc is not None else "the task was lost"
    if isinstance(exc, ModuleNotFoundError | ImportError) and "rackdesigner" in str(exc):
        text = ("the Dask worker cannot import rackdesigner: install RackDesigner on every "
                f"worker ({exc})")
    row: dict[str, Any] = {"point": index, **params}
    for column in figure_columns(spec):
        row[column] = None
    row["status"] = FAILED
    row["error"] = text
    return row
