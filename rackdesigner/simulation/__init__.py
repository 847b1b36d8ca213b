"""Numbers for a design: bandwidth, collectives, latency and power (pure Python, no Qt).

`simulate(layout)` derives the structure from the layout's graph once (`topology.py`,
`scope.py`), then runs NCCL's public cost model on link loads (`collectives.py`), the fabric
metrics (`fabric.py`) and power (`power.py`). Every efficiency figure lives in `constants.py`
with its source; docs/simulation.md explains the model and compares it with nccl-tests.
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
