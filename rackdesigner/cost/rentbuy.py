"""Renting the same GPUs instead of buying them.

The price book's `cloud:` section gives a price per GPU-hour by GPU catalog id, each with its
source and date. For a design whose GPUs all have one:

- **rental cost** = the design's GPUs x the same calendar hours the TCO covers (years x 8,766 h)
  x the cloud price: what renting the GPU-hours a $/GPU-hour figure is spread over would cost;
- **breakeven** = the months after which owning costs less than renting: the up-front money
  (capex, and the building's capex when the facility is built) over the monthly saving (the
  rent minus owning's running cost: energy, support and a colocation rent). None when renting
  costs less per month than running the owned design (owning never catches up).

A renter's bill also carries storage, egress and support that the owner pays elsewhere; the
cloud price is the GPU-hour alone, as published.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rackdesigner.cost.assumptions import HOURS_PER_YEAR


@dataclass(frozen=True)
class RentVsBuy:
    cloud_usd_per_gpu_hour: float  # the GPU-weighted cloud price
    source: str
    date: str
    basis: str
    gpus: int
    rent_total: float
    tco: float
    breakeven_months: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"cloud_usd_per_gpu_hour": round(self.cloud_usd_per_gpu_hour, 4),
                "source": self.source, "date": self.date, "basis": self.basis,
                "gpus": self.gpus, "rent_total": round(self.rent_total, 2),
                "breakeven_months": (None if self.breakeven_months is None
                                     else round(self.breakeven_months, 1))}


def rent_vs_buy(report: Any) -> RentVsBuy | None:
    """The rent-against-buy figures of a `CostReport` (None when a GPU model of the design has
    no cloud price in the book, or the design has no GPUs)."""
    book = report.book
    models = report.gpu_models
    if not models or not report.gpus:
        return None
    prices = [(book.cloud.get(model), n) for model, n in models]
    if any(p is None or p.unit is None for p, _ in prices):
        return None
    total_gpus = sum(n for _, n in prices)
    hourly = sum(p.unit * n for p, n in prices)  # type: ignore[union-attr]
    years = report.assumptions.years
    rent_total = hourly * years * HOURS_PER_YEAR
    month = HOURS_PER_YEAR / 12.0
    rent_month = hourly * month
    facility = report.facility
    upfront = report.capex.total + (facility.capex if facility is not None
                                    and facility.basis == "build" else 0.0)
    own_year = report.opex_per_year + (facility.per_year if facility is not None
                                       and facility.basis == "colocation" else 0.0)
    saving = rent_month - own_year / 12.0
    breakeven = upfront / saving if saving > 0 else None
    used = [p for p, _ in prices if p is not None]
    sources = "; ".join(dict.fromkeys(_source(book, p.source) for p in used))
    bases = {p.basis for p in used}
    return RentVsBuy(hourly / total_gpus, sources, max(p.date for p in used),
                     bases.pop() if len(bases) == 1 else "mixed", total_gpus, rent_total,
                     report.tco, breakeven)


def _source(book: Any, key: str) -> str:
    s = book.sources.get(key)
    return f"{s.title} ({s.url})" if s is not None and s.url else (s.title if s else key)


__all__ = ["RentVsBuy", "rent_vs_buy"]
