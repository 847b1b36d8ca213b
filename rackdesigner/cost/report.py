"""The cost of a design: capex, yearly energy and support, TCO, $/GPU-hour, cooling, and with a
training job the days, dollars and energy to train T tokens.

`design_cost(layout, book, assumptions, job=...)` computes a `CostReport`; its `to_json` is the
`rackdesigner.cost/1` schema (stable keys: capex, opex_per_year, tco, usd_per_gpu_hour,
breakdown[], unpriced[], complete, cooling{liquid_kw, air_kw, racks_over_air_limit,
cdus_over_capacity}, and with a job time_to_train_days, cost_to_train, tokens_per_usd). Amounts
are in the book's `currency` (the `usd_` key names are kept for stability whatever it is).

- capex = priced hardware + installation per rack + spares (`capex.price_design`);
- energy per year = IT draw (typical or max, `Assumptions.power_basis`) x utilisation x PUE x
  8,766 h x price per kWh; support per year = the book's % of priced hardware;
- TCO over N years = capex + N x (energy + support); $/GPU-hour = TCO / (GPUs x N x 8,766 h);
- with a job (train's public `Estimator`): days = T / tokens per second; cost to train =
  $/GPU-hour x the job's GPUs x hours; tokens per $ = tokens per second x 3,600 / (the job's
  GPUs x $/GPU-hour); energy per token = the job scope's facility power at its maximum draw /
  tokens per second (the energy figure `estimate` reports).

A total that leaves parts unpriced is a lower bound everywhere it is shown ("≥ $41.2 M, 96
items without a price"), as power's `complete` flag.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rackdesigner.cost.assumptions import HOURS_PER_YEAR, Assumptions
from rackdesigner.cost.capex import Capex, category_of, price_design
from rackdesigner.cost.pricebook import PriceBook
from rackdesigner.model import Layout
from rackdesigner.model.cooling import CoolingReport, cooling_report
from rackdesigner.vocabulary.wording import counted

SCHEMA = "rackdesigner.cost/1"


def format_money(value: float, symbol: str = "$", *, bound: bool = False) -> str:
    """"$41.2 M", "$515,000", "$1.35 B"; with `bound`, "≥ " in front."""
    sign = "−" if value < 0 else ""
    v = abs(value)
    if v >= 1e6:
        scaled, unit = (v / 1e9, "B") if v >= 1e9 else (v / 1e6, "M")
        digits = 0 if scaled >= 100 else 1 if scaled >= 10 else 2
        text = f"{scaled:,.{digits}f} {unit}"
    elif v >= 100:
        text = f"{v:,.0f}"
    else:
        text = f"{v:,.2f}"
    return f"{'≥ ' if bound else ''}{sign}{symbol}{text}"


def headline(total: float, unpriced_items: int, symbol: str = "$",
             derived_share: float = 0.0) -> str:
    """"$41.2 M", "$41.2 M, 9 % of it derived", or "≥ $41.2 M, 96 items without a price"."""
    derived = (f", {100 * derived_share:.0f} % of it derived" if derived_share >= 0.005
               else ", under 1 % of it derived" if derived_share > 0 else "")
    if not unpriced_items:
        return format_money(total, symbol) + derived
    return (f"{format_money(total, symbol, bound=True)}{derived}, "
            f"{counted(unpriced_items, 'item')} without a price")


@dataclass(frozen=True)
class Training:
    """What a training job costs on the design."""

    model: str
    gpus: int
    tokens: float
    tokens_per_s: float | None
    step_time_s: float | None
    facility_w: float
    fits: bool
    messages: tuple[str, ...] = ()

    def days(self) -> float | None:
        return self.tokens / self.tokens_per_s / 86400 if self.tokens_per_s else None


@dataclass(frozen=True)
class CostReport:
    design: str
    gpus: int
    book: PriceBook
    assumptions: Assumptions
    capex: Capex
    it_w: float  # IT draw on the energy basis (typical or max), W
    it_max_w: float
    power_complete: bool
    cooling: CoolingReport
    training: Training | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    facility: Any = None  # cost.facility.Facility, or None when the book prices no building
    gpu_models: tuple[tuple[str, int], ...] = ()  # (GPU catalog id, count), for renting

    # ---- figures ---------------------------------------------------------------------------
    @property
    def complete(self) -> bool:
        return self.capex.complete

    @property
    def energy_kwh_per_year(self) -> float:
        a = self.assumptions
        pue = a.pue if a.pue is not None else 1.0  # (a report's PUE is always set)
        return self.it_w / 1000 * a.utilisation * pue * HOURS_PER_YEAR

    @property
    def energy_per_year(self) -> float:
        return self.energy_kwh_per_year * self.assumptions.kwh_price

    @property
    def support_per_year(self) -> float:
        s = self.book.support_percent_per_year
        return self.capex.hardware * s.value / 100.0 if s is not None else 0.0

    @property
    def opex_per_year(self) -> float:
        return self.energy_per_year + self.support_per_year

    @property
    def capital_charge(self) -> float:
        """What the TCO carries for the capex: the capex itself, or with a cost of capital the
        annuity that repays it over the years (`cost.facility.annuity_factor`)."""
        from rackdesigner.cost.facility import annuity_factor

        a = self.assumptions
        return self.capex.total * a.years * annuity_factor(a.capital_rate, a.years)

    @property
    def facility_charge(self) -> float:
        f = self.facility
        return f.charged(self.assumptions.years, self.assumptions.capital_rate) if f else 0.0

    @property
    def tco(self) -> float:
        return (self.capital_charge + self.facility_charge
                + self.assumptions.years * self.opex_per_year)

    @property
    def derived_capex(self) -> float:
        """The part of the capex priced from `derived` figures (spares follow their share)."""
        cap = self.capex
        hw = sum(line.total for line in cap.lines
                 if line.priced and line.basis == "derived" and line.section not in
                 ("installation", "spares"))
        return hw * (1.0 + cap.spares / cap.hardware) if cap.hardware else 0.0

    @property
    def derived_share(self) -> float:
        return self.derived_capex / self.capex.total if self.capex.total else 0.0

    @property
    def usd_per_gpu_hour(self) -> float | None:
        hours = self.gpus * self.assumptions.years * HOURS_PER_YEAR
        return self.tco / hours if hours else None

    def headline(self) -> str:
        return headline(self.capex.total, self.capex.unpriced_items, self.book.symbol,
                        self.derived_share)

    def cost_to_train(self) -> float | None:
        t = self.training
        days = t.days() if t is not None else None
        if t is None or days is None or self.usd_per_gpu_hour is None:
            return None
        return self.usd_per_gpu_hour * t.gpus * days * 24

    def tokens_per_usd(self) -> float | None:
        t = self.training
        if t is None or not t.tokens_per_s or not self.usd_per_gpu_hour:
            return None
        return t.tokens_per_s * 3600 / (t.gpus * self.usd_per_gpu_hour)

    def energy_per_token_j(self) -> float | None:
        t = self.training
        if t is None or not t.tokens_per_s:
            return None
        return t.facility_w / t.tokens_per_s

    def breakdown(self) -> list[dict[str, Any]]:
        total = self.capex.total or 1.0
        items = sorted(self.capex.by_kind().items(), key=lambda kv: (-kv[1], kv[0]))
        return [{"kind": kind, "category": category_of(kind), "capex": round(value, 2),
                 "share": round(value / total, 4)} for kind, value in items]

    # ---- output ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        b = self.book
        cap = self.capex
        total = cap.total or 1.0
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "design": self.design,
            "gpus": self.gpus,
            "currency": b.currency,
            "prices": {"name": b.name, "currency": b.currency, "date": b.date,
                       "origin": b.origin, "example": b.example,
                       "warnings": list(b.warnings)},
            "assumptions": self.assumptions.to_dict(),
            "headline": self.headline(),
            "capex": round(cap.total, 2),
            "capex_hardware": round(cap.hardware, 2),
            "installation": round(cap.installation, 2),
            "spares": round(cap.spares, 2),
            "energy_kwh_per_year": round(self.energy_kwh_per_year, 1),
            "energy_per_year": round(self.energy_per_year, 2),
            "support_per_year": round(self.support_per_year, 2),
            "opex_per_year": round(self.opex_per_year, 2),
            "tco": round(self.tco, 2),
            "usd_per_gpu_hour": _r(self.usd_per_gpu_hour, 4),
            "complete": self.complete,
            "unpriced_items": cap.unpriced_items,
            "derived_capex": round(self.derived_capex, 2),
            "derived_share": round(self.derived_share, 4),
            "capital_charge": round(self.capital_charge, 2),
            "facility": (self.facility.to_dict(self.assumptions.years,
                                               self.assumptions.capital_rate)
                         if self.facility is not None else None),
            "rent_vs_buy": rent_json(self),
            "breakdown": self.breakdown(),
            "by_category": {k: {"capex": round(v, 2), "share": round(v / total, 4)}
                            for k, v in cap.by_category().items()},
            "network_with_system_nics": {
                "capex": round(cap.network_with_system_nics(), 2),
                "share": round(cap.network_with_system_nics() / total, 4),
                "system_nics": round(cap.system_nics, 2),
                "method": "the network category plus the NICs and DPUs inside systems at the "
                          "book's price of each card bought alone (moved from compute)"},
            "by_group": [{"group": g, "name": cap.group_names.get(g, g),
                          "capex": round(v, 2), "share": round(v / total, 4)}
                         for g, v in sorted(cap.by_group.items(), key=lambda kv: -kv[1])],
            "unpriced": [line.to_dict() for line in cap.unpriced],
            "lines": [line.to_dict() for line in cap.lines],
            "power": {"it_w": round(self.it_w, 1), "it_max_w": round(self.it_max_w, 1),
                      "complete": self.power_complete},
            "cooling": self.cooling.to_dict(),
            "notes": list(self.notes),
        }
        if self.training is not None:
            t = self.training
            out["job"] = {"model": t.model, "gpus": t.gpus, "tokens": t.tokens,
                          "fits": t.fits, "tokens_per_s": _r(t.tokens_per_s, 1),
                          "step_time_s": _r(t.step_time_s, 4),
                          "facility_w": round(t.facility_w, 1), "messages": list(t.messages)}
            out["time_to_train_days"] = _r(t.days(), 3)
            out["cost_to_train"] = _r(self.cost_to_train(), 2)
            out["tokens_per_usd"] = _r(self.tokens_per_usd(), 2)
            out["energy_per_token_j"] = _r(self.energy_per_token_j(), 4)
        return out


def _r(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def design_power(layout: Layout, pue: float):
    """The design's power report (simulation/power.py, the figures `simulate` prints), built
    from the design's specs alone (no topology needed)."""
    from rackdesigner.simulation.power import design_specs, power_of

    return power_of(layout, design_specs(layout), None, pue)


def design_cost(layout: Layout, book: PriceBook, assumptions: Assumptions | None = None, *,
                job: Any = None, tokens: float | None = None, label: str = "") -> CostReport:
    """The `CostReport` of `layout` priced from `book` (module docstring). `job` is a
    `workload.jobfile.JobSpec`; `tokens` (or the job file's own) the tokens to train."""
    import dataclasses

    from rackdesigner.cost.facility import facility_cost
    from rackdesigner.model.pue import design_pue

    a = assumptions or Assumptions()
    capex = price_design(layout, book)
    cooling = cooling_report(layout)
    if a.pue is None:
        pue, why = design_pue(layout, cooling)
        a = dataclasses.replace(a, pue=round(pue, 4), pue_note=why)
    elif not a.pue_note:
        a = dataclasses.replace(a, pue_note="set by the user (it wins over the cooling mix)")
    assert a.pue is not None
    power = design_power(layout, a.pue)
    it = power.total_typical_w if a.power_basis == "typical" else power.total_max_w
    from rackdesigner.vocabulary import traits_of

    cdus = sum(line.total for line in capex.lines if traits_of(line.kind).cools)
    facility = facility_cost(book, a.facility, cooling.liquid_w, cooling.air_w,
                             power.total_max_w, cdus)
    notes = []
    if not power.complete:
        notes.append(f"energy is a lower bound: power {power.headline}")
    if book.example:
        notes.append("prices from the bundled EXAMPLE book: public press, analyst and retail "
                     "figures, not quotes; price with a book of your own")
    training = None
    if job is not None:
        training = _training(layout, job, tokens, a)
    return CostReport(label or layout.meta.name or (layout.source_path or "design"),
                      power.gpus, book, a, capex, it, power.total_max_w, power.complete,
                      cooling, training, tuple(notes), facility, gpu_models(layout))


def gpu_models(layout: Layout) -> tuple[tuple[str, int], ...]:
    """(GPU catalog id, count) of a design: the devices whose kind computes (its traits)."""
    from collections import Counter

    index = layout.index()
    counts: Counter[str] = Counter()
    for d in layout.devices():
        spec = index.spec(d.id)
        if spec is not None and spec.traits.computes:
            counts[d.model] += 1
    return tuple(sorted(counts.items()))


def rent_json(report: CostReport) -> dict[str, Any] | None:
    from rackdesigner.cost.rentbuy import rent_vs_buy

    r = rent_vs_buy(report)
    return r.to_dict() if r is not None else None


def _training(layout: Layout, job: Any, tokens: float | None, a: Assumptions) -> Training:
    from rackdesigner.workload.jobsearch import estimate_spec

    tokens = tokens or job.tokens
    if not tokens:
        raise ValueError("a training job needs the tokens to train (e.g. 15T); this one "
                         "gives none")
    est = estimate_spec(layout, job, tokens, a.pue)  # (a.pue: the effective PUE)
    return Training(est.model.id, est.gpus, float(tokens), est.tokens_per_s, est.step_time_s,
                    est.power_w[1], est.fits, est.messages)


__all__ = ["SCHEMA", "CostReport", "Training", "design_cost", "design_power",
           "format_money", "headline"]
