"""`validate` of a large design on two cores: the rack and cooling rules in a forked child.

The rule families are independent passes over one design (`model/rules.py` `check_parts`):
the link, port, model, NIC-reach and reachability rules read the index's link table, the rack
and cooling rules the rack index and the power draws. At 102,400 GPUs the two halves are about
2 s and 3 s of CPU, so when forking pays (`simulation/two_cores.py`: a platform that forks,
two cores not both busy, a large design) the rack and cooling rules run in a child forked from
the command while the command checks the rest, and the child returns its findings (a few
hundred plain `Finding`s, never the design).

The findings are those of `check_layout`, in its order: a child that raises, dies or outlives
its bound is joined or killed and the command checks the racks itself, as the serial path
does (tests/test_validate_parallel.py compares both on generated and broken designs).
"""

from __future__ import annotations

import os
import time

from rackdesigner.model import Layout
from rackdesigner.model.rule_finding import ERROR, Finding

#: The parent waits for the child at most this many times its own (similar) work, plus a
#: minute, then kills it and checks the racks itself: never an endless wait.
_WAIT_FACTOR = 10.0
#: Fewer devices than `simulation.two_cores.PARALLEL_FROM_GPUS` hold fewer GPUs than that: such
#: a design is checked at once, without importing the fork's module (and with it the
#: simulation package, 0.2 s: more than a small design's whole check). `THRESHOLD_ENV` is that
#: module's switch (the tests fork on small designs with it).
FORK_FROM_DEVICES = 2000
THRESHOLD_ENV = "RACKDESIGNER_PARALLEL_FROM_GPUS"


def forks(layout: Layout) -> bool:
    """Whether a command should use a second core for `layout` (`two_cores.wanted`), asked
    only of a design with enough devices."""
    if layout.device_count() < FORK_FROM_DEVICES and THRESHOLD_ENV not in os.environ:
        return False
    from rackdesigner.simulation.two_cores import wanted

    return wanted(layout)


def _rack_part(layout: Layout) -> tuple[list[Finding], list[Finding]]:
    """The rack rules' and the cooling rules' findings (as `check_parts` makes them)."""
    from rackdesigner.model.racks_evolve import rack_index
    from rackdesigner.model.rule_finding import _Specs
    from rackdesigner.model.rules import _check_racks, check_cooling

    racks = rack_index(layout)
    return _check_racks(layout, _Specs(layout), racks), check_cooling(layout, racks)


def check_layout_in_two(layout: Layout) -> list[Finding]:
    """`check_layout(layout)`, its rack and cooling rules checked in a forked child."""
    from rackdesigner.model.rule_finding import _Specs
    from rackdesigner.model.rules import (
        _check_links,
        _check_models,
        _check_nic_reach,
        _check_reachability,
    )
    from rackdesigner.simulation.two_cores import Forked

    child = Forked(_rack_part, layout)
    try:
        specs = _Specs(layout)
        models = _check_models(layout, specs)
        links = _check_links(layout, specs, {}, {})
        nic_reach = _check_nic_reach(layout, specs)
        reachability = _check_reachability(layout)
    except BaseException:
        child.kill()
        raise
    part = child.result(60.0 + _WAIT_FACTOR * (time.monotonic() - child.started))
    if part is None:  # the child raised or died: checked here, as serial checks them
        part = _rack_part(layout)
    racks, cooling = part
    out = [*models, *links, *racks, *cooling, *nic_reach, *reachability]
    out.sort(key=lambda f: 0 if f.severity == ERROR else 1)  # as `RuleParts.findings`
    return out
