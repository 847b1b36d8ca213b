"""Cost columns of sweep results (`cost:` in a spec; always on, with the book in effect).

`cost: {prices: BOOK.yaml, years: 5, kwh_price: 0.0806, pue: 1.3, utilisation: 0.8,
power_basis: typical}` — every key optional. The book's *text* travels in the `SweepSpec`, so
workers on other machines price with the same book; without `prices` each worker finds the
book as `rackdesigner cost` does (environment, data folder, else the bundled example book).
`check_cost` refuses a bad block at spec-load time (a bad book with its own located message);
`cost_columns` gives one point's figures (`COST_COLUMNS`, plus `tokens_per_usd` with a
workload: tokens per second per GPU x 3,600 / $ per GPU-hour).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

COST_COLUMNS = ("capex", "capex_complete", "unpriced_items", "tco", "usd_per_gpu_hour",
                "pue", "facility", "rent_usd_per_gpu_hour", "breakeven_months")
JOB_COST_COLUMNS = ("tokens_per_usd",)
KEYS = ("prices", "years", "kwh_price", "pue", "utilisation", "power_basis", "facility",
        "capital_rate")
_BOOKS: dict[str, Any] = {}  # parsed books per worker process, by text digest


def check_cost(value: Any, folder: Path) -> tuple[str | None, tuple, str | None, str]:
    """(problem, assumptions, book text, book label) of a spec's `cost:` value."""
    from rackdesigner.cost import Assumptions, PriceBookError, read_price_book

    if not isinstance(value, dict):
        return ("'cost' must be a mapping such as {prices: BOOK.yaml, years: 5}", (), None, "")
    for key in value:
        if key not in KEYS:
            return (f"'cost' has no option '{key}' (it takes: {', '.join(KEYS)})", (), None, "")
    options = {k: v for k, v in value.items() if k != "prices"}
    try:
        Assumptions(**options)
    except (TypeError, ValueError) as exc:
        return f"'cost': {exc}", (), None, ""
    text, label = None, ""
    if "prices" in value:
        prices = value["prices"]
        if not isinstance(prices, str) or not prices:
            return f"'cost' option 'prices' must be a price book file, got {prices!r}", (), \
                None, ""
        path = Path(prices) if Path(prices).is_absolute() else folder / prices
        try:
            read_price_book(path)
            text, label = path.read_text(encoding="utf-8"), str(path)
        except PriceBookError as exc:
            return f"'cost' price book: {exc}", (), None, ""
    return None, tuple(sorted(options.items())), text, label


def cost_columns(layout: Any, spec: Any, estimate: dict[str, Any] | None) -> dict[str, Any]:
    from rackdesigner.cost import Assumptions, design_cost, find_price_book, parse_price_book

    if spec.prices_text is not None:
        key = hashlib.sha256(spec.prices_text.encode("utf-8")).hexdigest()
        book = _BOOKS.get(key)
        if book is None:
            book = _BOOKS[key] = parse_price_book(spec.prices_text, spec.prices_label)
    else:
        book = find_price_book(layout)
    report = design_cost(layout, book, Assumptions(**dict(spec.cost)))
    per = report.usd_per_gpu_hour
    out: dict[str, Any] = {
        "capex": round(report.capex.total, 2), "capex_complete": report.complete,
        "unpriced_items": report.capex.unpriced_items, "tco": round(report.tco, 2),
        "usd_per_gpu_hour": None if per is None else round(per, 4),
        "pue": report.assumptions.pue,
        "facility": round(report.facility_charge, 2) if report.facility is not None else None}
    from rackdesigner.cost.rentbuy import rent_vs_buy

    rent = rent_vs_buy(report)
    out["rent_usd_per_gpu_hour"] = (round(rent.cloud_usd_per_gpu_hour, 4) if rent is not None
                                    else None)
    out["breakeven_months"] = (round(rent.breakeven_months, 1) if rent is not None
                               and rent.breakeven_months is not None else None)
    if estimate is not None:
        tps = estimate.get("tokens_per_s_per_gpu")
        out["tokens_per_usd"] = round(tps * 3600 / per, 2) if tps and per else None
    return out


__all__ = ["COST_COLUMNS", "JOB_COST_COLUMNS", "check_cost", "cost_columns"]
