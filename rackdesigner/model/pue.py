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
    from rackdesigner.model.site import site_pue

    c = cooling if cooling is not None else cooling_report(layout)
    return site_pue(layout.meta.site, c.liquid_w, c.air_w)


__all__ = ["design_pue"]
