"""What readers outside `simulation/` ask of a design's engine structure, asked of the group
figures that hold it (`GroupCollectives`, a mixin here so `groups.py` stays the collective
figures alone).

The engine's `Topology` stays behind these methods: the workload estimator, the serving model
and the job heat map get frozen stage values (`stages.FabricShape`, `stages.NvlinkPorts`),
plain numbers, warnings and link loads, never the structure itself, and so never read how the
engine stores a fact (tests/test_stage_boundary.py). Each method is the simulation function
it names, run on the group figures' topology — the same calls, in the same order, the readers
made themselves before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rackdesigner.model import Layout
from rackdesigner.simulation.collectives import Point
from rackdesigner.simulation.engine import design_rule_warnings
from rackdesigner.simulation.families import family_traffic, islands_of, peak_utilisation
from rackdesigner.simulation.loads import FabricIndex, LinkLoad, route
from rackdesigner.simulation.power import PowerReport, power_report
from rackdesigner.simulation.routing import pattern_share
from rackdesigner.simulation.scope import ScopeModel
from rackdesigner.simulation.stages import (
    FabricShape,
    NvlinkPorts,
    nvlink_ports,
    shape_of,
    wiring_kinds,
)

if TYPE_CHECKING:
    from rackdesigner.simulation.topology import Topology


class GroupReads:
    """The design-wide facts of the group figures' topology (see the module docstring)."""

    _topo: Topology

    def shape(self) -> FabricShape:
        """Who is joined to whom (`stages.FabricShape`, made once per topology)."""
        return shape_of(self._topo)

    def nvlink_ports(self) -> NvlinkPorts:
        """Per GPU, its NVLink links (`stages.NvlinkPorts`, made once per topology)."""
        return nvlink_ports(self._topo)

    def wiring_kinds(self, gpus: Sequence[str]) -> list[int]:
        """Per GPU of `gpus`, a number naming its wiring signature (`stages.wiring_kinds`)."""
        return wiring_kinds(self._topo, gpus)

    def islands_of(self, gpus: Sequence[str]) -> list[list[str]]:
        """`gpus` split by NVLink island (`families.islands_of`)."""
        return islands_of(self._topo, gpus)

    def design_warnings(self) -> list[tuple[str, str]]:
        """(code, text) of the design-rule errors that change the figures
        (`engine.design_rule_warnings`)."""
        return design_rule_warnings(self._topo)

    def power(self, layout: Layout, devices: Iterable[str] | None, pue: float) -> PowerReport:
        """The power of `devices` (all when None) of `layout`, this topology's design
        (`power.power_report`)."""
        return power_report(layout, self._topo, devices, pue)

    def pattern_share(self, scope: ScopeModel, collective: str, point: Point
                      ) -> tuple[str | None, float]:
        """The traffic pattern `collective` runs across islands at `point`, and each flow's
        share of its NIC rate (`routing.pattern_share`)."""
        return pattern_share(self._topo, scope, collective, point)

    def peak_utilisation(self, members: Sequence[Sequence[str]], pattern: str
                         ) -> tuple[float, str | None]:
        """The busiest network link when every group of `members` runs `pattern` at once
        (`families.peak_utilisation`)."""
        topo = self._topo
        return peak_utilisation(topo, FabricIndex.of(topo), members, pattern)

    def network_loads(self, members: Sequence[Sequence[str]], pattern: str, rate: float
                      ) -> list[LinkLoad]:
        """Every network link loaded when every group of `members` runs `pattern` at once,
        each flow at `rate` x its NIC rate (`families.family_traffic`, `loads.route`)."""
        topo = self._topo
        index = FabricIndex.of(topo)
        traffic = family_traffic(topo, members, pattern)
        return list(route(topo, index, traffic).scaled(rate).entries(topo, index))


__all__ = ["GroupReads"]
