"""The live simulation panel: headline figures, bandwidth/latency/power plots, compare, export.

`LiveSimulation` (live.py) turns model events into debounced runs of `simulate` on a worker
thread (through the shared `ui/jobs.BackgroundJob`); `SimulationPanel` (panel.py) composes the
widgets that show a run's result. The panel follows the document it is given and knows nothing
of the main window: the window passes the selection in (`set_selection`) so the scope can
follow it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LiveSimulation", "SimulationPanel"]


def __getattr__(name: str) -> Any:
    if name == "SimulationPanel":
        from rackdesigner.ui.panel.panel import SimulationPanel

        return SimulationPanel
    if name == "LiveSimulation":
        from rackdesigner.ui.panel.live import LiveSimulation

        return LiveSimulation
    raise AttributeError(f"module 'rackdesigner.ui.panel' has no attribute {name!r}")
