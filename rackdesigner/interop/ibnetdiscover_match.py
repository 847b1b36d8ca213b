"""What an `ibnetdiscover` node is: its catalog model (by the node description first, then by
devid, from resources/interop/ib-devices.yaml) and the host an HCA belongs to (the first word
of its description, as rdma-ndd writes it, or a GUID→host map for HCAs that still carry their
vendor's factory description)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rackdesigner._resources import resources_root
from rackdesigner.catalog import Catalog
from rackdesigner.interop.ibnetdiscover_parse import IbnetdiscoverError, Node
from rackdesigner.yamlfile import read_resource

#: a description the HCA's firmware gives it (a part number "MT4123 ConnectX6 ...", or the
#: vendor's name): it names no host
_FACTORY = re.compile(r"^(MT\d{3,}\b|.*\bMellanox Technologies\b)", re.IGNORECASE)


@dataclass(frozen=True)
class DeviceMatch:
    model: str
    devid: int | None
    patterns: tuple[str, ...]


def device_table() -> list[DeviceMatch]:
    """The bundled table of InfiniBand devices: a catalog model, its devid, its description
    patterns."""
    data = read_resource(resources_root() / "interop" / "ib-devices.yaml")
    return [DeviceMatch(m["model"], m.get("devid"), tuple(m.get("patterns", ())))
            for m in data["models"]]


def match_model(node: Node, table: list[DeviceMatch], catalog: Catalog) -> str | None:
    desc = node.description.lower()
    for entry in table:
        if entry.model in catalog and any(p.lower() in desc for p in entry.patterns):
            return entry.model
    trait = "fabric_switch" if node.kind == "Switch" else "endpoint"
    for spec in catalog.doing(trait):
        names = [spec.id, *spec.aliases]
        if any(re.search(rf"\b{re.escape(n)}\b", desc) for n in names):
            return spec.id
    for entry in table:
        if entry.devid is not None and entry.devid == node.devid and entry.model in catalog:
            return entry.model
    return None


def host_of(node: Node, host_map: dict[str, str] | None = None) -> tuple[str, str, bool]:
    """(host, HCA name, named by its GUID) of a channel adapter: the first and second words of
    its description, or — for a factory description — the host map's name for its GUID, else
    `host-<guid>`."""
    guid = node.guid[2:].lower()
    words = node.description.split()
    if not words or _FACTORY.match(node.description):
        mapped = (host_map or {}).get(guid)
        return (mapped or f"host-{guid}"), "hca0", mapped is None
    return words[0], (words[1] if len(words) > 1 else guid), False


def read_guid_map(path: str | Path) -> dict[str, str]:
    """A GUID→host map (`0x0002c903000e0b72 node17` per line; `#` comments; the format of
    `export --host-map`), GUIDs normalised (no `0x`, lower case)."""
    from rackdesigner.interop.hostlist import HostMapError, read_host_map

    try:
        pairs = read_host_map(path)
    except HostMapError as exc:
        raise IbnetdiscoverError(str(exc)) from None
    out = {}
    for guid, host in pairs.items():
        key = guid.lower().removeprefix("0x")
        if not re.fullmatch(r"[0-9a-f]{1,16}", key):
            raise IbnetdiscoverError(f"{path}: {guid!r} is not a GUID (expected hex digits, "
                                     "e.g. 0x0002c903000e0b72)")
        out[key.rjust(16, "0")] = host
    return out
