"""How often a design stops a training job, what each fault takes down, and what the job keeps:
`assess(layout, library, ...)` -> `Assessment`, whose `to_json` is `rackdesigner.reliability/1`.

Per cause of the library: the units of the design it is counted per (`structure.py`), the
faults per day (rate x units), and of those the *interruptions* — faults that stop at least
one GPU — and the *degradations* — faults that stop none (a spine, a core: bandwidth only).
A job on J of the design's G GPUs sees J/G of the interruptions (a model assumption: parts are
spread evenly over the GPUs). MTBF = 24 / interruptions per day hours. The checkpoint is the
job's model state (parameters x the library's bytes per parameter) or, without a job, the
library's default per GPU, written at the bandwidth of the drawn storage path or the library's
assumed per-GPU bandwidth; ETTR, interval and spares follow `goodput.py`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from rackdesigner.model import Layout
from rackdesigner.reliability.goodput import ettr as ettr_of
from rackdesigner.reliability.goodput import optimum_interval, p_job_runs, spares_needed
from rackdesigner.reliability.library import Library
from rackdesigner.reliability.structure import Structure, design_structure

SCHEMA = "rackdesigner.reliability/1"


class ReliabilityError(ValueError):
    """A setting the assessment cannot use (a checkpoint interval of 0, negative spares)."""


@dataclass(frozen=True)
class CauseRow:
    name: str
    label: str
    per: str
    units: float
    interruptions_per_day: float  # in the job's scope
    degradations_per_day: float
    blast_max: int
    blast_mean: float
    repair_hours: float
    stops: str = "node"  # what one fault stops (library.STOPS)


@dataclass(frozen=True)
class Checkpoint:
    interval_s: float
    write_s: float
    bytes: float
    write_GBps: float
    basis: str
    chosen: bool  # the user's interval (else Daly's optimum)


@dataclass(frozen=True)
class Job:
    """A training job's figures, from the workload estimate."""

    gpus: int
    tokens_per_s: float | None
    params: float | None = None  # model parameters (for the checkpoint size)
    tokens: float | None = None
    label: str = ""


@dataclass(frozen=True)
class Assessment:
    design: str
    gpus: int
    scope_gpus: int
    causes: tuple[CauseRow, ...]
    checkpoint: Checkpoint
    restart_s: float
    ettr: float
    spares: int | None  # None: assumed enough
    gpus_out_mean: float
    p_job_runs: float
    spares_for_99: int
    library: str
    structure: Structure
    job: Job | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def interruptions_per_day(self) -> float:
        return sum(c.interruptions_per_day for c in self.causes)

    @property
    def degradations_per_day(self) -> float:
        return sum(c.degradations_per_day for c in self.causes)

    @property
    def mtbf_hours(self) -> float:
        n = self.interruptions_per_day
        return 24.0 / n if n > 0 else math.inf

    def by_cause(self) -> dict[str, float]:
        """Each cause's share of the interruptions, largest first."""
        total = self.interruptions_per_day
        rows = sorted(self.causes, key=lambda c: (-c.interruptions_per_day, c.name))
        return {c.name: (c.interruptions_per_day / total if total else 0.0) for c in rows
                if c.interruptions_per_day > 0}

    def share(self, *causes: str) -> float:
        shares = self.by_cause()
        return sum(shares.get(c, 0.0) for c in causes)

    @property
    def blast_radius_gpus(self) -> int:
        """The largest set of GPUs one fault stops."""
        return max((c.blast_max for c in self.causes if c.interruptions_per_day > 0),
                   default=0)

    @property
    def goodput(self) -> float:
        """ETTR x the share of time the job has the GPUs it needs."""
        return self.ettr * self.p_job_runs

    @property
    def effective_tokens_per_s(self) -> float | None:
        j = self.job
        return j.tokens_per_s * self.goodput if j is not None and j.tokens_per_s else None

    def effective_days(self) -> float | None:
        eff = self.effective_tokens_per_s
        j = self.job
        if eff is None or j is None or not j.tokens:
            return None
        return j.tokens / eff / 86400 if eff > 0 else math.inf

    def part_blast(self, device_id: str) -> tuple[int, tuple[str, ...]]:
        """(the GPUs one fault of the part stops at most, the causes counted on it): what a
        selected part takes down ((0, ()) for a part no cause is counted on)."""
        role = self.structure.role_of(device_id)
        causes = [c for c in self.causes if c.per == role]
        stops = {c.stops for c in causes}
        gpus = max((self.structure.stopped_by(device_id, s) for s in stops), default=0)
        return gpus, tuple(c.label for c in causes)

    def ettr_curve(self, intervals_s: list[float]) -> list[tuple[float, float]]:
        """(interval, ETTR) at each interval: the curve the Reliability view draws."""
        mtbf = self.mtbf_hours * 3600
        return [(t, ettr_of(t, self.checkpoint.write_s, self.restart_s, mtbf))
                for t in intervals_s]

    def to_json(self) -> dict[str, Any]:
        c = self.checkpoint
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "design": self.design,
            "gpus": self.gpus,
            "scope_gpus": self.scope_gpus,
            "interruptions_per_day": _r(self.interruptions_per_day),
            "degradations_per_day": _r(self.degradations_per_day),
            "mtbf_hours": _r(self.mtbf_hours) if math.isfinite(self.mtbf_hours) else None,
            "by_cause": {k: _r(v) for k, v in self.by_cause().items()},
            "causes": [{"cause": r.name, "label": r.label, "per": r.per, "units": _r(r.units),
                        "interruptions_per_day": _r(r.interruptions_per_day),
                        "degradations_per_day": _r(r.degradations_per_day),
                        "blast_radius_gpus": r.blast_max,
                        "blast_mean_gpus": _r(r.blast_mean), "repair_hours": r.repair_hours}
                       for r in self.causes],
            "blast_radius_gpus": self.blast_radius_gpus,
            "largest_nvlink_domain": self.structure.nvlink_domain_max,
            "ettr": _r(self.ettr),
            "checkpoint": {"interval_s": _r(c.interval_s), "write_s": _r(c.write_s),
                           "bytes": _r(c.bytes), "write_GBps": _r(c.write_GBps),
                           "basis": c.basis,
                           "interval_basis": "given" if c.chosen else "Daly optimum"},
            "restart_s": _r(self.restart_s),
            "availability": {"spare_gpus": self.spares, "gpus_out_mean": _r(self.gpus_out_mean),
                             "p_job_runs": _r(self.p_job_runs),
                             "spares_for_99": self.spares_for_99},
            "goodput": _r(self.goodput),
            "library": self.library,
            "notes": list(self.notes),
        }
        if self.job is not None:
            j = self.job
            out["job"] = {"label": j.label, "gpus": j.gpus, "tokens_per_s": _r(j.tokens_per_s),
                          "tokens": j.tokens}
            out["effective_tokens_per_s"] = _r(self.effective_tokens_per_s)
            days = self.effective_days()
            out["effective_days_to_train"] = _r(days) if days is not None and \
                math.isfinite(days) else None
        return out


def _r(value: float | None, digits: int = 4) -> float | None:
    if value is None or value != value:
        return None
    return float(f"{value:.{digits}g}")


def assess(layout: Layout, library: Library, *, job: Job | None = None,
           interval_s: float | None = None, spares: int | None = None,
           group: str | None = None, structure: Structure | None = None,
           label: str = "") -> Assessment:
    """The reliability figures of `layout` (module docstring). `interval_s`: the user's
    checkpoint interval (else Daly's optimum); `spares`: spare GPUs beside the job's (else
    the GPUs the job leaves free, or, when it takes them all, enough are assumed); `group`: a
    job spanning that group's GPUs (without `job`)."""
    if interval_s is not None and not (interval_s > 0 and math.isfinite(interval_s)):
        raise ReliabilityError(f"the checkpoint interval must be greater than 0 seconds, got "
                               f"{interval_s:g}")
    if spares is not None and spares < 0:
        raise ReliabilityError(f"spares must be 0 or more GPUs, got {spares}")
    s = structure if structure is not None else design_structure(layout)
    notes = list(s.notes)
    g = s.gpus
    if group is not None and job is None:
        from rackdesigner.model.scope import ScopeError, group_gpus

        try:
            in_group = len(group_gpus(layout, group))
        except ScopeError as exc:
            raise ReliabilityError(str(exc)) from None
        if not in_group:
            raise ReliabilityError(f"group {group!r} has no GPUs")
        job = Job(in_group, None, label=f"group {group}")
    scope = job.gpus if job is not None else (g - spares if spares is not None else g)
    if job is not None and job.gpus > g:
        raise ReliabilityError(f"the job takes {job.gpus:,} GPUs, the design has {g:,}")
    if scope <= 0 and g > 0:
        raise ReliabilityError(f"{spares:,} spares leave no GPU of the {g:,} for the job")
    f = scope / g if g else 0.0
    rows = []
    mu = out_gpus = 0.0
    for cause in library.causes:
        b = s.blast(cause.per, cause.stops)
        per_day = cause.per_day
        repair_days = cause.repair_hours / 24.0
        rows.append(CauseRow(cause.name, cause.label, cause.per, b.units,
                             per_day * b.stopping * f, per_day * (b.units - b.stopping) * f,
                             b.gpus_max, b.mean, cause.repair_hours, cause.stops))
        mu += per_day * b.stopping * repair_days * f  # the job's outages in repair at once
        out_gpus += per_day * b.gpus_sum * repair_days * f
    interruptions = sum(r.interruptions_per_day for r in rows)
    mtbf_s = 86400.0 / interruptions if interruptions > 0 else math.inf
    cp = _checkpoint(s, library, job, scope, interval_s, mtbf_s)
    restart = library.restart.total_s
    mean_blast = out_gpus / mu if mu else 0.0
    free = spares if spares is not None else (g - scope if g - scope > 0 else None)
    p_runs = p_job_runs(free, mu, mean_blast) if free is not None else 1.0
    if spares is not None and scope + spares > g:
        notes.append(f"{scope + spares - g:,} of the {spares:,} spares are beyond the design's "
                     f"{g:,} GPUs (not drawn, not priced)")
    if free is None:
        notes.append("spares: the job takes every GPU; a spare is assumed at hand for every "
                     "fault (give --spares N to count the GPUs held back)")
    if not g:
        notes.append("the design has no GPUs")
    return Assessment(label or layout.meta.name or (layout.source_path or "design"), g, scope,
                      tuple(rows), cp, restart, ettr_of(cp.interval_s, cp.write_s, restart,
                                                         mtbf_s),
                      free, out_gpus, p_runs, spares_needed(mu, mean_blast), library.origin,
                      s, job, tuple(notes))


def _checkpoint(s: Structure, library: Library, job: Job | None, scope: int,
                interval_s: float | None, mtbf_s: float) -> Checkpoint:
    facts = library.checkpoint
    if job is not None and job.params:
        size = job.params * facts.bytes_per_param
        what = (f"{job.params / 1e9:,.0f}B parameters x {facts.bytes_per_param:g} bytes "
                "(weights and optimizer state)")
    else:
        size = facts.default_bytes_per_gpu * scope
        what = (f"{facts.default_bytes_per_gpu / 1e6:,.0f} MB per GPU x {scope:,} GPUs "
                "(no job: the library's assumed model state)")
    if s.storage.write_GBps:
        bandwidth = s.storage.write_GBps
        where = s.storage.basis
    else:
        bandwidth = facts.storage_GBps_per_gpu * scope
        where = (f"{s.storage.basis}: assumed {facts.storage_GBps_per_gpu:g} GB/s per GPU "
                 f"({bandwidth:,.0f} GB/s)")
    write = size / (bandwidth * 1e9) if bandwidth > 0 else math.inf
    blocking = write if facts.blocking else 0.0
    interval = interval_s if interval_s is not None else optimum_interval(blocking, mtbf_s)
    basis = f"{size / 1e12:,.3g} TB = {what}; written to {where}"
    if not facts.blocking:
        basis += "; written in the background (the library's checkpoint.blocking: false)"
    return Checkpoint(interval, blocking, size, bandwidth, basis, interval_s is not None)


__all__ = ["SCHEMA", "Assessment", "CauseRow", "Checkpoint", "Job", "ReliabilityError",
           "assess"]
