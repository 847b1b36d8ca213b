"""The CDUs a design's liquid racks lack. With an in-rack model (the default: the catalog's
largest CDU that is not `placement: in-row`), each rack whose liquid heat no CDU serves gets
as many CDUs as its heat needs (`ceil(liquid / capacity)`), each serving that rack (`serves:
[rack]`), placed beside the rack on the canvas and left out of the rack's U (an in-rack CDU's
slot is the user's to choose in the Racks view). With an in-row model (named: `model=`), the
unserved racks of each row (racks at the same canvas height, in name order) share CDUs: each
CDU serves consecutive racks of its row until the next would take it over its capacity. The
edit (commands/cooling.py) and the generators' `cdus` option both add these."""

from __future__ import annotations

import math
from collections import defaultdict

from rackdesigner.catalog import DeviceSpec
from rackdesigner.model.cooling import SERVES_PROP, cdu_capacity_w, cooling_report
from rackdesigner.model.items import Device
from rackdesigner.model.layout import Layout, natural_key
from rackdesigner.vocabulary import IN_ROW

STEP = 40.0  # canvas offset between CDUs beside one rack


def in_row(spec: DeviceSpec) -> bool:
    """Whether a CDU model stands in the row and serves several racks of it."""
    return spec.fact("placement") == IN_ROW


def cdu_models(layout: Layout) -> list[DeviceSpec]:
    """The catalog's CDU models with a stated capacity: in-rack ones first, largest first."""
    specs = [s for s in layout.catalog.doing("cools") if cdu_capacity_w(s)]
    return sorted(specs, key=lambda s: (in_row(s), -(cdu_capacity_w(s) or 0), s.id))


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
    if in_row(spec):
        return _row_cdus(layout, spec, capacity, report.unserved,
                         {r: report.racks[r].liquid_w for r in report.unserved})
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


def _row_cdus(layout: Layout, spec: DeviceSpec, capacity: float, unserved: tuple[str, ...],
              heat: dict[str, float]) -> tuple[list[Device], int]:
    rows: dict[float, list[str]] = defaultdict(list)
    for rack in unserved:
        rows[round(layout.device(rack).pos[1], 3)].append(rack)
    groups: list[list[str]] = []
    for y in sorted(rows):
        group: list[str] = []
        load = 0.0
        for rack in sorted(rows[y], key=natural_key):
            if group and load + heat[rack] > capacity * (1 + 1e-9):
                groups.append(group)
                group, load = [], 0.0
            group.append(rack)  # a rack above the capacity alone still gets a CDU (flagged)
            load += heat[rack]
        groups.append(group)
    devices: list[Device] = []
    for n, group in enumerate(groups, 1):
        x, y = layout.device(group[0]).pos
        devices.append(Device(layout.new_id("cdu"), spec.id, f"In-row CDU {n}",
                              (x - STEP, y), props=((SERVES_PROP, tuple(group)),)))
    return devices, len(unserved)
