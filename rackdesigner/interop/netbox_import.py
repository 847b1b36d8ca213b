"""NetBox device types (the community device-type library's YAML) as user catalog models.

A device type gives manufacturer, model, slug, u_height, weight, airflow, interfaces (name,
type, mgmt_only) and power ports (maximum_draw, allocated_draw). RackDesigner also needs each
fabric port's protocol and rate: the interface type says it for InfiniBand and Ethernet
(`infiniband-ndr`, `400gbase-x-osfp`, netbox_types.py); for other types (`other`, vendor
slugs) the caller supplies `PortFacts` per interface type (the CLI asks, or takes
`--port TYPE=PROTOCOL:GBPS`; an answer always wins). The kind is a switch when the type has 24
or more fabric ports and does not name a server family (DGX, HGX...), else the caller says
(`--kind`). Management interfaces are left out: those marked `mgmt_only`, and 1 Gb/s copper
ports (the community library does not always mark a switch's `eth0`/`eth1` management; no
fabric runs on 1000BASE-T). Ports typed InfiniBand stay InfiniBand whatever `--fabric` says.

Every figure cites the device type as its source; answers given at import cite "given at
import". The result validates with the catalog loader before it is written.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from rackdesigner import vocabulary
from rackdesigner.catalog.loader import SCHEMA
from rackdesigner.catalog.user import spec_from_data
from rackdesigner.inputs import InputError, finite_number, load_yaml, read_text
from rackdesigner.interop.netbox_types import PortFacts, port_facts
from rackdesigner.vocabulary.wording import SettingError, counted

FABRIC = vocabulary.protocols_of("network")
#: A device type with at least this many fabric ports is taken for a switch (servers and
#: adapters have fewer); below it the kind is asked.
SWITCH_PORTS = 24
WEIGHT_KG = {"kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125}
LIBRARY_URL = "https://github.com/netbox-community/devicetype-library"
MAX_BYTES = 4 * 2**20


class NetboxTypeError(SettingError):
    """A device type cannot be turned into a model; the message is `file: key: ...`, in the
    design's words. `option` names the answer that would settle it ("port": the protocol and
    rate of interface type `itype`; "kind": what the device is), for each surface to ask it
    its own way (the CLI's `--port TYPE=PROTOCOL:GBPS` and `--kind`, the designer's dialogs)."""

    DESIGN_WORDS = MappingProxyType({"fabric": "the fabric", "port": "the port answer",
                                     "kind": "the kind"})

    def __init__(self, message: str, option: str | None = None, itype: str | None = None
                 ) -> None:
        super().__init__(message, option)
        self.itype = itype


def read_device_type(path: Path) -> dict[str, Any]:
    """A NetBox device type read under the input discipline (inputs.py): a regular UTF-8
    file of at most 4 MiB, YAML without aliases, tags or runaway nesting."""
    try:
        data = load_yaml(read_text(path, MAX_BYTES, "NetBox device type"), path)
    except InputError as exc:
        raise NetboxTypeError(str(exc)) from None
    if not isinstance(data, dict):
        raise NetboxTypeError(f"{path}: expected a NetBox device type (a mapping with "
                              "manufacturer, model, slug...)")
    for key in ("manufacturer", "model", "slug"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise NetboxTypeError(f"{path}: {key}: missing (a NetBox device type has "
                                  "manufacturer, model and slug)")
    for key, high in (("u_height", 100), ("weight", 10_000)):
        if data.get(key) is not None:
            try:
                data[key] = finite_number(data[key], key, low=0, high=high)
            except ValueError as exc:
                raise NetboxTypeError(f"{path}: {exc}") from None
            if data[key].is_integer():
                data[key] = int(data[key])
    for i, port in enumerate(data.get("power-ports") or []):
        if not isinstance(port, dict):
            continue
        for key in ("maximum_draw", "allocated_draw"):
            if port.get(key) is not None:
                try:
                    finite_number(port[key], f"power-ports[{i}].{key}", low=0, high=10**6)
                except ValueError as exc:
                    raise NetboxTypeError(f"{path}: {exc}") from None
    return data


#: Signs that a device type is an InfiniBand part whatever its interface types say: the
#: community library gives InfiniBand switches Ethernet types (QM8700: 200gbase-x-qsfp56).
#: NVIDIA/Mellanox InfiniBand switch families by name or part number (Quantum: QM8700/8790,
#: QM9700/9790, Q3400; Switch-IB: SB7700/7800/7890; director chassis CS7500/CS8500).
#: SwitchX-2 SX60xx (SX6012/6018/6036: FDR, 56 Gb/s; NVIDIA's SwitchX-2 product briefs) too.
IB_NAMES = re.compile(r"(?<![A-Za-z0-9])(?:M?QM[89]7\d\d|M?QM3\d{3}|Q3[0-9]{3}|M?SB7[7-8]\d\d"
                      r"|M?CS[78][5-9]\d\d|M?SX6\d{3}|Quantum(?:-2|-X)?|Switch-IB|SwitchX"
                      r"|InfiniBand)",
                      re.IGNORECASE)
#: Server families: a device type naming one is never taken for a switch by its port count
#: (the library's DGX A100 lists more than 24 fabric interfaces).
SERVER_NAMES = re.compile(r"(?<![A-Za-z0-9])(?:DGX|HGX|PowerEdge|ProLiant|ThinkSystem|server)"
                          r"(?![A-Za-z])", re.IGNORECASE)
#: Interface types that are management, never fabric: 1 Gb/s copper.
MANAGEMENT_TYPES = ("1000base-t", "100base-tx", "10base-t", "100base-t1")
#: InfiniBand 4x rates -> generation (IBTA), for Ethernet-typed ports of an InfiniBand part.
IB_BY_RATE = {40: "QDR", 56: "FDR", 100: "EDR", 200: "HDR", 400: "NDR", 800: "XDR"}


def infiniband_sign(data: dict[str, Any]) -> str | None:
    """Why the device type looks like an InfiniBand part (None when nothing says so)."""
    for key in ("model", "part_number", "slug", "comments", "description"):
        value = data.get(key)
        if isinstance(value, str) and (m := IB_NAMES.search(value)):
            return f"its {key} names an InfiniBand part ({m[0]})"
    names = [str(i.get("name", "")) for i in data.get("interfaces") or []
             if isinstance(i, dict) and not i.get("mgmt_only")]
    if names and all(re.match(r"IB\d", n) for n in names):
        return f"its interfaces are named as InfiniBand ports ({names[0]}...)"
    return None


def fabric_interfaces(path: Path, data: dict[str, Any]) -> OrderedDict[str, list[str]]:
    """interface type -> interface names, management interfaces left out."""
    raw = data.get("interfaces") or []
    if not isinstance(raw, list):
        raise NetboxTypeError(f"{path}: interfaces: expected a list of {{name, type}}")
    if len(raw) > 10_000:
        raise NetboxTypeError(f"{path}: interfaces: {len(raw):,} entries; no device has that "
                              "many")
    out: OrderedDict[str, list[str]] = OrderedDict()
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or "name" not in item or "type" not in item:
            raise NetboxTypeError(f"{path}: interfaces[{i}]: expected name and type")
        if item.get("mgmt_only") or str(item["type"]) in ("virtual", "lag", *MANAGEMENT_TYPES):
            continue
        out.setdefault(str(item["type"]), []).append(str(item["name"]))
    return out


def unanswered(path: Path, data: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Interface types whose protocol/rate the type does not say (the questions to ask)."""
    return [(t, names) for t, names in fabric_interfaces(path, data).items()
            if port_facts(t) is None]


def to_catalog_data(path: Path, data: dict[str, Any], answers: dict[str, PortFacts],
                    kind: str | None = None, fabric: str = "auto",
                    warnings: list[str] | None = None) -> dict[str, Any]:
    """The catalog file's data for a device type; NetboxTypeError when a question is open.

    `fabric`: "auto" takes Ethernet-typed ports of a part that is recognisably InfiniBand
    (`infiniband_sign`) as InfiniBand at the same rate and says so in `warnings`;
    "infiniband" or "ethernet" decides for every fabric port."""
    groups: list[dict[str, Any]] = []
    answered = False
    names_taken: set[str] = set()
    interfaces = fabric_interfaces(path, data)
    sign = infiniband_sign(data) if fabric == "auto" else None
    for itype, names in interfaces.items():
        facts = port_facts(itype)
        source = "netbox"
        if itype in answers:  # what the user said wins over what the type or the name say
            facts, source, answered = answers[itype], "answer", True
        elif facts is not None and facts.protocol == "ethernet" and (
                fabric == "infiniband" or sign is not None):
            rate = int(facts.rate_gbps)
            if rate not in IB_BY_RATE:
                raise NetboxTypeError(
                    f"{path}: interfaces: type {itype!r} is Ethernet at {rate} Gb/s, but "
                    f"{sign or 'it was said to be InfiniBand'}, and no InfiniBand generation "
                    f"runs at {rate} Gb/s: say this type's protocol and rate, or take the unit "
                    "as Ethernet", "port", itype)
            gen = IB_BY_RATE[rate]
            facts = PortFacts("infiniband", gen, float(rate), 4, facts.connector)
            source = "answer"
            answered = True
            if warnings is not None:
                warnings.append(
                    f"{path.name}: {counted(len(names), 'port')} of type {itype!r} taken as "
                    f"InfiniBand "
                    f"{gen} ({rate} Gb/s): NetBox calls them Ethernet, but "
                    f"{sign or 'it was said to be InfiniBand ({fabric} infiniband)'}; if this "
                    "unit runs Ethernet, import it with {fabric} ethernet")
        if facts is None:
            facts = answers.get(itype)
            if facts is None:
                raise NetboxTypeError(
                    f"{path}: interfaces: type {itype!r} ({counted(len(names), 'port')}, e.g. "
                    f"{names[0]}) does not say its protocol and rate: say them", "port", itype)
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
    server = next((m[0] for key in ("model", "slug", "part_number", "comments")
                   if isinstance(data.get(key), str) and (m := SERVER_NAMES.search(data[key]))),
                  None)
    if kind is None:
        if fabric_ports >= SWITCH_PORTS and server is None:
            kind = "switch"
        else:
            why = (f"names a server ({server})" if server is not None
                   else "is not clearly a switch")
            raise NetboxTypeError(f"{path}: has {counted(fabric_ports, 'fabric port')} and "
                                  f"{why}: say "
                                  "what kind of device it is (switch, nic, dpu, chassis...)",
                                  "kind")
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
        ports = counted(len(draws), "power port")
        power: dict[str, Any] = {"source": "netbox", "note": f"sum over {ports} of NetBox's "
                                 "allocated_draw / maximum_draw"}
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
        out["sources"]["answer"] = {"title": "Port protocol and rate given at import, or "
                                             "taken as InfiniBand because the part is one (the "
                                             "NetBox interface type does not say it)"}
    out["notes"] = ("Converted by 'rackdesigner catalog import-netbox'. NetBox has no switch "
                    "latency or in-network reduction facts: add a 'switch:' block with a "
                    "source when you have them.") if vocabulary.traits_of(kind).fabric_switch else (
                    "Converted by 'rackdesigner catalog import-netbox'.")
    _spec, problems = spec_from_data(out, f"{slug}.yaml")
    if problems:
        raise NetboxTypeError(f"{path}: the converted model is invalid: "
                              + "; ".join(str(p) for p in problems))
    return out


def dump(data: dict[str, Any]) -> str:
    return ("# RackDesigner device model, converted from a NetBox device type\n"
            + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))
