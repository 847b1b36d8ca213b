"""The one PUE a design's facility power is computed with when the user sets none: the site's
stated PUE, else the PUE of the design's cooling mix (`model.site.pue_for_cooling`, where the
formula and its sources are stated). The simulation's power stage (the panel's Power tile,
`simulate`, `estimate`) and the cost model (`cost`, the Cost tab) both read it, so a GB200
NVL72 pod shows the same facility power in each (#35); a PUE the user gives (`--pue`, the
panel's PUE box) wins everywhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rackdesigner.model.cooling import CoolingReport
    from rackdesigner.model.layout import Layout


def design_pue(layout: Layout, cooling: CoolingReport | None = None) -> tuple[float, str]:
    """(PUE, why) for `layout`: its site's stated PUE, else its cooling mix's. `cooling` is the
    design's `cooling_report` when the caller has it."""
    from rackdesigner.model.cooling import cooling_report
    from rackdesigner.model.site import pue_for_cooling, site_pue

    site = layout.meta.site
    if cooling is not None or site.pue is not None:  # a stated PUE needs no cooling report
        return site_pue(site, cooling.liquid_w if cooling else 0.0,
                        cooling.air_w if cooling else 0.0)
    # the cooling mix's, once per state and catalog (as `RackPower.draws`): the panel's
    # simulation and the Cost tab both ask after every edit, a whole-design pass each
    state = layout.state
    kept = state.memo.get("pue")
    if kept is not None and kept[0] is layout.catalog:
        return kept[1]
    c = cooling_report(layout)
    found = pue_for_cooling(c.liquid_w, c.air_w)
    state.memo["pue"] = (layout.catalog, found)
    return found


__all__ = ["design_pue"]
