"""Designs side by side: one row per figure, one column per design, the winner of each row
marked (`rackdesigner compare`, File ▸ Compare With…).

Rows: GPUs, largest NVLink domain, all_reduce and all_to_all busbw at a size, bisection, maximum
IT power, heat to liquid and to air, capex, TCO, $ per GPU-hour, interruptions per day, the GPUs
one GPU fault stops and the ETTR, the facility rows (racks, the share of the floor's positions
and of the site's power and cooling, capex per GPU, design-rule problems:
`cost/compare_facility.py`), with a training job tokens/s, days and dollars to train,
tokens per dollar and days and dollars to train with the work failures lose, and with a serving
job tokens/s per GPU at its target, $ per million tokens and tokens/s per MW. Each figure comes
from the same engines as `simulate`, `cost`, `estimate`, `reliability` and `serve`.

A row's winner is the best value in its direction (`better`: "high" or "low"; rows that
describe a design rather than rank it — GPUs, NVLink domain, heat — have none; values within
0.5 % of the best tie, and a tie has no winner; so does a best value that lies inside another
design's range, the spread published runs of its figure's class show, `simulation/ranges.py`).
A winning figure that leaves parts without a price out (a lower-bound cost, or tokens per
dollar from one) wins only "maybe" (`Row.certain` false); designs priced in different
currencies get no money winner.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rackdesigner.cost.compare_figures import (  # re-exported: moved out, issue 34
    DesignFigures,
    GiB,
    effective_cost_to_train,
    figures,
    training_reliability,
)
from rackdesigner.cost.report import format_money
from rackdesigner.simulation.ranges import FigureRange, range_tie
from rackdesigner.vocabulary.wording import counted

SCHEMA = "rackdesigner.compare/1"
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
    #: per design, the range its figure's class shows on published runs (ranges.py; None:
    #: none); empty when the row's figures carry no range
    ranges: tuple[FigureRange | None, ...] = ()

    @property
    def best(self) -> int | None:
        """The best value in the row's direction, ignoring ranges (None: a 0.5 % tie)."""
        present = [(v, i) for i, v in enumerate(self.values) if v is not None]
        if self.better is None or len(present) < 2:
            return None
        best = (max if self.better == "high" else min)(present)[0]
        tied = [i for v, i in present if abs(v - best) <= TIE * max(1e-12, abs(best))]
        return tied[0] if len(tied) == 1 else None

    @property
    def range_tie(self) -> bool:
        """True when the best value lies inside another design's range: published clusters
        of that class spread over the difference, so the row has no winner."""
        best = self.best
        return best is not None and bool(self.ranges) and range_tie(self.values, self.ranges,
                                                                     best)

    @property
    def winner(self) -> int | None:
        return None if self.range_tie else self.best

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
    sensitivity: dict[str, Any] | None = None  # does the $/GPU-hour winner hold at ±20 %?

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA, "designs": list(self.designs), "currency": self.currency,
            "size_bytes": self.size,
            "rows": [{"key": r.key, "label": r.label, "unit": r.unit, "better": r.better,
                      "values": [None if v is None else round(v, 4) for v in r.values],
                      "lower_bound": list(r.bounds), "winner": r.winner,
                      "winner_certain": r.certain if r.winner is not None else None,
                      **_ranges_json(r)}
                     for r in self.rows],
            "notes": list(self.notes),
            "sensitivity": self.sensitivity,
        }

    def cell(self, row: Row, index: int) -> str:
        value = row.values[index]
        if value is None:
            return "—"
        bound = row.bounds[index]
        if row.money:
            text = format_money(value, self.symbol, bound=bound)
        elif row.unit == "ratio":
            text = f"{value:.3g}"
        elif row.unit in ("", "GPUs"):
            text = f"{value:,.0f}"
        elif abs(value) >= 100:
            text = f"{value:,.0f} {row.unit}"
        else:
            text = f"{value:,.3g} {row.unit}"
        return text

    def format_table(self) -> str:
        from rackdesigner.io.sanitize import shown

        header = ["", *(shown(d) for d in self.designs)]  # a file stem is one line
        body = []
        for row in self.rows:
            cells = [row.label]
            for i in range(len(self.designs)):
                mark = ""
                if row.winner == i:
                    mark = " ✓" if row.certain else " ?"
                elif row.range_tie and row.best == i:
                    mark = " ≈"
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
        if any(row.range_tie for row in self.rows):
            out.write("≈ best, but inside another design's range (the spread published "
                      "clusters of its class show): a tie\n")
        for note in self.notes:
            out.write(f"Note: {shown(note)}\n")
        return out.getvalue()

    def to_csv(self) -> str:
        """Design labels (file stems) are user text: every cell through the one sanitiser."""
        from rackdesigner.io.sanitize import csv_text

        # the JSON's `lower_bound` and `winner_certain`: a design's figure that leaves parts
        # without a price is a lower bound ("yes"), and a winner on such figures is uncertain
        rows: list[list] = [["metric", "unit", "better", *self.designs, "winner",
                             "winner_certain", *(f"{d} lower_bound" for d in self.designs)]]
        for row in self.rows:
            winner = "" if row.winner is None else self.designs[row.winner]
            certain = "" if row.winner is None else ("yes" if row.certain else "no")
            rows.append([row.key, self.currency if row.money else row.unit,
                         row.better or "", *["" if v is None else round(v, 4)
                                             for v in row.values], winner, certain,
                         *("yes" if bound else "no" for bound in row.bounds)])
        return csv_text(rows)


def compare(designs: Sequence[DesignFigures], size: int = GiB) -> Comparison:
    """The comparison table of already computed designs."""
    costs = [d.cost for d in designs]
    currencies = {c.book.currency for c in costs}
    currency = costs[0].book.currency if len(currencies) == 1 else "mixed"
    symbol = costs[0].book.symbol if len(currencies) == 1 else ""
    size_label = _size(size)

    def row(key: str, label: str, unit: str, better: str | None,
            value: Callable[[DesignFigures], float | None], *, money: bool = False,
            bound: Callable[[DesignFigures], bool] = lambda d: False,
            spread: Callable[[DesignFigures], FigureRange | None] | None = None) -> Row:
        if money and len(currencies) > 1:
            better = None
        return Row(key, label, unit, better, tuple(value(d) for d in designs),
                   tuple(bound(d) for d in designs), money,
                   tuple(spread(d) for d in designs) if spread is not None else ())

    def lower(d: DesignFigures) -> bool:
        return not d.cost.complete

    rows = [
        row("gpus", "GPUs", "GPUs", None, lambda d: d.gpus),
        row("nvlink_domain", "largest NVLink domain", "GPUs", None, lambda d: d.nvlink_domain),
        row("all_reduce_busbw_GBps", f"all_reduce busbw at {size_label}", "GB/s", "high",
            lambda d: d.busbw, spread=lambda d: d.busbw_range),
        row("all_to_all_busbw_GBps", f"all_to_all busbw at {size_label}", "GB/s", "high",
            lambda d: d.all_to_all, spread=lambda d: d.all_to_all_range),
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
        row("pue", "PUE", "ratio", None, lambda d: d.cost.assumptions.pue),
        row("facility", f"facility ({costs[0].assumptions.years:g} years)", "", None,
            lambda d: d.cost.facility_charge if d.cost.facility is not None else None,
            money=True),
        row("rent_equivalent", "rent equivalent per GPU-hour", "", None,
            lambda d: _rent(d, "cloud_usd_per_gpu_hour"), money=True),
        row("rent_breakeven_months", "owning breaks even after", "months", "low",
            lambda d: _rent(d, "breakeven_months"), bound=lower),
        row("interruptions_per_day", "interruptions per day", "/day", "low",
            lambda d: _rel(d, "interruptions_per_day")),
        row("gpu_fault_blast_gpus", "GPUs one GPU fault stops", "GPUs", None,
            lambda d: _gpu_blast(d)),
        row("ettr_percent", "ETTR (checkpoints and restarts)", "%", "high",
            lambda d: None if d.reliability is None else d.reliability.ettr * 100),
        row("goodput_percent", "time that trains (ETTR x GPUs at hand)", "%", "high",
            lambda d: None if d.reliability is None else d.reliability.goodput * 100),
    ]
    from rackdesigner.cost.compare_facility import facility_rows

    rows += facility_rows(designs, row, lower)
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
    if any(d.serving is not None for d in designs):
        rows += _serving_rows(designs, row, lower)
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
    shown = costs[0].assumptions
    if not all(c.assumptions.pue_note.startswith("set by the user") for c in costs):
        shown = dataclasses.replace(shown, pue=None)  # each design's own, from its cooling
    notes.append("assumptions: " + shown.describe(symbol or "$"))
    from rackdesigner.cost.sensitivity import winner_changes

    robust = winner_changes(costs) if len(currencies) == 1 else None
    if robust is not None and robust["base_winner"] is not None:
        name = designs[robust["base_winner"]].label
        if robust["robust"]:
            notes.append(f"sensitivity: {name} stays the cheapest per GPU-hour with GPU price, "
                         "network price, $/kWh, PUE, utilisation and years each ±20 %")
        else:
            flips = ", ".join(f"{c['label']} x{c['scale']:g} ({designs[c['winner']].label})"
                              for c in robust["changes"] if c["winner"] is not None)
            notes.append(f"sensitivity: the cheapest per GPU-hour ({name}) changes with "
                         f"{flips}")
        token = robust.get("per_token")
        if token is not None and token["base_winner"] is not None:
            name = designs[token["base_winner"]].label
            notes.append(f"sensitivity: {name} trains the most tokens per "
                         f"{symbol.strip() or 'unit'} "
                         + ("at every ±20 % end" if token["robust"] else
                            "but not at " + ", ".join(f"{c['label']} x{c['scale']:g}"
                                                      for c in token["changes"])))
    return Comparison(tuple(d.label for d in designs), tuple(rows), currency, symbol, size,
                      tuple(notes), robust)


def _rent(d: DesignFigures, key: str) -> float | None:
    """A figure of renting the same GPUs (the price book's `cloud:`), or None."""
    from rackdesigner.cost.rentbuy import rent_vs_buy

    r = rent_vs_buy(d.cost)
    return getattr(r, key) if r is not None else None


def _ranges_json(row: Row) -> dict[str, Any]:
    """A row's ranges in the JSON form ranges.py gives every figure: per design
    {"range": [lo, hi], "class": name} (or null), and whether the best is a range tie."""
    if not row.ranges:
        return {}
    return {"ranges": [r.to_dict() if r is not None else None for r in row.ranges],
            "range_tie": row.range_tie}


def _serving_rows(designs: Sequence[DesignFigures], row: Callable[..., Row],
                  lower: Callable[[DesignFigures], bool]) -> list[Row]:
    """Tokens/s per GPU at the serving job's target (or at max load without one), $ per
    million tokens and tokens/s per MW there."""
    targeted = any(d.serving is not None and d.serving.at is not None for d in designs)
    where = "at target" if targeted else "at max load"

    def basis(d: DesignFigures) -> Any:
        return None if d.serving is None else d.serving.basis

    return [
        row("serve_tokens_per_s_per_gpu", f"serving tokens/s per GPU {where}", "tokens/s",
            "high", lambda d: None if basis(d) is None else basis(d).output_per_gpu),
        row("serve_usd_per_million_tokens", "per million output tokens", "", "low",
            lambda d: None if d.serving is None else d.serving.usd_per_million_tokens,
            money=True, bound=lower),
        row("serve_tokens_per_s_per_mw", "serving tokens/s per MW", "tokens/s", "high",
            lambda d: None if d.serving is None else d.serving.tokens_per_s_per_mw),
    ]


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
    from rackdesigner.vocabulary import traits_of

    lines = d.cost.capex.lines
    if what == "switches":
        return sum(line.count for line in lines if line.section == "item"
                   and traits_of(line.kind).fabric_switch)
    return sum(line.count for line in lines if line.section == what)


def _size(size: int) -> str:
    from rackdesigner.units import size_label

    return size_label(size, " ")


__all__ = ["SCHEMA", "Comparison", "DesignFigures", "Row", "compare",
           "effective_cost_to_train", "figures", "training_reliability"]
