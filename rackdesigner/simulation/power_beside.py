"""`simulate` of a large design on two cores: its PUE and power report in a forked child.

The power stage reads the design, never its topology (`power.power_of` takes a spec per device,
which `power.design_specs` gives without one), and the PUE the simulation uses when none is
given is the design's cooling mix (`model.pue.design_pue`). At 102,400 GPUs the two are about
1.5 s of CPU, while the topology the rest of the simulation needs takes about 5 s: so when
forking pays (`two_cores.wanted`) the command starts a child for them before building the
topology, and `simulate(..., beside=PowerBeside(layout))` takes the child's figures.

The child returns plain values (the PUE, the report's fields without their read-only views),
never the design. Whatever the child does, the result is the serial path's: a child that
raises, dies or outlives its bound is joined or killed and the simulation asks both questions
itself (tests/test_power_beside.py compares both ways on generated and broken designs).
Only a whole-design simulation with no PUE given takes it (the CLI checks).
"""

from __future__ import annotations

import time
from dataclasses import fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from rackdesigner.simulation.two_cores import Forked

if TYPE_CHECKING:
    from rackdesigner.model import Layout
    from rackdesigner.simulation.power import PowerReport

#: The simulation waits for the child at most this many times the time since the fork, plus a
#: minute (it asks for the child's figures once its topology is built, a longer task).
_WAIT_FACTOR = 10.0


def _power_part(layout: Layout) -> tuple[float, list[Any] | None]:
    """(the design's PUE, the fields of its power report as plain values), as `simulate`
    computes them: the PUE of the design as given, the report over what has not failed; no
    report when the PUE is one `simulate` refuses."""
    from rackdesigner.model.failures import closure, degraded
    from rackdesigner.model.pue import design_pue
    from rackdesigner.simulation.power import design_specs, power_of

    pue = float(design_pue(layout)[0])
    if not (pue >= 1.0 and pue < 10.0):
        return pue, None
    failed = closure(layout)
    if failed:
        layout = degraded(layout, failed)
    return pue, _plain(power_of(layout, design_specs(layout), None, pue))


def _plain(report: PowerReport) -> list[Any]:
    """The report's fields, each read-only view a dict (views do not pickle)."""
    out = []
    for field in fields(report):
        value = getattr(report, field.name)
        if isinstance(value, MappingProxyType):
            value = {k: dict(v) if isinstance(v, MappingProxyType) else v
                     for k, v in value.items()}
        out.append(value)
    return out


def _report(values: list[Any]) -> PowerReport:
    """The report `_plain` took apart."""
    from rackdesigner.simulation.power import PowerReport

    made = []
    for value in values:
        if isinstance(value, dict):
            value = MappingProxyType({k: MappingProxyType(v) if isinstance(v, dict) else v
                                      for k, v in value.items()})
        made.append(value)
    assert len(made) == len(fields(PowerReport))
    return PowerReport(*made)


class PowerBeside:
    """The design's PUE and power report, worked out in a child forked now."""

    def __init__(self, layout: Layout) -> None:
        self._child: Forked | None = Forked(_power_part, layout)

    def result(self) -> tuple[float, PowerReport | None] | None:
        """(PUE, power report) from the child: the report is None when the PUE is refused;
        None when the child gave nothing (the caller asks both questions itself)."""
        child, self._child = self._child, None
        if child is None:
            return None
        got = child.result(60.0 + _WAIT_FACTOR * (time.monotonic() - child.started))
        if got is None:
            return None
        pue, values = got
        return pue, None if values is None else _report(values)

    def stop(self) -> None:
        """End the child unread (the simulation raised)."""
        child, self._child = self._child, None
        if child is not None:
            child.kill()
