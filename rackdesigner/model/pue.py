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
    mix = cooling_mix(layout)
    if mix is None:  # rear-door heat exchangers: their heat to water is worked out per rack
        c = cooling_report(layout)
        mix = c.liquid_w, c.air_w
    found = pue_for_cooling(*mix)
    state.memo["pue"] = (layout.catalog, found)
    return found


def cooling_mix(layout: Layout) -> tuple[float, float] | None:
    """(heat to water, heat to air) in W of the whole design, equal to its `cooling_report`'s
    `liquid_w` and `air_w` (the same sums in the same order), without the per-rack, per-CDU
    and site report the mix does not need; None when the design has a rear-door heat
    exchanger (its heat to water depends on its rack's heat: the caller makes the report).

    Each device's (draw, heat to liquid) depends only on its model and the system around it,
    so it is worked out once per (model, system) pair (`fact_table`): the per-device work of
    the report (spec, traits, door and split lookups) was 0.8 s of `simulate` at 100k GPUs."""
    from rackdesigner.model.cooling import _Splitter, fact_table
    from rackdesigner.model.power import RackPower

    split = _Splitter(layout)
    facts_of = fact_table(split)  # as `cooling_report` reads them
    liquid = 0.0
    device_total = 0.0
    table = layout.index().made_link_table()
    fast = None
    if table is not None:  # a large design: per (model, system), summed in NumPy
        from rackdesigner.model.power_columns import table_mix

        fast = table_mix(table, layout.state, split, facts_of)
    if fast is not None:
        door, device_total, liquid = fast
        if door:
            return None
    for device in () if fast is not None else layout.devices():
        found = facts_of(device)
        if found is None or found[0].rack is not None:
            continue
        if found[2]:  # a rear door
            return None
        peak = found[3]
        if peak is None:
            continue
        device_total += peak
        if peak:
            liquid += found[4]
    ends = RackPower(layout).draws().link_ends
    total = device_total + sum(m for _, _, m in ends.values())
    return liquid, max(0.0, total - liquid)


__all__ = ["cooling_mix", "design_pue"]
