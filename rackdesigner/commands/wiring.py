"""Wiring: pick the first free compatible ports between two devices, or say why not.

The canvas asks `plan_wire` while the user drags (to highlight targets and show the refusal
reason in the status bar) and `wire` on release. Ports are matched by protocol; when several
protocols are possible the scale-up fabric wins (NVLink, then C2C), then InfiniBand, Ethernet
and PCIe. Links are made between port groups without an index (`gpu-1:nvlink`), which is what
the design rules count against the group's size.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner import vocabulary
from rackdesigner.catalog import DeviceSpec, PortGroup
from rackdesigner.commands.edits import AddItems
from rackdesigner.generators.cabling import CableChoice, default_cable
from rackdesigner.model import Layout, Link, PortRef

PROTOCOL_ORDER = vocabulary.PROTOCOL_NAMES  # the registry's order is the wiring preference
PROTOCOL_NAMES = {p.name: p.label for p in vocabulary.PROTOCOLS.values()}


@dataclass(frozen=True, slots=True)
class WirePlan:
    a: PortRef
    b: PortRef
    protocol: str
    rate_gbps: float

    def describe(self) -> str:
        return (f"{self.a} ↔ {self.b} ({PROTOCOL_NAMES.get(self.protocol, self.protocol)}, "
                f"{self.rate_gbps:g} Gb/s)")


@dataclass(frozen=True, slots=True)
class Refusal:
    reason: str

    def __bool__(self) -> bool:  # a refusal is falsy: `if plan:` means "can wire"
        return False


def port_usage(layout: Layout, device_id: str) -> dict[str, int]:
    """Ports in use per port group of a device (sum of the counts of its links), from the
    design's derived index (the canvas and the design rules read the same)."""
    return layout.index().port_usage(device_id)


def _title(layout: Layout, device_id: str, spec: DeviceSpec | None) -> str:
    model = spec.model if spec is not None else layout.device(device_id).model
    return f"{layout.device(device_id).label} ({model})"


def _protocols(spec: DeviceSpec) -> str:
    seen = dict.fromkeys(PROTOCOL_NAMES.get(g.protocol, g.protocol) for g in spec.ports)
    return ", ".join(seen) or "no ports"


def _candidates(spec: DeviceSpec, port: str | None) -> list[PortGroup]:
    return [g for g in spec.ports if port is None or g.name == port]


def plan_wire(layout: Layout, a: str, b: str, a_port: str | None = None,
              b_port: str | None = None) -> WirePlan | Refusal:
    """The ports a new link between devices `a` and `b` would use, or why there is none."""
    if a == b:
        return Refusal("a device cannot be wired to itself")
    for device_id in (a, b):
        if not layout.has_device(device_id):
            return Refusal(f"there is no device {device_id!r}")
    spec_a, spec_b = layout.spec(a), layout.spec(b)
    for device_id, spec in ((a, spec_a), (b, spec_b)):
        if spec is None:
            return Refusal(f"{device_id} has an unknown model {layout.device(device_id).model!r}")
        if not spec.ports:
            return Refusal(f"{_title(layout, device_id, spec)} has no ports to wire")
    assert spec_a is not None and spec_b is not None
    groups_a, groups_b = _candidates(spec_a, a_port), _candidates(spec_b, b_port)
    if not groups_a:
        return Refusal(f"{_title(layout, a, spec_a)} has no port group {a_port!r}")
    if not groups_b:
        return Refusal(f"{_title(layout, b, spec_b)} has no port group {b_port!r}")
    common = {g.protocol for g in groups_a} & {g.protocol for g in groups_b}
    if not common:
        if a_port is not None:
            proto = PROTOCOL_NAMES.get(groups_a[0].protocol, groups_a[0].protocol)
            return Refusal(f"{_title(layout, b, spec_b)} has no {proto} port "
                           f"(it has {_protocols(spec_b)})")
        return Refusal(f"no common protocol: {_title(layout, a, spec_a)} has "
                       f"{_protocols(spec_a)}; {_title(layout, b, spec_b)} has "
                       f"{_protocols(spec_b)}")
    used_a, used_b = port_usage(layout, a), port_usage(layout, b)
    full: list[str] = []
    for protocol in sorted(common, key=_protocol_rank):
        free_a = [g for g in groups_a if g.protocol == protocol and used_a.get(g.name, 0) < g.count]
        free_b = [g for g in groups_b if g.protocol == protocol and used_b.get(g.name, 0) < g.count]
        if free_a and free_b:
            ga, gb = free_a[0], free_b[0]
            return WirePlan(PortRef(a, ga.name), PortRef(b, gb.name), protocol,
                            min(ga.rate_gbps, gb.rate_gbps))
        name = PROTOCOL_NAMES.get(protocol, protocol)
        for device_id, spec, free, groups in ((a, spec_a, free_a, groups_a),
                                              (b, spec_b, free_b, groups_b)):
            if not free:
                total = sum(g.count for g in groups if g.protocol == protocol)
                full.append(f"every {name} port of {_title(layout, device_id, spec)} is in use "
                            f"({total} of {total})")
                break
    return Refusal("; ".join(full))


def _protocol_rank(protocol: str) -> int:
    return PROTOCOL_ORDER.index(protocol) if protocol in PROTOCOL_ORDER else len(PROTOCOL_ORDER)


def free_ports(layout: Layout, end: PortRef) -> int:
    """Ports of `end`'s group not yet used by a link."""
    spec = layout.spec(end.device)
    if spec is None or not spec.has_port(end.group):
        return 0
    return spec.port(end.group).count - port_usage(layout, end.device).get(end.group, 0)


def cabled_link(layout: Layout, link_id: str, a: PortRef, b: PortRef, count: int = 1,
                choice: CableChoice | None = None) -> Link:
    """A new link with the default cable and length for where its ends are
    (`generators.cabling.default_cable`: the generators' rules)."""
    if choice is None:
        choice = default_cable(layout, a, b)
    if choice is None:
        return Link(link_id, a, b, count)
    return Link(link_id, a, b, count, choice.cable, choice.length_m)


def wire(layout: Layout, a: str, b: str, a_port: str | None = None,
         b_port: str | None = None, count: int = 1) -> AddItems | Refusal:
    """A command adding a link of `count` ports between `a` and `b` (cable and length by
    default from the port types and where the ends are), or the reason it cannot be made."""
    if count < 1:
        return Refusal(f"a link needs at least one port, not {count}")
    plan = plan_wire(layout, a, b, a_port, b_port)
    if isinstance(plan, Refusal):
        return plan
    if count > 1:
        room = min(free_ports(layout, plan.a), free_ports(layout, plan.b))
        if room < count:
            return Refusal(f"only {room} free {PROTOCOL_NAMES.get(plan.protocol, plan.protocol)}"
                           f" port{'s' * (room != 1)} between {plan.a} and {plan.b}, "
                           f"not {count}")
    link = cabled_link(layout, layout.new_id("link"), plan.a, plan.b, count)
    text = f"Wire {a} to {b}" if count == 1 else f"Wire {a} to {b} ×{count}"
    return AddItems(links=[link], text=text)
