"""The one place where the workload estimator asks the simulation engine for figures.

Every communication time of a training step comes from the engine's collective model on the
drawn graph (`rackdesigner.simulation.GroupCollectives`: placement, routed traffic and NCCL's
cost model for one group of GPUs, at one message size). The estimator names a group of ranks by
its shape (first rank, stride, size: the way Megatron/NeMo lay ranks out, TP innermost); this
adapter maps the ranks to GPU ids in the order the layout lists them and asks for the
representative group (rank 0's), once per distinct shape, collective and size (cached). Groups of
the same shape whose GPUs are wired alike are assumed to see the same fabric (symmetric designs:
rails, scalable units); that is what keeps an estimate on thousands of GPUs cheap. Where they are
not wired alike (a failed leaf, NIC or NVLink; a node with fewer NICs), every group of the shape
gets a wiring signature — per GPU: its NIC paths with each NIC's leaf uplink capacity, its NVLink
capacity, its island's size — and one group per distinct signature is simulated; a synchronous
step waits for its slowest group, so the slowest one counts. Power, the NVLink domain size and
the design's warnings come from the same topology the group figures read (no `simulate` of the
whole scope: at 16k GPUs that cost more than the estimate itself). `contention` routes every
group of an exchange at once (simulation/families.py) and says how far the busiest network link
falls short: the estimator stretches that exchange by the excess.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from rackdesigner.model import Layout, natural_key
from rackdesigner.simulation import (
    GroupCollectives,
    GroupError,
    Point,
    SimulationInputError,
    SimulationResult,
    simulate,
)
from rackdesigner.simulation.power import PowerReport, over_budget_warnings
from rackdesigner.simulation.scope import ScopeModel
from rackdesigner.workload.designcache import design_groups, power_cache, scope_cache


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

    def __init__(self, layout: Layout, gpus: Sequence[str], pue: float | None = None, *,
                 groups: GroupCollectives | None = None,
                 power_devices: Iterable[str] | None = None) -> None:
        self.layout = layout
        self.gpus = list(gpus)
        self.pue = pue
        self._whole: SimulationResult | None = None
        self._groups: GroupCollectives | None = groups
        self._power_devices = None if power_devices is None else set(power_devices)
        self._power: PowerReport | None = None
        self._warnings: tuple[tuple[str, str], ...] | None = None
        # figures of this scope, shared by the estimators of one design state (designcache.py)
        store = scope_cache(self.groups, self.gpus)
        self._points: dict[tuple[str, GroupShape, int], tuple[Point, ScopeModel | None]] = \
            store.setdefault("points", {})
        self._distinct: dict[GroupShape, list[GroupShape]] = store.setdefault("distinct", {})
        self._unit_peaks: dict[tuple, tuple[float, str | None]] = store.setdefault("peaks", {})
        self._store = store
        self.simulations = 0  # engine evaluations (distinct group shape, collective and size)

    # ---- scope facts -------------------------------------------------------------------------
    @staticmethod
    def layout_gpus(layout: Layout, group: str | None = None,
                    groups: GroupCollectives | None = None) -> list[str]:
        """The GPUs of the layout (or of one group) in rank order: the layout's natural order
        (the topology's GPU list when `groups` has read it already)."""
        from rackdesigner.model.scope import ScopeError, group_gpus, is_gpu

        if group is None and groups is not None:
            return list(groups.shape().gpus)
        if group is None:
            return sorted((d.id for d in layout.devices() if is_gpu(layout, d.id)),
                          key=natural_key)
        try:
            return group_gpus(layout, group)
        except ScopeError as exc:
            raise CommError(str(exc)) from None

    @staticmethod
    def select_gpus(layout: Layout, ids: Sequence[str]) -> list[str]:
        """Chosen GPU ids in rank order; ids that are not GPUs of the layout are an error."""
        from rackdesigner.model.scope import ScopeError, select_gpus

        try:
            return select_gpus(layout, ids)
        except ScopeError as exc:
            raise CommError(str(exc)) from None

    def gpu_model(self) -> str:
        """The catalog id of the scope's GPUs (one model: mixed GPUs are refused)."""
        models = {self.layout.device(g).model for g in self.gpus}
        if len(models) != 1:
            raise CommError("the GPUs in scope are of several models (" + ", ".join(
                sorted(models)) + "): a training job runs on one GPU model")
        return models.pop()

    def whole(self) -> SimulationResult:
        """The simulation of the whole scope (power, NVLink domain size, warnings)."""
        if self._whole is None:
            try:
                self._whole = simulate(self.layout, self.gpus, pue=self.pue)
            except SimulationInputError as exc:
                raise CommError(str(exc)) from None
        return self._whole

    def nvlink_domain(self) -> int:
        """GPUs of the scope's largest NVLink domain."""
        domain_of = self.groups.shape().nvlink_domain_of
        domains = Counter(domain_of[g] for g in self.gpus)
        return max(1, max(domains.values(), default=0))

    def power(self) -> PowerReport:
        """The power of the design (or of the scope's group), as `simulate` reports it."""
        if self._power is None:
            if self.pue is None:  # the site's stated PUE, else the cooling mix's (as simulate)
                from rackdesigner.model.pue import design_pue

                pue = design_pue(self.layout)[0]
            else:
                pue = float(self.pue)
            if not 1.0 <= pue < 10.0:
                raise CommError(f"PUE must be between 1 and 10, got {pue:g}")
            cache = power_cache(self.groups)
            key = (None if self._power_devices is None else frozenset(self._power_devices), pue)
            report = cache.get(key)
            if report is None:
                report = cache[key] = self.groups.power(self.layout, self._power_devices,
                                                        pue)
            self._power = report
        return self._power

    def power_w(self) -> tuple[float, float]:
        """(IT power at the devices' maximum, facility power) in watts: the design's power,
        pro-rated by GPU count when the job uses only some of its GPUs."""
        p = self.power()
        share = len(self.gpus) / p.gpus if p.gpus > len(self.gpus) else 1.0
        return p.total_max_w * share, p.facility_w * share

    def warnings(self) -> tuple[tuple[str, str], ...]:
        """(code, text) of the design's problems that touch an estimate: unknown models,
        design-rule errors that change the figures, power without a figure, racks over their
        budget (the same texts `simulate` gives)."""
        if self._warnings is not None:
            return self._warnings
        groups = self.groups
        out: list[tuple[str, str]] = []
        unknown = groups.shape().unknown_models
        if unknown:
            out.append(("unknown_models", "devices of unknown models are left out: "
                        + ", ".join(sorted(unknown))))
        out += groups.design_warnings()
        p = self.power()
        if not p.complete:
            out.append(("power_incomplete", f"power total is a lower bound ({p.headline}): no "
                        f"power figure in the catalog for {', '.join(p.without_power)}"))
        out += over_budget_warnings(p)
        self._warnings = tuple(out)
        return self._warnings

    # ---- collectives -------------------------------------------------------------------------
    @property
    def groups(self) -> GroupCollectives:
        """The engine's group figures on this design (built once)."""
        if self._groups is None:
            self._groups = design_groups(self.layout)
        return self._groups

    def ids(self, shape: GroupShape) -> list[str]:
        """The GPU ids of a group of ranks (rank i = the i-th GPU in scope)."""
        return self._ids(shape)

    def point(self, collective: str, shape: GroupShape, size_bytes: float) -> Point | None:
        """The engine's nccl-tests row for `collective` of `size_bytes` over the group."""
        if shape.size <= 1 or size_bytes <= 0:
            return None
        return self.representative(collective, shape, size_bytes)[0]

    def representative(self, collective: str, shape: GroupShape, size_bytes: float
                       ) -> tuple[Point, ScopeModel | None]:
        """The slowest of the groups of `shape` wired differently (`distinct_groups`): its
        nccl-tests row and scope model (None for a one-GPU group)."""
        key = (collective, shape, int(size_bytes))
        found = self._points.get(key)
        if found is None:
            for member in self.distinct_groups(shape):
                q = self._member_point(collective, member, int(size_bytes))
                if found is None or q[0].time_us > found[0].time_us:
                    found = q
            assert found is not None  # every shape has at least one group
            self._points[key] = found
        return found

    def contention(self, collective: str, shape: GroupShape, size_bytes: float,
                   phases: Sequence[Sequence[int]]) -> tuple[float, str | None]:
        """(factor, link): how many times longer the exchange takes because the groups that
        run it at once (`phases`: first ranks of the concurrent groups, phase by phase, as
        `Job.concurrent_groups` gives them) need more than a network link carries — the busiest
        link's load at the representative group's rate over its capacity, when above 1 — and
        that link; (1.0, None) when every link keeps up or the exchange stays on NVLink."""
        if shape.size <= 1 or size_bytes <= 0 or not phases:
            return 1.0, None
        point, scope = self.representative(collective, shape, size_bytes)
        if scope is None or scope.n_islands < 2:
            return 1.0, None
        groups = self.groups
        pattern, share = groups.pattern_share(scope, collective, point)
        if pattern is None or share <= 0:
            return 1.0, None
        key = (pattern, shape, tuple(tuple(p) for p in phases))
        unit = self._unit_peaks.get(key)
        if unit is None:
            from rackdesigner.simulation.families import StridedGroups  # (the groups by rank)

            unit = (0.0, None)
            span = shape.stride * (shape.size - 1)
            for phase in phases:
                members = StridedGroups(self.gpus, tuple(s for s in phase
                                                         if s + span < len(self.gpus)),
                                        shape.stride, shape.size)
                peak = groups.peak_utilisation(members, pattern)
                if peak[0] > unit[0]:
                    unit = peak
            self._unit_peaks[key] = unit
        excess = unit[0] * min(1.0, share)
        return (excess, unit[1]) if excess > 1.0 else (1.0, None)

    def distinct_groups(self, shape: GroupShape) -> list[GroupShape]:
        """Rank 0's group, then one group of the same shape per other wiring signature (see the
        module docstring); one entry on a symmetric design."""
        cached = self._distinct.get(shape)
        if cached is not None:
            return cached
        kinds, alike = self._wiring_kinds()
        s_, k, n = shape.stride, shape.size, len(self.gpus)
        block = s_ * k
        span = s_ * (k - 1) + 1
        seen: dict[tuple, GroupShape] = {}
        starts: Iterator[int] = itertools.chain((shape.start,), (b * block + r for b in range(
            n // block if block else 0) for r in range(s_)))
        if alike:
            # every GPU wired alike: every group has the same signature, so the first group
            # that fits stands for them all (what the loop below keeps)
            first = next((start for start in starts if start + span <= n), None)
            starts = iter(() if first is None else (first,))
        for start in starts:
            if start + span > n:
                continue
            seen.setdefault(tuple(kinds[start:start + span:s_]), GroupShape(s_, k, start))
        result = list(seen.values()) or [shape]
        self._distinct[shape] = result
        return result

    def _wiring_kinds(self) -> tuple[list[int], bool]:
        """Per rank, a small number naming its GPU's wiring signature (equal numbers: wired
        alike; `simulation.stages.wiring_kinds`), and whether every rank has the same one."""
        kinds = self._store.get("kinds")
        if kinds is None:
            kinds = self._store["kinds"] = self.groups.wiring_kinds(self.gpus)
            self._store["alike"] = len(set(kinds)) <= 1
        return kinds, self._store["alike"]

    def _member_point(self, collective: str, shape: GroupShape, size: int
                      ) -> tuple[Point, ScopeModel | None]:
        ids = self._ids(shape)
        try:
            p = self.groups.evaluate(ids, collective, size)
        except GroupError as exc:
            if "reach" in str(exc):
                verb = ("cannot reach each other" if len(ids) == 2
                        else "cannot all reach each other")
                raise CommError(f"{self._describe(shape)} {verb} (check NVLink, NIC and "
                                "switch links)") from None
            raise CommError(f"{collective} over {self._describe(shape)}: {exc}") from None
        self.simulations += 1
        return p

    def time_s(self, collective: str, shape: GroupShape, size_bytes: float) -> float:
        """Seconds for `collective` of `size_bytes` (nccl-tests' size convention) on the group."""
        p = self.point(collective, shape, size_bytes)
        return 0.0 if p is None else p.time_us * 1e-6

    def busbw_GBps(self, collective: str, shape: GroupShape, size_bytes: float) -> float:
        p = self.point(collective, shape, size_bytes)
        return 0.0 if p is None else p.busbw_GBps

    def _ids(self, shape: GroupShape) -> list[str]:
        last = shape.start + shape.stride * (shape.size - 1)
        if last >= len(self.gpus):
            raise CommError(f"a group of {shape.size} ranks with stride {shape.stride} does not "
                            f"fit in {len(self.gpus)} GPUs")
        return [self.gpus[shape.start + i * shape.stride] for i in range(shape.size)]

    def _describe(self, shape: GroupShape) -> str:
        ids = self._ids(shape)
        return f"{len(ids)} GPUs ({ids[0]} … {ids[-1]})" if len(ids) > 2 else " and ".join(ids)


__all__ = ["CommError", "CommModel", "GroupShape"]
