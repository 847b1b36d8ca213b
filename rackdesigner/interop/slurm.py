"""Slurm topology for the tree and block plugins, as topology.conf or topology.yaml.

Format: Slurm's topology.conf(5) and topology.yaml(5) man pages (slurm.schedmd.com):
`SwitchName=s Nodes=<hostlist>` / `SwitchName=s Switches=<hostlist>` for topology/tree;
`BlockName=b Nodes=<hostlist>` plus `BlockSizes=` for topology/block; the YAML form is a list
of topologies with `tree: {switches: [{switch, children|nodes}]}` or
`block: {block_sizes: [...], blocks: [{block, nodes}]}`.

Slurm nodes are the design's GPU systems (units.py: a DGX, a GB200 compute tray), named by
their design id unless a host map renames them. The tree is the drawn InfiniBand/Ethernet
fabric: leaves are the switches the nodes' NICs reach, each upper switch lists the switches
one tier below it. In a rail-optimized fabric every node reaches one leaf per rail; leaves that
serve exactly the same nodes are listed once as a *rail group* (Slurm places jobs by locality,
and the rails of one scalable unit give the same locality). Blocks are NVLink domains.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from pathlib import Path

import yaml

from rackdesigner import __version__, vocabulary
from rackdesigner.interop.base import ExportError, ExportReport, write_atomic
from rackdesigner.interop.hostlist import apply_host_map, compress
from rackdesigner.interop.sanitize import config_token, one_line
from rackdesigner.interop.units import Inventory, inventory, protocol_of
from rackdesigner.model import Layout, natural_key, nvlink_domains
from rackdesigner.vocabulary.wording import counted

FABRIC_PROTOCOLS = vocabulary.protocols_of("network")


def write(layout: Layout, path: Path, *, plugin: str = "tree",
          host_map: dict[str, str] | None = None, host_map_source: str = "",
          topology_name: str | None = None) -> ExportReport:
    inv = inventory(layout)
    report = ExportReport()
    hosts = inv.hosts()
    if not hosts:  # a fabric without GPUs drawn (e.g. imported from ibnetdiscover): hosts
        groups = {g.id: g for g in layout.groups()}
        hosts = [u for u in inv.units.values() if u.id in groups
                 and groups[u.id].kind == "node"]
        for unit in hosts:
            unit.kind = "host"
        if hosts:
            report.messages.append("the design has no GPUs; its node groups are the Slurm "
                                   "nodes")
    if not hosts:
        raise ExportError("the design has no GPU systems, so there are no Slurm nodes")
    try:
        names = apply_host_map([h.id for h in hosts], host_map, host_map_source)
    except ValueError as exc:
        raise ExportError(str(exc)) from None
    if plugin == "tree":
        entries = tree_entries(inv, names, report)
    elif plugin == "block":
        entries = block_entries(inv, names, report)
    else:
        raise ExportError(f"unknown Slurm topology plugin {plugin!r} (tree or block)")
    as_yaml = path.suffix.lower() in (".yaml", ".yml")
    name = topology_name or _slug(layout.meta.name) or "default"
    text = _yaml(plugin, name, entries) if as_yaml else _conf(plugin, layout, entries)
    write_atomic(path, text)
    report.files.append(path)
    kind = "switches" if plugin == "tree" else "blocks"
    count = sum(1 for e in entries if not e[0].startswith("#"))
    report.summary = (f"{path}: Slurm topology/{plugin}, {counted(len(hosts), 'node')}, "
                      f"{count} {kind}")
    return report


# ---- tree --------------------------------------------------------------------------------
def tree_entries(inv: Inventory, names: dict[str, str], report: ExportReport) -> list[tuple]:
    """[(switch name, 'nodes'|'switches', hostlist, comment)] leaves first."""
    layout = inv.layout
    switch_ids = {u.id for u in inv.switches()}
    if not switch_ids:
        raise ExportError("the design has no InfiniBand or Ethernet switches, so there is no "
                          "tree for topology/tree (slurm-block describes NVLink domains)")
    host_ids = set(names)
    hosts_of: dict[str, set[str]] = defaultdict(set)
    up: dict[str, set[str]] = defaultdict(set)  # switch -> neighbouring switches
    for link in layout.links():
        if protocol_of(layout, link.a) not in FABRIC_PROTOCOLS:
            continue
        ua, ub = inv.unit_of.get(link.a.device), inv.unit_of.get(link.b.device)
        for x, y in ((ua, ub), (ub, ua)):
            if x in switch_ids and y in host_ids:
                hosts_of[x].add(y)
            elif x in switch_ids and y in switch_ids and x != y:
                up[x].add(y)
    leaves = sorted(hosts_of, key=natural_key)
    if not leaves:
        raise ExportError("no GPU system's NIC is cabled to a switch; topology/tree needs "
                          "every node on a leaf switch")
    unplaced = sorted(host_ids - set().union(*hosts_of.values()), key=natural_key)
    if unplaced:
        report.messages.append(f"{counted(len(unplaced), 'node')} "
                               f"{'reaches' if len(unplaced) == 1 else 'reach'} "
                               f"no switch and {'is' if len(unplaced) == 1 else 'are'} left out "
                               f"(Slurm requires every node on a switch): "
                               f"{', '.join(unplaced[:5])}")
    # tier of each switch: 0 for leaves, else its distance from the nearest leaf
    tier = dict.fromkeys(leaves, 0)
    queue = deque(leaves)
    while queue:
        s = queue.popleft()
        for n in up[s]:
            if n not in tier:
                tier[n] = tier[s] + 1
                queue.append(n)
    stray = sorted(switch_ids - set(tier), key=natural_key)
    if stray:
        one = len(stray) == 1
        report.messages.append(f"{counted(len(stray), 'switch', 'switches')} "
                               f"connect{'s' * one} to no node's leaf and "
                               f"{'is' if one else 'are'} left out: {', '.join(stray[:5])}")
    # rail groups: leaves with the same node set become one Slurm switch
    by_nodes: dict[frozenset, list[str]] = defaultdict(list)
    for leaf in leaves:
        by_nodes[frozenset(hosts_of[leaf])].append(leaf)
    slurm_name: dict[str, str] = {}
    entries: list[tuple] = []
    group_no = 0
    for nodes, members in sorted(by_nodes.items(), key=lambda kv: natural_key(kv[1][0])):
        if len(members) > 1:
            group_no += 1
            label = f"railgroup{group_no}"
            comment = f"rail group of {len(members)} leaves: {compress(members)}"
        else:
            label, comment = members[0], ""
        for m in members:
            slurm_name[m] = label
        entries.append((label, "nodes", compress(names[h] for h in nodes), comment))
    # Upper tiers, level by level. A switch reaches the nodes of its children; one that
    # reaches no more than a single child already does adds no locality. Above the first
    # tier that is a leaf built for nodes not (yet) drawn (a 4-rack GB200 design on a whole
    # SU's fabric): it hangs off the spines, and listed it would be a Level=2 tier that does
    # not exist. Such switches are left out, and said so.
    reach: dict[str, frozenset] = {}
    for nodes, members in by_nodes.items():
        reach[slurm_name[members[0]]] = nodes
    idle: list[str] = []
    for level in range(1, max(tier.values()) + 1):
        for s in sorted((s for s, t in tier.items() if t == level), key=natural_key):
            children = {slurm_name[c] for c in up[s]
                        if tier.get(c) == level - 1 and c in slurm_name}
            covered = frozenset().union(*(reach[c] for c in children))
            if not children or (level > 1 and any(reach[c] == covered for c in children)):
                idle.append(s)
                continue
            slurm_name[s] = s
            reach[s] = covered
            entries.append((s, "switches", compress(children), ""))
    if idle:
        report.messages.append(
            f"{counted(len(idle), 'switch', 'switches')} above the tree "
            f"reach{'es' * (len(idle) == 1)} no node that a switch below them does not already "
            f"reach (leaves serving no node?) and {'is' if len(idle) == 1 else 'are'} left "
            f"out: {compress(idle)}")
    return entries


# ---- block -------------------------------------------------------------------------------
def block_entries(inv: Inventory, names: dict[str, str], report: ExportReport) -> list[tuple]:
    """[(block name, 'nodes', hostlist, comment)] plus ('#sizes', ...) last."""
    blocks: list[tuple[str, list[str]]] = []
    seen: set[str] = set()
    for domain in nvlink_domains(inv.layout):
        hosts = sorted({inv.unit_of[g] for g in domain if g in inv.unit_of} & set(names),
                       key=natural_key)
        hosts = [h for h in hosts if h not in seen]
        if not hosts:
            continue
        seen.update(hosts)
        roots = {inv.units[h].root for h in hosts}
        label = roots.pop() if len(roots) == 1 else f"block{len(blocks) + 1}"
        if label in hosts or any(label == b for b, _ in blocks):
            label = f"block{len(blocks) + 1}"
        blocks.append((label, hosts))
    if not blocks:
        raise ExportError("the design has no NVLink domains with GPU systems")
    blocks.sort(key=lambda b: natural_key(b[0]))
    sizes = sorted({len(h) for _, h in blocks})
    if sizes == [1]:
        report.messages.append("every NVLink domain is a single node, so topology/block adds "
                               "nothing over topology/flat; slurm-tree describes the fabric")
    elif len(sizes) > 1:
        report.messages.append(f"NVLink domains span {', '.join(map(str, sizes))} nodes; "
                               f"BlockSizes is the smallest ({sizes[0]}), so larger domains are "
                               "used in pieces of that size")
    entries: list[tuple] = [(label, "nodes", compress(names[h] for h in hosts),
                             f"NVLink domain of {counted(len(hosts), 'node')}")
                            for label, hosts in blocks]
    entries.append(("#sizes", "sizes", str(sizes[0]), ""))
    return entries


# ---- writing -----------------------------------------------------------------------------
def _conf(plugin: str, layout: Layout, entries: list[tuple]) -> str:
    title = one_line(layout.meta.name or "RackDesigner design")
    lines = [f"# Slurm topology.conf for topology/{plugin}: {title}",
             f"# Written by RackDesigner {__version__}; slurm.conf needs "
             f"TopologyPlugin=topology/{plugin}.", ""]
    key = "SwitchName" if plugin == "tree" else "BlockName"
    for name, what, hostlist, comment in entries:
        if name == "#sizes":
            lines.append(f"BlockSizes={hostlist}")
            continue
        if comment:
            lines.append(f"# {one_line(comment, 400)}")
        try:
            lines.append(f"{key}={config_token(name, 'name')} "
                         f"{'Nodes' if what == 'nodes' else 'Switches'}="
                         f"{config_token(hostlist, 'host list')}")
        except ValueError as exc:
            raise ExportError(str(exc)) from None
    return "\n".join(lines) + "\n"


def _yaml(plugin: str, name: str, entries: list[tuple]) -> str:
    if plugin == "tree":
        switches = [{"switch": n, ("nodes" if w == "nodes" else "children"): h}
                    for n, w, h, _ in entries]
        body: dict = {"tree": {"switches": switches}}
    else:
        size = next(int(h) for n, _, h, _ in entries if n == "#sizes")
        blocks = [{"block": n, "nodes": h} for n, _, h, _ in entries if n != "#sizes"]
        body = {"block": {"block_sizes": [size], "blocks": blocks}}
    doc = [{"topology": name, "cluster_default": True, **body}]
    head = f"# Slurm topology.yaml (topology/{plugin}), written by RackDesigner {__version__}\n"
    return head + yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)


def _slug(text: str, limit: int = 40) -> str:
    """A topology name from the design's: lower-case words joined by '-', at most `limit`
    characters, cut between words (never inside a number: '...-288-gpus', not '...-28')."""
    words = [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w]
    slug = ""
    for word in words:
        longer = f"{slug}-{word}" if slug else word
        if len(longer) > limit:
            break
        slug = longer
    return slug or "-".join(words)[:limit]
