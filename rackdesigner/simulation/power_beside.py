"""`simulate` of a large design on two cores: its PUE and power report from a child.

The power stage reads the design, never its topology (`power.power_of` takes a spec per device,
which `power.design_specs` gives without one), and the PUE the simulation uses when none is
given is the design's cooling mix (`model.pue.design_pue`): at 102,400 GPUs the two are about
1.2 s of CPU, while the rest of the simulation needs the topology first. So when a second core
pays, the command starts a child that reads the design file itself and works out
`power_part` (`cli/validate_parallel.py` says why the child reads the file rather than being
forked after the read), and `simulate(..., beside=PowerBeside(child))` takes its figures.

The child returns plain values (the PUE, the report's fields without their read-only views),
never the design. Whatever the child does, the result is the serial path's: a child that
raises, dies or outlives its bound is joined or killed and the simulation asks both questions
itself (tests/test_validate_parallel.py compares both ways on generated and broken designs).
Only a whole-design simulation with no PUE given takes it (the CLI checks).
"""

from __future__ import annotations

from dataclasses import fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rackdesigner.model import Layout
    from rackdesigner.simulation.power import PowerReport


def power_part(layout: Layout) -> tuple[float, list[Any] | None]:
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
    """The design's PUE and power report from a child working out `power_part` (the CLI's
    `FileBeside`, whose child reads the design file itself): `result()` gives its value or
    None, `stop()` ends it."""

    def __init__(self, child: Any) -> None:
        self._child = child

    def result(self) -> tuple[float, PowerReport | None] | None:
        """(PUE, power report) from the child: the report is None when the PUE is refused;
        None when the child gave nothing (the caller asks both questions itself)."""
        got = self._child.result()
        if got is None:
            return None
        pue, values = got
        return pue, None if values is None else _report(values)

    def stop(self) -> None:
        """End the child unread (the simulation raised)."""
        self._child.stop()
