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
import io
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from rackdesigner.catalog import Catalog
from rackdesigner.inputs import (
    InputError,
    finite_number,
    load_yaml,
    read_text,
    regular_files,
    whole_number,
)
from rackdesigner.interop.sanitize import one_line, uncell
from rackdesigner.model import Device, Layout, LayoutError, Link, Meta, PortRef, instantiate
from rackdesigner.model.items import ID_CHARS, MAX_U, is_valid_id
from rackdesigner.vocabulary.wording import counted

_BAD_ID = re.compile(rf"[^{ID_CHARS}]+")
MAX_CSV_BYTES = 256 * 2**20
MAX_TYPE_BYTES = 4 * 2**20
#: NetBox's length units (dcim.choices.CableLengthUnitChoices) in metres.
LENGTH_UNITS = {"": 1.0, "m": 1.0, "cm": 0.01, "km": 1000.0, "ft": 0.3048, "in": 0.0254,
                "mi": 1609.344}


class NetboxImportError(ValueError):
    """The folder cannot be read as NetBox import files; the message is `file:line: ...`."""


@dataclass
class NetboxImport:
    layout: Layout
    devices: int = 0
    cables: int = 0
    skipped: dict[str, list[str]] = field(default_factory=dict)  # device type -> devices
    notes: list[str] = field(default_factory=list)


def _csv(path: Path, required: set[str]) -> list[tuple[int, dict[str, str]]]:
    """The rows of a CSV file as (line, {column: text}); every row must have the header's
    number of fields. A leading `'` that an export put before `= + - @` (formula guard,
    sanitize.py) is taken off again."""
    try:
        text = read_text(path, MAX_CSV_BYTES, "NetBox CSV file")
    except InputError as exc:
        if exc.message.startswith("no such"):
            raise NetboxImportError(f"{path}: no such file (expected the files "
                                    "'rackdesigner export -f netbox' writes)") from None
        raise NetboxImportError(str(exc)) from None
    rows: list[tuple[int, dict[str, str]]] = []
    try:
        reader = csv.reader(io.StringIO(text, newline=""))
        header = next(reader, None)
        if header is None:
            raise NetboxImportError(f"{path}:1: the file is empty (expected a header row)")
        header = [h.strip() for h in header]
        if len(set(header)) != len(header):
            raise NetboxImportError(f"{path}:1: a column name appears twice")
        missing = required - set(header)
        if missing:
            raise NetboxImportError(f"{path}:1: missing "
                                    f"{'column' if len(missing) == 1 else 'columns'} "
                                    f"{', '.join(sorted(missing))}")
        line = reader.line_num + 1
        for fields in reader:
            if fields and len(fields) != len(header):
                raise NetboxImportError(f"{path}:{line}: {counted(len(fields), 'field')}, expected "
                                        f"{len(header)} (one per column of line 1)")
            if fields:
                rows.append((line, {h: _unguard(f) for h, f in zip(header, fields,
                                                                    strict=True)}))
            line = reader.line_num + 1
    except csv.Error as exc:
        raise NetboxImportError(f"{path}:{reader.line_num}: not valid CSV: {exc}") from None
    return rows


_unguard = uncell


def read_folder(folder: str | Path, catalog: Catalog | None = None) -> NetboxImport:
    from rackdesigner.interop.folders import verify_manifest
    from rackdesigner.interop.importcheck import unreadable_reason

    folder = Path(folder)
    if not folder.is_dir():
        raise NetboxImportError(f"{folder}: not a folder of NetBox import files")
    incomplete, changed = verify_manifest(folder)
    if incomplete is not None:
        raise NetboxImportError(incomplete)
    layout = Layout(catalog, Meta("Imported from NetBox", f"Imported from {folder.name}"))
    catalog = layout.catalog
    result = NetboxImport(layout)
    if changed:
        result.notes.append(f"{counted(len(changed), 'file')} changed since the export wrote them "
                            f"({', '.join(changed[:3])}{'...' if len(changed) > 3 else ''})")
    slugs: dict[str, str] = {}
    type_dir = folder / "03-device-types"
    try:
        type_files = regular_files(type_dir, ("*.yaml", "*.yml"), recursive=False) \
            if type_dir.is_dir() else []
        for path in type_files:
            doc = load_yaml(read_text(path, MAX_TYPE_BYTES, "NetBox device type"), path)
            if not (isinstance(doc, dict) and isinstance(doc.get("model"), str)
                    and isinstance(doc.get("slug"), str)):
                what = "the file is empty" if doc is None else "not a NetBox device type"
                raise NetboxImportError(f"{path}: {what} (expected a mapping with at least "
                                        "model and slug)")
            slugs[doc["model"]] = doc["slug"]
    except InputError as exc:
        raise NetboxImportError(f"{exc} (a NetBox device type was expected)") from None
    racks: dict[str, str] = {}
    heights = {s.rack.height_u: s.id for s in catalog.doing("contains", "units")
               if s.rack is not None}
    racks_csv = folder / "05-racks.csv"
    rack_lines: dict[str, tuple[int, str]] = {}  # rack id -> (line, NetBox name)
    for line, row in _csv(racks_csv, {"name", "u_height"}):
        name = row["name"]
        rid = _BAD_ID.sub("-", name).strip("-._")[:120] or f"rack-{line}"
        if rid in rack_lines:
            first, other = rack_lines[rid]
            raise NetboxImportError(f"{racks_csv}:{line}: rack {name!r} and rack {other!r} "
                                    f"(line {first}) both become the id {rid!r}; rename one")
        rack_lines[rid] = (line, name)
        try:
            height = whole_number(row["u_height"] or "42", "u_height", low=1, high=100)
        except ValueError as exc:
            raise NetboxImportError(f"{racks_csv}:{line}: {exc}") from None
        model = heights.get(height) or heights.get(42) or next(iter(heights.values()), "rack")
        racks[name] = rid
        try:
            layout.add_device(Device(rid, model, one_line(name), (len(racks) * 1600.0, 0.0)))
        except LayoutError as exc:
            raise NetboxImportError(f"{racks_csv}:{line}: {exc}") from None
    devices_csv = folder / "06-devices.csv"
    built: set[str] = set()  # devices made from a catalog system
    rows = _csv(devices_csv, {"name", "device_type"})
    first_line: dict[str, int] = {}
    for line, row in rows:
        if row["name"] in first_line:
            raise NetboxImportError(f"{devices_csv}:{line}: device {row['name']!r} is listed "
                                    f"twice (first on line {first_line[row['name']]})")
        first_line[row["name"]] = line
    for line, row in sorted(rows, key=lambda r: (r[1]["name"].count("."), r[0])):
        name = row["name"]
        slug = slugs.get(row["device_type"], row["device_type"])
        if slug not in catalog:
            result.skipped.setdefault(row["device_type"], []).append(name)
            continue
        rack = racks.get(row.get("rack", ""))
        try:
            u = whole_number(row["position"], "position (rack unit)", low=1, high=MAX_U) \
                if (row.get("position") or "").strip() else None
        except ValueError as exc:
            raise NetboxImportError(f"{devices_csv}:{line}: {exc}") from None
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
    if not result.devices:  # an import that keeps nothing is not a design
        left = "; ".join(f"{t!r} ({len(n)})" for t, n in sorted(result.skipped.items()))
        raise NetboxImportError(
            f"{devices_csv}: no device could be imported: "
            + (f"no device type is in the catalog ({left}); add them with 'rackdesigner "
               "catalog import-netbox'" if left else "the file lists no device"))
    skipped = {n for names in result.skipped.values() for n in names}
    cables_csv = folder / "07-cables.csv"
    bundles: dict[tuple, list] = defaultdict(list)
    cabled: dict[tuple[str, str], int] = {}  # (device, interface) -> line of its cable
    for line, row in _csv(cables_csv, {"side_a_device", "side_a_name", "side_b_device",
                                       "side_b_name"}):
        for side in ("a", "b"):
            interface = (row[f"side_{side}_device"], row[f"side_{side}_name"])
            if interface in cabled:
                raise NetboxImportError(
                    f"{cables_csv}:{line}: interface {interface[1]!r} of {interface[0]!r} is "
                    f"cabled twice (first on line {cabled[interface]}); one cable per "
                    "interface")
            cabled[interface] = line
        length = _length(row, f"{cables_csv}:{line}")
        if row["side_a_device"] in skipped or row["side_b_device"] in skipped:
            continue
        ends = []
        for side in ("a", "b"):
            ends.append(_end(layout, row[f"side_{side}_device"], row[f"side_{side}_name"],
                             f"{cables_csv}:{line}"))
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
            lid = label if label and not layout.has_id(label) and is_valid_id(label) else \
                layout.new_id("link")
            a = PortRef(da, ga, run[0][0])
            b = PortRef(db, gb, run[0][1])
            try:
                layout.add_link(Link(lid, a, b, len(run), cable, length))
            except LayoutError as exc:
                raise NetboxImportError(f"{cables_csv}:{run[0][2]}: {exc}") from None
    reason = unreadable_reason(layout)
    if reason is not None:
        raise NetboxImportError(f"{folder}: cannot import: {reason}")
    layout.revision = 0
    return result


def _length(row: dict[str, str], where: str) -> float | None:
    """The cable's length in metres (NetBox gives a number and a unit), or None."""
    text = (row.get("length") or "").strip()
    if not text:
        return None
    unit = (row.get("length_unit") or "").strip().lower()
    if unit not in LENGTH_UNITS:
        raise NetboxImportError(f"{where}: length_unit {unit!r} is not one of NetBox's "
                                f"({', '.join(u for u in LENGTH_UNITS if u)})")
    try:
        value = finite_number(text, "length", low=0, high=1e6)
    except ValueError as exc:
        raise NetboxImportError(f"{where}: {exc}") from None
    return round(value * LENGTH_UNITS[unit], 6)


def _prefixes(name: str) -> list[str]:
    """`a.b.c` -> [`a.b`, `a`]: the devices a NetBox device may be a part of."""
    parts = name.split(".")
    return [".".join(parts[:k]) for k in range(len(parts) - 1, 0, -1)]


def _end(layout: Layout, device: str, interface: str, where: str) -> PortRef:
    part, _, port = interface.rpartition("/")
    target = f"{device}.{part}" if part else device
    if not layout.has_device(target):
        raise NetboxImportError(f"{where}: device {device!r} has no part {part!r} (interface "
                                f"{interface!r})" if part else
                                f"{where}: no device {device!r}")
    group, _, index = port.rpartition(".")
    if not group or not re.fullmatch(r"[0-9]{1,6}", index):
        group, index = port, "0"
    if not re.fullmatch(r"[A-Za-z][\w\-]*", group, re.ASCII):
        raise NetboxImportError(f"{where}: interface {interface!r} is not a port name RackDesigner "
                                "reads (e.g. ib.3 or nic0/ib.3)")
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
