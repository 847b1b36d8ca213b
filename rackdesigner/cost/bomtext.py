"""The bill of materials with its price columns (`rackdesigner bom`): each row's unit price and
the total of what is bought (count less the parts that come with a system), from the price
book in effect, and the headline total; rows without a price are left blank and counted."""

from __future__ import annotations

import io

from rackdesigner.bom import Bom, _length, _table
from rackdesigner.cost.capex import Capex, Line
from rackdesigner.cost.pricebook import PriceBook
from rackdesigner.cost.report import format_money, headline

PRICE_COLUMNS = ["unit_price", "total", "currency", "price_source", "price_date"]


def _lines(capex: Capex) -> dict[tuple, Line]:
    out: dict[tuple, Line] = {}
    for line in capex.lines:
        if line.section == "item":
            out[("item", line.model)] = line
        elif line.section == "cable":
            out[("cable", line.model, line.length_m)] = line
        elif line.section == "transceiver":
            out[("transceiver", line.model)] = line
    return out


def _money(value: float | None, symbol: str) -> str:
    return "" if value is None else format_money(value, symbol)


def format_priced_table(bom: Bom, capex: Capex, book: PriceBook) -> str:
    lines = _lines(capex)
    sym = book.symbol
    out = io.StringIO()
    rows: list[tuple[str, ...]] = [("MODEL", "KIND", "COUNT", "IN SYSTEMS", "UNIT PRICE",
                                    "TOTAL")]
    for i in bom.items:
        line = lines.get(("item", i.model))
        rows.append((i.model, i.kind, str(i.count), str(i.in_systems) if i.in_systems else "",
                     _money(line.unit if line else None, sym),
                     _money(line.total if line and line.priced else None, sym)))
    _table(out, rows)
    out.write("\n")
    rows = [("CABLE", "MEDIA", "LENGTH (m)", "COUNT", "UNIT PRICE", "TOTAL")]
    for c in bom.cables:
        line = lines.get(("cable", c.type, c.length_m))
        rows.append((c.type, c.media, _length(c.length_m), str(c.count),
                     _money(line.unit if line else None, sym),
                     _money(line.total if line and line.priced else None, sym)))
    _table(out, rows)
    out.write("\n")
    rows = [("TRANSCEIVER", "COUNT", "UNIT PRICE", "TOTAL")]
    for t in bom.transceivers:
        line = lines.get(("transceiver", t.model))
        rows.append((t.model, str(t.count), _money(line.unit if line else None, sym),
                     _money(line.total if line and line.priced else None, sym)))
    _table(out, rows)
    out.write(f"\nTotal {headline(capex.total, capex.unpriced_items, sym)}"
              f" (prices: {book.describe()})\n")
    return out.getvalue()


def format_priced_csv(bom: Bom, capex: Capex, book: PriceBook) -> str:
    from rackdesigner.io.sanitize import csv_text

    lines = _lines(capex)
    rows: list[list] = [["section", "model", "kind", "length_m", "count", "in_systems",
                         *PRICE_COLUMNS]]

    def price(line: Line | None) -> list:
        if line is None or not line.priced:
            return ["", "", book.currency, "", ""]
        return [round(line.unit or 0.0, 2), round(line.total, 2), book.currency, line.source,
                line.date]

    for i in bom.items:
        rows.append(["item", i.model, i.kind, "", i.count, i.in_systems,
                     *price(lines.get(("item", i.model)))])
    for c in bom.cables:
        rows.append(["cable", c.type, c.media, _length(c.length_m), c.count, "",
                     *price(lines.get(("cable", c.type, c.length_m)))])
    for t in bom.transceivers:
        rows.append(["transceiver", t.model, "transceiver", "", t.count, "",
                     *price(lines.get(("transceiver", t.model)))])
    return csv_text(rows)


def priced_json(bom: Bom, capex: Capex, book: PriceBook) -> dict:
    """`Bom.to_json()` plus a `prices` section (the rows' prices, totals and the book)."""
    data = bom.to_json()
    data["prices"] = {
        "book": {"name": book.name, "currency": book.currency, "date": book.date,
                 "origin": book.origin, "example": book.example},
        "capex": round(capex.total, 2), "complete": capex.complete,
        "unpriced_items": capex.unpriced_items,
        "headline": headline(capex.total, capex.unpriced_items, book.symbol),
        "lines": [line.to_dict() for line in capex.lines],
    }
    return data


__all__ = ["format_priced_csv", "format_priced_table", "priced_json"]
