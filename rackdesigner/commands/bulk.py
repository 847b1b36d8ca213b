"""Wiring in bulk: a node's compute NICs onto a switch, and rail-optimized wiring of many nodes.

One drag wires one port, so two DGX nodes on a leaf would take 16 drags. These builders plan
many links at once and return one `AddItems` (one undo step), or a `Refusal` saying why not.
Each plan is a value (`BulkPlan`) the dialog previews before the command is pushed.

Compute NICs: in a node the NICs of the most numerous NIC model with an InfiniBand or Ethernet
port (a DGX H100 has 8 single-port ConnectX-7 for compute beside 2 dual-port storage NICs; the
generators make the same choice, `generators.design.compute_nic_part`). Rail order is the NICs'
natural id order (`nic0` … `nic7`): NIC i is rail i, as NVIDIA's reference architectures wire
NIC i of every node to leaf i. Each link gets the default cable for its ends
(`generators.cabling.default_cable`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rackdesigner import vocabulary
from rackdesigner.commands.edits import AddItems
from rackdesigner.commands.wiring import PROTOCOL_NAMES, Refusal, cabled_link, free_ports
from rackdesigner.generators.cabling import (
    UNPLACED_RUN_M,
    CablePicker,
    default_cable,
    floor_spots,
)
from rackdesigner.model import Layout, Link, PortRef, natural_key

FABRIC_PROTOCOLS = vocabulary.protocols_of("network")


@dataclass(frozen=True)
class BulkPlan:
    """Links a bulk wiring would add, with what the user reads before applying it."""

    links: tuple[Link, ...]
    summary: str
    skipped: tuple[str, ...] = field(default=())

    @property
    def port_count(self) -> int:
        return sum(link.count for link in self.links)

    def command(self, text: str) -> AddItems:
        return AddItems(links=self.links, text=text)


def _fabric_port(layout: Layout, device_id: str) -> tuple[str, str] | None:
    """(port group, protocol) of a device's first InfiniBand or Ethernet port group."""
    spec = layout.spec(device_id)
    if spec is None:
        return None
    for protocol in FABRIC_PROTOCOLS:
        groups = spec.ports_of(protocol)
        if groups:
            return groups[0].name, protocol
    return None


def compute_nics(layout: Layout, group_id: str) -> list[str]:
    """The compute NICs of a node (or any group), in rail order."""
    nics = [d for d in layout.group_devices(group_id)
            if (spec := layout.spec(d)) is not None and spec.traits.endpoint
            and _fabric_port(layout, d) is not None]
    if not nics:
        return []
    models = Counter(layout.device(d).model for d in nics)
    top = max(models.values())
    best = sorted(m for m, n in models.items() if n == top)[0]
    return sorted((d for d in nics if layout.device(d).model == best), key=natural_key)


def is_switch(layout: Layout, device_id: str) -> bool:
    spec = layout.spec(device_id) if layout.has_device(device_id) else None
    return (spec is not None and spec.traits.fabric_switch
            and _fabric_port(layout, device_id) is not None)


class _Planner:
    """Allocates free ports as links are planned, so one plan never over-uses a port group."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.used: Counter[PortRef] = Counter()
        self.picker = CablePicker(layout.catalog)
        self.spots = floor_spots(layout)
        self.links: list[Link] = []
        self.assumed = 0  # links costed with the in-rack assumption (an end in no rack)
        self._number = 0

    def free(self, end: PortRef) -> int:
        return free_ports(self.layout, end) - self.used[end]

    def add(self, a: PortRef, b: PortRef, count: int) -> None:
        self.used[a] += count
        self.used[b] += count
        self._number += 1
        while self.layout.has_id(f"link-{self._number}"):
            self._number += 1
        choice = default_cable(self.layout, a, b, self.picker, self.spots)
        self.assumed += bool(choice is not None and choice.assumed)
        self.links.append(cabled_link(self.layout, f"link-{self._number}", a, b, count, choice))


def plan_node_to_switch(layout: Layout, group_id: str, switch_id: str) -> BulkPlan | Refusal:
    """Every free port of the group's compute NICs onto `switch_id`, in rail order."""
    if not layout.has_group(group_id):
        return Refusal(f"there is no group {group_id!r}")
    if not is_switch(layout, switch_id):
        return Refusal(f"{switch_id} is not an InfiniBand or Ethernet switch")
    label = layout.group(group_id).label
    nics = compute_nics(layout, group_id)
    if not nics:
        return Refusal(f"{label} has no NIC with an InfiniBand or Ethernet port")
    switch_port, protocol = _fabric_port(layout, switch_id)  # type: ignore[misc]
    planner = _Planner(layout)
    sw = PortRef(switch_id, switch_port)
    skipped: list[str] = []
    for nic in nics:
        port, nic_protocol = _fabric_port(layout, nic)  # type: ignore[misc]
        if nic_protocol != protocol:
            skipped.append(f"{nic}: {PROTOCOL_NAMES[nic_protocol]}, the switch has "
                           f"{PROTOCOL_NAMES[protocol]}")
            continue
        end = PortRef(nic, port)
        count = min(planner.free(end), planner.free(sw))
        if count <= 0:
            if planner.free(sw) <= 0:
                skipped.append(f"{nic}: no free port left on {switch_id}")
            continue
        planner.add(end, sw, count)
    if not planner.links:
        why = "; ".join(skipped) or "every compute NIC port is already in use"
        return Refusal(f"nothing to connect from {label} to {switch_id}: {why}")
    n = sum(link.count for link in planner.links)
    summary = (f"Connect the {n} free compute NIC port{'s' * (n != 1)} of {label} "
               f"({len(planner.links)} NIC{'s' * (len(planner.links) != 1)}, rail order) to "
               f"{layout.device(switch_id).label}")
    return BulkPlan(tuple(planner.links), summary + _cables(planner), tuple(skipped))


def plan_rails(layout: Layout, nodes: list[str], leaves: list[str]) -> BulkPlan | Refusal:
    """Rail-optimized wiring: NIC i of every node onto leaf i (leaves in the order given; with
    fewer leaves than rails, rail i goes to leaf i mod the leaf count)."""
    nodes = [g for g in nodes if layout.has_group(g) and compute_nics(layout, g)]
    leaves = [s for s in leaves if is_switch(layout, s)]
    if not nodes:
        return Refusal("select the nodes (groups with compute NICs) and the leaf switches")
    if not leaves:
        return Refusal("select the leaf switches too (InfiniBand or Ethernet)")
    planner = _Planner(layout)
    skipped: list[str] = []
    rails = max(len(compute_nics(layout, g)) for g in nodes)
    for node in sorted(nodes, key=natural_key):
        for rail, nic in enumerate(compute_nics(layout, node)):
            leaf = leaves[rail % len(leaves)]
            port, protocol = _fabric_port(layout, nic)  # type: ignore[misc]
            leaf_port, leaf_protocol = _fabric_port(layout, leaf)  # type: ignore[misc]
            if protocol != leaf_protocol:
                skipped.append(f"{nic}: {PROTOCOL_NAMES[protocol]}, {leaf} has "
                               f"{PROTOCOL_NAMES[leaf_protocol]}")
                continue
            a, b = PortRef(nic, port), PortRef(leaf, leaf_port)
            count = min(planner.free(a), planner.free(b))
            if count <= 0:
                if planner.free(b) <= 0:
                    skipped.append(f"{nic}: no free port left on {leaf}")
                continue
            planner.add(a, b, count)
    if not planner.links:
        why = "; ".join(skipped[:3]) or "every compute NIC port is already in use"
        return Refusal(f"nothing to wire: {why}")
    n = sum(link.count for link in planner.links)
    summary = (f"{n} link{'s' * (n != 1)}: {len(nodes)} node{'s' * (len(nodes) != 1)} × "
               f"{rails} rail{'s' * (rails != 1)} onto {len(leaves)} "
               f"lea{'ves' if len(leaves) != 1 else 'f'} (NIC i → leaf i)")
    return BulkPlan(tuple(planner.links), summary + _cables(planner), tuple(skipped))


def _cables(planner: _Planner) -> str:
    """The cables the plan's links get, and the assumption behind them when there is one."""
    kinds = Counter((link.cable, link.length_m) for link in planner.links
                    for _ in range(link.count))
    parts = [f"{n} × {cable} {length:g} m" if cable else f"{n} × no cable"
             for (cable, length), n in sorted(kinds.items(), key=lambda kv: -kv[1])]
    text = "\nCables: " + ", ".join(parts) if parts else ""
    if planner.assumed:
        text += (f"\n({planner.assumed} with an end in no rack: costed as a "
                 f"{UNPLACED_RUN_M:g} m run inside a rack; set Rack and U in the Inspector "
                 "for lengths from the floor)")
    return text


__all__ = ["BulkPlan", "compute_nics", "is_switch", "plan_node_to_switch", "plan_rails"]
