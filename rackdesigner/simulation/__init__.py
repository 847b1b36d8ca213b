"""Numbers for a design: bandwidth, collectives, latency and power (pure Python, no Qt).

`simulate(layout)` runs the stages in order (engine.py): the structure derived from the graph
once (`topology.py`, `scope.py`) -> rank placement (`placement.py`) -> each algorithm's traffic
(`traffic.py`) -> link loads on the drawn fabric (`loads.py`, `routing.py`) -> NCCL's public
cost model on those loads (`collectives.py`), fabric metrics (`fabric.py`), latency and power.
`GroupCollectives` gives one collective figure over any GPU group of a design. Every constant
lives in `constants.py` with its source; docs/simulation.md explains the model and compares it
with published nccl-tests runs.
"""

from __future__ import annotations

from rackdesigner.simulation.collectives import ALGORITHM_CHOICES, COLLECTIVES, Point
from rackdesigner.simulation.engine import SimulationInputError, simulate
from rackdesigner.simulation.groups import GroupCollectives, GroupError
from rackdesigner.simulation.result import NOTE, SCHEMA, WARNING, Message, SimulationResult

__all__ = [
    "ALGORITHM_CHOICES",
    "COLLECTIVES",
    "NOTE",
    "SCHEMA",
    "WARNING",
    "GroupCollectives",
    "GroupError",
    "Message",
    "Point",
    "SimulationInputError",
    "SimulationResult",
    "simulate",
]
