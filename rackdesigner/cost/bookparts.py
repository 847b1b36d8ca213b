"""The price book's `cloud:` and `facility:` sections (read by `pricebook._Reader`).

    cloud:                        # renting the same GPUs: per GPU-hour, by GPU catalog id
      h100-sxm5: {price: 3.49, source: lambda, date: 2024-01-29, basis: list}
    facility:
      basis: build                # how a design's building is counted by default:
                                  # build (capex per MW of IT) or colocation (per kW-month)
      build_air: {price: 11000000, source: ..., date: ..., basis: analyst}   # per MW of IT
      build_liquid: {price: 11935000, source: ..., basis: derived, method: ...}
      colocation: {price: 217.3, source: ..., date: ..., basis: analyst}     # per kW-month

A cloud price for an id that is not a GPU of the catalog is an error (a renting comparison
against the wrong SKU would be silently meaningless), unlike an unknown id under `prices`,
which is only warned about.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

import yaml

from rackdesigner.cost.pricebook import Price

FACILITY_BASES = ("build", "colocation")
FACILITY_KEYS = ("basis", "build_air", "build_liquid", "colocation", "note")


@dataclass(frozen=True)
class FacilityPrices:
    """What the building costs: to build per MW of IT (air- or liquid-cooled), or to rent per
    kW-month; `basis` says which a report uses unless the user chooses."""

    basis: str
    build_air: Price | None = None
    build_liquid: Price | None = None
    colocation: Price | None = None
    note: str = ""


def read_cloud(reader: Any, node: yaml.Node, refs: list) -> dict[str, Price]:
    out: dict[str, Price] = {}
    for sku, (key, value) in reader.mapping(node, "cloud", None).items():
        if reader.gpus is not None and sku not in reader.gpus:
            close = difflib.get_close_matches(sku, reader.gpus, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise reader.fail(key, f"cloud.{sku}: {sku!r} is not a GPU of the catalog{hint}; "
                              "a cloud price is per GPU-hour of one GPU model (known: "
                              f"{', '.join(sorted(reader.gpus))})")
        out[sku] = reader._price(sku, value, f"cloud.{sku}", refs, unit_only=True)
    return out


def read_facility(reader: Any, node: yaml.Node, refs: list) -> FacilityPrices:
    entry = reader.mapping(node, "facility", FACILITY_KEYS)
    if "basis" not in entry:
        raise reader.fail(node, "facility: missing 'basis' (build or colocation)")
    basis = reader.scalar(entry["basis"][1], "facility.basis")
    if basis not in FACILITY_BASES:
        raise reader.fail(entry["basis"][1], f"facility.basis: expected build or colocation, "
                          f"got {basis!r}")
    prices = {k: reader._price(k, entry[k][1], f"facility.{k}", refs, unit_only=True)
              for k in ("build_air", "build_liquid", "colocation") if k in entry}
    if basis == "build" and "build_air" not in prices and "build_liquid" not in prices:
        raise reader.fail(node, "facility: basis build needs build_air or build_liquid "
                          "(capex per MW of IT)")
    if basis == "colocation" and "colocation" not in prices:
        raise reader.fail(node, "facility: basis colocation needs 'colocation' (per kW-month)")
    note = reader.text(entry["note"][1], "facility.note") if "note" in entry else ""
    return FacilityPrices(basis, prices.get("build_air"), prices.get("build_liquid"),
                          prices.get("colocation"), note)


__all__ = ["FACILITY_BASES", "FacilityPrices", "read_cloud", "read_facility"]
