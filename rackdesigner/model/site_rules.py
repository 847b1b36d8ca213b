"""The site rules (model/site.py's `SiteUse`): facility power over the utility feed, the
liquid loop over its capacity, the air over the air-cooling capacity, more racks than floor
positions, each power node over what its redundancy lets it carry, and a rack on no floor
PDU. All are errors: a design that breaks one cannot be installed as drawn."""

from __future__ import annotations

from rackdesigner.model.rules import ERROR, Finding
from rackdesigner.model.site import FEED_BASIS, SiteUse, format_watts

MAX_LISTED = 20
#: design-level site findings (the Racks view's site line) and those that name racks (marked)
SITE_LEVEL_CODES = ("site-facility-power", "site-liquid", "site-air", "site-floor",
                    "site-power-node", "feed-missing-rack")
RACK_SITE_CODES = ("site-power-node", "rack-no-feed")


def site_findings(site: SiteUse) -> list[Finding]:
    out: list[Finding] = []
    if site.over_facility:
        assert site.facility_limit_w is not None
        out.append(Finding(ERROR, "site-facility-power",
                           f"facility power {format_watts(site.facility_w)} (IT "
                           f"{format_watts(site.it_max_w)} x PUE {site.pue:.2f}, "
                           f"{_short(site.pue_basis)}) is above the utility feed's "
                           f"{format_watts(site.facility_limit_w)} ({site.headline()})",
                           key="site"))
    if site.over_liquid:
        assert site.liquid_limit_w is not None
        out.append(Finding(ERROR, "site-liquid",
                           f"the design sends {format_watts(site.liquid_w)} of heat to liquid, "
                           f"above the liquid loop's {format_watts(site.liquid_limit_w)}: fewer "
                           "liquid-cooled systems, or air-cooled ones for the rest", key="site"))
    if site.over_air:
        assert site.air_limit_w is not None
        out.append(Finding(ERROR, "site-air",
                           f"the design sends {format_watts(site.air_w)} of heat to air, above "
                           f"the site's {format_watts(site.air_limit_w)} of air cooling",
                           key="site"))
    if site.over_floor:
        out.append(Finding(ERROR, "site-floor",
                           f"the design has {site.racks} racks, more than the floor's "
                           f"{site.rack_positions} rack positions", key="site"))
    for load in site.nodes:
        if load.over:
            node = load.node
            basis = f"; {FEED_BASIS}" if node.level == "feed" else ""
            out.append(Finding(ERROR, "site-power-node",
                               f"{node.level} {node.id} carries {format_watts(load.load_w)}, "
                               f"above the {format_watts(load.usable_w)} it may carry at "
                               f"{node.redundancy} ({node.units} x "
                               f"{format_watts(node.capacity_kw * 1000)}){basis}",
                               node.racks[:MAX_LISTED], key="site"))
    for rack in site.unfed:
        out.append(Finding(ERROR, "rack-no-feed",
                           f"rack {rack} is on no floor PDU of the site's power hierarchy "
                           "(list it in a PDU's racks)", (rack,)))
    for pdu, rack in site.stale:
        out.append(Finding(ERROR, "feed-missing-rack",
                           f"PDU {pdu} lists {rack!r}, which is not a rack of the design",
                           key="site"))
    return out


def _short(text: str) -> str:
    return text.split(";")[0]
