"""The price book: what each catalog item costs, with a source and date per price.

A price book is a small YAML file (`docs/cost.md` has the format)::

    schema_version: 1
    name: Our 2025 quote
    currency: USD
    date: 2025-03-01
    sources:
      q1: {title: Vendor quote 2025-114, url: ""}
    prices:
      dgx-b200: {price: 515410, source: q1, date: 2025-02-10, basis: quote}
      fiber-mm-ndr: {per_m: 2.5, fixed: 40, source: q1, date: 2025-02-10, basis: quote}
      dac-ndr:
        by_length: [{up_to_m: 1, price: 110}, {up_to_m: 3, price: 150}]
        source: q1
        date: 2025-02-10
        basis: quote
    installation_per_rack: {price: 6000, source: q1, date: 2025-02-10, basis: quote}
    support_percent_per_year: {value: 12, source: q1, date: 2025-02-10, basis: quote}
    spares_percent: {value: 3, source: q1, date: 2025-02-10, basis: quote}

Reading follows the layout file's input discipline: a regular file of at most `MAX_BYTES`,
safe YAML (no anchors or aliases, bounded nesting), finite numbers, and every problem raised
as a `PriceBookError` that names the file, the line and what was expected. A price may not be
negative or non-numeric, a currency must be a known ISO 4217 code and every price is in the
book's one currency (RackDesigner never converts). An id that is not in the catalog is a
*warning* (`PriceBook.warnings`): a book kept for several catalogs is still usable.

The values a book holds are `price_values.py`; this module reads a book file into them. Every
name is still imported from here.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import math
import re
from collections.abc import Callable, Iterable
from typing import Any

import yaml

from rackdesigner.cost.price_values import (
    SYMBOLS,
    Percent,
    Price,
    PriceBook,
    PriceBookError,
    PriceSource,
)
from rackdesigner.yamlnodes import NodeReader, node_kind

SCHEMA_VERSION = 1
MAX_BYTES = 2 * 1024 * 1024  # thousands of prices fit in a few hundred KiB
#: What a price rests on. `derived` is a figure worked out from other public figures and must say
#: how (`method`); `quote` and `estimate` are kept for books written before `derived` existed.
BASES = ("list", "quote", "retail", "press", "analyst", "derived", "estimate")
#: ISO 4217 codes a book may use (the common ones; an unknown code is refused, since a typo
#: such as "USB" would otherwise pass as a currency of its own).
CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CNY", "CHF", "CAD", "AUD", "NZD", "INR", "KRW",
              "SGD", "HKD", "TWD", "SEK", "NOK", "DKK", "PLN", "CZK", "ILS", "AED", "SAR",
              "BRL", "MXN", "ZAR")
TOP_KEYS = ("schema_version", "name", "currency", "date", "note", "sources", "prices",
            "installation_per_rack", "support_percent_per_year", "spares_percent", "cloud",
            "facility")
PRICE_KEYS = ("price", "per_m", "fixed", "by_length", "source", "date", "basis", "currency",
              "note", "method")
PERCENT_KEYS = ("value", "source", "date", "basis", "note")
SOURCE_KEYS = ("title", "url", "note", "date")
#: The largest amount a book may state (a price, a price per metre, a length bucket): a model
#: assumption, far above any item of a cluster in any currency (a GB200 NVL72 rack, about
#: $3M, is 4.5e8 JPY or 4.8e10 IDR), so that sums and products of a design's prices stay finite
#: (a price of 1e308 printed `$inf` and made `cost --json` write `Infinity`).
MAX_AMOUNT = 1e12
_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


def _on_calendar(text: str) -> bool:
    """`2025-02-30` or `2025-13` match the pattern but name no day or month."""
    parts = [int(p) for p in text.split("-")]
    try:
        _dt.date(parts[0], parts[1] if len(parts) > 1 else 1, parts[2] if len(parts) > 2 else 1)
    except ValueError:
        return False
    return True


# ---- reading -------------------------------------------------------------------------------
def parse_price_book(text: str, label: str = "<prices>", *,
                     known: Callable[[str], bool] | None = None,
                     suggest: Iterable[str] = (), line_offset: int = 0,
                     inside: str | None = None,
                     gpus: Iterable[str] | None = None) -> PriceBook:
    """Check and build a price book from YAML `text` (`label` names it in messages).

    `known(id)` says whether an id is in the catalog (an unknown one is warned about, with a
    suggestion from `suggest`); `line_offset` is added to line numbers (a book embedded in a
    layout file is parsed from the lines it starts at, `inside` naming the key that holds it).
    """
    from rackdesigner.inputs import InputError, compose_yaml

    try:  # aliases, tags, duplicate keys, deep nesting, runaway sizes (rackdesigner/yamlfile.py)
        node = compose_yaml(text, label)
    except InputError as exc:
        at = f":{exc.line + line_offset}" if exc.line is not None else ""
        raise PriceBookError(f"{label}{at}: {exc.message} (expected a YAML price book)"
                             ) from None
    reader = _Reader(label, known, tuple(suggest), line_offset,
                     tuple(gpus) if gpus is not None else None)
    if inside is not None and node is not None:
        node = reader.mapping(node, "layout", None)[inside][1]
    return reader.book(node)


class _Reader(NodeReader):
    def __init__(self, label: str, known: Callable[[str], bool] | None,
                 suggest: tuple[str, ...], offset: int,
                 gpus: tuple[str, ...] | None = None) -> None:
        super().__init__(label, PriceBookError, offset)
        self.gpus = gpus  # GPU catalog ids a cloud price may name (None: not checked)
        self.known = known
        self.suggest = suggest
        self.warnings: list[str] = []
        self.currency = ""

    def scalar(self, node: yaml.Node, what: str) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, f"{what}: expected a single value, got {node_kind(node)}")
        from rackdesigner.inputs import scalar_value

        try:
            return scalar_value(node)
        except ValueError:  # 2025-02-30: a timestamp that is no calendar day
            raise self.fail(node, f"{what}: {node.value!r} is not a date on the calendar "
                            "(expected a date such as 2025-03-01 or 2025-03)") from None

    def text(self, node: yaml.Node, what: str) -> str:
        value = self.scalar(node, what)
        if not isinstance(value, str):
            raise self.fail(node, f"{what}: expected text, got {value!r}")
        return value

    def number(self, node: yaml.Node, what: str, *, high: float | None = None) -> float:
        value = self.scalar(node, what)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(node, f"{what}: expected a number, got {value!r}")
        value = float(value)
        if not math.isfinite(value):
            raise self.fail(node, f"{what}: expected a finite number, got {node.value}")
        if value < 0:
            raise self.fail(node, f"{what}: must not be negative, got {value:g}")
        high = MAX_AMOUNT if high is None else high
        if value > high:
            raise self.fail(node, f"{what}: must be at most {high:g}, got {value:g}")
        return value

    def date(self, node: yaml.Node, what: str) -> str:
        value = self.scalar(node, what)
        if isinstance(value, _dt.date):
            return value.isoformat()[:10]
        if isinstance(value, int) and not isinstance(value, bool) and 1900 < value < 3000:
            return str(value)
        if isinstance(value, str) and _DATE.match(value.strip()) and _on_calendar(value.strip()):
            return value.strip()
        raise self.fail(node, f"{what}: expected a date such as 2025-03-01 or 2025-03, "
                        f"got {value!r}")

    # ---- the document ------------------------------------------------------------------
    def book(self, node: yaml.Node | None) -> PriceBook:
        if node is None:
            raise self.fail(None, "the price book is empty (expected schema_version: 1, "
                            "currency, date, prices)")
        top = self.mapping(node, "price book", TOP_KEYS)
        for required in ("schema_version", "currency", "date", "prices"):
            if required not in top:
                raise self.fail(node, f"missing {required!r} (a price book has "
                                "schema_version, currency, date and prices)")
        _key, value = top["schema_version"]
        version = self.scalar(value, "schema_version")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise self.fail(value, f"schema_version must be a whole number >= 1, got "
                            f"{version!r}")
        if version > SCHEMA_VERSION:
            raise self.fail(value, f"this price book uses schema_version {version}, written "
                            f"for a newer RackDesigner (this one reads {SCHEMA_VERSION})")
        self.currency = self._currency(top["currency"][1], "currency")
        date = self.date(top["date"][1], "date")
        name = self.text(top["name"][1], "name") if "name" in top else ""
        note = self.text(top["note"][1], "note") if "note" in top else ""
        sources = self._sources(top["sources"][1]) if "sources" in top else {}
        refs: list[tuple[yaml.Node, str, str]] = []
        prices: dict[str, Price] = {}
        for item, (k, v) in self.mapping(top["prices"][1], "prices", None).items():
            prices[item] = self._price(item, v, f"prices.{item}", refs)
            if self.known is not None and not self.known(item):
                close = difflib.get_close_matches(item, self.suggest, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                self.warnings.append(f"{self.label}:{self.line(k)}: prices.{item}: no catalog "
                                     f"model {item!r}{hint}; its price is not used")
        install = None
        if "installation_per_rack" in top:
            install = self._price("installation_per_rack", top["installation_per_rack"][1],
                                  "installation_per_rack", refs, unit_only=True)
        support = self._percent(top, "support_percent_per_year", refs)
        spares = self._percent(top, "spares_percent", refs)
        from rackdesigner.cost.bookparts import read_cloud, read_facility

        cloud = read_cloud(self, top["cloud"][1], refs) if "cloud" in top else {}
        facility = read_facility(self, top["facility"][1], refs) if "facility" in top else None
        for at, what, ref in refs:
            if ref not in sources:
                close = difflib.get_close_matches(ref, list(sources), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise self.fail(at, f"{what}: source {ref!r} is not defined under "
                                f"'sources'{hint}")
        return PriceBook(name, self.currency, date, prices, sources, install, support, spares,
                         note, warnings=tuple(self.warnings), cloud=cloud, facility=facility)

    def _currency(self, node: yaml.Node, what: str) -> str:
        value = self.scalar(node, what)
        if not isinstance(value, str) or value.upper() not in CURRENCIES:
            raise self.fail(node, f"{what}: unknown currency {value!r}; expected an ISO 4217 "
                            f"code such as {', '.join(CURRENCIES[:6])}")
        return value.upper()

    def _sources(self, node: yaml.Node) -> dict[str, PriceSource]:
        out = {}
        for key, (_, v) in self.mapping(node, "sources", None).items():
            entry = self.mapping(v, f"sources.{key}", SOURCE_KEYS)
            if "title" not in entry:
                raise self.fail(v, f"sources.{key}: missing 'title' (what the document is)")
            fields = {k: (self.date(n, f"sources.{key}.{k}") if k == "date"
                          else self.text(n, f"sources.{key}.{k}"))
                      for k, (_, n) in entry.items()}
            out[key] = PriceSource(key, **fields)
        return out

    def _provenance(self, entry: dict, what: str, node: yaml.Node,
                    refs: list) -> dict[str, str]:
        for required in ("source", "date"):
            if required not in entry:
                raise self.fail(node, f"{what}: missing {required!r} (every price says where "
                                "it comes from and when)")
        out = {"source": self.text(entry["source"][1], f"{what}.source"),
               "date": self.date(entry["date"][1], f"{what}.date"), "basis": "", "note": ""}
        refs.append((entry["source"][1], what, out["source"]))
        if "basis" in entry:
            basis = self.scalar(entry["basis"][1], f"{what}.basis")
            if basis not in BASES:
                raise self.fail(entry["basis"][1], f"{what}.basis: expected one of "
                                f"{', '.join(BASES)}, got {basis!r}")
            out["basis"] = basis
        out["method"] = ""
        if "method" in entry:
            out["method"] = self.text(entry["method"][1], f"{what}.method")
        if out["basis"] == "derived" and not out["method"].strip():
            raise self.fail(node, f"{what}: a derived price must say how it was derived: add "
                            "'method' (e.g. per port from a sibling model's public price)")
        if "note" in entry:
            out["note"] = self.text(entry["note"][1], f"{what}.note")
        if "currency" in entry:
            currency = self._currency(entry["currency"][1], f"{what}.currency")
            if currency != self.currency:
                raise self.fail(entry["currency"][1], f"{what}: priced in {currency} but the "
                                f"book is in {self.currency}; RackDesigner does not convert "
                                f"currencies: give every price in {self.currency}")
        return out

    def _price(self, item: str, node: yaml.Node, what: str, refs: list, *,
               unit_only: bool = False) -> Price:
        entry = self.mapping(node, what, PRICE_KEYS)
        forms = [k for k in ("price", "per_m", "by_length") if k in entry]
        if len(forms) != 1 or (unit_only and forms != ["price"]):
            expected = "'price'" if unit_only else "one of 'price', 'per_m' or 'by_length'"
            got = f" (it has {', '.join(forms)})" if forms else ""
            raise self.fail(node, f"{what}: expected {expected}{got}")
        if "fixed" in entry and "per_m" not in entry:
            raise self.fail(entry["fixed"][0], f"{what}: 'fixed' goes with 'per_m' only")
        meta = self._provenance(entry, what, node, refs)
        line = self.line(node)
        unit, per_m, fixed = None, None, 0.0
        buckets: tuple[tuple[float, float], ...] = ()
        if "price" in entry:
            unit = self.number(entry["price"][1], f"{what}.price")
        elif "per_m" in entry:
            per_m = self.number(entry["per_m"][1], f"{what}.per_m")
            if "fixed" in entry:
                fixed = self.number(entry["fixed"][1], f"{what}.fixed")
        else:
            buckets = self._buckets(entry["by_length"][1], f"{what}.by_length")
        return Price(item, unit, per_m, fixed, buckets, meta["source"], meta["date"],
                     meta["basis"], meta["note"], line, meta.get("method", ""))

    def _buckets(self, node: yaml.Node, what: str) -> tuple[tuple[float, float], ...]:
        if not isinstance(node, yaml.SequenceNode) or not node.value:
            raise self.fail(node, f"{what}: expected a list of {{up_to_m: M, price: P}}")
        out: list[tuple[float, float]] = []
        for n, item in enumerate(node.value):
            entry = self.mapping(item, f"{what}[{n}]", ("up_to_m", "price"))
            if set(entry) != {"up_to_m", "price"}:
                raise self.fail(item, f"{what}[{n}]: expected up_to_m and price")
            up_to = self.number(entry["up_to_m"][1], f"{what}[{n}].up_to_m")
            if up_to <= 0 or (out and up_to <= out[-1][0]):
                raise self.fail(entry["up_to_m"][1], f"{what}[{n}].up_to_m: lengths must be "
                                "positive and increasing")
            out.append((up_to, self.number(entry["price"][1], f"{what}[{n}].price")))
        return tuple(out)

    def _percent(self, top: dict, key: str, refs: list) -> Percent | None:
        if key not in top:
            return None
        node = top[key][1]
        entry = self.mapping(node, key, PERCENT_KEYS)
        if "value" not in entry:
            raise self.fail(node, f"{key}: missing 'value' (a percentage, e.g. 12)")
        value = self.number(entry["value"][1], f"{key}.value", high=100.0)
        meta = self._provenance(entry, key, node, refs)
        return Percent(value, meta["source"], meta["date"], meta["basis"], meta["note"])


__all__ = [
    "BASES",
    "CURRENCIES",
    "MAX_BYTES",
    "SYMBOLS",
    "Percent",
    "Price",
    "PriceBook",
    "PriceBookError",
    "PriceSource",
    "parse_price_book",
]
