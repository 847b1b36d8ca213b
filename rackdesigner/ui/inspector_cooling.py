"""The Inspector's cooling rows: a rack's own air-cooling limit, and the racks a CDU serves.

Both are device keys of the file (`air_cooling_w`, `serves`; model/cooling.py) edited as one
command each, like the rack's power budget beside them. A `serves` list naming something that
is not a rack of the design is refused here, with the reason under the field, and the design
is left as it was (the file reader and the rule `cdu-serves-missing` catch it in files).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QLabel, QLineEdit

from rackdesigner.commands import Command, change_device
from rackdesigner.model import Layout
from rackdesigner.model.cooling import (
    AIR_PROP,
    SERVES_PROP,
    cdu_capacity_w,
    door_capacity_w,
    prop,
)
from rackdesigner.model.items import Device
from rackdesigner.ui.plain_text import plain


def with_prop(props: tuple, key: str, value: Any) -> tuple:
    """`props` with `key` set to `value` (removed when None), in the file's stable order."""
    kept = [(k, v) for k, v in props if k != key]
    if value is not None:
        kept.append((key, value))
    return tuple(sorted(kept))


class CoolingRows:
    def __init__(self, form: QFormLayout, push: Callable[[Command], None],
                 layout: Callable[[], Layout | None]) -> None:
        self.form = form
        self.push = push
        self.layout = layout
        self.device_id = ""
        self.air = QDoubleSpinBox()
        self.air.setRange(0.0, 10_000.0)
        self.air.setDecimals(1)
        self.air.setSingleStep(1.0)
        self.air.setSuffix(" kW")
        self.serves = QLineEdit()
        self.serves.setPlaceholderText("rack-1, rack-2")
        self.serves.setToolTip("The racks whose liquid heat this CDU carries (their ids); its "
                               "load is checked against its capacity (rule cdu-capacity)")
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c62828; font-size: 8pt;")
        form.addRow("Air limit", self.air)
        form.addRow("Serves racks", self.serves)
        form.addRow("", self.error)
        self.air.valueChanged.connect(self._on_air_changed)
        self.serves.editingFinished.connect(self._on_serves_edited)

    def show(self, device: Device, spec: Any) -> None:
        self.device_id = device.id
        is_rack = spec is not None and spec.rack is not None
        door = door_capacity_w(spec)  # a rear-door heat exchanger serves racks too
        is_cdu = spec is not None and (spec.traits.cools or bool(door))
        self.form.setRowVisible(self.air, is_rack)
        self.form.setRowVisible(self.serves, is_cdu)
        self.form.setRowVisible(self.error, False)
        if is_rack:
            own = prop(device, AIR_PROP)
            default = spec.rack.air_cooling_w
            with QSignalBlocker(self.air):
                self.air.setSpecialValueText(f"default {default / 1000:,.1f} kW" if default
                                             else "none stated")
                self.air.setValue(float(own) / 1000 if own is not None else 0.0)
            self.air.setToolTip("Heat this rack's air path can remove (rule rack-air-limit). "
                                "0 uses the rack model's default.")
        if is_cdu:
            listed = prop(device, SERVES_PROP) or ()
            with QSignalBlocker(self.serves):
                if not self.serves.isModified():
                    self.serves.setText(", ".join(rack_label(self.layout(), r) for r in listed))
            capacity = cdu_capacity_w(spec)
            if door:
                self.serves.setToolTip(plain(
                    "The racks whose exhaust air this rear door cools, by name or id (empty: the "
                    f"rack it is mounted in): up to {door / 1000:,.1f} kW of their heat to air "
                    "goes to water"))
                return
            self.serves.setToolTip(
                plain("The racks whose liquid heat this CDU carries, by name or id, separated by "
                      "commas: checked against its "
                      + (f"{capacity / 1000:,.0f} kW capacity" if capacity else "capacity")))

    def _device(self) -> tuple[Layout, Device] | None:
        layout = self.layout()
        if layout is None or not self.device_id or not layout.has_device(self.device_id):
            return None
        return layout, layout.device(self.device_id)

    def _on_air_changed(self, value: float) -> None:
        found = self._device()
        if found is None:
            return
        _, device = found
        watts = value * 1000 if value > 0 else None
        props = with_prop(device.props, AIR_PROP,
                          None if watts is None else (int(watts) if watts.is_integer() else watts))
        if props != device.props:
            self.push(change_device(device.id, f"Set the air-cooling limit of {device.id}",
                                    True, props=props))

    def _on_serves_edited(self) -> None:
        self.serves.setModified(False)
        found = self._device()
        if found is None:
            return
        layout, device = found
        ids, problems = rack_ids(layout, self.serves.text())
        if len(set(ids)) != len(ids):
            problems.append("a rack is listed twice")
        self.form.setRowVisible(self.error, bool(problems))
        if problems:
            self.error.setText(plain("Not changed — " + "; ".join(problems)))
            return
        props = with_prop(device.props, SERVES_PROP, tuple(ids) or None)
        if props != device.props:
            self.push(change_device(device.id, f"Set the racks {device.id} serves", props=props))


def rack_label(layout: Layout | None, rack: str) -> str:
    """"NVL72 rack 1 (rack-2)": a rack's name with its id, or the id alone when unnamed."""
    if layout is None or not layout.has_device(rack):
        return rack
    name = layout.device(rack).name
    return f"{name} ({rack})" if name and name != rack else rack


def rack_ids(layout: Layout, text: str) -> tuple[list[str], list[str]]:
    """(rack ids, problems) of a comma-separated list of racks given by id, by name, or as
    `rack_label` shows them."""
    by_name: dict[str, list[str]] = {}
    for device in layout.devices():
        if device.name and layout.spec(device.id) is not None \
                and layout.spec(device.id).rack is not None:
            by_name.setdefault(device.name.strip().lower(), []).append(device.id)
    ids: list[str] = []
    problems: list[str] = []
    for entry in (t.strip() for t in text.split(",")):
        if not entry:
            continue
        shown = re.search(r"\(([^()]+)\)\s*$", entry)
        candidates = [shown.group(1).strip()] if shown else [entry]
        rack = next((c for c in candidates if layout.has_device(c)), None)
        if rack is None:
            named = by_name.get(entry.lower(), [])
            if len(named) > 1:
                problems.append(f"{entry}: {len(named)} racks have this name (give the id)")
                continue
            rack = named[0] if named else None
        spec = layout.spec(rack) if rack is not None else None
        if rack is None or spec is None or spec.rack is None:
            what = "no such rack" if rack is None else "not a rack"
            problems.append(f"{entry}: {what}")
            continue
        ids.append(rack)
    return ids, problems


__all__ = ["CoolingRows", "rack_ids", "rack_label", "with_prop"]
