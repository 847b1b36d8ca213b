"""Designs side by side: one row per figure, one column per design, the winner of each row
marked (`rackdesigner compare`, File ▸ Compare With…).

Rows: GPUs, largest NVLink domain, all_reduce and all_to_all busbw at a size, bisection, maximum
IT power, heat to liquid and to air, capex, TCO, $ per GPU-hour, interruptions per day, the GPUs
one GPU fault stops and the ETTR, and with a training job tokens/s, days and dollars to train,
tokens per dollar and days and dollars to train with the work failures lose. Each figure comes
from the same engines as `simulate`, `cost`, `estimate` and `reliability`.

A row's winner is the best value in its direction (`better`: "high" or "low"; rows that
describe a design rather than rank it — GPUs, NVLink domain, heat — have none; values within
0.5 % of the best tie, and a tie has no winner). A winning figure that leaves parts without a
price out (a lower-bound cost, or tokens per dollar from one) wins only "maybe"
(`Row.certain` false); designs priced in different currencies get no money winner.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rackdesigner.cost.assumptions import Assumptions
from rackdesigner.cost.pricebook import PriceBook
from rackdesigner.cost.report import CostReport, design_cost, format_money
from rackdesigner.model import Layout
from rackdesigner.vocabulary.wording import counted

SCHEMA = "rackdesigner.compare/1"
GiB = 1 << 30
#: Values within this share of the best are a tie: no winner for a difference the model cannot
#: stand behind (the figures' own precision is coarser than 0.5 %).
TIE = 0.005


@dataclass(frozen=True)
class Row:
    key: str
    label: str
    unit: str  # "GB/s", "kW", "$"…, "" for counts
    better: str | None  # "high", "low" or None
    values: tuple[float | None, ...]
    bounds: tuple[bool, ...]  # value is not exact: it leaves parts without a price out
    money: bool = False

    @property
    def winner(self) -> int | None:
        present = [(v, i) for i, v in enumerate(self.values) if v is not None]
        if self.better is None or len(present) < 2:
            return None
        best = (max if self.better == "high" else min)(present)[0]
        tied = [i for v, i in present if abs(v - best) <= TIE * max(1e-12, abs(best))]
        return tied[0] if len(tied) == 1 else None

    @property
    def certain(self) -> bool:
        """False when the winner's own figure is not exact (a cost that leaves parts unpriced,
        or a figure derived from one): it may not win once everything is priced."""
        w = self.winner
        return w is not None and not self.bounds[w]


@dataclass(frozen=True)
class Comparison:
    designs: tuple[str, ...]
    rows: tuple[Row, ...]
    currency: str
    symbol: str
    size: int
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA, "designs": list(self.designs), "currency": self.currency,
            "size_bytes": self.size,
            "rows": [{"key": r.key, "label": r.label, "unit": r.unit, "better": r.better,
                      "values": [None if v is None else round(v, 4) for v in r.values],
                      "lower_bound": list(r.bounds), "winner": r.winner,
                      "winner_certain": r.certain if r.winner is not None else None}
                     for r in self.rows],
            "notes": list(self.notes),
        }

    def cell(self, row: Row, index: int) -> str:
        value = row.values[index]
        if value is None:
            return "—"
        bound = row.bounds[index]
        if row.money:
            text = format_money(value, self.symbol, bound=bound)
        elif row.unit in ("", "GPUs"):
            text = f"{value:,.0f}"
        elif abs(value) >= 100:
            text = f"{value:,.0f} {row.unit}"
        else:
            text = f"{value:,.3g} {row.unit}"
        return text

    def format_table(self) -> str:
        header = ["", *self.designs]
        body = []
        for row in self.rows:
            cells = [row.label]
            for i in range(len(self.designs)):
                mark = ""
                if row.winner == i:
                    mark = " ✓" if row.certain else " ?"
                cells.append(self.cell(row, i) + mark)
            body.append(cells)
        widths = [max(len(r[c]) for r in [header, *body]) for c in range(len(header))]
        out = io.StringIO()
        for r in [header, *body]:
            out.write("  ".join(c.ljust(w) if k == 0 else c.rjust(w)
                                for k, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
                      + "\n")
        out.write("\n✓ best of the row (ties within 0.5 % have none); ? best so far, but the "
                  "figure leaves parts without a price out\n")
        for note in self.notes:
            out.write(f"Note: {note}\n")
        return out.getvalue()

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["metric", "unit", "better", *self.designs, "winner"])
        for row in self.rows:
            winner = "" if row.winner is None else self.designs[row.winner]
            writer.writerow([row.key, self.currency if row.money else row.unit,
                             row.better or "", *["" if v is None else round(v, 4)
                                                 for v in row.values], winner])
        return out.getvalue()


@dataclass(frozen=True)
class DesignFigures:
    """What one design contributes to a comparison."""

    label: str
    cost: CostReport
    gpus: int
    nvlink_domain: int
    busbw: float | None
    all_to_all: float | None
    bisection: float | None
    reliability: Any = None  # reliability.Assessment: interruptions, ETTR, effective days

    def effective_cost_to_train(self) -> float | None:
        return effective_cost_to_train(self.cost, self.reliability)


def figures(label: str, layout: Layout, book: PriceBook, assumptions: Assumptions, *,
            job: Any = None, tokens: float | None = None, size: int = GiB,
            failures: Any = None) -> DesignFigures:
    """Simulate, cost and assess the reliability of one design (its comparison column);
    `failures` is the failure library (default: the bundled one)."""
    from rackdesigner.simulation import simulate

    result = simulate(layout, pue=assumptions.pue, loads_for=None)

    def busbw(name: str) -> float | None:
        if not result.scope.collectives_available:
            return None
        point = result.point_at(name, size)  # the one "busbw at size S" rule
        return point.busbw_GBps if point is not None else None

    cost = design_cost(layout, book, assumptions, job=job, tokens=tokens, label=label)
    return DesignFigures(label, cost, result.scope.gpus, result.scope.largest_nvlink_domain,
                         busbw("all_reduce"), busbw("all_to_all"),
                         result.bandwidth.bisection_GBps,
                         training_reliability(layout, cost, failures))


def effective_cost_to_train(cost: CostReport, reliability: Any) -> float | None:
    """Cost to train with the work failures lose: $/GPU-hour x the job's GPUs x the
    effective hours (`reliability.Assessment.effective_days`)."""
    days = reliability.effective_days() if reliability is not None else None
    t, rate = cost.training, cost.usd_per_gpu_hour
    if t is None or days is None or rate is None or not math.isfinite(days):
        return None
    return rate * t.gpus * days * 24


def training_reliability(layout: Layout, cost: CostReport, failures: Any = None) -> Any:
    """The design's reliability assessment (`reliability.assess`), for the cost's training
    job when it has one; `failures` is the failure library (default: the bundled one)."""
    from rackdesigner.reliability import Job, assess, load_library
    from rackdesigner.workload.models import resolve_model

    t = cost.training
    job = None
    if t is not None:
        job = Job(t.gpus, t.tokens_per_s, float(resolve_model(t.model).params), t.tokens,
                  t.model)
    return assess(layout, failures if failures is not None else load_library(), job=job)


def compare(designs: Sequence[DesignFigures], size: int = GiB) -> Comparison:
    """The comparison table of already computed designs."""
    costs = [d.cost for d in designs]
    currencies = {c.book.currency for c in costs}
    currency = costs[0].book.currency if len(currencies) == 1 else "mixed"
    symbol = costs[0].book.symbol if len(currencies) == 1 else ""
    size_label = _size(size)

    def row(key: str, label: str, unit: str, better: str | None,
            value: Callable[[DesignFigures], float | None], *, money: bool = False,
            bound: Callable[[DesignFigures], bool] = lambda d: False) -> Row:
        if money and len(currencies) > 1:
            better = None
        return Row(key, label, unit, better, tuple(value(d) for d in designs),
                   tuple(bound(d) for d in designs), money)

    def lower(d: DesignFigures) -> bool:
        return not d.cost.complete

    rows = [
        row("gpus", "GPUs", "GPUs", None, lambda d: d.gpus),
        row("nvlink_domain", "largest NVLink domain", "GPUs", None, lambda d: d.nvlink_domain),
        row("all_reduce_busbw_GBps", f"all_reduce busbw at {size_label}", "GB/s", "high",
            lambda d: d.busbw),
        row("all_to_all_busbw_GBps", f"all_to_all busbw at {size_label}", "GB/s", "high",
            lambda d: d.all_to_all),
        row("bisection_GBps", "bisection", "GB/s", "high", lambda d: d.bisection),
        row("switches", "switches", "", None, lambda d: _count(d, "switches")),
        row("cables", "cables", "", None, lambda d: _count(d, "cable")),
        row("transceivers", "transceivers", "", None, lambda d: _count(d, "transceiver")),
        row("power_max_kw", "IT power (max)", "kW", "low", lambda d: d.cost.it_max_w / 1000),
        row("liquid_kw", "heat to liquid", "kW", None, lambda d: d.cost.cooling.liquid_w / 1000),
        row("air_kw", "heat to air", "kW", None, lambda d: d.cost.cooling.air_w / 1000),
        row("capex", "capex", "", "low", lambda d: d.cost.capex.total, money=True, bound=lower),
        row("tco", f"TCO ({costs[0].assumptions.years:g} years)", "", "low",
            lambda d: d.cost.tco, money=True, bound=lower),
        row("usd_per_gpu_hour", "per GPU-hour", "", "low", lambda d: d.cost.usd_per_gpu_hour,
            money=True, bound=lower),
        row("interruptions_per_day", "interruptions per day", "/day", "low",
            lambda d: _rel(d, "interruptions_per_day")),
        row("gpu_fault_blast_gpus", "GPUs one GPU fault stops", "GPUs", None,
            lambda d: _gpu_blast(d)),
        row("ettr_percent", "ETTR (checkpoints and restarts)", "%", "high",
            lambda d: None if d.reliability is None else d.reliability.ettr * 100),
        row("goodput_percent", "time that trains (ETTR x GPUs at hand)", "%", "high",
            lambda d: None if d.reliability is None else d.reliability.goodput * 100),
    ]
    if any(c.training is not None for c in costs):
        rows += [
            row("tokens_per_s", "tokens/s", "tokens/s", "high",
                lambda d: d.cost.training.tokens_per_s if d.cost.training else None),
            row("time_to_train_days", "days to train", "days", "low",
                lambda d: d.cost.training.days() if d.cost.training else None),
            row("cost_to_train", "cost to train", "", "low", lambda d: d.cost.cost_to_train(),
                money=True, bound=lower),
            row("tokens_per_usd", f"tokens per {symbol.strip() or 'unit'}", "tokens", "high",
                lambda d: d.cost.tokens_per_usd(), bound=lower),
            row("effective_days_to_train", "days to train with failures", "days", "low",
                lambda d: d.reliability.effective_days() if d.reliability is not None
                and d.cost.training is not None else None),
            row("effective_cost_to_train", "cost to train with failures", "", "low",
                lambda d: d.effective_cost_to_train(), money=True, bound=lower),
        ]
    notes = []
    for d in designs:
        if not d.cost.complete:
            notes.append(f"{d.label}: costs are lower bounds, "
                         f"{counted(d.cost.capex.unpriced_items, 'item')} without a price")
        t = d.cost.training
        if t is not None and t.tokens_per_s is None:
            notes.append(f"{d.label}: the job has no step time ("
                         f"{'; '.join(t.messages) or 'it does not fit'})")
    if len(currencies) > 1:
        notes.append(f"the designs are priced in different currencies ({', '.join(currencies)})"
                     ": no money row has a winner")
    origins = {d.reliability.library for d in designs if d.reliability is not None}
    if origins:
        notes.append("reliability: rates from " + " | ".join(sorted(origins)) + "; the "
                     "optimum checkpoint interval; a spare at hand for every fault unless the "
                     "job leaves GPUs free (docs/reliability.md)")
    books = {c.book.describe() for c in costs}
    notes.append("prices: " + " | ".join(sorted(books)))
    notes.append("assumptions: " + costs[0].assumptions.describe(symbol or "$"))
    return Comparison(tuple(d.label for d in designs), tuple(rows), currency, symbol, size,
                      tuple(notes))


def _rel(d: DesignFigures, name: str) -> float | None:
    return getattr(d.reliability, name) if d.reliability is not None else None


def _gpu_blast(d: DesignFigures) -> float | None:
    """The GPUs one GPU fault stops: its node on 8-GPU systems, the NVLink domain on
    rack-scale ones."""
    if d.reliability is None:
        return None
    return max((c.blast_max for c in d.reliability.causes if c.per == "gpu"), default=0)


def _count(d: DesignFigures, what: str) -> int:
    """Items bought of a BOM section ("cable", "transceiver") or of the fabric switches."""
    from rackdesigner.vocabulary import kinds_with_role

    lines = d.cost.capex.lines
    if what == "switches":
        kinds = set(kinds_with_role("switch"))
        return sum(line.count for line in lines if line.section == "item" and line.kind in kinds)
    return sum(line.count for line in lines if line.section == what)


def _size(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


__all__ = ["SCHEMA", "Comparison", "DesignFigures", "Row", "compare",
           "effective_cost_to_train", "figures", "training_reliability"]
