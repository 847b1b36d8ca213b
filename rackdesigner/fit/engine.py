"""Run `fit`'s part measurements on the sweep engine's schedulers: local processes (or
threads, synchronous) through plain Dask, or a `dask.distributed` scheduler by address —
the same choices, address checks and messages as `rackdesigner sweep` (sweep/runner.py)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import Any

from rackdesigner.sweep.runner import (
    CONNECT_TIMEOUT_S,
    LOCAL_SCHEDULERS,
    SweepRunError,
    check_address,
    is_address,
)

Progress = Callable[[int, int], None]


def run_tasks(fn: Callable[..., Any], args: list[tuple], scheduler: str = "processes", *,
              workers: int | None = None, progress: Progress | None = None) -> list[Any]:
    """`fn(*a)` for every `a` in `args`, in order, on `scheduler` (see the module docstring)."""
    if scheduler in LOCAL_SCHEDULERS:
        import dask
        from dask.callbacks import Callback

        tasks = [dask.delayed(fn, pure=False)(*a) for a in args]
        done = 0

        def posttask(key, result, dsk, state, worker_id) -> None:
            nonlocal done
            done += 1
            if progress is not None:
                progress(min(done, len(tasks)), len(tasks))

        options: dict[str, Any] = {"scheduler": scheduler}
        if scheduler != "synchronous":
            options["num_workers"] = workers or os.cpu_count() or 1
        with Callback(posttask=posttask):
            return list(dask.compute(*tasks, **options))
    if not is_address(scheduler):
        raise SweepRunError(f"unknown scheduler {scheduler!r}: use processes, threads, "
                            "synchronous or a dask.distributed address (tcp://host:8786)")
    return _distributed(fn, args, scheduler, progress)


def _distributed(fn: Callable[..., Any], args: list[tuple], address: str,
                 progress: Progress | None) -> list[Any]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise SweepRunError(f"running on the Dask cluster at {address} needs dask.distributed,"
                            " an optional part of RackDesigner: pip install "
                            "'rackdesigner[cluster]'") from None
    check_address(address)
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except Exception as exc:  # distributed raises OSError, TimeoutError, ValueError...
        raise SweepRunError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    try:
        if not client.scheduler_info().get("workers"):
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        run = uuid.uuid4().hex[:8]
        futures = [client.submit(fn, *a, key=f"fit-{run}-{i}", pure=False)
                   for i, a in enumerate(args)]
        for done, _ in enumerate(as_completed(futures, loop=client.loop), start=1):
            if progress is not None:
                progress(done, len(futures))
        return [f.result() for f in futures]
    except TimeoutError:
        raise SweepRunError(f"the Dask scheduler at {address} has no workers (start one with "
                            f"`dask worker {address}`)") from None
    finally:
        client.close()
