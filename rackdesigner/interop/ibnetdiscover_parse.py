"""Reading `ibnetdiscover` output (ibnetdiscover(8), infiniband-diags) into nodes and ports:
blocks of `key=0x...` header lines, a node line and its port lines. Every link appears from
both ends; a link whose far end has no block, a port number past the node's port count, two
ends that disagree, or a line of none of these shapes is a located error (`file:line: what was
expected`), which is how a truncated or garbled file shows. `ibnetdiscover.py` makes a layout
of them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rackdesigner.vocabulary.wording import counted

#: more HCAs than any server holds (a DGX B200: 8 compute + 2 BlueField + storage): one host
#: named by a shared first word is then a merge of many hosts, said in the report
MAX_HCAS_PER_HOST = 16
_KV = re.compile(r"^(vendid|devid|sysimgguid|switchguid|caguid|rtguid)=(0x[0-9A-Fa-f]{1,16})\b")
_NODE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR]-[0-9A-Fa-f]{1,32})"\s*(?:#\s*(.*))?$')
_PORT = re.compile(r'^\[(\d+)\](?:\(([0-9A-Fa-f]{1,32})\))?\s+"([SHR]-[0-9A-Fa-f]{1,32})"\[(\d+)\]'
                   r'(?:\(([0-9A-Fa-f]{1,32})\))?\s*(?:#\s*(.*))?$')
#: Port numbers are 8-bit in InfiniBand (a switch has at most 254 ports: ibnetdiscover(8)).
MAX_PORTS = 255
MAX_BYTES = 256 * 2**20
_QUOTED = re.compile(r'"([^"]*)"')
_SPEED = re.compile(r"\b(\d+)x(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\b")
_FORMS = ("a node line (Switch N \"S-guid\" / Ca N \"H-guid\"), a port line ([N] \"GUID\"[M]) "
          "or a header (vendid=0x..., devid=0x..., switchguid=0x...)")


class IbnetdiscoverError(ValueError):
    """The file is not readable ibnetdiscover output; the message is `file:line: ...`."""


@dataclass
class Port:
    number: int
    peer: str
    peer_port: int
    speed: str
    line: int


@dataclass
class Node:
    kind: str  # Switch, Ca, Rt
    guid: str
    nports: int
    description: str
    devid: int | None
    line: int
    ports: dict[int, Port] = field(default_factory=dict)


def parse(text: str, label: str = "<ibnetdiscover>") -> dict[str, Node]:
    """The nodes of an ibnetdiscover dump, validated (IbnetdiscoverError, located)."""
    nodes: dict[str, Node] = {}
    header: dict[str, int] = {}
    current: Node | None = None
    lines = text.splitlines()
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if m := _KV.match(line):
            if current is not None and current.ports:
                header = {}
            current = None
            header[m[1]] = int(m[2], 16)
            continue
        if m := _NODE.match(line):
            kind, nports, guid, comment = m[1], _number(m[2], label, number), m[3], m[4] or ""
            _check_quotes(comment, label, number)
            if guid in nodes:
                raise IbnetdiscoverError(f"{label}:{number}: node {guid} is described twice "
                                         f"(first on line {nodes[guid].line})")
            desc = _QUOTED.search(comment)
            current = Node(kind, guid, nports, desc[1] if desc else "", header.get("devid"),
                           number)
            nodes[guid] = current
            header = {}
            continue
        if m := _PORT.match(line):
            if current is None:
                raise IbnetdiscoverError(f"{label}:{number}: port line outside a node block "
                                         "(expected a 'Switch' or 'Ca' line before it)")
            port = _number(m[1], label, number)
            _check_quotes(m[6] or "", label, number)
            if not 1 <= port <= current.nports:
                raise IbnetdiscoverError(f"{label}:{number}: port {port} of {current.guid}, "
                                         f"which has {counted(current.nports, 'port')}")
            if port in current.ports:
                raise IbnetdiscoverError(f"{label}:{number}: port {port} of {current.guid} is "
                                         f"listed twice (first on line "
                                         f"{current.ports[port].line})")
            speed = _SPEED.search(m[6] or "")
            current.ports[port] = Port(port, m[3], _number(m[4], label, number),
                                       f"{speed[1]}x{speed[2]}" if speed else "", number)
            continue
        shown = raw if len(raw) <= 60 else raw[:57] + "..."
        raise IbnetdiscoverError(f"{label}:{number}: expected {_FORMS}, got {shown!r}")
    if not nodes:
        raise IbnetdiscoverError(f"{label}: no Switch or Ca nodes found; expected the output "
                                 "of 'ibnetdiscover'")
    last = max(nodes.values(), key=lambda n: n.line)
    for node in nodes.values():
        for end in node.ports.values():
            peer = nodes.get(end.peer)
            if peer is None:
                raise IbnetdiscoverError(
                    f"{label}:{end.line}: port {end.number} of {node.guid} links to "
                    f"{end.peer}, which the file never describes (is the file truncated?)")
            back = peer.ports.get(end.peer_port)
            if back is None or back.peer != node.guid or back.peer_port != end.number:
                seen = (f"lists {back.peer}[{back.peer_port}]" if back is not None
                        else "does not list it")
                if peer is last:
                    seen += "; the file ends in that block (is the file truncated?)"
                raise IbnetdiscoverError(
                    f"{label}:{end.line}: {node.guid}[{end.number}] links to "
                    f"{end.peer}[{end.peer_port}], but that port's own line (block on line "
                    f"{peer.line}) {seen}")
    if not last.ports:
        raise IbnetdiscoverError(
            f"{label}:{last.line}: the file ends in the block of {last.guid} with none of its "
            "ports listed (is the file truncated? every node ibnetdiscover finds has a link)")
    return nodes


def _number(text: str, label: str, line: int) -> int:
    """A port number or count: at most 255 in InfiniBand (port numbers are 8-bit)."""
    if len(text) > 3 or not 0 <= int(text) <= MAX_PORTS:
        shown = text if len(text) <= 12 else f"{text[:9]}... ({len(text)} digits)"
        raise IbnetdiscoverError(f"{label}:{line}: port number {shown} is out of range (0 to "
                                 f"{MAX_PORTS}: InfiniBand port numbers are 8-bit)")
    return int(text)


def _check_quotes(comment: str, label: str, line: int) -> None:
    if comment.count('"') % 2:
        raise IbnetdiscoverError(f"{label}:{line}: a description is not closed by '\"' (is "
                                 "the file truncated or garbled?)")
