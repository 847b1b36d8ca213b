"""The design against its site (`Meta.site`, model.items.Site): facility power over the
utility feed, IT power, the liquid loop, air cooling, floor positions and each level of the
power hierarchy (feeds -> switchboards/busways -> floor PDUs -> racks).

**PUE by cooling.** Unless the site states one (`pue`), facility power is IT x a PUE that
follows how the design's heat leaves: `pue = 1 + (1 - f) x (PUE_AIR - 1) + f x (PUE_LIQUID -
1)`, f the share of the heat that goes to liquid (`model.cooling`). The two end points:

- `PUE_LIQUID` 1.15: direct liquid cooling keeps PUE at 1.1-1.2 even at AI rack densities
  (Uptime Institute, as summarised in its PUE explainer; midpoint taken);
- `PUE_AIR` 1.3: the simulation's stated default for an air-cooled hall, between the 1.1-1.2
  of hyperscale facilities and the 1.56-1.58 industry average Uptime Institute's 2023-2024
  surveys report (a **model assumption** inside that sourced range).

The cost model (`cost.facility`) reads the same function, so the site check and the bill
agree on facility power.

**Power hierarchy.** Every level carries the maximum IT draw of the racks below it (the rack
budget's planning figure); a feed carries that times the PUE (the cooling plant and losses
hang off the utility feed: a **model assumption**, stated in reports). A node's usable
capacity keeps its redundancy (`PowerNode.usable_kw`: N all units, N+1 all but one, 2N half).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rackdesigner.model.items import PowerNode, Site

PUE_LIQUID = 1.15
PUE_AIR = 1.3
PUE_SOURCE = ("liquid 1.15: Uptime Institute, direct liquid cooling keeps PUE at 1.1-1.2 at AI "
              "densities (midpoint); air 1.3: model assumption inside the 1.1-1.2 (hyperscale) "
              "to 1.56-1.58 (Uptime Institute 2023-2024 survey average) range, the simulation's "
              "default")
FEED_BASIS = ("a feed carries the IT draw below it x PUE (cooling plant and losses on the "
              "utility side): model assumption")
TOLERANCE = 1 + 1e-6


def liquid_share(liquid_w: float, air_w: float) -> float:
    total = liquid_w + air_w
    return liquid_w / total if total > 0 else 0.0


def pue_for_cooling(liquid_w: float, air_w: float) -> tuple[float, str]:
    """(PUE, why) for a design whose heat goes `liquid_w` to liquid and `air_w` to air."""
    f = liquid_share(liquid_w, air_w)
    pue = 1.0 + (1.0 - f) * (PUE_AIR - 1.0) + f * (PUE_LIQUID - 1.0)
    why = (f"from the cooling mix: {100 * f:.0f} % of the heat to liquid (PUE "
           f"{PUE_LIQUID:g}), {100 * (1 - f):.0f} % to air (PUE {PUE_AIR:g}); {PUE_SOURCE}")
    return pue, why


def site_pue(site: Site, liquid_w: float, air_w: float) -> tuple[float, str]:
    """The site's stated PUE, else the cooling mix's."""
    if site.pue is not None:
        return site.pue, "stated by the site"
    return pue_for_cooling(liquid_w, air_w)


@dataclass(frozen=True, slots=True)
class NodeLoad:
    """One power node's load against what it may carry with its redundancy kept."""

    node: PowerNode
    load_w: float

    @property
    def usable_w(self) -> float:
        return self.node.usable_kw * 1000

    @property
    def over(self) -> bool:
        return self.load_w > self.usable_w * TOLERANCE

    @property
    def share(self) -> float:
        return self.load_w / self.usable_w if self.usable_w else float("inf")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.node.id, "level": self.node.level,
                "redundancy": self.node.redundancy, "usable_kw": round(self.node.usable_kw, 3),
                "load_kw": round(self.load_w / 1000, 3), "share": round(self.share, 4),
                "over": self.over}


def power_tree(site: Site, rack_max_w: dict[str, float], pue: float
               ) -> tuple[tuple[NodeLoad, ...], tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(each node's load, racks on no PDU, (PDU, listed id that is no rack of the design)).

    Only when the hierarchy has floor PDUs does a rack need one (a hierarchy of feeds alone
    states capacity, not wiring)."""
    if not site.power:
        return (), (), ()
    children: dict[str | None, list[PowerNode]] = {}
    for node in site.power:
        children.setdefault(node.parent, []).append(node)
    it_load: dict[str, float] = {}

    def load(node: PowerNode) -> float:
        total = sum(rack_max_w.get(r, 0.0) for r in node.racks)
        total += sum(load(child) for child in children.get(node.id, ()))
        it_load[node.id] = total
        return total

    for root in children.get(None, ()):
        load(root)
    loads = tuple(NodeLoad(n, it_load.get(n.id, 0.0) * (pue if n.level == "feed" else 1.0))
                  for n in site.power)
    listed = {r for n in site.power for r in n.racks}
    has_pdus = any(n.level == "pdu" for n in site.power)
    unfed = tuple(r for r in rack_max_w if r not in listed) if has_pdus else ()
    stale = tuple((n.id, r) for n in site.power for r in n.racks if r not in rack_max_w)
    return loads, unfed, stale


def feed_capacity_kw(site: Site) -> float | None:
    """What the site's utility side delivers: its `facility_power_kw`, else the sum of its
    feeds' usable capacity, else None."""
    if site.facility_power_kw is not None:
        return site.facility_power_kw
    feeds = [n.usable_kw for n in site.power if n.level == "feed"]
    return sum(feeds) if feeds else None


@dataclass(frozen=True, slots=True)
class SiteUse:
    """The design against its site's limits (model/site.py says how facility power and the
    power hierarchy's loads are counted)."""

    power_limit_w: float | None
    cooling_limit_w: float | None
    it_max_w: float
    heat_w: float
    facility_limit_w: float | None = None
    liquid_limit_w: float | None = None
    air_limit_w: float | None = None
    liquid_w: float = 0.0
    air_w: float = 0.0
    pue: float = 1.0
    pue_basis: str = ""
    rack_positions: int | None = None
    racks: int = 0
    nodes: tuple[NodeLoad, ...] = ()
    unfed: tuple[str, ...] = ()  # racks on no floor PDU (when the hierarchy has PDUs)
    stale: tuple[tuple[str, str], ...] = ()  # (PDU, listed id that is no rack)
    supply_c: float | None = None

    @property
    def facility_w(self) -> float:
        return self.it_max_w * self.pue

    @property
    def power_share(self) -> float | None:
        return self.it_max_w / self.power_limit_w if self.power_limit_w else None

    @property
    def cooling_share(self) -> float | None:
        return self.heat_w / self.cooling_limit_w if self.cooling_limit_w else None

    @property
    def facility_share(self) -> float | None:
        return self.facility_w / self.facility_limit_w if self.facility_limit_w else None

    @property
    def liquid_share(self) -> float | None:
        return self.liquid_w / self.liquid_limit_w if self.liquid_limit_w else None

    @property
    def air_share(self) -> float | None:
        return self.air_w / self.air_limit_w if self.air_limit_w else None

    @property
    def over_power(self) -> bool:
        return self.power_limit_w is not None and self.it_max_w > self.power_limit_w * (1 + 1e-6)

    @property
    def over_cooling(self) -> bool:
        return (self.cooling_limit_w is not None
                and self.heat_w > self.cooling_limit_w * (1 + 1e-6))

    @property
    def over_facility(self) -> bool:
        return _over(self.facility_w, self.facility_limit_w)

    @property
    def over_liquid(self) -> bool:
        return _over(self.liquid_w, self.liquid_limit_w)

    @property
    def over_air(self) -> bool:
        return _over(self.air_w, self.air_limit_w)

    @property
    def over_floor(self) -> bool:
        return self.rack_positions is not None and self.racks > self.rack_positions

    def headline(self) -> str:
        """"uses 71 % of the site's 5 MW" (and of its cooling), "96 % of facility power (2 MW),
        82 % of the liquid loop (1 MW)" for what the site states, or "" when it states none."""
        parts = []
        if self.power_limit_w and self.power_share is not None:
            parts.append(f"uses {100 * self.power_share:.0f} % of the site's "
                         f"{format_watts(self.power_limit_w)}")
        if self.cooling_limit_w and self.cooling_share is not None:
            parts.append(f"{'' if parts else 'uses '}{100 * self.cooling_share:.0f} % of "
                         f"{'its' if parts else 'the site' + chr(39) + 's'} "
                         f"{format_watts(self.cooling_limit_w)} cooling")
        for share, limit, what in ((self.facility_share, self.facility_limit_w,
                                    "facility power"),
                                   (self.liquid_share, self.liquid_limit_w, "the liquid loop"),
                                   (self.air_share, self.air_limit_w, "air cooling")):
            if share is not None and limit:
                parts.append(f"{'' if parts else 'uses '}{100 * share:.0f} % of {what} "
                             f"({format_watts(limit)})")
        if self.rack_positions is not None:
            parts.append(f"{'' if parts else 'uses '}{self.racks} of {self.rack_positions} "
                         "rack positions")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The stable keys: limits (`*_limit_kw`), use (`facility_power_kw`, `it_power_kw`,
        `liquid_kw`, `air_kw`), shares, PUE and the power hierarchy's loads."""
        return {"power_kw": _kw(self.power_limit_w), "cooling_kw": _kw(self.cooling_limit_w),
                "power_share": _r(self.power_share), "cooling_share": _r(self.cooling_share),
                "facility_power_kw": round(self.facility_w / 1000, 3),
                "it_power_kw": round(self.it_max_w / 1000, 3),
                "liquid_kw": round(self.liquid_w / 1000, 3),
                "air_kw": round(self.air_w / 1000, 3),
                "facility_limit_kw": _kw(self.facility_limit_w),
                "liquid_limit_kw": _kw(self.liquid_limit_w),
                "liquid_supply_c": self.supply_c,
                "air_limit_kw": _kw(self.air_limit_w),
                "facility_share": _r(self.facility_share), "liquid_share": _r(self.liquid_share),
                "air_share": _r(self.air_share), "pue": round(self.pue, 4),
                "pue_basis": self.pue_basis, "racks": self.racks,
                "rack_positions": self.rack_positions,
                "power_nodes": [n.to_dict() for n in self.nodes],
                "racks_without_feed": list(self.unfed), "headline": self.headline()}


def _over(used: float, limit: float | None) -> bool:
    return limit is not None and used > limit * (1 + 1e-6)


def format_watts(watts: float) -> str:
    """5 MW, 120 kW, 800 W: the unit a planner reads, trailing zeros dropped."""
    for unit, scale in (("MW", 1e6), ("kW", 1e3)):
        if abs(watts) >= scale:
            return f"{watts / scale:,.2f}".rstrip("0").rstrip(".") + f" {unit}"
    return f"{watts:,.0f} W"


def _kw(watts: float | None) -> float | None:
    return None if watts is None else round(watts / 1000, 3)


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)



__all__ = [
    "FEED_BASIS",
    "PUE_AIR",
    "PUE_LIQUID",
    "PUE_SOURCE",
    "NodeLoad",
    "SiteUse",
    "feed_capacity_kw",
    "format_watts",
    "liquid_share",
    "power_tree",
    "pue_for_cooling",
    "site_pue",
]
