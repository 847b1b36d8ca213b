"""What fits the site: the compositions (system mix, counts, fabric switch, oversubscription)
within a site's limits and a budget, and the Pareto front of training throughput against
capex (or TCO), each front point a real design.

How (docs/site.md):

1. **Parts.** For each system type a grid of counts up to what the site could hold of that
   type alone (per-unit figures of one unit, measured on a real design); each (type, count,
   switch, oversubscription) is one *part*, measured on a real design on the sweep engine
   (`parts.measure_part`: power, liquid and air heat, racks, capex, TCO, tokens/s of the job's
   best layout on it).
2. **Candidates.** Every combination of parts on the same fabric (one count per type, 0 for
   none) is a candidate. Its figures are the sum of its parts' (**screening assumption**: a
   mixed design's shared spine layer is counted as the parts' own; and a job does not span GPU
   types, so each type runs its own data-parallel copy of the job and tokens/s add up). PUE
   follows the sum's cooling mix (`model.site.pue_for_cooling`) unless the site states one;
   facility power is IT x PUE. A candidate whose leaves do not fit one spine layer is built as
   **pods joined by a core** (`generate pods`: each system type its own pod, leaf/spine
   layer and all, the pods' spines under a core tier) when each type's leaves fit a pod spine
   layer (half a switch's ports); else it is left out. Screening counts neither the shared
   spine layer nor the core's switches (the parts' own figures); the real design does.
3. **Front.** Candidates within every limit; the Pareto front of tokens/s (more) against capex
   or TCO (less). Each front point is then built as a real design (`generate mixed`, or
   `generate pods` for a candidate on a core: `build_candidate`) with the site set, and
   checked and priced on that design; a point the real design breaks is dropped and the front
   taken again.

The binding limit of a point is the limit it uses most of (liquid, power, air, cooling,
floor, budget).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import product
from typing import Any

from rackdesigner.fit.parts import PartKey, build_part, design_figures, measure_part
from rackdesigner.model.items import Site
from rackdesigner.model.site import feed_capacity_kw, site_pue
from rackdesigner.sweep.pareto import pareto_front

DEFAULT_SYSTEMS = ("gb200-nvl72", "dgx-b200")
#: NDR (the RAs') and XDR fabric switches: a 144-port Q3400 takes more leaves under one spine
#: layer, so larger hybrids fit one fabric
DEFAULT_SWITCHES = ("qm9700", "q3400")
COUNTS_PER_TYPE = 12  # grid points per system type (counts 1..max)
#: Units in one scalable unit (NVL72 racks, DGX nodes): per-unit figures are a whole SU's / this
UNIT_SU = {"gb200-nvl72": 8}
NODE_STEP = 8  # DGX counts are multiples of this (a quarter of a 32-node SU)
LIMITS = ("power", "liquid", "air", "cooling", "floor", "budget")
MAX_VERIFY_ROUNDS = 6


class FitError(ValueError):
    """A fit that cannot be run: bad systems, a budget of 0, a site with no limit."""


@dataclass(frozen=True)
class Candidate:
    counts: tuple[tuple[str, int], ...]  # (system, count) with count > 0
    switch: str
    oversubscription: float
    gpus: int
    it_w: float
    liquid_w: float
    air_w: float
    racks: int
    capex: float
    tco: float
    tokens_per_s: float | None
    pue: float = 1.0
    facility_w: float = 0.0
    shares: tuple[tuple[str, float], ...] = ()
    verified: bool = False
    design: str | None = None
    layouts: tuple[tuple[str, Any], ...] = ()
    #: "spine" (every type under one spine layer) or "core" (one pod per type, joined by a core)
    fabric: str = "spine"

    @property
    def systems(self) -> str:
        return ",".join(f"{s}:{n}" for s, n in self.counts)

    @property
    def pods(self) -> str:
        """The `generate pods` argument of a candidate on a core: one pod per type."""
        return "/".join(f"{s}:{n}" for s, n in self.counts)

    @property
    def feasible(self) -> bool:
        return all(share <= 1 + 1e-9 for _, share in self.shares)

    @property
    def binding(self) -> str | None:
        return max(self.shares, key=lambda kv: kv[1])[0] if self.shares else None

    def to_dict(self) -> dict[str, Any]:
        return {"systems": dict(self.counts), "fabric": self.fabric, "switch": self.switch,
                "oversubscription": self.oversubscription, "gpus": self.gpus,
                "tokens_per_s": self.tokens_per_s, "capex": round(self.capex, 2),
                "tco": round(self.tco, 2), "it_power_kw": round(self.it_w / 1000, 3),
                "facility_power_kw": round(self.facility_w / 1000, 3), "pue": round(self.pue, 4),
                "liquid_kw": round(self.liquid_w / 1000, 3),
                "air_kw": round(self.air_w / 1000, 3), "racks": self.racks,
                "shares": {k: round(v, 4) for k, v in self.shares}, "binding": self.binding,
                "verified": self.verified, "design": self.design,
                "layouts": {k: v for k, v in self.layouts}}


@dataclass(frozen=True)
class FitResult:
    site: Site
    budget: float | None
    candidates: tuple[Candidate, ...]
    feasible: int
    front: tuple[Candidate, ...]
    parts: int
    failed_parts: tuple[tuple[str, str], ...]  # (part, why)
    against: str = "capex"
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"schema": "rackdesigner.fit/1", "site": self.site.to_dict(),
                "budget": self.budget, "against": self.against,
                "candidates": len(self.candidates), "feasible": self.feasible,
                "parts_measured": self.parts,
                "failed_parts": [{"part": p, "why": w} for p, w in self.failed_parts],
                "pareto": [c.to_dict() for c in self.front], "notes": list(self.notes)}


def count_grid(system: str, most: int) -> list[int]:
    """Up to COUNTS_PER_TYPE counts from the smallest unit to `most` (DGX nodes in steps of
    NODE_STEP), evenly spread."""
    step = 1 if system == "gb200-nvl72" else NODE_STEP
    units = max(0, most // step)
    if units == 0:
        return []
    picks = sorted({max(1, round(units * (i + 1) / COUNTS_PER_TYPE))
                    for i in range(COUNTS_PER_TYPE)})
    return [p * step for p in picks]


def shares_of(site: Site, budget: float | None, it_w: float, liquid_w: float, air_w: float,
              racks: int, capex: float) -> tuple[float, float, tuple[tuple[str, float], ...]]:
    """(PUE, facility W, (limit, share used) for every limit the site and budget state)."""
    pue, _ = site_pue(site, liquid_w, air_w)
    facility = it_w * pue
    out: list[tuple[str, float]] = []
    feed = feed_capacity_kw(site)
    power = [facility / (feed * 1000)] if feed else []
    if site.power_kw:
        power.append(it_w / (site.power_kw * 1000))
    if power:
        out.append(("power", max(power)))
    for name, used, limit in (("liquid", liquid_w, site.liquid_kw),
                              ("air", air_w, site.air_kw),
                              ("cooling", liquid_w + air_w, site.cooling_kw)):
        if limit:
            out.append((name, used / (limit * 1000)))
    if site.rack_positions:
        out.append(("floor", racks / site.rack_positions))
    if budget:
        out.append(("budget", capex / budget))
    return pue, facility, tuple(out)


def fit(site: Site, *, budget: float | None = None, job: Any = None,
        systems: Sequence[str] = DEFAULT_SYSTEMS, switches: Sequence[str] = DEFAULT_SWITCHES,
        oversubscriptions: Sequence[float] = (1.0, 2.0), against: str = "capex",
        scheduler: str = "processes", workers: int | None = None,
        progress: Callable[[int, int], None] | None = None) -> FitResult:
    """The compositions that fit `site` and `budget`, and their front (module docstring)."""
    from rackdesigner.catalog import default_catalog
    from rackdesigner.fit.engine import run_tasks

    if budget is not None and not (budget > 0 and math.isfinite(budget)):
        raise FitError(f"--budget must be a positive amount, got {budget:g}")
    if site.empty and budget is None:
        raise FitError("the site states no limit and no budget is given: nothing to fit to")
    if against not in ("capex", "tco"):
        raise FitError(f"the front is against capex or tco, not {against!r}")
    catalog = default_catalog()
    for system in systems:
        if system not in catalog or catalog.get(system).traits.contains != "parts":
            known = ", ".join(s.id for s in catalog.doing("contains", "parts"))
            raise FitError(f"--systems: {system!r} is not a system (one of: {known})")
    grids = {}
    for system in systems:  # per-unit figures of a whole SU (a lone unit carries its leaves)
        per_su = UNIT_SU.get(system, 32)
        whole = design_figures(build_part(PartKey(system, per_su, switches[0], 1.0)))
        unit = {k: v / per_su for k, v in whole.items()}
        grids[system] = count_grid(system, _most_units(site, budget, unit))
    keys = [PartKey(s, n, sw, o) for s in systems for n in grids[s] for sw in switches
            for o in oversubscriptions]
    rows = run_tasks(measure_part, [(k, job) for k in keys], scheduler, workers=workers,
                     progress=progress)
    measured = {row["key"]: row for row in rows}
    failed = tuple((k.systems + f" ({k.switch}, {k.oversubscription:g}:1)", r["error"])
                   for k, r in measured.items() if r["error"])
    candidates = _combine(site, budget, systems, grids, switches, oversubscriptions, measured,
                          job is not None)
    feasible = [c for c in candidates if c.feasible]
    def verify(points: list[Candidate]) -> list[Candidate]:
        return run_tasks(real_candidate, [(site, budget, c) for c in points], scheduler,
                         workers=workers)

    front = _verified_front(site, budget, feasible, against, job is not None, verify)
    notes = ("screening: a candidate's figures are its parts' sums (each part on its own "
             "fabric); front points are built and checked as real mixed designs",
             "a job does not span GPU types: each type runs its own copy of the job and "
             "tokens/s add up (model assumption)")
    return FitResult(site, budget, tuple(candidates), len(feasible), tuple(front), len(keys),
                     failed, against, notes)


def _most_units(site: Site, budget: float | None, unit: dict[str, Any]) -> int:
    """How many units of one type the site (or budget) could hold alone, at most 4096."""
    _, _, shares = shares_of(site, budget, unit["it_w"], unit["liquid_w"], unit["air_w"],
                             unit["racks"], unit["capex"])
    if not shares:
        return 0
    worst = max(share for _, share in shares)
    return min(4096, int(1 / worst)) if worst > 0 else 4096


def _combine(site: Site, budget: float | None, systems: Sequence[str],
             grids: dict[str, list[int]], switches: Sequence[str],
             oversubscriptions: Sequence[float], measured: dict[PartKey, dict],
             with_job: bool) -> list[Candidate]:
    from rackdesigner.catalog import default_catalog
    from rackdesigner.generators.mixed import _plan_part

    catalog = default_catalog()
    out: list[Candidate] = []
    for switch in switches:
        spec = catalog.get(switch)
        radix = max(g.count for g in spec.ports)
        for over in oversubscriptions:
            for counts in product(*[[0, *grids[s]] for s in systems]):
                picked = tuple((s, n) for s, n in zip(systems, counts, strict=True) if n)
                if not picked:
                    continue
                got = [measured.get(PartKey(s, n, switch, over)) for s, n in picked]
                rows = [r for r in got if r is not None and not r["error"]]
                if len(rows) != len(picked):
                    continue
                per_type = [p.sus * p.leaves_per_su for p in
                            (_plan_part(catalog, s, n, radix // 2) for s, n in picked)]
                fabric = "spine"
                if sum(per_type) > radix:  # more leaves than one spine layer takes
                    if len(picked) < 2 or max(per_type) > radix // 2:
                        continue
                    fabric = "core"  # one pod per type, joined by a core tier
                sums = {k: sum(r[k] for r in rows) for k in
                        ("gpus", "it_w", "liquid_w", "air_w", "racks", "capex", "tco")}
                tokens = sum(r["tokens_per_s"] for r in rows) if with_job else None
                pue, facility, shares = shares_of(site, budget, sums["it_w"], sums["liquid_w"],
                                                  sums["air_w"], sums["racks"], sums["capex"])
                out.append(Candidate(picked, switch, over, int(sums["gpus"]), sums["it_w"],
                                     sums["liquid_w"], sums["air_w"], int(sums["racks"]),
                                     sums["capex"], sums["tco"], tokens, pue, facility, shares,
                                     layouts=tuple((s, r.get("layout")) for (s, _), r in
                                                   zip(picked, rows, strict=True)),
                                     fabric=fabric))
    return out


def _front(points: list[Candidate], against: str, with_job: bool) -> list[Candidate]:
    if not points:
        return []
    ys = [c.tokens_per_s if with_job else float(c.gpus) for c in points]
    xs = [getattr(c, against) for c in points]
    return [points[i] for i in pareto_front(xs, ys, maximize_x=False, maximize_y=True)]


def _verified_front(site: Site, budget: float | None, feasible: list[Candidate],
                    against: str, with_job: bool, run: Callable[[list[Candidate]],
                                                                list[Candidate]]
                    ) -> list[Candidate]:
    """The front, each point rebuilt as a real design, checked and priced there (`run` does
    that for a list, on the engine); points the real design breaks are dropped and the front
    taken again."""
    pool = list(feasible)
    real: dict[tuple, Candidate] = {}

    def key(c: Candidate) -> tuple:
        return (c.counts, c.switch, c.oversubscription, c.fabric)

    for _ in range(MAX_VERIFY_ROUNDS):
        front = _front(pool, against, with_job)
        todo = [c for c in front if key(c) not in real]
        for c, done in zip(todo, run(todo), strict=True):
            real[key(c)] = done
        broken = [c for c in front if not real[key(c)].feasible]
        if not broken:
            return [real[key(c)] for c in front]
        for c in broken:
            pool.remove(c)
    return [real[key(c)] for c in _front(pool, against, with_job)
            if key(c) in real and real[key(c)].feasible]


def build_candidate(c: Candidate, catalog: Any = None, cdus: int = 0):
    """The real design of a candidate: its types under one spine layer (`generate mixed`) or,
    on a core, one pod per type joined by a core tier (`generate pods`)."""
    from rackdesigner.generators import generate

    if c.fabric == "core":
        return generate("pods", catalog, pods=c.pods, switch=c.switch,
                        oversubscription=c.oversubscription, cdus=cdus)
    return generate("mixed", catalog, systems=c.systems, switch=c.switch,
                    oversubscription=c.oversubscription, cdus=cdus)


def real_candidate(site: Site, budget: float | None, c: Candidate) -> Candidate:
    """`c` measured on its real design (the engine's task for a front point)."""
    layout = build_candidate(c)
    layout.set_meta(site=site)
    f = design_figures(layout)
    pue, facility, shares = shares_of(site, budget, f["it_w"], f["liquid_w"], f["air_w"],
                                      f["racks"], f["capex"])
    return replace(c, gpus=f["gpus"], it_w=f["it_w"], liquid_w=f["liquid_w"],
                   air_w=f["air_w"], racks=f["racks"], capex=f["capex"], tco=f["tco"],
                   pue=pue, facility_w=facility, shares=shares, verified=True)


def design_name(index: int, c: Candidate) -> str:
    parts = "-".join(f"{s.replace('gb200-', '').replace('dgx-', '')}x{n}" for s, n in c.counts)
    over = "" if math.isclose(c.oversubscription, 1.0) else f"-{c.oversubscription:g}to1"
    core = "-core" if c.fabric == "core" else ""
    return f"fit-{index:02d}-{parts}-{c.switch}{over}{core}.yaml"
