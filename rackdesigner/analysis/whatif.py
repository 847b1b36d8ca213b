"""What a design loses when parts fail: one scenario, or every single failure of a kind (N-1).

Both ask the simulation twice — the intact design (every status back to active) and the design
without the failed objects (`model.failures.degraded`, the same closure the panel uses) — and
compare a fixed set of figures. Beyond the simulation's figures, two counts only a failure has:

- *stranded* GPUs: alive but with no path to the largest group of GPUs (the simulation's
  unreachable GPUs; when any are stranded the design is *partitioned*);
- *degraded* GPUs: alive but with less NVLink capacity or less NIC capacity to the fabric than
  in the intact design (per GPU, from the derived topology, linear in the design's size).

With a training job (`job=`, a job file's `JobSpec`), every scenario also estimates the job on
the degraded design: step time, tokens/s and energy per token against the intact design
(analysis/whatif_job.py), and a job that no longer runs is the worst loss.

`each(kind)` simulates one object per symmetry class (analysis/symmetry.py) and reports the
class as one row with its size: 48 switches of a 4-SU SuperPOD are 3 simulations, not 48.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rackdesigner.analysis.symmetry import classes
from rackdesigner.analysis.whatif_job import (
    WORKLOAD_FIGURES,
    JobOutcome,
    job_deltas,
    job_loss,
    job_outcome,
)
from rackdesigner.model import Layout, natural_key
from rackdesigner.model.failures import closure, degraded, restored
from rackdesigner.simulation import SimulationResult, simulate
from rackdesigner.simulation.topology import Topology
from rackdesigner.workload.jobfile import JobSpec

SCHEMA = "rackdesigner.whatif/1"
#: What `--each` fails in turn (failure targets: words of this analysis, not device kinds —
#: a device's part in them is read from its kind's traits).
TARGETS = ("switch", "leaf", "spine", "nvswitch", "tray", "node", "rack", "link")
#: The figures compared, in the order the panel and the CLI list them (power last: it falls).
FIGURES = ("largest_nvlink_domain", "per_gpu_scale_up_GBps", "per_gpu_scale_out_GBps",
           "bisection_GBps", "all_reduce_busbw_GBps", "all_to_all_busbw_GBps", "power_max_w")
FIGURE_LABELS = {
    "largest_nvlink_domain": "largest NVLink domain",
    "per_gpu_scale_up_GBps": "scale-up per GPU",
    "per_gpu_scale_out_GBps": "scale-out per GPU",
    "bisection_GBps": "bisection",
    "all_reduce_busbw_GBps": "all_reduce busbw",
    "all_to_all_busbw_GBps": "all_to_all busbw",
    "power_max_w": "power (max)",
}
DEFAULT_SIZE = 2**30
_TOL = 1e-9

Progress = Callable[[int, int], None]


class WhatIfError(ValueError):
    """An id or kind the design does not have (the message names it)."""


def figures(result: SimulationResult, size: int = DEFAULT_SIZE) -> dict[str, float | None]:
    """The compared figures of one simulation; collectives at `size` bytes (None: unavailable)."""
    out: dict[str, float | None] = {
        "largest_nvlink_domain": float(result.scope.largest_nvlink_domain),
        "per_gpu_scale_up_GBps": result.bandwidth.per_gpu_scale_up_GBps,
        "per_gpu_scale_out_GBps": result.bandwidth.per_gpu_scale_out_GBps,
        "bisection_GBps": result.bandwidth.bisection_GBps,
    }
    for name in ("all_reduce", "all_to_all"):
        point = result.point_at(name, size)
        out[f"{name}_busbw_GBps"] = None if point is None else point.busbw_GBps
    out["power_max_w"] = result.power.total_max_w
    return out


def deltas(intact: dict[str, float | None], after: dict[str, float | None]
           ) -> dict[str, float | None]:
    """Relative change per figure (-0.0625 = 1/16 less); an unavailable figure counts as 0."""
    out: dict[str, float | None] = {}
    for key in FIGURES:
        a, b = intact.get(key), after.get(key)
        if a is None or a == 0:
            out[key] = None
            continue
        out[key] = round(((b or 0.0) - a) / a, 6)
    return out


def gpu_capacity(topo: Topology, known: tuple[Topology, dict] | None = None
                 ) -> dict[str, tuple[float, float]]:
    """Per GPU: (NVLink GB/s, NIC GB/s to the fabric), the figures a lost NVLink or NIC lowers.

    `known` is (a topology, its capacities): when `topo` is a failure's delta on that one
    (`Topology.delta`), the GPUs outside the islands that lost something take theirs."""
    out = {}
    delta = topo.delta
    if known is not None and delta is not None and delta[0] is known[0]:
        redo, earlier = delta[1], known[1]
        for gpu in topo.gpus:
            out[gpu] = _capacity_of(topo, gpu) if gpu in redo else earlier[gpu]
        return out
    for gpu in topo.gpus:
        out[gpu] = _capacity_of(topo, gpu)
    return out


def _capacity_of(topo: Topology, gpu: str) -> tuple[float, float]:
    up = sum(topo.nvl_sw_raw.get(gpu, {}).values()) + sum(
        topo.nvl_peer_raw.get(gpu, {}).values())
    net = sum(min(p.raw, sum(topo.nic_up.get(p.nic, {}).values()))
              for p in topo.gpu_nics.get(gpu, ()))
    return up, net


@dataclass(frozen=True)
class Impact:
    """One scenario against the intact design."""

    failed: tuple[str, ...]
    failed_gpus: int
    stranded_gpus: int
    degraded_gpus: int
    partitioned: bool
    intact: dict[str, float | None]
    after: dict[str, float | None]
    delta: dict[str, float | None]
    result: SimulationResult | None = field(default=None, compare=False, repr=False)
    #: with a training job (`WhatIf(job=...)`): its figures on both designs and the change
    job_intact: JobOutcome | None = None
    job_after: JobOutcome | None = None
    job_delta: dict[str, float | None] | None = None

    def worst(self) -> float:
        """The largest relative loss among the figures and the job's tokens/s (0 when nothing
        drops; power ignored)."""
        losses = [-v for k, v in self.delta.items() if v is not None and k != "power_max_w"]
        return max([0.0, job_loss(self.job_delta), *losses])

    def severity(self) -> tuple:
        """Sort key, larger is worse: GPUs lost (failed or stranded), then the largest relative
        loss of a figure, then GPUs degraded."""
        return (self.stranded_gpus + self.failed_gpus, round(self.worst(), 6),
                self.degraded_gpus)


@dataclass(frozen=True)
class ClassImpact:
    """One row of an N-1 table: every member of `members` fails the same way."""

    members: tuple[str, ...]
    impact: Impact

    @property
    def count(self) -> int:
        return len(self.members)


class WhatIf:
    """Failure questions about one design; the intact figures are computed once."""

    def __init__(self, layout: Layout, *, size: int = DEFAULT_SIZE,
                 sim: dict[str, Any] | None = None, job: JobSpec | None = None) -> None:
        self.layout = restored(layout)
        self.size = size
        self.sim = {"loads_for": None, **(sim or {})}
        self.job = job
        self.job_intact: JobOutcome | None = None
        if job is not None:  # the training job must run on the intact design
            self.job_intact = job_outcome(self.layout, job)
            if not self.job_intact.ran:
                raise WhatIfError(f"the job cannot run on the intact design: "
                                  f"{self.job_intact.error}")
        self.intact_result = simulate(self.layout, **self.sim)
        self.intact = figures(self.intact_result, size)
        self._capacity = gpu_capacity(Topology.of(self.layout))

    def scenario(self, failed_ids: Iterable[str]) -> Impact:
        """The design with `failed_ids` (devices, links, groups; what they contain goes too)."""
        ids = tuple(dict.fromkeys(failed_ids))
        try:
            down = closure(self.layout, ids)
        except KeyError as exc:
            raise WhatIfError(exc.args[0]) from None
        broken = degraded(self.layout, down)
        result = simulate(broken, **self.sim)
        after = figures(result, self.size)
        cap = gpu_capacity(Topology.of(broken), (Topology.of(self.layout), self._capacity))
        failed_gpus = sum(1 for g in self._capacity if g in down.devices)
        degraded_gpus = sum(1 for g, (up, net) in cap.items()
                            if up < self._capacity[g][0] - _TOL
                            or net < self._capacity[g][1] - _TOL)
        stranded = result.scope.unreachable_gpus
        job_after = job_delta = None
        if self.job is not None and self.job_intact is not None:
            job_after = job_outcome(broken, self.job)
            job_delta = job_deltas(self.job_intact, job_after)
        return Impact(ids, failed_gpus, stranded, degraded_gpus, stranded > 0, self.intact,
                      after, deltas(self.intact, after), result, self.job_intact, job_after,
                      job_delta)

    def candidates(self, target: str) -> list[str]:
        """The objects of failure target `target` (see TARGETS) in natural id order: switches
        are the devices whose kind forwards compute-fabric traffic, NVLink switches those
        that forward scale-up traffic, racks the groups of kind rack or else the devices
        whose kind holds rack units."""
        layout = self.layout
        if target not in TARGETS:
            raise WhatIfError(f"unknown kind {target!r} (choose from {', '.join(TARGETS)})")
        does = layout.index().device_traits
        if target == "link":
            ids = [k.id for k in layout.links()]
        elif target in ("tray", "node", "rack"):  # group kinds
            ids = [g.id for g in layout.groups() if g.kind == target]
            if target == "rack" and not ids:
                ids = [d.id for d in layout.devices() if does(d.id).contains == "units"]
        elif target == "nvswitch":
            ids = [d.id for d in layout.devices() if does(d.id).nvlink_switch]
        else:
            switches = [d.id for d in layout.devices() if does(d.id).fabric_switch]
            if target == "switch":
                ids = switches
            else:
                tier = Topology.of(layout).tier
                want = (lambda t: t == 1) if target == "leaf" else (lambda t: t >= 2)
                ids = [s for s in switches if tier.get(s) is not None and want(tier[s])]
        return sorted(ids, key=natural_key)

    def each(self, kind: str, progress: Progress | None = None,
             cancelled: Callable[[], bool] | None = None) -> list[ClassImpact]:
        """Every single failure of `kind`, one simulation per verified class, worst first.

        A symmetry class is checked by also failing its last member: when the two disagree
        (the model's bisection halves and rank order are not symmetric: the 31-node SU sits on
        one side), the class is split by the group it sits in (SU, then rack, then node) and
        each part checked again; a part that still disagrees is simulated member by member.
        Rows whose failures cost the same (`_alike`) are one row, whichever class they came
        from.
        """
        todo = [tuple(c) for c in classes(self.layout, self.candidates(kind))]
        done: dict[str, Impact] = {}
        rows: list[ClassImpact] = []
        finished = 0

        def run(oid: str) -> Impact:
            if oid not in done:
                done[oid] = self.scenario([oid])
            return done[oid]

        while todo:
            if cancelled is not None and cancelled():
                break
            if progress is not None:
                progress(finished, finished + len(todo))
            members = todo.pop(0)
            first = run(members[0])
            if len(members) == 1 or _alike(first, run(members[-1])):
                finished += 1
                # a row that fails alike (a split part, or another class whose members differ
                # in wiring but not in what their failure costs: the racks of an NVL72 SU sit
                # on different leaf ports, yet losing any one of them is the same)
                twin = next((i for i, r in enumerate(rows) if _alike(r.impact, first)), None)
                if twin is None:
                    rows.append(ClassImpact(members, first))
                else:
                    merged = tuple(sorted((*rows[twin].members, *members), key=natural_key))
                    rows[twin] = ClassImpact(merged, rows[twin].impact)
                continue
            parts = self._split(members)
            todo[:0] = parts
        if progress is not None:
            progress(finished, finished + len(todo))
        rows.sort(key=lambda r: r.impact.severity(), reverse=True)
        return rows

    def _split(self, members: tuple[str, ...]) -> list[tuple[str, ...]]:
        """`members` split by the group they sit in, outermost level that separates them."""
        chains = {m: self._ancestors(m) for m in members}
        for depth in range(1, 6):
            parts: dict[str | None, list[str]] = {}
            for m in members:
                chain = chains[m]
                parts.setdefault(chain[depth] if depth < len(chain) else None, []).append(m)
            if len(parts) > 1:
                return [tuple(p) for p in parts.values()]
        return [(m,) for m in members]

    def _ancestors(self, oid: str) -> tuple[str, ...]:
        layout = self.layout
        if layout.has_link(oid):
            link = layout.link(oid)
            oid = min(link.a.device, link.b.device, key=natural_key)
        group = (layout.group(oid).parent if layout.has_group(oid)
                 else layout.device(oid).group)
        chain: list[str] = []
        while group is not None:
            chain.append(group)
            group = layout.group(group).parent
        return tuple(reversed(chain))


def _alike(a: Impact, b: Impact) -> bool:
    if (a.stranded_gpus, a.degraded_gpus, a.failed_gpus) != (
            b.stranded_gpus, b.degraded_gpus, b.failed_gpus):
        return False
    pairs = [(a.delta.get(k), b.delta.get(k)) for k in FIGURES]
    pairs += [((a.job_delta or {}).get(k), (b.job_delta or {}).get(k)) for k in WORKLOAD_FIGURES]
    for x, y in pairs:
        if x is None or y is None:
            if (x is None) != (y is None):
                return False
        elif abs(x - y) > 1e-3:
            return False
    return True


def scenario_doc(impact: Impact, intact: SimulationResult) -> dict[str, Any]:
    """The `--fail` JSON document (schema rackdesigner.whatif/1)."""
    assert impact.result is not None
    doc = {"schema": SCHEMA, "failed": list(impact.failed),
           "stranded_gpus": impact.stranded_gpus, "degraded_gpus": impact.degraded_gpus,
           "partitioned": impact.partitioned, "intact": intact.to_dict(),
           "degraded": impact.result.to_dict()}
    if impact.job_intact is not None and impact.job_after is not None:
        doc["workload"] = {"job": impact.job_intact.label,
                           "intact": impact.job_intact.to_dict(),
                           "degraded": impact.job_after.to_dict(),
                           "delta": impact.job_delta}
    return doc


def each_doc(kind: str, rows: Sequence[ClassImpact]) -> dict[str, Any]:
    """The `--each` JSON document (schema rackdesigner.whatif/1), worst first."""
    scenarios = []
    for r in rows:
        row: dict[str, Any] = {"failed": list(r.impact.failed), "count": r.count,
               "stranded_gpus": r.impact.stranded_gpus, "degraded_gpus": r.impact.degraded_gpus,
               "partitioned": r.impact.partitioned, "delta": r.impact.delta}
        if r.impact.job_delta is not None:  # with a training job: its change, and why not
            row["workload"] = dict(r.impact.job_delta)
            if r.impact.job_after is not None and r.impact.job_after.error:
                row["workload"]["error"] = r.impact.job_after.error
        scenarios.append(row)
    return {"schema": SCHEMA, "kind": kind, "scenarios": scenarios}


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
        self._capacity: dict[str, tuple[float, float]] | None = None
        # held: a state keeps its derived index weakly, and each degraded design's index is
        # derived from this one (its link columns and carried links made once, not per Fail)
        self.index = layout.index()

    def capacity(self) -> dict[str, tuple[float, float]]:
        if self._capacity is None:
            self._capacity = gpu_capacity(Topology.of(self.layout))
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
    capacity = hit.capacity()
    cap = gpu_capacity(Topology.of(degraded(layout, down)),
                       (Topology.of(hit.layout), capacity))
    worse = sum(1 for g, (up, net) in cap.items() if g in capacity
                and (up < capacity[g][0] - _TOL or net < capacity[g][1] - _TOL))
    failed_gpus = sum(1 for g in capacity if g in down.devices)
    return MarkedImpact(down.marked, hit.result, failed_gpus, result.scope.unreachable_gpus,
                        worse)
