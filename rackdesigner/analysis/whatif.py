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

The compared figures and a scenario's result are `whatif_figures.py`, the live panel's marked
failures `whatif_marked.py`; this module asks the questions. Every name is still imported from
here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rackdesigner.analysis.symmetry import classes
from rackdesigner.analysis.whatif_figures import (
    _TOL,
    DEFAULT_SIZE,
    FIGURE_LABELS,
    FIGURES,
    ClassImpact,
    Impact,
    _alike,
    deltas,
    figures,
)
from rackdesigner.analysis.whatif_job import (
    JobOutcome,
    job_deltas,
    job_outcome,
)
from rackdesigner.analysis.whatif_marked import IntactFigures, MarkedImpact, marked_impact
from rackdesigner.model import Layout, natural_key
from rackdesigner.model.failures import closure, degraded, restored
from rackdesigner.simulation import SimulationResult, simulate
from rackdesigner.simulation.stages import fabric_shape, gpu_capacity
from rackdesigner.workload.jobfile import JobSpec

__all__ = ["DEFAULT_SIZE", "FIGURES", "FIGURE_LABELS", "SCHEMA", "TARGETS", "ClassImpact",
           "Impact", "IntactFigures", "MarkedImpact", "Progress", "WhatIf", "WhatIfError",
           "deltas", "each_doc", "figures", "gpu_capacity", "marked_impact", "scenario_doc",
           "scenario_doc_of"]

SCHEMA = "rackdesigner.whatif/1"
#: What `--each` fails in turn (failure targets: words of this analysis, not device kinds —
#: a device's part in them is read from its kind's traits).
TARGETS = ("switch", "leaf", "spine", "nvswitch", "tray", "node", "rack", "link")

Progress = Callable[[int, int], None]


class WhatIfError(ValueError):
    """An id or kind the design does not have (the message names it)."""


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
        self._capacity = gpu_capacity(self.layout)

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
        cap = gpu_capacity(broken, self._capacity)
        whole = self._capacity.per_gpu
        failed_gpus = sum(1 for g in whole if g in down.devices)
        degraded_gpus = sum(1 for g, (up, net) in cap.per_gpu.items()
                            if up < whole[g][0] - _TOL
                            or net < whole[g][1] - _TOL)
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
                tier = fabric_shape(layout).tier
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



def scenario_doc(impact: Impact, intact: SimulationResult) -> dict[str, Any]:
    """The `--fail` JSON document (schema rackdesigner.whatif/1)."""
    assert impact.result is not None
    return scenario_doc_of(impact, intact.to_dict(), impact.result.to_dict())


def scenario_doc_of(impact: Impact, intact: dict[str, Any],
                    after: dict[str, Any]) -> dict[str, Any]:
    """`scenario_doc` from the two simulations' dicts (`SimulationResult.to_dict()`)."""
    doc = {"schema": SCHEMA, "failed": list(impact.failed),
           "stranded_gpus": impact.stranded_gpus, "degraded_gpus": impact.degraded_gpus,
           "partitioned": impact.partitioned, "intact": intact, "degraded": after}
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
