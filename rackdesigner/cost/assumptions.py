"""The running-cost assumptions: every one stated, settable, and either sourced or labelled.

`Assumptions` is what a cost report is computed with and what it prints back ("energy at
$0.0806/kWh, PUE 1.3, 80 % utilisation of typical draw, over 5 years"). The defaults:

- `kwh_price` 0.0806 per kWh: the average retail price of electricity to US *industrial*
  customers in 2023, 8.06 ¢/kWh (EIA, Electric Power Annual 2023 / Electric Power Monthly; the
  US total quoted via Statista's EIA series, marked (S)). Large data centres buy at industrial
  rather than commercial tariffs. It is in the book's currency as given: change it with
  `--kwh-price` for another site or currency.
- `pue`: by default (None) it follows the design's cooling mix (`cost.facility.pue_for_cooling`:
  liquid-cooled heat at a lower PUE than air-cooled, each figure sourced there); a number set
  by the user (`--pue`) wins. `pue_note` says which was used and why.
- `utilisation` 0.8 and `power_basis` "typical": a *model assumption*, labelled as such in
  every output: the design draws its typical power (catalog `typical_w`, else `max_w`) for
  80 % of the hours of a year and nothing the rest (`energy = draw × utilisation × PUE ×
  8,766 h × price`, the issue's formula; idle draw is not modelled).
- `years` 5: a *model assumption* (a common depreciation period for accelerated servers);
  set `--years`.
- Hours per year: 8,766 (365.25 days).
"""

from __future__ import annotations

from dataclasses import dataclass

HOURS_PER_YEAR = 8766.0
DEFAULT_KWH_PRICE = 0.0806
KWH_SOURCE = ("EIA Electric Power Annual 2023: average retail price to US industrial customers, "
              "8.06 ¢/kWh in 2023 (US total via Statista's EIA series, S); "
              "https://www.eia.gov/electricity/annual/")
DEFAULT_UTILISATION = 0.8
DEFAULT_YEARS = 5.0
BASES = ("typical", "max")


@dataclass(frozen=True, slots=True)
class Assumptions:
    years: float = DEFAULT_YEARS
    kwh_price: float = DEFAULT_KWH_PRICE
    pue: float | None = None  # None: from the design's cooling mix (cost.facility)
    utilisation: float = DEFAULT_UTILISATION
    power_basis: str = "typical"
    #: optional cost of capital, a yearly rate (0.08 = 8 %): capex is charged as the annuity
    #: that repays it over the years (None or 0: capex counted once, no interest)
    capital_rate: float | None = None
    #: facility: "build" or "colocation" (None: the price book's choice), "none" to leave out
    facility: str | None = None
    pue_note: str = ""  # which PUE was used and why (set by the report)

    def __post_init__(self) -> None:
        checks = [(self.years, 0.0, 50.0, "years"), (self.kwh_price, 0.0, 100.0, "kWh price"),
                  (self.utilisation, 0.0, 1.0, "utilisation")]
        if self.pue is not None:
            checks.append((self.pue, 1.0, 10.0, "PUE"))
        if self.capital_rate is not None:
            checks.append((self.capital_rate, 0.0, 1.0, "capital rate"))
        for value, low, high, name in checks:
            if not (isinstance(value, int | float) and low <= value <= high) or (
                    name == "years" and value <= 0):
                raise ValueError(f"{name} must be a number from {low:g} to {high:g}"
                                 f"{' (above 0)' if name == 'years' else ''}, got {value!r}")
        if self.power_basis not in BASES:
            raise ValueError(f"power basis must be typical or max, got {self.power_basis!r}")
        if self.facility not in (None, "build", "colocation", "none"):
            raise ValueError(f"facility must be build, colocation or none, got "
                             f"{self.facility!r}")

    def to_dict(self) -> dict:
        return {
            "years": self.years, "kwh_price": self.kwh_price,
            "kwh_price_source": KWH_SOURCE if self.kwh_price == DEFAULT_KWH_PRICE
            else "set by the user",
            "pue": self.pue, "pue_why": self.pue_note or ("set by the user"
                                                         if self.pue is not None else ""),
            "utilisation": self.utilisation, "power_basis": self.power_basis,
            "capital_rate": self.capital_rate, "facility": self.facility,
            "hours_per_year": HOURS_PER_YEAR,
            "model_assumptions": [
                f"energy = {self.power_basis} IT draw x utilisation x PUE x {HOURS_PER_YEAR:,.0f}"
                " h/year x kWh price (idle draw not modelled)",
                "utilisation and years are model assumptions unless set",
                "$/GPU-hour = TCO / (GPUs x years x hours per year): calendar hours, not "
                "utilised hours",
            ],
        }

    def describe(self, symbol: str = "$") -> str:
        pue = f"PUE {self.pue:.3g}" if self.pue is not None else "PUE from the cooling mix"
        rate = (f", capital at {100 * self.capital_rate:g} %/year" if self.capital_rate
                else "")
        return (f"{self.years:g} years, {symbol}{self.kwh_price:g}/kWh, {pue}, "
                f"{100 * self.utilisation:.0f} % utilisation of {self.power_basis} draw{rate}")


__all__ = ["BASES", "DEFAULT_KWH_PRICE", "DEFAULT_UTILISATION", "DEFAULT_YEARS",
           "HOURS_PER_YEAR", "KWH_SOURCE", "Assumptions"]
