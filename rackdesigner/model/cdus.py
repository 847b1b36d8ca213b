"""The CDUs a design's liquid racks lack: for each rack whose liquid heat no CDU serves, as
many CDUs of the catalog's largest CDU model as its heat needs (`ceil(liquid / capacity)`),
each serving that rack (`serves: [rack]`), placed beside the rack on the canvas and left out of
the rack's U (an in-rack CDU's slot is the user's to choose in the Racks view). The edit
(commands/cooling.py) and the generators' `cdus` option both add these."""

from __future__ import annotations

import math

from rackdesigner.catalog import DeviceSpec
from rackdesigner.model.cooling import SERVES_PROP, cdu_capacity_w, cooling_report
from rackdesigner.model.items import Device
from rackdesigner.model.layout import Layout

STEP = 40.0  # canvas offset between CDUs beside one rack


def cdu_models(layout: Layout) -> list[DeviceSpec]:
    """The catalog's CDU models with a stated capacity, largest first."""
    specs = [s for s in layout.catalog.doing("cools") if cdu_capacity_w(s)]
    return sorted(specs, key=lambda s: (-(cdu_capacity_w(s) or 0), s.id))


def missing_cdus(layout: Layout, model: str | None = None) -> tuple[list[Device], int]:
    """(the CDUs to add, the racks they serve): none when every liquid rack has a CDU or the
    catalog has no CDU with a capacity."""
    models = cdu_models(layout)
    spec = next((s for s in models if s.id == model), None) if model else \
        (models[0] if models else None)
    if spec is None:
        return [], 0
    capacity = cdu_capacity_w(spec)
    assert capacity
    report = cooling_report(layout)
    devices: list[Device] = []
    for rack in report.unserved:
        need = max(1, math.ceil(report.racks[rack].liquid_w / capacity - 1e-9))
        x, y = layout.device(rack).pos
        label = layout.device(rack).label
        for k in range(need):
            devices.append(Device(layout.new_id("cdu"), spec.id, f"CDU for {label}" + (
                f" ({k + 1}/{need})" if need > 1 else ""), (x - STEP * (k + 1), y),
                props=((SERVES_PROP, (rack,)),)))
    return devices, len(report.unserved)
