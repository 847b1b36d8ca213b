"""Link heat map under a training job's traffic: its TP, CP, EP, PP and DP exchanges on the links.

The job is laid out and timed by the workload estimator (`workload.Estimator`): rank i is the
i-th GPU in scope in the layout's order, TP innermost, then CP, DP (EP inside it), PP outermost
(workload/job.py), and the exchanges are the ones the estimate counts (`Estimate.comm`: TP
all-gather/reduce-scatter, CP K/V all-gather, EP all-to-all, PP send/recv, DP gradient
reduce-scatter + parameter all-gather or all-reduce, expert-DP likewise), each at the size and
rate the engine predicts for it. For each exchange:

- **network**: every group of the exchange (all TP groups, the DP group of every TP rank and
  stage, every pair of neighbouring PP stages, ...) runs at once. Their flows come from the
  simulation's traffic stage for the algorithm the engine picked (rings or trees per rail,
  all-to-all per rail, send/recv pairs: simulation/traffic.py), built per group from its islands
  and rail NICs, and all groups of the exchange are routed together on the drawn fabric
  (simulation/loads.py: up/down paths, ECMP) — one routing per exchange, linear in the GPUs,
  never per GPU pair (simulation/families.py). Flows run at the share of NIC rate the engine
  predicts for the representative group (the slowest of the groups wired differently, the one
  the estimate times), scaled as the collective heat map scales one collective
  (`routing.pattern_share`).
- **NVLink**: each GPU of a group pushes, per direction, the exchange's busbw when the group is
  inside one NVLink island; (k-1)/k of it when the group spans islands with k of its GPUs in
  this one (the intra-node hops of NCCL's rings); for all-to-all the in-island share plus the
  PXN relay to the GPU on the right rail; nothing for a send/recv between islands. A GPU spreads
  it over its NVLinks by their capacity.

**Utilisation** (a model assumption, named in the legend, the panel and docs/simulation.md): per
link, the largest over the job's exchanges of its load *while that exchange runs* over its
capacity — how close each link comes to its limit in the phase that stresses it most, not an
average over the step. Groups of one exchange that share a link add up, so a link above 100 %
means those concurrent groups need more than it carries: the estimate stretches that exchange
by the same excess (workload/comm.py `contention`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rackdesigner import vocabulary
from rackdesigner.analysis.heat import HeatMap
from rackdesigner.model import Layout
from rackdesigner.simulation import GroupCollectives
from rackdesigner.simulation.loads import LinkLoad
from rackdesigner.workload import Estimate, EstimateError, Estimator, ModelFileError
from rackdesigner.workload.jobfile import JobSpec

#: traffic classes, in the order the chooser lists them; exchange name prefix -> class
CLASSES = ("TP", "CP", "EP", "PP", "DP")
CLASS_OF = {"tp": "TP", "cp": "CP", "ep": "EP", "pp": "PP", "dp": "DP", "edp": "DP"}
ASSUMPTION = ("utilisation = a link's load while an exchange runs / its capacity, the busiest "
              "of the job's exchanges per link (not a step average)")


class JobHeatError(ValueError):
    """The job cannot be drawn on this design (the message says why)."""


@dataclass(frozen=True)
class ExchangeHeat:
    """What one exchange of the job puts on the links."""

    name: str  # as in the estimate's `communication` (tp_all_gather, dp_grad_reduce_scatter...)
    cls: str  # TP, CP, EP, PP, DP
    collective: str
    group_size: int
    groups: int  # how many groups run it at once
    bytes: int
    algorithm: str
    busbw_GBps: float
    time_us: float
    peak: float  # its highest link utilisation
    peak_link: str | None
    network_links: int  # network links it loads
    nvlink_links: int

    def to_dict(self) -> dict[str, Any]:
        return {"exchange": self.name, "class": self.cls, "collective": self.collective,
                "group_size": self.group_size, "groups": self.groups, "bytes": self.bytes,
                "algorithm": self.algorithm, "busbw_GBps": round(self.busbw_GBps, 3),
                "time_us": round(self.time_us, 2), "peak_utilisation": round(self.peak, 4),
                "peak_link": self.peak_link, "network_links": self.network_links,
                "nvlink_links": self.nvlink_links}


def parse_workload(text: str) -> tuple[str, ...] | None:
    """`workload` -> None (every class), `workload:dp` or `workload:tp,pp` -> those classes;
    None for a text that does not name the workload (a collective); ValueError says the form."""
    name, _, rest = text.partition(":")
    if name != "workload":
        return None
    if not rest:
        return CLASSES
    chosen = tuple(dict.fromkeys(c.strip().upper() for c in rest.split(",") if c.strip()))
    bad = [c for c in chosen if c not in CLASSES]
    if bad or not chosen:
        raise ValueError(f"expected workload or workload:CLASS[,CLASS] with classes "
                         f"from {', '.join(c.lower() for c in CLASSES)}, got {text!r}")
    return chosen


def group_starts(job: Any, key: str, n: int) -> list[int]:
    """First rank of every group of `job.groups()[key]` over `n` ranks (all phases of
    `Job.concurrent_groups`)."""
    return sorted(s for phase in job.concurrent_groups(key, n) for s in phase)


def job_heat(estimator: Estimator, estimate: Estimate,
             classes: Iterable[str] | None = None) -> HeatMap:
    """The heat map of `estimate`'s job (timed by `estimator`) on its design; `classes` keeps
    only some traffic classes (TP, CP, EP, PP, DP)."""
    want = None if classes is None else {c.upper() for c in classes}
    job = estimate.job
    comm = estimator.comm
    ranks = comm.gpus
    n = len(ranks)
    groups = comm.groups
    best: dict[str, tuple[float, LinkLoad, str]] = {}
    summaries: list[ExchangeHeat] = []
    shapes = job.groups()
    for name, detail in estimate.comm.items():
        key = name.split("_", 1)[0]
        cls = CLASS_OF.get(key)
        if cls is None or (want is not None and cls not in want):
            continue
        shape = shapes[key]
        collective = detail["collective"]
        size = int(detail["bytes"])
        point, scope = comm.representative(collective, shape, size)
        # groups of one phase exchange at once (a PP stage talks to one neighbour at a time)
        phases = [[[ranks[s + i * shape.stride] for i in range(shape.size)] for s in phase]
                  for phase in job.concurrent_groups(key, n)]
        members = [m for phase in phases for m in phase]
        pattern, share = None, 0.0
        if scope is not None and scope.n_islands > 1:
            pattern, share = groups.pattern_share(scope, collective, point)
        merged: dict[str, LinkLoad] = {}
        net_ids: set[str] = set()
        for part in phases:
            if pattern is not None and share > 0:
                for load in groups.network_loads(part, pattern, min(1.0, share)):
                    net_ids.add(load.link)
                    _keep_busier(merged, load)
            for load in _nvlink_loads(groups, part, collective, point.busbw_GBps):
                _keep_busier(merged, load)
        loads = list(merged.values())
        net_count = len(net_ids)
        nvl = [x for x in loads if x.link not in net_ids]
        peak, peak_link = 0.0, None
        for load in loads:
            u = load.utilisation
            if u > peak:
                peak, peak_link = u, load.link
            old = best.get(load.link)
            if old is None or u > old[0]:
                best[load.link] = (u, load, cls)
        summaries.append(ExchangeHeat(
            name, cls, collective, shape.size, len(members), size, point.algorithm,
            point.busbw_GBps, point.time_us, peak, peak_link, net_count, len(nvl)))
    asked = "/".join(c for c in CLASSES if want is None or c in want)
    which = "/".join(c for c in CLASSES if any(x.cls == c for x in summaries)) or asked
    degrees = " ".join(f"{k.upper()}{v}" for k, v in (("tp", job.tp), ("pp", job.pp),
                                                       ("cp", job.cp), ("ep", job.ep),
                                                       ("dp", job.dp)) if v and v > 1)
    label = (f"Link utilisation: {estimate.model.name} {degrees or 'DP1'} ({which} traffic), "
             f"busiest exchange per link")
    notes = [ASSUMPTION]
    if not estimate.fits:
        notes.append("the job does not fit in memory on this design (estimate refused); its "
                     "traffic is drawn as if it ran")
    if not summaries:
        notes.append(f"the job has no {asked} communication on this design (degrees of 1)")
    heat = HeatMap("workload", 0, None, None, {k: v[1] for k, v in best.items()}, label=label,
                   link_class={k: v[2] for k, v in best.items()}, exchanges=tuple(summaries),
                   notes=tuple(notes))
    return heat


def workload_heat(layout: Layout, spec: JobSpec, classes: Iterable[str] | None = None
                  ) -> tuple[HeatMap, Estimate]:
    """The heat map of a job file's job (`workload.jobfile`) on `layout`, and its estimate;
    `JobHeatError` says why the job cannot run there."""
    try:
        estimator = Estimator(layout, spec.model, gpus=spec.gpus, group=spec.group,
                              pue=spec.pue)
        estimate = estimator.estimate(spec.job, spec.tokens, time_if_too_big=True)
    except EstimateError as exc:  # a job file's settings are its keys (gpus, tp)
        raise JobHeatError(exc.worded(str)) from None
    except ModelFileError as exc:
        raise JobHeatError(str(exc)) from None
    return job_heat(estimator, estimate, classes), estimate


def heat_doc(heat: HeatMap, estimate: Estimate, with_links: bool = True) -> dict[str, Any]:
    """The job's link loads as JSON (`simulate --link-loads --job`): what ran, how utilisation
    is defined, each exchange, and (with `with_links`) every loaded link, busiest first."""
    out: dict[str, Any] = {
        "traffic": "workload", "model": estimate.model.name, "job": estimate.job.to_dict(),
        "step_time_s": estimate.step_time_s, "utilisation": ASSUMPTION,
        "notes": list(heat.notes), "peak_utilisation": round(heat.peak, 4),
        "exchanges": [x.to_dict() for x in heat.exchanges], "count": len(heat.loads)}
    if with_links:
        out["links"] = [dict(x.to_dict(), **{"class": heat.link_class.get(x.link)})
                        for x in heat.hottest(len(heat.loads))]
    return out


def _keep_busier(into: dict[str, LinkLoad], load: LinkLoad) -> None:
    old = into.get(load.link)
    if old is None or load.load_GBps > old.load_GBps:
        into[load.link] = load


def _nvlink_rate(collective: str, busbw: float, n: int, k: int, islands: int) -> float:
    """Per-direction NVLink rate of one GPU of a group (see the module docstring)."""
    if k < 2 or busbw <= 0 or busbw == float("inf"):
        return 0.0
    entry = vocabulary.collective(collective)
    if not entry.group:  # one pair: NVLink only inside an island
        return busbw if islands == 1 else 0.0
    if islands == 1:
        return busbw
    if entry.traffic:  # every peer: k - 1 inside, and its share of the data for the n - k outside
        return busbw * ((k - 1) + (n - k) * (k - 1) / k) / (n - 1)
    return busbw * (k - 1) / k


def _nvlink_loads(groups: GroupCollectives, members: list[list[str]], collective: str,
                  busbw: float) -> list[LinkLoad]:
    """Per NVLink link, the busier direction's load of the exchange (every group at once)."""
    out: dict[str, LinkLoad] = {}
    ports = groups.nvlink_ports().of
    for gpus in members:
        islands = groups.islands_of(gpus)
        for isl in islands:
            rate = _nvlink_rate(collective, busbw, len(gpus), len(isl), len(islands))
            if rate <= 0:
                continue
            inside = set(isl)
            for g in isl:
                usable = [(lid, other, cap) for lid, other, cap, computes in ports.get(g, ())
                          if not computes or other in inside]
                total = sum(c for _, _, c in usable)
                if total <= 0:
                    continue
                for lid, other, cap in usable:
                    load = rate * cap / total
                    old = out.get(lid)
                    if old is None or load > old.load_GBps:  # the busier direction
                        out[lid] = LinkLoad(lid, g, other, load, cap)
    return list(out.values())


__all__ = [
    "ASSUMPTION",
    "CLASSES",
    "ExchangeHeat",
    "JobHeatError",
    "group_starts",
    "heat_doc",
    "job_heat",
    "parse_workload",
    "workload_heat",
]
