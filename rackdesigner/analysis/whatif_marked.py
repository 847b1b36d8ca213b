"""What the failures marked in a document cost, for the live panel: the intact design's figures
kept across Fail / Restore / Undo (`IntactFigures`) and the comparison with the degraded design
(`marked_impact`, `MarkedImpact`). The panel's side of `whatif.py`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rackdesigner.analysis.whatif_figures import _TOL
from rackdesigner.model import Layout
from rackdesigner.model.failures import closure, degraded, restored
from rackdesigner.simulation import SimulationResult
from rackdesigner.simulation.stages import GpuCapacity, gpu_capacity


@dataclass(frozen=True)
class MarkedImpact:
    """What the failures marked in a document cost, for the live panel."""

    marked: tuple[str, ...]
    intact: SimulationResult
    failed_gpus: int
    stranded_gpus: int
    degraded_gpus: int

    @property
    def partitioned(self) -> bool:
        return self.stranded_gpus > 0


class IntactFigures:
    """The intact design's simulation (and, on first use, each GPU's capacity) kept across
    Fail / Restore / Undo by the live panel: `layout` is held so that the degraded designs'
    index and topology can be derived from the intact one's (`model/index_delta.py`)."""

    def __init__(self, result: SimulationResult, layout: Layout, extra: Any = None) -> None:
        self.result = result
        self.layout = layout
        self.extra = extra  # what the caller keeps beside (the panel: its rack split)
        self._capacity: GpuCapacity | None = None
        # held: a state keeps its derived index weakly, and each degraded design's index is
        # derived from this one (its link columns and carried links made once, not per Fail)
        self.index = layout.index()

    def capacity(self) -> GpuCapacity:
        if self._capacity is None:
            self._capacity = gpu_capacity(self.layout)
        return self._capacity


def marked_impact(layout: Layout, result: SimulationResult,
                  simulate_intact: Callable[[Layout], SimulationResult],
                  cache: dict | None = None, cache_key: object = None) -> MarkedImpact | None:
    """Compare `result` (the simulation of `layout`, failures left out) with the intact design.

    `simulate_intact` runs the simulation with the same scope and options; `cache` keeps the
    intact figures (`IntactFigures`) under `cache_key` (the document's revision ignoring
    status changes), so toggling failures costs one simulation, not two. None when nothing is
    marked failed.
    """
    down = closure(layout)
    if not down:
        return None
    hit = cache.get(cache_key) if cache is not None and cache_key is not None else None
    if hit is None:
        intact_layout = restored(layout)
        hit = IntactFigures(simulate_intact(intact_layout), intact_layout)
        if cache is not None and cache_key is not None:
            cache.clear()
            cache[cache_key] = hit
    known = hit.capacity()
    capacity = known.per_gpu
    cap = gpu_capacity(degraded(layout, down), known).per_gpu
    worse = sum(1 for g, (up, net) in cap.items() if g in capacity
                and (up < capacity[g][0] - _TOL or net < capacity[g][1] - _TOL))
    failed_gpus = sum(1 for g in capacity if g in down.devices)
    return MarkedImpact(down.marked, hit.result, failed_gpus, result.scope.unreachable_gpus,
                        worse)
