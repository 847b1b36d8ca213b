"""The one place where the workload estimator asks the simulation engine for figures.

Every communication time of a training step comes from `rackdesigner.simulation.simulate` on the
drawn graph: the estimator names a group of ranks by its shape (first rank, stride, size: the way
Megatron/NeMo lay ranks out, TP innermost), this adapter maps the ranks to GPU ids in the order
the layout lists them, simulates the representative group (rank 0's) once per distinct shape and
reads the collective's time at a message size off the nccl-tests-like curve. Groups of the same
shape are assumed to see the same fabric (symmetric designs: rails, scalable units); that is what
keeps an estimate on thousands of GPUs cheap. Power (for energy) comes from the same engine.

When the engine grows a "time of collective C at size S over these GPUs" helper, only this
module changes.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from rackdesigner.model import Layout, natural_key
from rackdesigner.simulation import SimulationInputError, SimulationResult, simulate


class CommError(ValueError):
    """The ranks of a group cannot communicate on this design (the message says which)."""


@dataclass(frozen=True, slots=True)
class GroupShape:
    """Ranks start, start + stride, ..., `size` of them (rank = index into the scope's GPUs)."""

    stride: int
    size: int
    start: int = 0


class CommModel:
    """Collective times over groups of the scope's GPUs, cached by group shape."""

    def __init__(self, layout: Layout, gpus: Sequence[str], pue: float | None = None) -> None:
        self.layout = layout
        self.gpus = list(gpus)
        self.pue = pue
        self._results: dict[GroupShape, SimulationResult] = {}
        self.simulations = 0

    # ---- scope facts -------------------------------------------------------------------------
    @staticmethod
    def layout_gpus(layout: Layout, group: str | None = None) -> list[str]:
        """The GPUs of the layout (or of one group) in rank order: the layout's natural order."""
        if group is None:
            ids = [d.id for d in layout.devices()]
        else:
            ids = list(layout.group_devices(_group_id(layout, group)))
        gpus = []
        for d in ids:
            spec = layout.spec(d)
            if spec is not None and spec.kind == "gpu":
                gpus.append(d)
        return sorted(gpus, key=natural_key)

    @staticmethod
    def select_gpus(layout: Layout, ids: Sequence[str]) -> list[str]:
        """Chosen GPU ids in rank order; ids that are not GPUs of the layout are an error."""
        out = []
        for d in dict.fromkeys(ids):
            spec = layout.spec(d) if layout.has_device(d) else None
            if spec is None or spec.kind != "gpu":
                raise CommError(f"{d!r} is not a GPU of this layout")
            out.append(d)
        return sorted(out, key=natural_key)

    def gpu_model(self) -> str:
        """The catalog id of the scope's GPUs (one model: mixed GPUs are refused)."""
        models = {self.layout.device(g).model for g in self.gpus}
        if len(models) != 1:
            raise CommError("the GPUs in scope are of several models (" + ", ".join(
                sorted(models)) + "): a training job runs on one GPU model")
        return models.pop()

    def whole(self) -> SimulationResult:
        """The simulation of the whole scope (power, NVLink domain size, warnings)."""
        return self._result(GroupShape(1, len(self.gpus)))

    def nvlink_domain(self) -> int:
        return max(1, self.whole().scope.largest_nvlink_domain)

    def power_w(self) -> tuple[float, float]:
        """(IT power at the devices' maximum, facility power) in watts: the design's power,
        pro-rated by GPU count when the job uses only some of its GPUs."""
        p = self.whole().power
        share = len(self.gpus) / p.gpus if p.gpus > len(self.gpus) else 1.0
        return p.total_max_w * share, p.facility_w * share

    # ---- collectives -------------------------------------------------------------------------
    def time_s(self, collective: str, shape: GroupShape, size_bytes: float) -> float:
        """Seconds for `collective` of `size_bytes` (nccl-tests' size convention) on the group."""
        if shape.size <= 1 or size_bytes <= 0:
            return 0.0
        result = self._result(shape)
        points = result.collective(collective)
        if not points:
            raise CommError(f"{collective} cannot run over {self._describe(shape)}: "
                            + ("; ".join(m.text for m in result.warnings())
                               or "the engine has no figure for it"))
        return _interpolate_us(points, size_bytes) * 1e-6

    def busbw_GBps(self, collective: str, shape: GroupShape, size_bytes: float) -> float:
        t = self.time_s(collective, shape, size_bytes)
        if t <= 0:
            return 0.0
        from rackdesigner.simulation.collectives import busbw_factor

        n = 2 if collective == "send_recv" else shape.size
        return size_bytes / t / 1e9 * busbw_factor(collective, n)

    def _ids(self, shape: GroupShape) -> list[str]:
        last = shape.start + shape.stride * (shape.size - 1)
        if last >= len(self.gpus):
            raise CommError(f"a group of {shape.size} ranks with stride {shape.stride} does not "
                            f"fit in {len(self.gpus)} GPUs")
        return [self.gpus[shape.start + i * shape.stride] for i in range(shape.size)]

    def _describe(self, shape: GroupShape) -> str:
        ids = self._ids(shape)
        return f"{len(ids)} GPUs ({ids[0]} … {ids[-1]})" if len(ids) > 2 else " and ".join(ids)

    def _result(self, shape: GroupShape) -> SimulationResult:
        result = self._results.get(shape)
        if result is None:
            ids = self._ids(shape)
            p2p = (ids[0], ids[-1]) if len(ids) >= 2 else None
            try:
                result = simulate(self.layout, ids, pue=self.pue, p2p=p2p)
            except SimulationInputError as exc:
                raise CommError(str(exc)) from None
            self.simulations += 1
            if result.scope.reachable_gpus < len(ids):
                verb = "cannot reach each other" if len(ids) == 2 else "cannot all reach each other"
                raise CommError(f"{self._describe(shape)} {verb} (check NVLink, NIC and switch "
                                "links)")
            self._results[shape] = result
        return result


def _interpolate_us(points, size: float) -> float:
    sizes = [p.bytes for p in points]
    i = bisect.bisect_left(sizes, size)
    if i < len(points) and sizes[i] == size:
        return points[i].time_us
    if i == 0:
        return points[0].time_us
    if i >= len(points):  # beyond the table: the largest size's bandwidth holds
        last = points[-1]
        return last.time_us + (size - last.bytes) / (last.algbw_GBps * 1e3)
    a, b = points[i - 1], points[i]
    f = (size - a.bytes) / (b.bytes - a.bytes)
    return a.time_us + f * (b.time_us - a.time_us)


def _group_id(layout: Layout, name: str) -> str:
    if layout.has_group(name):
        return name
    matches = [g.id for g in layout.groups() if g.name == name]
    if len(matches) == 1:
        return matches[0]
    raise CommError(f"no group {name!r} in this layout" if not matches else
                    f"several groups are named {name!r}: {', '.join(sorted(matches))} (use an id)")


__all__ = ["CommError", "CommModel", "GroupShape"]
