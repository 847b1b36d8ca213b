"""NetBox bulk-import files for a design: the design becomes the inventory.

A folder, imported in the numbered order (each file needs the objects of the ones before):

  01-manufacturers.csv   name, slug                     (Organization > Manufacturers)
  02-device-roles.csv    name, slug, color              (Devices > Device Roles)
  03-device-types/*.yaml the devicetype-library format  (Devices > Device Types > Import)
  04-sites.csv           name, slug, status             (Organization > Sites)
  05-racks.csv           site, name, status, width, u_height
  06-devices.csv         name, role, manufacturer, device_type, site, rack, position, face,
                         status
  07-cables.csv          side_a_device, side_a_type, side_a_name, side_b_device, side_b_type,
                         side_b_name, type, status, length, length_unit, label (the design's
                         link id), description (the catalog cable: `fiber-mm-ndr: ...`)

A rack-scale system (an NVL72) is a 0U device holding its trays, which are devices of their
own. Column names are those of NetBox 4's CSV import forms (`dcim/forms/bulk_import.py`);
`device_type` is the type's model name and `role` the role's name. A NetBox device is a unit of
the design (units.py: a DGX, a switch, a compute tray); its interfaces come from its device
type, named like the cabling plan's ports (`nic0/ib.0`, `ib.12`), so every cable row finds its
interfaces. Parts inside a system (GPUs, NVSwitch chips) are not NetBox devices.
`rackdesigner import netbox FOLDER` reads the files back into a design (netbox_design.py).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import yaml

from rackdesigner import vocabulary
from rackdesigner.catalog import DeviceSpec
from rackdesigner.interop.base import ExportError, ExportReport, write_atomic
from rackdesigner.interop.netbox_types import device_type_yaml, interface_type
from rackdesigner.interop.sanitize import csv_text
from rackdesigner.interop.units import Inventory, cables, inventory, local_port
from rackdesigner.io.names import UnsafeNameError, path_inside
from rackdesigner.model import Layout, natural_key

FABRIC = vocabulary.protocols_of("network")
ROLES = {"host": ("GPU server", "76b900"), "switch": ("Fabric switch", "2196f3"),
         "frame": ("Rack system", "607d8b"),
         "nvswitch-tray": ("NVLink switch tray", "9c27b0"), "other": ("Other", "9e9e9e")}
CABLE_TYPES = {"dac": "dac-passive", "acc": "dac-active", "aec": "dac-active", "aoc": "aoc"}
FILES = ("01-manufacturers.csv", "02-device-roles.csv", "03-device-types", "04-sites.csv",
         "05-racks.csv", "06-devices.csv", "07-cables.csv")


def write(layout: Layout, path: Path, *, site: str | None = None) -> ExportReport:
    inv = inventory(layout)
    if not inv.units:
        raise ExportError("the design has no devices to put in NetBox")
    site_name = site or layout.meta.name or "RackDesigner site"
    report = ExportReport()
    path.mkdir(parents=True, exist_ok=True)
    types = _device_types(inv, report)
    units = sorted(inv.units.values(), key=lambda u: natural_key(u.id))
    units = [u for u in units if _type_key(inv, u) in types]
    if not units:
        raise ExportError("no device of the design has a known catalog model")

    def table(name: str, header: list[str], rows: Sequence[Sequence[object]]) -> None:
        target = path / name
        write_atomic(target, csv_text([header, *rows]))
        report.files.append(target)

    makers = sorted({doc["manufacturer"] for doc in types.values()})
    table(FILES[0], ["name", "slug"], [[m, _slug(m)] for m in makers])
    roles = sorted({u.kind for u in units})
    table(FILES[1], ["name", "slug", "color"],
          [[ROLES[r][0], _slug(ROLES[r][0]), ROLES[r][1]] for r in roles])
    type_dir = path / FILES[2]
    type_dir.mkdir(exist_ok=True)
    for slug, doc in sorted(types.items()):
        try:  # a model id is free text (a user or embedded model): never a path
            target = path_inside(type_dir, slug, ".yaml")
        except UnsafeNameError as exc:
            raise ExportError(f"device type of catalog model {exc}") from None
        write_atomic(target, "---\n" + yaml.safe_dump(doc, sort_keys=False))
        report.files.append(target)
    table(FILES[3], ["name", "slug", "status"], [[site_name, _slug(site_name), "planned"]])
    rack_heights = _rack_heights(layout, inv)
    table(FILES[4], ["site", "name", "status", "width", "u_height"],
          [[site_name, inv.racks[r], "planned", 19, rack_heights.get(r, 42)]
           for r in sorted(inv.racks, key=natural_key)])
    rows = []
    for u in units:
        doc = types[_type_key(inv, u)]
        rack = inv.racks.get(u.rack, u.rack) if u.rack else ""
        mounted = bool(u.rack and u.u and doc["u_height"])
        rows.append([u.id, ROLES[u.kind][0], doc["manufacturer"], doc["model"], site_name,
                     rack, u.u if mounted else "", "front" if mounted else "", "planned"])
    table(FILES[5], ["name", "role", "manufacturer", "device_type", "site", "rack", "position",
                     "face", "status"], rows)
    placed = {u.id for u in units}
    cable_rows = []
    for c in cables(inv):
        if c.protocol not in FABRIC or c.a_unit not in placed or c.b_unit not in placed:
            continue
        spec = layout.catalog.get(c.cable) if c.cable and c.cable in layout.catalog else None
        cable_rows.append([c.a_unit, "dcim.interface", local_port(inv, c.a_device, c.a_port),
                           c.b_unit, "dcim.interface", local_port(inv, c.b_device, c.b_port),
                           _cable_type(spec), "planned",
                           "" if c.length_m is None else c.length_m,
                           "" if c.length_m is None else "m", c.link,
                           f"{c.cable}: {spec.model}" if spec is not None else ""])
    table(FILES[6], ["side_a_device", "side_a_type", "side_a_name", "side_b_device",
                     "side_b_type", "side_b_name", "type", "status", "length", "length_unit",
                     "label", "description"], cable_rows)
    report.summary = (f"{path}/: NetBox import of {len(inv.racks)} racks, {len(units)} devices "
                      f"of {len(types)} types, {len(cable_rows)} cables (import the files in "
                      "their numbered order)")
    return report


def _device_types(inv: Inventory, report: ExportReport) -> dict[str, dict]:
    """Device-type documents per unit model, interfaces from the first unit of each model."""
    layout = inv.layout
    types: dict[str, dict] = {}
    unknown: set[str] = set()
    for unit in sorted(inv.units.values(), key=lambda u: natural_key(u.id)):
        key = _type_key(inv, unit)
        if key in types or key in unknown:
            continue
        if unit.model:
            if unit.model not in layout.catalog:
                unknown.add(unit.model)
                continue
            spec = layout.catalog.get(unit.model)
        else:  # a node drawn by hand: a custom type named by what it holds
            parts = Counter(layout.device(d).model for d in unit.devices)
            summary = ", ".join(f"{n} x {m}" for m, n in sorted(parts.items()))
            spec = DeviceSpec(key, "system", "Custom", f"Custom node ({summary})")
        interfaces = []
        for device in unit.devices:
            dspec = layout.spec(device)
            if dspec is None:
                continue
            for group in dspec.ports:
                if group.protocol not in FABRIC:
                    continue
                for i in range(group.count):
                    interfaces.append((local_port(inv, device, f"{group.name}.{i}"),
                                       interface_type(group)))
        power = spec.power.max_w
        if power is None and spec.stated is not None:
            power = spec.stated.values.get("max_w")
        # a rack-scale system's frame (an NVL72) is a 0U device: its trays take the units
        height = 0 if unit.is_frame else unit.u_height or 1
        types[key] = device_type_yaml(spec, interfaces,
                                      int(height) if float(height).is_integer() else height,
                                      power)
    if unknown:
        report.messages.append(f"devices of unknown {'model' if len(unknown) == 1 else 'models'} "
                               f"{', '.join(sorted(unknown))} are "
                               "left out (their catalog entry is missing)")
    return types


def _type_key(inv: Inventory, unit) -> str:
    """The device type of a unit: its catalog model, or for a hand-made node a custom type
    shared by every node with the same parts."""
    if unit.model:
        return unit.model
    models = sorted(inv.layout.device(d).model for d in unit.devices)
    digest = hashlib.sha1("\n".join(models).encode()).hexdigest()[:8]
    return f"custom-node-{digest}"


def _rack_heights(layout: Layout, inv: Inventory) -> dict[str, int]:
    out = {}
    for rack in inv.racks:
        if layout.has_device(rack):
            spec = layout.spec(rack)
            if spec is not None and spec.rack is not None:
                out[rack] = spec.rack.height_u
    return out


def _cable_type(spec) -> str:
    if spec is None or spec.cable is None:
        return ""
    media = spec.cable.media
    if media == "fiber":
        return "smf" if "single" in (spec.model + spec.description).lower() or \
            "-sm-" in spec.id else "mmf-om4"
    return CABLE_TYPES.get(media, "")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


__all__ = ["FILES", "write"]
