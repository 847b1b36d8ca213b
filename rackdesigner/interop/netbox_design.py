"""A design from NetBox bulk-import files: the inventory back into RackDesigner.

Reads the folder `export -f netbox` writes (netbox.py) — or the same CSVs exported from NetBox
with those columns: racks (`05-racks.csv`), device types (`03-device-types/*.yaml`, for the
model name → slug), devices (`06-devices.csv`) and cables (`07-cables.csv`).

* A device whose type's slug is a catalog system (a DGX, a compute tray) is rebuilt from the
  catalog with its parts and internal wiring, under the NetBox device's name; other catalog
  models become one device. A device named `<system>.<part>` of a rebuilt system (an NVL72's
  trays) came with it: only its rack and U are taken. Types that are not in the catalog are
  reported and left out (with their cables).
* A rack becomes a catalog rack of its height (`rack-42u`...), id made from its name.
* A cable end `nic0/ib.3` on device `dgx-1` is port `ib.3` of part `dgx-1.nic0`; an end without
  `/` is a port of the device itself. Cables with the same label (the design's link id) and
  consecutive ports on both sides become one link with that count again; the cable model is
  taken from the cable's description (`fiber-mm-ndr: ...`) when it names a catalog cable.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from rackdesigner.catalog import Catalog
from rackdesigner.model import Device, Layout, LayoutError, Link, Meta, PortRef, instantiate

_BAD_ID = re.compile(r"[^A-Za-z0-9_.\-]+")


class NetboxImportError(ValueError):
    """The folder cannot be read as NetBox import files; the message is `file:line: ...`."""


@dataclass
class NetboxImport:
    layout: Layout
    devices: int = 0
    cables: int = 0
    skipped: dict[str, list[str]] = field(default_factory=dict)  # device type -> devices


def _csv(path: Path, required: set[str]) -> list[tuple[int, dict[str, str]]]:
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            missing = required - set(reader.fieldnames or ())
            if missing:
                raise NetboxImportError(f"{path}:1: missing column(s) "
                                        f"{', '.join(sorted(missing))}")
            return [(n, row) for n, row in enumerate(reader, 2)]
    except FileNotFoundError:
        raise NetboxImportError(f"{path}: no such file (expected the files "
                                "'rackdesigner export -f netbox' writes)") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise NetboxImportError(f"{path}: cannot read: {exc}") from None


def read_folder(folder: str | Path, catalog: Catalog | None = None) -> NetboxImport:
    folder = Path(folder)
    if not folder.is_dir():
        raise NetboxImportError(f"{folder}: not a folder of NetBox import files")
    layout = Layout(catalog, Meta("Imported from NetBox", f"Imported from {folder.name}"))
    catalog = layout.catalog
    result = NetboxImport(layout)
    slugs: dict[str, str] = {}
    for path in sorted((folder / "03-device-types").glob("*.yaml")):
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise NetboxImportError(f"{path}: not a readable device type: {exc}") from None
        if isinstance(doc, dict) and "model" in doc and "slug" in doc:
            slugs[str(doc["model"])] = str(doc["slug"])
    racks: dict[str, str] = {}
    heights = {s.rack.height_u: s.id for s in catalog.of_kind("rack") if s.rack is not None}
    for line, row in _csv(folder / "05-racks.csv", {"name", "u_height"}):
        rid = _BAD_ID.sub("-", row["name"]).strip("-.") or f"rack-{line}"
        try:
            height = int(float(row["u_height"] or 42))
        except ValueError:
            raise NetboxImportError(f"{folder / '05-racks.csv'}:{line}: u_height must be a "
                                    f"number, got {row['u_height']!r}") from None
        model = heights.get(height) or heights.get(42) or next(iter(heights.values()), "rack")
        racks[row["name"]] = rid
        layout.add_device(Device(rid, model, row["name"], (len(racks) * 1600.0, 0.0)))
    devices_csv = folder / "06-devices.csv"
    built: set[str] = set()  # devices made from a catalog system
    rows = _csv(devices_csv, {"name", "device_type"})
    for line, row in sorted(rows, key=lambda r: (r[1]["name"].count("."), r[0])):
        name = row["name"]
        slug = slugs.get(row["device_type"], row["device_type"])
        if slug not in catalog:
            result.skipped.setdefault(row["device_type"], []).append(name)
            continue
        rack = racks.get(row.get("rack", ""))
        u = int(row["position"]) if row.get("position", "").isdigit() else None
        parent = next((p for p in _prefixes(name) if p in built), None)
        if parent is not None:  # a tray of a rack-scale system: it came with the system
            if not layout.has_group(name):
                raise NetboxImportError(f"{devices_csv}:{line}: {parent} ({slugs.get(parent)})"
                                        f" has no part {name!r}")
            for device in layout.group_devices(name):
                layout.update_device(device, rack=rack, u=u)
            result.devices += 1
            continue
        origin = (len(racks) * 1600.0 + 2000.0 + (result.devices % 8) * 1400.0,
                  (result.devices // 8) * 900.0)
        try:
            parts = instantiate(catalog, slug, name, origin=origin, rack=rack, u=u,
                                is_taken=layout.has_id)
            layout.add_all(parts.groups, parts.devices, parts.links)
        except (ValueError, LayoutError) as exc:
            raise NetboxImportError(f"{devices_csv}:{line}: {exc}") from None
        if catalog.get(slug).system is not None:
            built.add(name)
        result.devices += 1
    skipped = {n for names in result.skipped.values() for n in names}
    cables_csv = folder / "07-cables.csv"
    bundles: dict[tuple, list] = defaultdict(list)
    for line, row in _csv(cables_csv, {"side_a_device", "side_a_name", "side_b_device",
                                       "side_b_name"}):
        if row["side_a_device"] in skipped or row["side_b_device"] in skipped:
            continue
        ends = []
        for side in ("a", "b"):
            ends.append(_end(layout, row[f"side_{side}_device"], row[f"side_{side}_name"],
                             f"{cables_csv}:{line}"))
        length = float(row["length"]) if row.get("length") else None
        description = (row.get("description") or "").split(":", 1)[0].strip()
        cable = description if description in catalog else None
        label = row.get("label") or ""
        key = (label, ends[0].device, ends[0].group, ends[1].device, ends[1].group, cable,
               length)
        bundles[key].append((ends[0].index, ends[1].index, line))
        result.cables += 1
    number = 0
    for (label, da, ga, db, gb, cable, length), members in sorted(
            bundles.items(), key=lambda kv: kv[1][0][2]):
        for run in _runs(sorted(members)):
            number += 1
            lid = label if label and not layout.has_id(label) and _valid(label) else \
                layout.new_id("link")
            a = PortRef(da, ga, run[0][0])
            b = PortRef(db, gb, run[0][1])
            layout.add_link(Link(lid, a, b, len(run), cable, length))
    layout.revision = 0
    return result


def _prefixes(name: str) -> list[str]:
    """`a.b.c` -> [`a.b`, `a`]: the devices a NetBox device may be a part of."""
    parts = name.split(".")
    return [".".join(parts[:k]) for k in range(len(parts) - 1, 0, -1)]


def _valid(text: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", text) is not None


def _end(layout: Layout, device: str, interface: str, where: str) -> PortRef:
    part, _, port = interface.rpartition("/")
    target = f"{device}.{part}" if part else device
    if not layout.has_device(target):
        raise NetboxImportError(f"{where}: device {device!r} has no part {part!r} (interface "
                                f"{interface!r})" if part else
                                f"{where}: no device {device!r}")
    group, _, index = port.rpartition(".")
    if not group or not index.isdigit():
        group, index = port, "0"
    spec = layout.spec(target)
    if spec is not None and not spec.has_port(group):
        raise NetboxImportError(f"{where}: {target} ({spec.id}) has no port group {group!r} "
                                f"(interface {interface!r})")
    return PortRef(target, group, int(index))


def _runs(members: list[tuple[int, int, int]]) -> list[list[tuple[int, int, int]]]:
    """Split cables into runs of consecutive ports on both ends."""
    runs: list[list[tuple[int, int, int]]] = []
    for m in members:
        if runs and m[0] == runs[-1][-1][0] + 1 and m[1] == runs[-1][-1][1] + 1:
            runs[-1].append(m)
        else:
            runs.append([m])
    return runs
