"""The physical view every export shares: racks, rack-mounted units, and cables between them.

A design holds parts (GPUs, NICs, NVSwitch chips) grouped into systems; other tools think in
boxes (a Slurm node, a NetBox device, a row of a cabling plan). Here a *unit* is:

* the nearest enclosing group made from a catalog system (`Group.template`: a DGX, a GB200
  compute tray, an NVLink switch tray) or marked `node`/`tray`;
* otherwise the device itself (a leaf switch, a hand-placed NIC), except racks, cables and
  transceivers, which are not boxes.

A *system root* is the outermost templated group (a whole NVL72 rack): links inside one root
ship with it (NVLink spines, PCB traces) and are not cabled on site. Every other link between
two units is a cable; one `Link` with `count` n is n cables on consecutive ports.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from rackdesigner import vocabulary
from rackdesigner.catalog import DeviceSpec
from rackdesigner.model import Layout, Link, PortRef, natural_key


@dataclass
class Unit:
    id: str
    name: str
    model: str  # catalog model of the box (a system template or the device's model)
    devices: list[str] = field(default_factory=list)
    rack: str | None = None
    u: int | None = None
    u_height: float = 1.0
    gpus: int = 0
    kind: str = "other"  # host (has GPUs), switch (IB/Ethernet), nvswitch-tray, frame, other
    root: str = ""  # id of the outermost system group (or the unit id)

    @property
    def is_frame(self) -> bool:
        """A rack-scale system's frame (an NVL72): 0U, its trays are the units."""
        return self.kind == "frame"


@dataclass(frozen=True)
class Cable:
    """One physical cable between two units' ports."""

    link: str
    a_unit: str
    a_device: str
    a_port: str  # concrete port name, e.g. "ib.3" or "ib.0"
    b_unit: str
    b_device: str
    b_port: str
    cable: str | None
    length_m: float | None
    protocol: str


@dataclass
class Inventory:
    layout: Layout
    units: dict[str, Unit]
    unit_of: dict[str, str]  # device id -> unit id
    racks: dict[str, str]  # rack id -> display name (racks named by devices, rack devices)

    def hosts(self) -> list[Unit]:
        return sorted((u for u in self.units.values() if u.kind == "host"),
                      key=lambda u: natural_key(u.id))

    def switches(self) -> list[Unit]:
        return sorted((u for u in self.units.values() if u.kind == "switch"),
                      key=lambda u: natural_key(u.id))

    def spec(self, device: str) -> DeviceSpec | None:
        return self.layout.spec(device)


#: what a device of an unknown model that its import found to be a switch does
_IMPORTED_SWITCH = vocabulary.Traits(forwards=True, fabric="compute")


def _declared_traits(device) -> vocabulary.Traits:
    """What a device whose model is not in the catalog does, where its import recorded it:
    a switch found by ibnetdiscover stays a switch (`x-ib-type: Switch`)."""
    return (_IMPORTED_SWITCH if dict(device.props).get("x-ib-type") == "Switch"
            else vocabulary.NO_TRAITS)


def inventory(layout: Layout) -> Inventory:
    """Units and racks of a layout (see the module docstring)."""
    groups = {g.id: g for g in layout.groups()}
    units: dict[str, Unit] = {}
    unit_of: dict[str, str] = {}
    racks: dict[str, str] = {}

    def nearest_box(group_id: str | None) -> tuple[str | None, str | None]:
        box = root = None
        while group_id is not None:
            g = groups[group_id]
            if g.template is not None or g.kind in ("node", "tray"):
                if box is None:
                    box = g.id
                if g.template is not None:
                    root = g.id
            group_id = g.parent
        return box, root or box

    for device in layout.devices():
        spec = layout.spec(device.id)
        does = spec.traits if spec is not None else _declared_traits(device)
        if does.contains == "units":  # a rack
            racks[device.id] = device.label
            continue
        if does.media is not None:  # cables and optics: properties of links
            continue
        box, root = nearest_box(device.group)
        if box is None:
            unit = Unit(device.id, device.label, device.model, root=device.id)
            if spec is not None:
                unit.u_height = spec.u_height or 1.0
            unit.kind = "switch" if does.fabric_switch else "other"
            units[device.id] = unit
        else:
            found = units.get(box)
            if found is None:
                g = groups[box]
                model = g.template or ""
                found = Unit(box, g.label, model, root=root or box)
                tspec = layout.catalog.get(model) if model in layout.catalog else None
                found.u_height = (tspec.u_height if tspec is not None else 0.0) or 0.0
                units[box] = found
            unit = found
        unit.devices.append(device.id)
        unit_of[device.id] = unit.id
        if does.computes:
            unit.gpus += 1
        if device.rack is not None:
            racks.setdefault(device.rack, device.rack)
            if unit.rack is None:
                unit.rack = device.rack
            if device.u is not None and (unit.u is None or device.u < unit.u):
                unit.u = device.u
        if box is not None and spec is not None and does.contains == "frame":
            unit.u_height = max(unit.u_height, spec.u_height)
    parents = {u.root for u in units.values() if u.root != u.id}
    for unit in units.values():
        if unit.id in parents and all((s := layout.spec(d)) is not None
                                      and s.traits.contains == "frame" for d in unit.devices):
            # a rack-scale system's own frame (NVL72: the power/cooling share the catalog
            # books on a chassis); its trays are the boxes
            unit.kind = "frame"
        elif unit.gpus:
            unit.kind = "host"
        elif unit.kind == "other" and any(
                (s := layout.spec(d)) is not None and s.traits.nvlink_switch for d in unit.devices):
            unit.kind = "nvswitch-tray"
        if unit.u_height <= 0:
            heights = [s.u_height for d in unit.devices if (s := layout.spec(d)) is not None]
            unit.u_height = max([h for h in heights if h > 0], default=1.0)
        unit.devices.sort(key=natural_key)
    return Inventory(layout, units, unit_of, racks)


def protocol_of(layout: Layout, end: PortRef) -> str:
    spec = layout.spec(end.device) if layout.has_device(end.device) else None
    if spec is None and layout.has_device(end.device) and dict(
            layout.device(end.device).props).get("x-ib-type"):
        return "infiniband"  # a node ibnetdiscover found, of a model the catalog lacks
    if spec is None or not spec.has_port(end.group):
        return "unknown"
    return spec.port(end.group).protocol


class PortAllocator:
    """Concrete port numbers for link ends that name only a port group.

    Explicit indices (`leaf-1:ib.3`) are reserved first; ends without one take the lowest free
    ports of their group in link-id order, so the result is the same on every run.
    """

    def __init__(self, layout: Layout, links: list[Link] | None = None,
                 only: set[str] | None = None) -> None:
        """`links` in link-id order (default: all of the layout's); `only`: the ids of the
        links that need concrete ports (default: all)."""
        self.taken: dict[tuple[str, str], set[int]] = defaultdict(set)
        self.assigned: dict[tuple[str, str], list[int]] = {}
        if links is None:
            links = sorted(layout.links(), key=lambda k: natural_key(k.id))
        for link in links:
            for side, end in (("a", link.a), ("b", link.b)):
                if end.index is not None:
                    ports = list(range(end.index, end.index + link.count))
                    self.taken[end.device, end.group].update(ports)
                    self.assigned[link.id, side] = ports
        for link in links:
            if only is not None and link.id not in only:
                continue
            for side, end in (("a", link.a), ("b", link.b)):
                if end.index is None:
                    used = self.taken[end.device, end.group]
                    ports = []
                    n = 0
                    while len(ports) < link.count:
                        if n not in used:
                            ports.append(n)
                            used.add(n)
                        n += 1
                    self.assigned[link.id, side] = ports

    def ports(self, link: Link, side: str) -> list[int]:
        return self.assigned[link.id, side]


def cables(inv: Inventory, *, include_internal: bool = False) -> list[Cable]:
    """Every physical cable between two units (one per `count`), in a stable order.

    Links inside one unit, and links inside one system root (factory-wired), are left out
    unless `include_internal`.
    """
    layout = inv.layout
    links = sorted(layout.links(), key=lambda k: natural_key(k.id))
    wanted: list[tuple[Link, str, str]] = []
    for link in links:
        ua, ub = inv.unit_of.get(link.a.device), inv.unit_of.get(link.b.device)
        if ua is None or ub is None:
            continue
        internal = ua == ub or inv.units[ua].root == inv.units[ub].root
        if internal and not include_internal:
            continue
        wanted.append((link, ua, ub))
    alloc = PortAllocator(layout, links, {link.id for link, _, _ in wanted})
    out: list[Cable] = []
    for link, ua, ub in wanted:
        protocol = protocol_of(layout, link.a)
        for pa, pb in zip(alloc.ports(link, "a"), alloc.ports(link, "b"), strict=True):
            out.append(Cable(link.id, ua, link.a.device, f"{link.a.group}.{pa}", ub,
                             link.b.device, f"{link.b.group}.{pb}", link.cable, link.length_m,
                             protocol))
    return out


def local_port(inv: Inventory, device: str, port: str) -> str:
    """A port's name on its unit: `leaf-1`'s `ib.3` stays `ib.3`; `dgx-1.nic0`'s `ib.0` becomes
    `nic0/ib.0` (the part's name inside the unit, then the port)."""
    unit = inv.unit_of.get(device, device)
    if unit == device:
        return port
    part = device[len(unit) + 1:] if device.startswith(unit + ".") else device
    return f"{part}/{port}"
