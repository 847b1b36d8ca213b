"""The cooling rules: racks over their air-cooling limit, CDUs over capacity or serving what
is not a rack, liquid racks no CDU serves, site power and cooling (`model/cooling.py` computes
the figures, `model/site_rules.py` the site's own findings). A family of `rules.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rackdesigner.model.layout import Layout
from rackdesigner.model.racks import RackIndex

if TYPE_CHECKING:
    from rackdesigner.model.cooling import CoolingReport
from rackdesigner.model.rule_finding import ERROR, WARNING, Finding


def check_cooling(layout: Layout, index: RackIndex | None = None,
                  report: CoolingReport | None = None) -> list[Finding]:
    """Air-cooling limits of racks, CDU capacity and the racks CDUs serve, site power and
    cooling (model/cooling.py)."""
    from rackdesigner.model.cooling import (
        SERVES_PROP,
        cooling_report,
        door_capacity_w,
        format_watts,
    )
    from rackdesigner.model.site_rules import site_findings

    if report is None:
        limits = layout.meta.site  # its totals are a pass over every link: only if they count
        totals = not limits.empty
        report = (cooling_report(layout) if index is None
                  else cooling_report(layout, index.power_model, index.power_by_rack(),
                                      site_totals=totals))
    out: list[Finding] = []
    for rack_id, heat in report.racks.items():
        if heat.over_air_limit:
            assert heat.air_limit_w is not None
            out.append(Finding(ERROR, "rack-air-limit",
                               f"rack {rack_id} sends {format_watts(heat.air_w)} of heat to air"
                               + (f" (after its rear door's {format_watts(heat.door_w)})"
                                  if heat.door_w else "") + ", "
                               f"above its {format_watts(heat.air_limit_w)} air-cooling limit "
                               f"({heat.air_basis}): use liquid-cooled systems, spread the "
                               "load or set the rack's air_cooling_w", (rack_id,)))
    for cdu in report.cdus:
        for missing in cdu.missing:
            what = ("no such device" if not layout.has_device(missing) else "not a rack")
            out.append(Finding(ERROR, "cdu-serves-missing",
                               f"CDU {cdu.cdu} serves {missing!r}, which is {what}",
                               (cdu.cdu,)))
        if cdu.over:
            assert cdu.capacity_w is not None
            served = [r for r in cdu.serves if r in report.racks]
            out.append(Finding(ERROR, "cdu-capacity",
                               f"CDU {cdu.cdu} ({cdu.model}) carries {format_watts(cdu.liquid_w)}"
                               f" of liquid heat from {', '.join(served)}, above its "
                               f"{format_watts(cdu.capacity_w)} capacity", (cdu.cdu, *served)))
        elif cdu.capacity_w is None:
            out.append(Finding(WARNING, "cdu-capacity",
                               f"CDU {cdu.cdu} ({cdu.model}) has no published capacity: its "
                               "load cannot be checked", (cdu.cdu,)))
    for rack_id in report.unserved:
        out.append(Finding(WARNING, "rack-no-cdu",
                           f"rack {rack_id} sends {format_watts(report.racks[rack_id].liquid_w)}"
                           " to liquid but no CDU serves it (list it in a CDU's serves, or "
                           "Edit > Give Liquid Racks CDUs)",
                           (rack_id,)))
    cdu_ids = {c.cdu for c in report.cdus}
    for device in layout.devices():
        if device.props and device.id not in cdu_ids and any(
                k == SERVES_PROP for k, _ in device.props) and not door_capacity_w(
                layout.catalog.get(device.model) if device.model in layout.catalog else None):
            out.append(Finding(WARNING, "serves-not-cdu",
                               f"device {device.id} lists racks it serves but is not a CDU",
                               (device.id,)))
    site = report.site
    if site.over_power:
        assert site.power_limit_w is not None
        out.append(Finding(ERROR, "site-power",
                           f"the design draws up to {format_watts(site.it_max_w)}, above the "
                           f"site's {format_watts(site.power_limit_w)} of IT power "
                           f"({site.headline()})", key="site"))
    if site.over_cooling:
        assert site.cooling_limit_w is not None
        out.append(Finding(ERROR, "site-cooling",
                           f"the design gives off up to {format_watts(site.heat_w)} of heat, "
                           f"above the site's {format_watts(site.cooling_limit_w)} of cooling",
                           key="site"))
    out += site_findings(site)
    return out
