"""Which assumption decides it: $/GPU-hour with each of six inputs moved by ±20 %.

The factors: the GPU (compute) price, the network price (every line of the `network` money
category: switches, NICs bought on their own, optics, cables), the price per kWh, the PUE, the
utilisation and the years. Each is moved down and up by `SPREAD` with the others held, and
$/GPU-hour recomputed from the same report (`CostReport` formulas, nothing re-derived): the
rows, sorted by their swing, are a tornado chart. PUE stays at least 1 and utilisation at most
1, so those rows can be lopsided.

`winner_changes` asks the same of a comparison: for every factor and end, which design has the
lowest $/GPU-hour, and whether that is ever not the base winner.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rackdesigner.cost.capex import Capex, category_of

SPREAD = 0.2
FACTORS = (("gpu_price", "GPU / system price"), ("network_price", "network price"),
           ("kwh_price", "price per kWh"), ("pue", "PUE"), ("utilisation", "utilisation"),
           ("years", "years"))


@dataclass(frozen=True)
class SensitivityRow:
    factor: str
    label: str
    low: float | None  # $/GPU-hour with the factor at -SPREAD
    high: float | None  # ... at +SPREAD

    @property
    def swing(self) -> float:
        if self.low is None or self.high is None:
            return 0.0
        return abs(self.high - self.low)

    def to_dict(self) -> dict[str, Any]:
        return {"factor": self.factor, "label": self.label,
                "low": _r(self.low), "high": _r(self.high), "swing": _r(self.swing)}


@dataclass(frozen=True)
class Sensitivity:
    base: float | None
    spread: float
    rows: tuple[SensitivityRow, ...]  # largest swing first

    def to_dict(self) -> dict[str, Any]:
        return {"usd_per_gpu_hour": _r(self.base), "spread": self.spread,
                "rows": [r.to_dict() for r in self.rows]}

    def format(self, symbol: str = "$") -> str:
        lines = [f"Sensitivity of $/GPU-hour (base {symbol}{self.base or 0:,.3f}) to "
                 f"±{100 * self.spread:.0f} % of each input, largest swing first"]
        for r in self.rows:
            lines.append(f"  {r.label:<20} {symbol}{r.low or 0:,.3f} .. {symbol}"
                         f"{r.high or 0:,.3f}  (swing {symbol}{r.swing:,.3f})")
        return "\n".join(lines) + "\n"


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def scaled_capex(capex: Capex, category: str, factor: float) -> Capex:
    """`capex` with every priced line of money `category` at `factor` times its price (spares
    follow the hardware they are a share of)."""
    lines = tuple(dataclasses.replace(line, unit=(line.unit or 0.0) * factor)
                  if line.priced and line.section not in ("installation", "spares")
                  and category_of(line.kind) == category else line for line in capex.lines)
    hardware = sum(line.total for line in lines if line.section not in ("installation",
                                                                         "spares"))
    spares = capex.spares * hardware / capex.hardware if capex.hardware else 0.0
    return dataclasses.replace(capex, lines=lines, hardware=hardware, spares=spares)


def varied(report: Any, factor: str, scale: float) -> Any:
    """`report` with one input at `scale` times its value."""
    a = report.assumptions
    if factor == "gpu_price":
        return dataclasses.replace(report, capex=scaled_capex(report.capex, "compute", scale))
    if factor == "network_price":
        return dataclasses.replace(report, capex=scaled_capex(report.capex, "network", scale))
    if factor == "kwh_price":
        return dataclasses.replace(report, assumptions=dataclasses.replace(
            a, kwh_price=a.kwh_price * scale))
    if factor == "pue":
        return dataclasses.replace(report, assumptions=dataclasses.replace(
            a, pue=max(1.0, (a.pue or 1.0) * scale)))
    if factor == "utilisation":
        return dataclasses.replace(report, assumptions=dataclasses.replace(
            a, utilisation=min(1.0, a.utilisation * scale)))
    if factor == "years":
        return dataclasses.replace(report, assumptions=dataclasses.replace(
            a, years=a.years * scale))
    raise ValueError(f"unknown factor {factor!r}")


def sensitivity(report: Any, spread: float = SPREAD) -> Sensitivity:
    rows = [SensitivityRow(key, label,
                           varied(report, key, 1.0 - spread).usd_per_gpu_hour,
                           varied(report, key, 1.0 + spread).usd_per_gpu_hour)
            for key, label in FACTORS]
    rows.sort(key=lambda r: -r.swing)
    return Sensitivity(report.usd_per_gpu_hour, spread, tuple(rows))


def winner_changes(reports: Sequence[Any], spread: float = SPREAD) -> dict[str, Any]:
    """Which design has the lowest $/GPU-hour at every factor's ends, and where that differs
    from the base winner; with a training job on every design, the same for tokens per
    dollar (`per_token`)."""
    out = _changes(reports, spread, lambda r: r.usd_per_gpu_hour, min)
    if all(r.training is not None for r in reports):
        out["per_token"] = _changes(reports, spread, lambda r: r.tokens_per_usd(), max)
    return out


def _changes(reports: Sequence[Any], spread: float, value: Any, best: Any) -> dict[str, Any]:
    def winner(rs: Sequence[Any]) -> int | None:
        values = [(value(r), i) for i, r in enumerate(rs) if value(r) is not None]
        if len(values) < 2:
            return None
        top = best(v for v, _ in values)
        return next(i for v, i in values if v == top)

    base = winner(reports)
    changes = []
    for key, label in FACTORS:
        for scale in (1.0 - spread, 1.0 + spread):
            w = winner([varied(r, key, scale) for r in reports])
            if w != base:
                changes.append({"factor": key, "label": label, "scale": round(scale, 3),
                                "winner": w})
    return {"spread": spread, "base_winner": base, "changes": changes,
            "robust": not changes}


__all__ = ["FACTORS", "SPREAD", "Sensitivity", "SensitivityRow", "scaled_capex",
           "sensitivity", "varied", "winner_changes"]
