"""One background run: `execute` runs the work on a snapshot and never raises; `JobResult` is
what it gives back (the request, the snapshot, the value or the error).

`BackgroundJob` (ui/jobs.py, which re-exports these names) schedules the runs; this module
holds what one run is, with the garbage-collector handling that large designs need.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rackdesigner.model import Layout

#: the logger of ui/jobs.py, where these lived: a failed run is logged under the same name
log = logging.getLogger("rackdesigner.ui.jobs")
Work = Callable[[Layout, Any], Any]


@dataclass(frozen=True)
class JobResult:
    """One finished run: its request id, the snapshot it ran on, its parameters, and the value
    (or the error message when the work raised)."""

    request: int
    snapshot: Layout | None
    revision: int
    params: Any
    value: Any = None
    error: str = ""
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.error


#: Designs at least this large have their runs' results frozen out of the garbage collector.
FREEZE_MIN_DEVICES = 1000


def execute(work: Work, request: int, snapshot: Layout | None, params: Any) -> JobResult:
    """Run `work(snapshot, params)`; never raises (a failure is logged and reported).

    The garbage collector is held off during the run, and on a large design what the run
    leaves alive (the new state's derived index: 10⁵–10⁶ objects at 32k GPUs) is frozen at its
    end (`model/gcpause.py`). Otherwise the collector walked those objects again and again,
    holding the GIL for 0.1–0.5 s per walk: the GUI froze while a worker recomputed after an
    edit. What is frozen is unfrozen when the document is replaced (`ui/heap.py`)."""
    from rackdesigner.model.gcpause import gc_paused

    start = time.perf_counter()
    revision = snapshot.revision if snapshot is not None else 0
    big = snapshot is not None and snapshot.device_count() >= FREEZE_MIN_DEVICES
    try:
        with gc_paused(freeze=big):
            value = work(snapshot, params)
    except Exception as exc:  # a bug in the work must not take the designer down
        log.error("background work failed:\n%s", traceback.format_exc())
        return JobResult(request, snapshot, revision, params, None,
                         f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
    return JobResult(request, snapshot, revision, params, value, "",
                     time.perf_counter() - start)
