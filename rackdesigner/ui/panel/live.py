"""`LiveSimulation`: model events in, debounced `simulate` runs on a worker thread, results out.

An edit burst (a drag-wired bundle, an undo macro, typing in the inspector) must cost one run,
and a result is shown only if nothing was asked since it started (newer revision, scope or
options). Those rules are the shared `BackgroundJob` (`ui/jobs.py`), which the Problems dock
uses too: debounce, a snapshot taken on the GUI thread when the run starts (`Layout.snapshot()`
is O(1): the design is an immutable state, so no later edit can reach what the worker reads),
one run in flight, stale results dropped and counted, errors reported.

Only changes that can move a figure ask for a run (`event.affects_simulation`: pure moves and
renames do not). The panel follows a `Document` (`follow_document`: its `changed` and
`replaced` signals); standalone (tests, scripts) it subscribes to a Layout directly.

With failures marked (issue 15), every run also yields a `MarkedImpact`: the intact design's
figures (the same snapshot with every status active) and the GPUs failed, stranded and degraded,
so the panel compares with the intact design. The intact run is cached across Fail / Restore
(its key is a structure counter bumped by every other edit, `_status_only`), so marking a switch
costs one simulation, not two. The heat map's traffic (`set_heat`) makes every run list its
per-link loads, built on the worker; for a training job's traffic (the Workload tab's job) the
run also estimates the job on the snapshot and routes its exchanges (analysis/jobheat.py).

Garbage-collector tuning for big designs is not done here: it is the application's
(`ui/heap.py`, applied on every document replacement).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from PySide6.QtCore import QObject, Signal

from rackdesigner.analysis.heat import HeatMap
from rackdesigner.analysis.whatif import IntactFigures, MarkedImpact, marked_impact
from rackdesigner.model import Layout
from rackdesigner.model.failures import closure, degraded
from rackdesigner.simulation import SimulationInputError, SimulationResult, simulate
from rackdesigner.simulation.stages import prepare
from rackdesigner.ui.jobs import BackgroundJob, JobResult
from rackdesigner.ui.panel.figures import rack_power_by_category
from rackdesigner.vocabulary import DEFAULT_FABRIC_TUNING

log = logging.getLogger(__name__)
DEBOUNCE_MS = 200

Scope = str | tuple[str, ...] | None  # whole layout, a group id, or GPU ids


@dataclass(frozen=True)
class LiveResult:
    """One finished run: the result (or why there is none) for a revision, scope and options."""

    request: int
    revision: int
    scope: Scope
    algorithm: str
    result: SimulationResult | None
    error: str = ""
    rack_split: dict[str, dict[str, float]] = field(default_factory=dict)
    elapsed_s: float = 0.0  # simulate + rack split, on the worker
    impact: MarkedImpact | None = None  # failures marked: the intact design and the losses
    #: the heat map of a training job's traffic, when the heat asked for is ("workload", ...)
    heat: HeatMap | None = None
    heat_error: str = ""  # why the job's heat map could not be drawn
    heat_for: Any = None  # the heat request this run answered


@dataclass(frozen=True, slots=True)
class LiveParams:
    """What one run is asked: the options the panel shows, the heat map's traffic, and the
    intact-design cache (`structure` counts the edits that are not a Fail / Restore)."""

    scope: Scope
    algorithm: str
    pue: float | None
    placement: str
    heat: Any  # None, (collective, bytes) or ("workload", classes, WorkloadRequest)
    structure: int
    intact_cache: Any
    fabric_tuning: str = DEFAULT_FABRIC_TUNING  # the NCCL network settings the cluster runs


@dataclass(frozen=True, slots=True)
class LiveRun:
    """What the worker computed on one snapshot (`error` says why there is no result)."""

    result: SimulationResult | None
    rack_split: dict[str, dict[str, float]]
    error: str = ""
    impact: MarkedImpact | None = None
    heat: HeatMap | None = None
    heat_error: str = ""


def _status_only(event: Any) -> bool:
    """A Fail / Restore: the intact design (and its cached figures) did not change."""
    old, new = getattr(event, "old", None), getattr(event, "new", None)
    return (old is not None and new is not None and hasattr(new, "status")
            and old.status != new.status and replace(old, status=new.status) == new)


def _simulate(snapshot: Layout | None, params: LiveParams) -> LiveRun:
    """The worker's job on a snapshot. A bad input is an error to show; anything else raises
    (the job logs the traceback and reports it). A `heat` of (collective, bytes) lists that
    traffic's per-link loads; with failures marked the intact design is simulated too (or read
    from the cache, keyed by `structure` and the options).

    The intact design's run is kept in the cache (`IntactFigures`) whenever nothing is
    failed, so that failing something next compares with it at no cost, and derives the
    degraded design's index and topology from it (`model/index_delta.py`,
    `simulation/topology_delta.py`); and a run of a design with nothing failed whose
    structure the cache holds — the Undo or Restore of a Fail — is the cached run itself."""
    scope, algorithm, pue, placement = (params.scope, params.algorithm, params.pue,
                                        params.placement)
    heat, structure, intact_cache = params.heat, params.structure, params.intact_cache
    if snapshot is None:
        return LiveRun(None, {}, "no design open")
    job_heat, heat_error = None, ""
    if heat is not None and heat[0] == "workload":  # a training job's traffic
        job_heat, heat_error = workload_heat(snapshot, heat[2], heat[1], scope)
        heat = None
    tuning = params.fabric_tuning
    key = (structure, scope, algorithm, pue, placement, tuning)
    down = closure(snapshot)
    kept = intact_cache.get(key)
    if not down and kept is not None and kept.extra is not None and kept.extra[1] == heat:
        # back to the intact design (Undo or Restore of a Fail): its run, kept
        return LiveRun(kept.result, kept.extra[0], "", None, job_heat, heat_error)
    # one degraded design per run, held while it lasts: the simulation, the rack split and the
    # comparison share its derived index and topology
    broken = degraded(snapshot, down)
    if down:
        prepare(broken)
    try:
        if heat is not None:  # the heat map's traffic: its per-link list built here, off the GUI
            result = simulate(snapshot, scope, algorithm=algorithm, pue=pue,
                              placement=placement, loads_for=heat, fabric_tuning=tuning)
            if result.link_loads is not None:
                result.link_loads.entries  # noqa: B018 (cached_property: computed now)
        else:
            result = simulate(snapshot, scope, algorithm=algorithm, pue=pue, placement=placement,
                              fabric_tuning=tuning)
    except SimulationInputError as exc:
        return LiveRun(None, {}, str(exc), None, job_heat, heat_error)
    members = (set(snapshot.group_devices(scope)) if isinstance(scope, str)
               and snapshot.has_group(scope) else None)
    # failed devices draw nothing: split the racks' power of the design simulated
    split = rack_power_by_category(broken, result, members)
    if not down:  # the intact design: what the next Fail compares with
        intact_cache.clear()
        intact_cache[key] = IntactFigures(result, snapshot, (split, heat))
        return LiveRun(result, split, "", None, job_heat, heat_error)

    def intact(design: Layout) -> SimulationResult:
        return simulate(design, scope, algorithm=algorithm, pue=pue, placement=placement,
                        fabric_tuning=tuning)

    try:
        impact = marked_impact(snapshot, result, intact, intact_cache, key)
    except SimulationInputError as exc:
        return LiveRun(None, {}, str(exc), None, job_heat, heat_error)
    return LiveRun(result, split, "", impact, job_heat, heat_error)


def workload_heat(snapshot: Layout, req: Any, classes: tuple[str, ...],
                  scope: Scope) -> tuple[HeatMap | None, str]:
    """The heat map of the Workload tab's job (`req`, a `WorkloadRequest` with its degrees) on
    the snapshot, in the panel's scope; (None, why) when the job cannot run there."""
    from rackdesigner.analysis.jobheat import job_heat
    from rackdesigner.workload import EstimateError, Estimator, ModelFileError

    if isinstance(req.scope, str | tuple) and req.scope:
        scope = req.scope
    try:
        est = Estimator(snapshot, req.model, gpus=req.gpus, pue=req.pue,
                        group=scope if isinstance(scope, str) else None,
                        gpu_ids=scope if isinstance(scope, tuple) else None)
        estimate = est.estimate(req.job, time_if_too_big=True)
        return job_heat(est, estimate, classes), ""
    except (EstimateError, ModelFileError) as exc:
        return None, f"the workload cannot run here: {exc}"


def _live(job: JobResult) -> LiveResult:
    params: LiveParams = job.params
    scope, algorithm = params.scope, params.algorithm
    if job.error:
        error = f"the simulation failed on this design ({job.error})"
        return LiveResult(job.request, job.revision, scope, algorithm, None, error, {},
                          job.elapsed_s)
    run: LiveRun = job.value
    return LiveResult(job.request, job.revision, scope, algorithm, run.result, run.error,
                      run.rack_split, job.elapsed_s, impact=run.impact, heat=run.heat,
                      heat_error=run.heat_error, heat_for=params.heat)


class LiveSimulation(QObject):
    result_ready = Signal(object)  # LiveResult, only for the newest request
    busy_changed = Signal(bool)  # a run is pending or in flight ("updating")
    result_dropped = Signal(object)  # LiveResult that arrived after a newer request

    def __init__(self, layout: Layout | None = None, parent: QObject | None = None, *,
                 debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.job = BackgroundJob(_simulate, self, debounce_ms=debounce_ms)
        self.job.result_ready.connect(self._on_job_result_ready)
        self.job.result_dropped.connect(self._on_job_result_dropped)
        self.job.busy_changed.connect(self.busy_changed)
        self._unsubscribe: Callable[[], None] | None = None
        self._scope: Scope = None
        self._algorithm = "auto"
        self._pue: float | None = None
        self._placement = "contiguous"
        self._fabric_tuning = DEFAULT_FABRIC_TUNING
        self._heat: tuple | None = None  # (collective, bytes) or ("workload", classes, job)
        self._structure = 0  # bumped by every edit but Fail / Restore (intact figures' key)
        self._intact_cache: dict = {}  # read and written by the one worker run in flight
        self.latest: LiveResult | None = None
        if layout is not None:
            self.set_layout(layout)

    # ---- inputs -----------------------------------------------------------------------------
    @property
    def layout(self) -> Layout | None:
        return self.job.layout

    @property
    def scope(self) -> Scope:
        return self._scope

    @property
    def algorithm(self) -> str:
        return self._algorithm

    @property
    def runs(self) -> int:
        return self.job.runs

    @property
    def dropped(self) -> int:
        return self.job.dropped

    def follow_document(self, document: Any) -> None:
        """Follow a `Document`: its `changed` events and `replaced` designs, nothing else."""
        document.changed.connect(self.on_event)
        document.replaced.connect(lambda layout: self.set_layout(layout, subscribe=False))
        self.set_layout(document.layout, subscribe=False)

    def set_layout(self, layout: Layout | None, *, subscribe: bool = True) -> None:
        """Follow another design: recompute at once (no debounce for a file just opened).
        `subscribe` listens to the Layout itself (standalone use, without a Document)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.job.set_layout(layout)
        self._scope = None
        self._structure += 1
        if layout is not None and subscribe:
            self._unsubscribe = layout.subscribe(self.on_event)
        self.request(immediate=True, idle=True)  # after the views' first paint

    def set_scope(self, scope: Scope) -> None:
        if isinstance(scope, list):
            scope = tuple(scope)
        if scope != self._scope:
            self._scope = scope
            self.request()

    def set_heat(self, heat: tuple | None, *, immediate: bool = True) -> None:
        """List per-link loads of (collective, bytes) in every result (None: the default), or
        draw a training job's: ("workload", classes, WorkloadRequest). `immediate` False
        debounces (the job edited in the Workload tab, one spin-box step at a time)."""
        if heat != self._heat:
            self._heat = heat
            self.request(immediate=immediate)

    def set_options(self, *, algorithm: str | None = None, pue: float | None = None,
                    placement: str | None = None, fabric_tuning: str | None = None) -> None:
        changed = False
        if fabric_tuning is not None and fabric_tuning != self._fabric_tuning:
            self._fabric_tuning, changed = fabric_tuning, True
        if placement is not None and placement != self._placement:
            self._placement, changed = placement, True
        if algorithm is not None and algorithm != self._algorithm:
            self._algorithm, changed = algorithm, True
        if pue is not None and pue != self._pue:
            self._pue, changed = pue, True
        if changed:
            self.request()

    def set_pue(self, pue: float | None) -> None:
        """The user's PUE, or None for the design's own (its site's, else its cooling mix's)."""
        if pue != self._pue:
            self._pue = pue
            self.request()

    def on_event(self, event: Any) -> None:
        status = _status_only(event)
        if not status:
            self._structure += 1
        if getattr(event, "affects_simulation", True):
            # a Fail / Restore (or its Undo) is one discrete step, never a gesture's stream:
            # its run starts once the command is whole, without the debounce
            self.request(soon=status)

    def request(self, *, immediate: bool = False, soon: bool = False,
                idle: bool = False) -> None:
        """Ask for a run reflecting the current state (trailing debounce unless `immediate`
        or `soon`; `idle`: see `BackgroundJob.request`)."""
        self.job.set_params(LiveParams(self._scope, self._algorithm, self._pue,
                                       self._placement, self._heat, self._structure,
                                       self._intact_cache, self._fabric_tuning))
        self.job.request(immediate=immediate, soon=soon, idle=idle)

    # ---- results ----------------------------------------------------------------------------
    def _on_job_result_ready(self, job: JobResult) -> None:
        self.latest = _live(job)
        self.result_ready.emit(self.latest)

    def _on_job_result_dropped(self, job: JobResult) -> None:
        self.result_dropped.emit(_live(job))

    @property
    def busy(self) -> bool:
        return self.job.busy

    def flush(self, timeout_ms: int = 30_000) -> LiveResult | None:
        """Start what is pending now and wait (processing events) until the newest result is in."""
        self.job.flush(timeout_ms)
        return self.latest

    def close(self) -> None:
        """Stop listening and wait for a run in flight (the window is closing)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.job.close()
