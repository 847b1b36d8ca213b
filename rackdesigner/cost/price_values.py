"""The price book as values: a `Price` (per unit, per metre or per length bucket) with its
source, date and basis, a `Percent`, a `PriceSource`, the `PriceBook` that holds them, and the
error a book that cannot be used raises. `pricebook.py` reads a book file into them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥"}


class PriceBookError(ValueError):
    """A price book that cannot be used: `file:line: what was expected`."""


@dataclass(frozen=True, slots=True)
class PriceSource:
    key: str
    title: str
    url: str = ""
    note: str = ""
    date: str = ""


@dataclass(frozen=True, slots=True)
class Price:
    """The price of one catalog item: per unit, or (cables) per metre or per length bucket."""

    item: str
    unit: float | None = None
    per_m: float | None = None
    fixed: float = 0.0  # with per_m: the part of a cable's price that does not grow with length
    buckets: tuple[tuple[float, float], ...] = ()  # (up to metres, price), ascending
    source: str = ""
    date: str = ""
    basis: str = ""
    note: str = ""
    line: int | None = None
    method: str = ""  # how a `derived` price was worked out

    @property
    def by_length(self) -> bool:
        return self.per_m is not None or bool(self.buckets)

    def for_length(self, length_m: float | None) -> float | None:
        """The price of one item of `length_m` metres; None when the length is needed and not
        known, or longer than the longest bucket."""
        if self.unit is not None:
            return self.unit
        if length_m is None:
            return None
        if self.per_m is not None:
            return self.fixed + self.per_m * length_m
        for up_to, price in self.buckets:
            if length_m <= up_to + 1e-9:
                return price
        return None

    def describe(self, symbol: str) -> str:
        if self.unit is not None:
            return f"{symbol}{self.unit:,.2f}"
        if self.per_m is not None:
            fixed = f"{symbol}{self.fixed:,.2f} + " if self.fixed else ""
            return f"{fixed}{symbol}{self.per_m:,.2f}/m"
        return ", ".join(f"≤{m:g} m {symbol}{p:,.2f}" for m, p in self.buckets)


@dataclass(frozen=True, slots=True)
class Percent:
    value: float
    source: str = ""
    date: str = ""
    basis: str = ""
    note: str = ""


@dataclass(frozen=True)
class PriceBook:
    name: str
    currency: str
    date: str
    prices: dict[str, Price]
    sources: dict[str, PriceSource] = field(default_factory=dict)
    installation_per_rack: Price | None = None
    support_percent_per_year: Percent | None = None
    spares_percent: Percent | None = None
    note: str = ""
    #: where it came from, for every output: "--prices FILE", "embedded in the design", ...
    origin: str = ""
    path: str = ""
    warnings: tuple[str, ...] = ()
    #: True for the bundled example book (public figures, not quotes): outputs label it
    example: bool = False
    #: renting instead: per GPU-hour by GPU catalog id (`cloud:`)
    cloud: dict[str, Price] = field(default_factory=dict)
    #: the building: `facility.FacilityPrices` (None: the book prices no facility)
    facility: Any = None

    @property
    def symbol(self) -> str:
        return SYMBOLS.get(self.currency, self.currency + " ")

    def price(self, item: str) -> Price | None:
        return self.prices.get(item)

    def describe(self) -> str:
        """One line for reports: which book, from where, in what currency and of what date."""
        kind = " — an example, not quotes" if self.example else ""
        where = f", {self.origin}" if self.origin else ""
        return f"{self.name or 'price book'}{kind}, {self.currency}, {self.date}{where}"
