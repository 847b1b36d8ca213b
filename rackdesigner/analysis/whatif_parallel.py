"""`whatif --fail` on two cores: the degraded design simulated in a forked worker process.

A scenario asks two independent questions of one loaded design: the intact design's
simulation (topology, PUE, report) and the degraded design's (the copy without the failed
objects, its topology, PUE, report). The serial path (`WhatIf(...).scenario(ids)`) asks them
in turn; when forking pays (`simulation/two_cores.py`: a platform that forks, two cores, at
least 2,000 GPUs, `RACKDESIGNER_WORKERS` not 1), `scenario_in_two` asks the degraded one in a
child forked after the design is read, while this process asks the intact one. The child
sends back only what the command prints: the degraded figures, its stranded GPUs, its per-GPU
capacities and, for `--json`, the simulation's JSON-ready dict — never the design or its
topology.

What changes against the serial path: the child builds the degraded topology whole rather than
as a delta of the intact one (`simulation/topology_delta.py`, which needs the intact topology
first: building that before the fork puts it on the critical path, measured 1 s slower at 32k
GPUs); the two are equal field for field (tests/test_topology_delta.py), so the output is byte
for byte the serial path's (tests/test_whatif_parallel.py). A job file (`--job`) and `--each`
stay serial. A child that raises, dies or outlives its bound: the degraded design is asked
here instead, as serial asks it (the same output, or the same error from the same call).
"""

from __future__ import annotations

from typing import Any

from rackdesigner.analysis.whatif_figures import _TOL, Impact, deltas, figures
from rackdesigner.model import Layout
from rackdesigner.model.failures import closure, degraded, restored
from rackdesigner.simulation import simulate
from rackdesigner.simulation.stages import gpu_capacity
from rackdesigner.simulation.two_cores import Forked

#: The parent waits for the child at most this many times its own (similar) work, plus a
#: minute, then kills it and simulates the degraded design itself: never an endless wait.
_WAIT_FACTOR = 10.0


def _degraded_part(layout: Layout, down: Any, size: int, sim: dict[str, Any],
                   want_doc: bool) -> dict[str, Any]:
    """What the command needs of the degraded design (plain values only)."""
    broken = degraded(layout, down)
    result = simulate(broken, **sim)
    cap = gpu_capacity(broken)
    return {"after": figures(result, size), "stranded": result.scope.unreachable_gpus,
            "per_gpu": dict(cap.per_gpu), "doc": result.to_dict() if want_doc else None}


def scenario_in_two(layout: Layout, failed_ids: list[str], size: int,
                    want_doc: bool) -> tuple[Impact, dict[str, Any] | None, dict[str, Any] | None]:
    """`WhatIf(layout, size=size).scenario(failed_ids)`, its degraded design simulated in a
    forked child: the impact (without `result`), and for `want_doc` the intact and degraded
    simulations' dicts (`SimulationResult.to_dict()`). Raises what the serial path raises
    (`WhatIfError` naming an unknown id)."""
    import time

    from rackdesigner.analysis.whatif import WhatIfError

    whole = restored(layout)
    sim: dict[str, Any] = {"loads_for": None}
    ids = tuple(dict.fromkeys(failed_ids))
    try:
        down = closure(whole, ids)
    except KeyError as exc:
        raise WhatIfError(exc.args[0]) from None
    child = Forked(_degraded_part, whole, down, size, sim, want_doc)
    try:
        intact_result = simulate(whole, **sim)
        intact = figures(intact_result, size)
        capacity = gpu_capacity(whole)
        intact_doc = intact_result.to_dict() if want_doc else None
    except BaseException:
        child.kill()
        raise
    part = child.result(60.0 + _WAIT_FACTOR * (time.monotonic() - child.started))
    if part is None:  # the child raised or died: asked here, as serial asks it
        part = _degraded_part(whole, down, size, sim, want_doc)
    per_gpu, after = part["per_gpu"], part["after"]
    base = capacity.per_gpu
    failed_gpus = sum(1 for g in base if g in down.devices)
    degraded_gpus = sum(1 for g, (up, net) in per_gpu.items()
                        if up < base[g][0] - _TOL or net < base[g][1] - _TOL)
    stranded = part["stranded"]
    impact = Impact(ids, failed_gpus, stranded, degraded_gpus, stranded > 0, intact, after,
                    deltas(intact, after))
    return impact, intact_doc, part["doc"]
