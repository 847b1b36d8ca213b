"""NetBox device types (the community device-type library's YAML) as user catalog models.

A device type gives manufacturer, model, slug, u_height, weight, airflow, interfaces (name,
type, mgmt_only) and power ports (maximum_draw, allocated_draw). RackDesigner also needs each
fabric port's protocol and rate: the interface type says it for InfiniBand and Ethernet
(`infiniband-ndr`, `400gbase-x-osfp`, netbox_types.py); for other types (`other`, vendor
slugs) the caller supplies `PortFacts` per interface type (the CLI asks, or takes
`--port TYPE=PROTOCOL:GBPS`). The kind is a switch when the type has 24 or more fabric ports,
else the caller says (`--kind`). Management interfaces are left out.

Every figure cites the device type as its source; answers given at import cite "given at
import". The result validates with the catalog loader before it is written.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any

import yaml

from rackdesigner import vocabulary
from rackdesigner.catalog.loader import SCHEMA, SafeLoader
from rackdesigner.catalog.user import spec_from_data
from rackdesigner.interop.netbox_types import PortFacts, port_facts

FABRIC = vocabulary.protocols_of("network")
#: A device type with at least this many fabric ports is taken for a switch (servers and
#: adapters have fewer); below it the kind is asked.
SWITCH_PORTS = 24
WEIGHT_KG = {"kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125}
LIBRARY_URL = "https://github.com/netbox-community/devicetype-library"


class NetboxTypeError(ValueError):
    """A device type cannot be turned into a model; the message is `file: key: ...`."""


def read_device_type(path: Path) -> dict[str, Any]:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=SafeLoader)
    except FileNotFoundError:
        raise NetboxTypeError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise NetboxTypeError(f"{path}: cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise NetboxTypeError(f"{path}{where}: not valid YAML: "
                              f"{getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, dict):
        raise NetboxTypeError(f"{path}: expected a NetBox device type (a mapping with "
                              "manufacturer, model, slug...)")
    for key in ("manufacturer", "model", "slug"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise NetboxTypeError(f"{path}: {key}: missing (a NetBox device type has "
                                  "manufacturer, model and slug)")
    return data


def fabric_interfaces(path: Path, data: dict[str, Any]) -> OrderedDict[str, list[str]]:
    """interface type -> interface names, management interfaces left out."""
    raw = data.get("interfaces") or []
    if not isinstance(raw, list):
        raise NetboxTypeError(f"{path}: interfaces: expected a list of {{name, type}}")
    out: OrderedDict[str, list[str]] = OrderedDict()
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or "name" not in item or "type" not in item:
            raise NetboxTypeError(f"{path}: interfaces[{i}]: expected name and type")
        if item.get("mgmt_only") or str(item["type"]) in ("virtual", "lag"):
            continue
        out.setdefault(str(item["type"]), []).append(str(item["name"]))
    return out


def unanswered(path: Path, data: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Interface types whose protocol/rate the type does not say (the questions to ask)."""
    return [(t, names) for t, names in fabric_interfaces(path, data).items()
            if port_facts(t) is None]


def to_catalog_data(path: Path, data: dict[str, Any], answers: dict[str, PortFacts],
                    kind: str | None = None) -> dict[str, Any]:
    """The catalog file's data for a device type; NetboxTypeError when a question is open."""
    groups: list[dict[str, Any]] = []
    answered = False
    names_taken: set[str] = set()
    interfaces = fabric_interfaces(path, data)
    for itype, names in interfaces.items():
        facts = port_facts(itype)
        source = "netbox"
        if facts is None:
            facts = answers.get(itype)
            if facts is None:
                raise NetboxTypeError(
                    f"{path}: interfaces: type {itype!r} ({len(names)} port(s), e.g. "
                    f"{names[0]}) does not say its protocol and rate; give them with "
                    f"--port {itype}=PROTOCOL:GBPS (e.g. --port {itype}=ethernet:400)")
            source, answered = "answer", True
        if facts.protocol not in FABRIC:
            continue
        base = "ib" if facts.protocol == "infiniband" else "eth"
        name = base if base not in names_taken else f"{base}-{int(facts.rate_gbps)}g"
        while name in names_taken:
            name += "x"
        names_taken.add(name)
        groups.append({"name": name, "protocol": facts.protocol,
                       "generation": facts.generation, "count": len(names),
                       "lanes": facts.lanes, "rate_gbps": facts.rate_gbps,
                       "connector": facts.connector, "source": source})
    fabric_ports = sum(g["count"] for g in groups)
    if kind is None:
        if fabric_ports >= SWITCH_PORTS:
            kind = "switch"
        else:
            raise NetboxTypeError(f"{path}: has {fabric_ports} fabric port(s), so it is not "
                                  "clearly a switch; say what it is with --kind (switch, nic, "
                                  "dpu, chassis...)")
    slug = str(data["slug"])
    out: dict[str, Any] = {
        "schema": SCHEMA, "id": slug, "kind": kind,
        "manufacturer": str(data["manufacturer"]), "model": str(data["model"]),
        "description": f"Imported from the NetBox device type {path.name}"
                       + (f" (part number {data['part_number']})"
                          if data.get("part_number") else ""),
    }
    if data.get("u_height") is not None:
        out["u_height"] = data["u_height"]
    weight = data.get("weight")
    if isinstance(weight, int | float) and not isinstance(weight, bool):
        unit = str(data.get("weight_unit", "kg")).lower()
        if unit not in WEIGHT_KG:
            raise NetboxTypeError(f"{path}: weight_unit: expected kg, g, lb or oz, got "
                                  f"{unit!r}")
        out["weight_kg"] = round(weight * WEIGHT_KG[unit], 3)
    if data.get("airflow"):
        out["airflow"] = str(data["airflow"])
    draws = [p for p in data.get("power-ports") or [] if isinstance(p, dict)]
    max_w = sum(p["maximum_draw"] for p in draws
                if isinstance(p.get("maximum_draw"), int | float))
    typ_w = sum(p["allocated_draw"] for p in draws
                if isinstance(p.get("allocated_draw"), int | float))
    if max_w or typ_w:
        power: dict[str, Any] = {"source": "netbox", "note": f"sum over {len(draws)} power "
                                 "port(s) of NetBox's allocated_draw / maximum_draw"}
        if typ_w:
            power["typical_w"] = typ_w
        if max_w:
            power["max_w"] = max_w
        out["power"] = power
    if groups:
        out["ports"] = groups
    out["sources"] = {"netbox": {"title": f"NetBox device type {data['manufacturer']} "
                                          f"{data['model']} ({path.name})",
                                 "url": LIBRARY_URL}}
    if answered:
        out["sources"]["answer"] = {"title": "Port protocol and rate given at import (the "
                                             "NetBox interface type does not say them)"}
    out["notes"] = ("Converted by 'rackdesigner catalog import-netbox'. NetBox has no switch "
                    "latency or in-network reduction facts: add a 'switch:' block with a "
                    "source when you have them.") if kind == "switch" else (
                    "Converted by 'rackdesigner catalog import-netbox'.")
    _spec, problems = spec_from_data(out, f"{slug}.yaml")
    if problems:
        raise NetboxTypeError(f"{path}: the converted model is invalid: "
                              + "; ".join(str(p) for p in problems))
    return out


def dump(data: dict[str, Any]) -> str:
    return ("# RackDesigner device model, converted from a NetBox device type\n"
            + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))
