"""`whatif --fail` on two cores: the degraded design simulated in a forked worker process.

A scenario asks two independent questions of one loaded design: the intact design's
simulation (topology, PUE, report) and the degraded design's (the copy without the failed
objects, its topology, PUE, report). The serial path (`WhatIf(...).scenario(ids)`) asks them
in turn; on a large design (`PARALLEL_FROM_GPUS`) and a platform that forks (Linux, macOS),
`scenario_in_two` asks the degraded one in a child process forked after the design is read,
while this process asks the intact one. The child sends back only what the command prints:
the degraded figures, its stranded GPUs, its per-GPU capacities and, for `--json`, the
simulation's JSON-ready dict — never the design or its topology.

What changes against the serial path: the child builds the degraded topology whole rather than
as a delta of the intact one (`simulation/topology_delta.py`, which needs the intact topology
first); the two are equal field for field (tests/test_topology_delta.py), so the output is
byte for byte the serial path's (tests/test_whatif_parallel.py). A job file (`--job`) and
`--each` stay serial.

`RACKDESIGNER_WORKERS=1` forces the serial path (`RACKDESIGNER_PARALLEL_FROM_GPUS=N` moves the
threshold: the tests use it on small designs). A child that raises, dies without a result
(killed, out of memory) or outlives a generous bound is reaped and the degraded design is
simulated here instead, as the serial path does: the same output, or the same error raised
from the same call, so the same message and exit status. Nothing is left running: the child
is joined, or killed and joined, before this returns. The designer does not use this module
(its workers already run on snapshots in threads).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
import time
from typing import Any

from rackdesigner.analysis.whatif_figures import _TOL, Impact, deltas, figures
from rackdesigner.model import Layout
from rackdesigner.model.failures import closure, degraded, restored
from rackdesigner.simulation import simulate
from rackdesigner.simulation.stages import gpu_capacity

WORKERS_ENV = "RACKDESIGNER_WORKERS"
THRESHOLD_ENV = "RACKDESIGNER_PARALLEL_FROM_GPUS"
#: GPUs from which a fork pays: below, the fork and the result's transfer (about 0.1 s) cost
#: more than the smaller simulation saves (a 2,048-GPU design simulates in about 0.3 s).
PARALLEL_FROM_GPUS = 2000
_POLL_S = 0.05
#: The parent waits for the child at most this many times its own (similar) work, plus a
#: minute, then kills it and simulates the degraded design itself: never an endless wait.
_WAIT_FACTOR = 10.0


def _gpus(layout: Layout) -> int:
    index = layout.index()
    catalog = index.catalog
    total = 0
    for model, n in index.models().items():
        spec = catalog.get(model) if model in catalog else None
        if spec is not None and spec.traits.computes:
            total += n
    return total


def parallel_wanted(layout: Layout) -> bool:
    """Whether `scenario_in_two` should fork for `layout` (see the module docstring)."""
    try:
        workers = int(os.environ.get(WORKERS_ENV, "") or 2)
        threshold = int(os.environ.get(THRESHOLD_ENV, "") or PARALLEL_FROM_GPUS)
    except ValueError:
        return False
    if workers < 2 or (os.cpu_count() or 1) < 2:
        return False
    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    return _gpus(layout) >= threshold


def _degraded_part(layout: Layout, down: Any, size: int, sim: dict[str, Any],
                   want_doc: bool) -> dict[str, Any]:
    """What the command needs of the degraded design (plain values only)."""
    broken = degraded(layout, down)
    result = simulate(broken, **sim)
    cap = gpu_capacity(broken)
    return {"after": figures(result, size), "stranded": result.scope.unreachable_gpus,
            "per_gpu": dict(cap.per_gpu), "doc": result.to_dict() if want_doc else None}


def _child(conn: Any, layout: Layout, down: Any, size: int, sim: dict[str, Any],
           want_doc: bool) -> None:
    try:
        payload: tuple[str, Any] = ("ok", _degraded_part(layout, down, size, sim, want_doc))
    except BaseException as exc:  # the parent asks again itself and raises what serial raises
        payload = ("error", type(exc).__name__)
    conn.send_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
    conn.close()


def _wait(proc: Any, conn: Any, bound_s: float) -> tuple[str, Any] | None:
    """The child's message, or None when it died or outlived `bound_s` (then it is killed);
    the child is joined either way."""
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
        conn.close()
        proc.join(timeout=5.0)
        if proc.is_alive():
            proc.kill()
            proc.join()
    return message


def scenario_in_two(layout: Layout, failed_ids: list[str], size: int,
                    want_doc: bool) -> tuple[Impact, dict[str, Any] | None, dict[str, Any] | None]:
    """`WhatIf(layout, size=size).scenario(failed_ids)`, its degraded design simulated in a
    forked child: the impact (without `result`), and for `want_doc` the intact and degraded
    simulations' dicts (`SimulationResult.to_dict()`). Raises what the serial path raises
    (`WhatIfError` naming an unknown id)."""
    from rackdesigner.analysis.whatif import WhatIfError

    whole = restored(layout)
    sim: dict[str, Any] = {"loads_for": None}
    ids = tuple(dict.fromkeys(failed_ids))
    try:
        down = closure(whole, ids)
    except KeyError as exc:
        raise WhatIfError(exc.args[0]) from None
    sys.stdout.flush()
    sys.stderr.flush()
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, whole, down, size, sim, want_doc),
                       daemon=True)
    proc.start()
    send.close()
    started = time.monotonic()
    try:
        intact_result = simulate(whole, **sim)
        intact = figures(intact_result, size)
        capacity = gpu_capacity(whole)
        intact_doc = intact_result.to_dict() if want_doc else None
    except BaseException:
        receive.close()
        proc.kill()
        proc.join()
        raise
    bound = 60.0 + _WAIT_FACTOR * (time.monotonic() - started)
    message = _wait(proc, receive, bound)
    if message is None or message[0] != "ok":
        # the child died or raised: the degraded design here, as serial asks it — the same
        # result, or the same exception raised from the same place (exceptions do not all
        # survive pickling: a CatalogError's arguments are not its message)
        part = _degraded_part(whole, down, size, sim, want_doc)
    else:
        part = message[1]
    per_gpu, after = part["per_gpu"], part["after"]
    base = capacity.per_gpu
    failed_gpus = sum(1 for g in base if g in down.devices)
    degraded_gpus = sum(1 for g, (up, net) in per_gpu.items()
                        if up < base[g][0] - _TOL or net < base[g][1] - _TOL)
    stranded = part["stranded"]
    impact = Impact(ids, failed_gpus, stranded, degraded_gpus, stranded > 0, intact, after,
                    deltas(intact, after))
    return impact, intact_doc, part["doc"]
