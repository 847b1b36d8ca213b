"""`validate` of a large design file on two cores: a child that reads the file too.

The rule families are independent passes over one design (`model/rules.py` `check_parts`):
the link, port, model, NIC-reach and reachability rules read the index's link table, the rack
and cooling rules the rack index and the power draws (about 2 s of 6 at 102,400 GPUs).
Forked after the design is read, a child's saving is partly eaten by copy-on-write faults:
the command then touches every object of a gigabyte-sized design, and each page it writes is
copied out of the child's (measured in round three and again in round four,
docs/large-designs.md). So the child is forked before the file is read and reads it itself,
on the second core, while the command reads it on the first: no page is shared, and the
child's part is off the command's path. It costs the CPU and the memory of a second read, so
it is taken only when forking pays (`two_cores.may_fork`: a
platform that forks, two cores, not `RACKDESIGNER_WORKERS=1`), a core is idle now (fewer
other tasks runnable than cores less one, `_no_idle_core`, or `RACKDESIGNER_WORKERS=2`) and
the file is large (`FORK_FROM_BYTES`; `RACKDESIGNER_PARALLEL_FROM_GPUS` set forks for any
file: the tests).

The child returns plain values (its findings) with the file's size, time and inode
as it read them; the command takes them only when its own read saw the same file. Otherwise,
or when the child raised, died or outlived its bound (it is then killed), the command asks the
questions itself, as the serial path does: the output is the same either way
(tests/test_validate_parallel.py compares both on generated and broken designs).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from rackdesigner.model import Layout
from rackdesigner.model.rule_finding import ERROR, Finding

#: The command waits for the child at most this many times the time since the fork, plus a
#: minute, then kills it and asks the child's questions itself: never an endless wait.
_WAIT_FACTOR = 10.0
#: Files from this size take the second core (a 2,400-GPU rail-optimized design is 2 MB; a
#: 32,760-GPU SuperPOD 39 MB): below, a second read and a fork save tens of milliseconds.
FORK_FROM_BYTES = 4 * 2**20
#: `simulation.two_cores`'s switch: set, any file forks (read here without importing that
#: module, and with it the simulation package, for a small file).
THRESHOLD_ENV = "RACKDESIGNER_PARALLEL_FROM_GPUS"


def _stamp(path: str) -> tuple[int, int, int, int] | None:
    """What says the file is the one read: device, inode, size, modification time."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _read_and(path: str, part: Callable[[Layout], Any]) -> tuple[Any, Any]:
    """(the file's stamp, `part` of the design read from it): the child's work."""
    from rackdesigner.io import load_layout

    before = _stamp(path)
    value = part(load_layout(path))
    return (before if _stamp(path) == before else None), value


class FileBeside:
    """`part(design in path)` worked out by a child that reads `path` itself (see above)."""

    def __init__(self, path: str, part: Callable[[Layout], Any]) -> None:
        from rackdesigner.simulation.two_cores import Forked

        self.path, self.stamp = path, _stamp(path)  # before this process reads it
        self._child: Any = Forked(_read_and, path, part)

    def result(self) -> Any | None:
        """The child's value; None when it gave none or read another file than this process."""
        child, self._child = self._child, None
        if child is None:
            return None
        got = child.result(60.0 + _WAIT_FACTOR * (time.monotonic() - child.started))
        if got is None or got[0] is None or got[0] != self.stamp:
            return None  # no value, or the child read the file while it changed
        if _stamp(self.path) != self.stamp:
            return None  # the file changed while this process read it

        return got[1]

    def stop(self) -> None:
        """End the child unread (the command failed) and join it."""
        child, self._child = self._child, None
        if child is not None:
            child.kill()


def beside(path: str, part: Callable[[Layout], Any]) -> FileBeside | None:
    """A `FileBeside` when a second core pays for `path`, else None (nothing imported)."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return None
    if size < FORK_FROM_BYTES and THRESHOLD_ENV not in os.environ:
        return None
    from rackdesigner.simulation.two_cores import WORKERS_ENV, may_fork

    if not may_fork():
        return None
    if not os.environ.get(WORKERS_ENV) and _no_idle_core():
        return None  # a second read only pays on a core nothing else uses
    return FileBeside(path, part)


def _no_idle_core() -> bool:
    """Whether no core is idle: the other tasks runnable now (Linux's count in /proc/loadavg,
    this process left out, the least of a few looks a millisecond apart) keep every other
    core busy; where that count cannot be read, the last minute's load average at least the
    number of cores less one. Measured at a load average of 1 to 1.5 on two cores from other
    engineers' work, the second read competed with it and the command was no faster
    (docs/large-designs.md, round four); but the load average lags a minute, so a user's (or
    a benchmark's) previous large command kept the second core from the next one while it
    stood idle (round five). `RACKDESIGNER_WORKERS=2` reads beside regardless."""
    cores = os.cpu_count() or 1
    others = _others_running()
    if others is not None:
        return others >= cores - 1
    try:
        return os.getloadavg()[0] >= cores - 1
    except OSError:  # no load average on this platform
        return False


#: How many times the runnable tasks are counted, a millisecond apart: a task that is
#: runnable each time is busy, one that showed up once is not counted.
_LOOKS = 3


def _others_running() -> int | None:
    """The fewest tasks, this process not counted, that /proc/loadavg said were runnable
    (its fourth field: runnable/all) over `_LOOKS` looks; None where it cannot be read."""
    fewest: int | None = None
    for look in range(_LOOKS):
        if look:
            time.sleep(0.001)
        try:
            with open("/proc/loadavg", encoding="ascii") as f:
                runnable = int(f.read().split()[3].split("/")[0]) - 1  # less this process
        except (OSError, ValueError, IndexError):
            return None
        fewest = runnable if fewest is None else min(fewest, runnable)
    return fewest


def rack_part(layout: Layout) -> tuple[list[Finding], list[Finding]]:
    """The rack rules' and the cooling rules' findings (as `check_parts` makes them)."""
    from rackdesigner.model.racks_evolve import rack_index
    from rackdesigner.model.rule_finding import _Specs
    from rackdesigner.model.rules import _check_racks, check_cooling

    racks = rack_index(layout)
    return _check_racks(layout, _Specs(layout), racks), check_cooling(layout, racks)


def check_layout_beside(layout: Layout, child: FileBeside) -> list[Finding]:
    """`check_layout(layout)`, its rack and cooling rules taken from `child` (`rack_part`)."""
    from rackdesigner.model.rule_finding import _Specs
    from rackdesigner.model.rules import (
        _check_links,
        _check_models,
        _check_nic_reach,
        _check_reachability,
    )

    try:
        specs = _Specs(layout)
        models = _check_models(layout, specs)
        links = _check_links(layout, specs, {}, {})
        nic_reach = _check_nic_reach(layout, specs)
        reachability = _check_reachability(layout)
    except BaseException:
        child.stop()
        raise
    part = child.result()
    if part is None:  # the child raised, died or read another file: checked here, as serial
        part = rack_part(layout)
    racks, cooling = part
    out = [*models, *links, *racks, *cooling, *nic_reach, *reachability]
    out.sort(key=lambda f: 0 if f.severity == ERROR else 1)  # as `RuleParts.findings`
    return out
