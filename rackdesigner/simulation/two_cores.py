"""Independent work of one command on a second core: a forked child returning plain values.

The CLI's large commands (`whatif --fail`, `simulate`) read a design, then ask questions of it
that do not depend on each other. `Forked(fn, *args)` runs `fn(*args)` in a child forked from
this process (it sees the design already read, nothing is copied up front) while this process
goes on; `result()` waits for the child and returns its value, which must be plain data that
pickles cheaply (figures, dicts of numbers and strings), never a design or a topology.

`result()` returns None when the child raised, died without a value (killed, out of memory)
or outlived the bound given (it is then killed): the caller asks the question itself, as the
serial path does, so the output is the same, or the same exception is raised from the same
call. The child is always joined before `result()` returns; nothing is left running.

`wanted(layout)`: whether forking pays — the platform has the fork start method (Linux,
macOS), the machine more than one core, the process one thread (a fork copies other
threads' locks, not the threads), `RACKDESIGNER_WORKERS` is not 1 (the documented switch to
the serial path; unset, the last minute's load average must also be below the number of
cores, else the second core is busy and a fork only adds CPU; 2 forks regardless), and the
design has at least `PARALLEL_FROM_GPUS` GPUs (`RACKDESIGNER_PARALLEL_FROM_GPUS` moves the
threshold: the tests use it on small designs).
The designer does not use this (its workers already run on snapshots in threads).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rackdesigner.model import Layout

WORKERS_ENV = "RACKDESIGNER_WORKERS"
THRESHOLD_ENV = "RACKDESIGNER_PARALLEL_FROM_GPUS"
#: GPUs from which a fork pays (measured, docs/large-designs.md "Round three, two cores"):
#: below, the fork and the transfer cost about as much as the smaller half saves.
PARALLEL_FROM_GPUS = 2000
_POLL_S = 0.05


def gpu_count(layout: Layout) -> int:
    """The design's devices whose model computes (per model, from the index's counts)."""
    index = layout.index()
    catalog = index.catalog
    total = 0
    for model, n in index.models().items():
        spec = catalog.get(model) if model in catalog else None
        if spec is not None and spec.traits.computes:
            total += n
    return total


def wanted(layout: Layout) -> bool:
    """Whether a command should fork for `layout` (see the module docstring)."""
    try:
        threshold = int(os.environ.get(THRESHOLD_ENV, "") or PARALLEL_FROM_GPUS)
    except ValueError:
        return False
    return may_fork() and gpu_count(layout) >= threshold


def may_fork() -> bool:
    """`wanted` without the design's size: the platform, the cores, their load, the switch."""
    asked = os.environ.get(WORKERS_ENV, "")
    try:
        workers = int(asked or 2)
        int(os.environ.get(THRESHOLD_ENV, "") or PARALLEL_FROM_GPUS)
    except ValueError:
        return False
    cores = os.cpu_count() or 1
    if workers < 2 or cores < 2:
        return False
    if not asked and _busy(cores):
        return False
    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    return threading.active_count() <= 1  # a library caller with threads: no fork (its locks)


def _busy(cores: int) -> bool:
    """Whether every core already has work (the last minute's load average at least the
    number of cores): a second process then only adds its CPU (measured: docs/large-designs.md
    "Round three, two cores"). `RACKDESIGNER_WORKERS=2` forks regardless."""
    try:
        return os.getloadavg()[0] >= cores
    except OSError:  # no load average on this platform
        return False


def _child(conn: Any, fn: Callable[..., Any], args: tuple) -> None:
    try:
        payload: tuple[str, Any] = ("ok", fn(*args))
    except BaseException as exc:  # the parent asks again itself and raises what serial raises
        payload = ("error", type(exc).__name__)
    conn.send_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
    conn.close()


class Forked:
    """`fn(*args)` running in a forked child; `result()` its value or None (see above)."""

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        sys.stdout.flush()  # nothing buffered is written twice
        sys.stderr.flush()
        ctx = multiprocessing.get_context("fork")
        self._conn, send = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_child, args=(send, fn, args), daemon=True)
        self._proc.start()
        send.close()
        self.started = time.monotonic()

    def result(self, bound_s: float) -> Any | None:
        """The child's value; None when it raised, died or outlived `bound_s` seconds from
        now (then it is killed). The child is joined either way."""
        proc, conn = self._proc, self._conn
        deadline = time.monotonic() + bound_s
        message = None
        try:
            while time.monotonic() < deadline:
                if conn.poll(_POLL_S):
                    try:
                        message = pickle.loads(conn.recv_bytes())
                    except (EOFError, OSError):
                        message = None
                    break
                if not proc.is_alive() and not conn.poll(0):
                    break
        finally:
            self.stop()
        return message[1] if message is not None and message[0] == "ok" else None

    def stop(self) -> None:
        """End the child (joined; killed when it does not end by itself)."""
        self._conn.close()
        self._proc.join(timeout=5.0)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join()

    def kill(self) -> None:
        """Kill the child now (this process is leaving with an error) and join it."""
        self._conn.close()
        if self._proc.is_alive():
            self._proc.kill()
        self._proc.join()
