"""Import a live InfiniBand fabric from `ibnetdiscover` output.

The format (ibnetdiscover(8), infiniband-diags): blocks of `key=0x...` header lines (vendid,
devid, sysimgguid, switchguid/caguid), a node line and its port lines:

    Switch  65 "S-b83fd20300a4b2c4"   # "MF0;leaf-01:MQM9700/U1" enhanced port 0 lid 1 lmc 0
    [1]     "H-b83fd20300c0d9a8"[1](b83fd20300c0d9a8)   # "dgx-01 mlx5_0" lid 5 4xNDR
    Ca      1 "H-b83fd20300c0d9a8"    # "dgx-01 mlx5_0"
    [1](b83fd20300c0d9a8)   "S-b83fd20300a4b2c4"[1]   # lid 5 lmc 0 "MF0;leaf-01:..." lid 1 4xNDR

Every link appears from both ends; a link whose far end has no block, a port number past the
node's port count, two ends that disagree, or a line of none of these shapes is a located error
(`file:line: what was expected`), which is how a truncated or garbled file shows.

Nodes are matched to catalog models (resources/interop/ib-devices.yaml) by the node description
first, then by devid; unmatched ones keep a placeholder model `unmatched-<devid>` (the design
loads, the rules mark them unknown, the report lists them). HCAs are grouped into hosts by the
first word of their description (`dgx-01 mlx5_0` is HCA mlx5_0 of host dgx-01, as rdma-ndd
writes it). An HCA that still has its vendor's factory description (`MT25408 ConnectX Mellanox
Technologies`, on hosts without rdma-ndd) names no host: it becomes a host of its own, named by
its GUID or by a GUID→host map (`--host-map`), and the report says how many did; a host that
gathers more HCAs than a server holds is reported too. The layout: spine switches on top,
leaves below them, hosts in rows under the leaves.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from rackdesigner.catalog import Catalog
from rackdesigner.interop.ibnetdiscover_match import (
    device_table,
    host_of,
    match_model,
    read_guid_map,
)
from rackdesigner.interop.ibnetdiscover_parse import (
    MAX_BYTES,
    MAX_HCAS_PER_HOST,
    MAX_PORTS,
    IbnetdiscoverError,
    Node,
    Port,
    parse,
)
from rackdesigner.interop.sanitize import one_line
from rackdesigner.model import Device, Group, Layout, Link, Meta, PortRef, natural_key
from rackdesigner.model.items import ID_CHARS
from rackdesigner.vocabulary.wording import counted

#: the names read through this module (the parser and the matcher are modules of their own)
__all__ = ["MAX_BYTES", "MAX_HCAS_PER_HOST", "MAX_PORTS", "IbnetdiscoverError", "ImportReport",
           "Node", "Port", "host_of", "import_file", "match_model", "parse", "read_guid_map",
           "to_layout"]
_BAD_ID = re.compile(rf"[^{ID_CHARS}]+")


@dataclass
class ImportReport:
    layout: Layout
    switches: int = 0
    hcas: int = 0
    hosts: int = 0
    links: int = 0
    unmatched: dict[str, list[str]] = field(default_factory=dict)  # description -> nodes
    messages: list[str] = field(default_factory=list)




def to_layout(nodes: dict[str, Node], catalog: Catalog | None = None,
              name: str = "", host_map: dict[str, str] | None = None) -> ImportReport:
    layout = Layout(catalog, Meta(name or "Imported InfiniBand fabric",
                                  "Imported from ibnetdiscover output"))
    catalog = layout.catalog
    table = device_table()
    report = ImportReport(layout)
    ids: dict[str, str] = {}
    models: dict[str, str | None] = {}
    hosts: dict[str, list[str]] = defaultdict(list)
    used: set[str] = set()
    factory = 0  # HCAs named by their GUID (a factory description and no map entry)

    def unique(base: str) -> str:
        base = _BAD_ID.sub("-", base).strip("-._")[:120].strip("-._") or "node"
        candidate, n = base, 1
        while candidate in used:
            n += 1
            candidate = f"{base}-{n}"
        used.add(candidate)
        return candidate

    for node in sorted(nodes.values(), key=lambda n: n.line):
        models[node.guid] = match_model(node, table, catalog)
        if node.kind == "Switch":
            ids[node.guid] = unique(_switch_name(node))
        else:
            host, hca, by_guid = host_of(node, host_map)
            factory += by_guid
            ids[node.guid] = unique(f"{host}.{hca}")
            hosts[host].append(node.guid)
        if models[node.guid] is None:
            report.unmatched.setdefault(node.description or node.guid, []).append(
                ids[node.guid])
    # tiers: leaves touch an HCA, spines do not
    leaves = {g for g, n in nodes.items() if n.kind == "Switch"
              and any(nodes[p.peer].kind != "Switch" for p in n.ports.values())}
    switches = sorted((g for g, n in nodes.items() if n.kind == "Switch"),
                      key=lambda g: natural_key(ids[g]))
    spines = [g for g in switches if g not in leaves]
    placed_leaves = [g for g in switches if g in leaves]
    for row, members in ((0, spines), (1, placed_leaves)):
        for i, guid in enumerate(members):
            _add_device(layout, ids[guid], nodes[guid], models[guid],
                        (i * 220.0, row * 300.0), None)
    host_names = sorted(hosts, key=natural_key)
    per_row = max(4, len(placed_leaves) or 4)
    for h, host in enumerate(host_names):
        gid = unique(host)
        layout.add_group(Group(gid, one_line(host), "node"))
        x0, y0 = (h % per_row) * 260.0, 700.0 + (h // per_row) * 300.0
        for k, guid in enumerate(sorted(hosts[host], key=lambda g: natural_key(ids[g]))):
            _add_device(layout, ids[guid], nodes[guid], models[guid],
                        (x0 + (k % 4) * 60.0, y0 + (k // 4) * 60.0), gid)
    slow: list[str] = []
    seen: set[tuple] = set()
    number = 0
    for guid in sorted(nodes, key=lambda g: nodes[g].line):
        node = nodes[guid]
        for port in sorted(node.ports.values(), key=lambda p: p.number):
            key = tuple(sorted([(guid, port.number), (port.peer, port.peer_port)]))
            if key in seen:
                continue
            seen.add(key)
            number += 1
            a = _port_ref(layout, ids[guid], port.number)
            b = _port_ref(layout, ids[port.peer], port.peer_port)
            layout.add_link(Link(f"link-{number}", a, b))
            rate = _slower_than_port(layout, a, port.speed)
            if rate:
                slow.append(f"{ids[guid]} port {port.number}: {port.speed} on {rate} port")
    layout.revision = 0
    report.switches = len(switches)
    report.hcas = sum(1 for n in nodes.values() if n.kind != "Switch")
    report.hosts = len(hosts)
    report.links = number
    if slow:
        report.messages.append(f"{counted(len(slow), 'link')} "
                               f"{'runs' if len(slow) == 1 else 'run'} below their ports' "
                               f"rate, e.g. {slow[0]}")
    if factory:
        report.messages.append(
            f"{counted(factory, 'HCA')} {'carries' if factory == 1 else 'carry'} their vendor's "
            f"factory description (no host name: "
            "rdma-ndd does not run there), so each is a host of its own named by its GUID; "
            "give their host names with a GUID map (--host-map FILE: 'GUID host' per line)")
    crowded = sorted((h for h, members in hosts.items() if len(members) > MAX_HCAS_PER_HOST),
                     key=natural_key)
    if crowded:
        report.messages.append(
            f"host {one_line(crowded[0])!r} gathers {len(hosts[crowded[0]])} HCAs (more than "
            f"the {MAX_HCAS_PER_HOST} a server holds): their descriptions share a first word "
            "that is not a host name; check the capture's node descriptions"
            + (f" ({len(crowded) - 1} more such hosts)" if len(crowded) > 1 else ""))
    return report


def import_file(path: str | Path, catalog: Catalog | None = None,
                host_map: str | Path | None = None) -> ImportReport:
    from rackdesigner.inputs import InputError, read_text
    from rackdesigner.interop.importcheck import unreadable_reason

    path = Path(path)
    try:
        text = read_text(path, MAX_BYTES, "ibnetdiscover output")
    except InputError as exc:
        raise IbnetdiscoverError(str(exc)) from None
    guids = read_guid_map(host_map) if host_map is not None else None
    report = to_layout(parse(text, str(path)), catalog,
                       one_line(f"InfiniBand fabric from {path.name}"), guids)
    reason = unreadable_reason(report.layout)
    if reason is not None:
        raise IbnetdiscoverError(f"{path}: cannot import: {reason}")
    return report


def _switch_name(node: Node) -> str:
    desc = node.description
    if ";" in desc:  # "MF0;leaf-01:MQM9700/U1": the system name between ';' and ':'
        desc = desc.split(";", 1)[1].split(":", 1)[0]
    return desc.split()[0] if desc.split() else f"switch-{node.guid[2:]}"


def _add_device(layout: Layout, did: str, node: Node, model: str | None,
                pos: tuple[float, float], group: str | None) -> None:
    placeholder = f"unmatched-{node.devid:#06x}" if node.devid is not None else "unmatched"
    props: tuple[tuple[str, str], ...] = (("x-ib-description", node.description),
                                          ("x-ib-guid", node.guid[2:]))
    if model is None:  # what the capture says the node is, for the exports (units.py)
        props = (*props, ("x-ib-type", node.kind))
    layout.add_device(Device(did, model or placeholder, "", pos, None, None, group, props))


def _ib_group(layout: Layout, device: str) -> tuple[str, int]:
    spec = layout.spec(device)
    if spec is not None:
        for g in spec.ports:
            if g.protocol == "infiniband":
                return g.name, g.count
        for g in spec.ports:
            if g.protocol == "ethernet":
                return g.name, g.count
    return "ib", 0


def _port_ref(layout: Layout, device: str, port: int) -> PortRef:
    group, count = _ib_group(layout, device)
    if count == 1:
        return PortRef(device, group)
    return PortRef(device, group, port - 1)


def _slower_than_port(layout: Layout, end: PortRef, speed: str) -> str:
    spec = layout.spec(end.device)
    if not speed or spec is None or not spec.has_port(end.group):
        return ""
    generation = spec.port(end.group).generation.upper()
    running = speed.split("x", 1)[1].upper()
    order = ("SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR")
    if generation in order and running in order and order.index(running) < order.index(
            generation):
        return f"an {generation}" if generation[0] in "AEFHILMNORSX" else f"a {generation}"
    return ""
