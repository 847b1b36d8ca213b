"""The building a design stands in: PUE from its cooling mix, and what the facility costs.

**PUE by cooling.** Unless the user sets one, a design's PUE follows how its heat leaves
(`model.site.pue_for_cooling`, where the formula and its sources are stated; the site check
reads the same function, so facility power is one figure in both).

PSU efficiency curves are not modelled: the power model's draws are wall-plug figures.

**Facility cost.** Either *build* — capex per MW of IT (the design's maximum IT draw, as the
rack power budget plans) by cooling type, blended by the same liquid share f — or *colocation*
— a rent per kW of IT per month. Both prices come from the price book (`facility:`), which
also says which one a report uses unless the user chooses (`--facility`). A building outlives
the IT in it: a report charges `FACILITY_LIFE_YEARS` worth of it (15 years, a **model
assumption**, a common depreciation life for data-centre shells and plant) — years/15 of the
build capex without a cost of capital, the annuity over 15 years with one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rackdesigner.cost.pricebook import Price, PriceBook

# one PUE for the site check and the bill (model/site.py)
from rackdesigner.model.site import (
    PUE_AIR,
    PUE_LIQUID,
    PUE_SOURCE,
    liquid_share,
    pue_for_cooling,
)

FACILITY_LIFE_YEARS = 15.0


def cooling_kind(share: float) -> str:
    """"air", "liquid" or "hybrid" (some of each) for a liquid share of the heat."""
    if share <= 0.0:
        return "air"
    if share >= 1.0:
        return "liquid"
    return "hybrid"


def annuity_factor(rate: float | None, years: float) -> float:
    """The share of an amount paid back each year over `years` at `rate` (1/years at 0)."""
    if not rate:
        return 1.0 / years
    return rate / (1.0 - (1.0 + rate) ** -years)


@dataclass(frozen=True)
class Facility:
    """The facility cost of one design."""

    basis: str  # "build" or "colocation"
    cooling: str  # "air", "liquid" or "hybrid"
    liquid_share: float
    it_kw: float  # maximum IT draw the building is sized for
    usd_per_mw_it: float | None = None  # build
    usd_per_kw_month: float | None = None  # colocation
    capex: float = 0.0  # build: the whole building's cost
    per_year: float = 0.0  # colocation: rent per year
    source: str = ""
    price_basis: str = ""  # the price's basis (analyst, derived, ...)
    method: str = ""
    #: build: what the building's liquid premium gave up for the CDUs priced in the bill
    cdus_deducted: float = 0.0

    def charged(self, years: float, rate: float | None) -> float:
        """What the TCO over `years` carries: the rent, or the years' share of the building."""
        if self.basis == "colocation":
            return self.per_year * years
        return self.capex * years * annuity_factor(rate, FACILITY_LIFE_YEARS)

    @property
    def derived(self) -> bool:
        return self.price_basis == "derived"

    def describe(self, symbol: str = "$") -> str:
        from rackdesigner.cost.report import format_money

        if self.basis == "colocation":
            return (f"colocation {symbol}{self.usd_per_kw_month:,.2f}/kW-month x "
                    f"{self.it_kw:,.0f} kW = {format_money(self.per_year, symbol)}/year")
        less = (f" less the CDUs in the bill ({format_money(self.cdus_deducted, symbol)})"
                if self.cdus_deducted else "")
        return (f"build, {self.cooling}-cooled, {format_money(self.usd_per_mw_it or 0, symbol)}"
                f"/MW of IT x {self.it_kw / 1000:,.2f} MW{less} = "
                f"{format_money(self.capex, symbol)}"
                f" (charged over a {FACILITY_LIFE_YEARS:g}-year life)")

    def to_dict(self, years: float, rate: float | None) -> dict[str, Any]:
        out: dict[str, Any] = {"basis": self.basis, "cooling": self.cooling,
                               "liquid_share": round(self.liquid_share, 4),
                               "it_kw": round(self.it_kw, 1), "source": self.source,
                               "price_basis": self.price_basis,
                               "tco_share": round(self.charged(years, rate), 2)}
        if self.basis == "colocation":
            out.update(usd_per_kw_month=self.usd_per_kw_month, per_year=round(self.per_year, 2))
        else:
            out.update(usd_per_mw_it=round(self.usd_per_mw_it or 0.0, 2),
                       capex=round(self.capex, 2), life_years=FACILITY_LIFE_YEARS)
            if self.cdus_deducted:
                out["cdus_deducted"] = round(self.cdus_deducted, 2)
        if self.method:
            out["method"] = self.method
        return out


def facility_cost(book: PriceBook, choice: str | None, liquid_w: float, air_w: float,
                  it_max_w: float, cdu_capex: float = 0.0) -> Facility | None:
    """The facility of a design from `book` (None when the book prices none, or `choice` is
    "none"); `choice` None follows the book's `facility.basis`. `cdu_capex`: the CDUs the
    bill of materials prices; a built hall's liquid premium (the liquid-cooled figure above the
    air-cooled one, for the liquid share) pays for its CDUs too, so it is lowered by them, at
    most to nothing: each CDU is counted once."""
    prices = book.facility
    if prices is None or choice == "none":
        return None
    basis = choice or prices.basis
    f = liquid_share(liquid_w, air_w)
    kind = cooling_kind(f)
    kw = it_max_w / 1000.0
    if basis == "colocation":
        p = prices.colocation
        if p is None or p.unit is None:
            return None
        return Facility("colocation", kind, f, kw, usd_per_kw_month=p.unit,
                        per_year=p.unit * kw * 12, source=_src(book, p), price_basis=p.basis,
                        method=p.method)
    air, liquid = prices.build_air, prices.build_liquid
    air = air or liquid
    liquid = liquid or air
    if air is None or liquid is None or air.unit is None or liquid.unit is None:
        return None
    per_mw = (1.0 - f) * air.unit + f * liquid.unit
    used = [p for p, share in ((air, 1.0 - f), (liquid, f)) if share > 0] or [air]
    basis_of = "derived" if any(p.basis == "derived" for p in used) else used[0].basis
    method = "; ".join(p.method for p in used if p.method)
    if kind == "hybrid":
        method = (f"blend by the heat to liquid ({100 * f:.0f} %) of the air- and liquid-cooled "
                  f"figures" + (f"; {method}" if method else ""))
        basis_of = "derived"
    premium = max(0.0, f * (liquid.unit - air.unit) * kw / 1000.0)
    deducted = min(max(cdu_capex, 0.0), premium)
    if deducted:
        method = (f"the liquid premium less the CDUs priced in the bill "
                  f"({deducted:,.0f}, counted once)" + (f"; {method}" if method else ""))
    return Facility("build", kind, f, kw, usd_per_mw_it=per_mw,
                    capex=per_mw * kw / 1000.0 - deducted,
                    source="; ".join(dict.fromkeys(_src(book, p) for p in used)),
                    price_basis=basis_of, method=method, cdus_deducted=deducted)


def _src(book: PriceBook, price: Price) -> str:
    s = book.sources.get(price.source)
    return f"{s.title} ({s.url})" if s is not None and s.url else (s.title if s else price.source)


__all__ = ["FACILITY_LIFE_YEARS", "PUE_AIR", "PUE_LIQUID", "PUE_SOURCE", "Facility",
           "annuity_factor", "cooling_kind", "facility_cost", "liquid_share", "pue_for_cooling"]
