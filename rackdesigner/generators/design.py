"""`DesignBuilder`: the shared machinery every generator builds its layout with.

A generator asks for racks (placed on a floor grid of rows), puts systems and switches into
them at U positions, and connects ports; the builder picks each link's cable and length from
where the two ends sit (`cabling`), gives every item a readable id from per-prefix counters
(O(1), never a search), and lays the canvas out as the floor is: racks in rows, each rack a
column whose contents are stacked top-down in U order, a node's parts kept together as
`instantiate` arranged them. A rack that would stack far taller than wide (an NVL72) and a
design far wider than a screen are wrapped so fit-to-view stays readable (`canvas`); the
floor positions and U numbers, which cable lengths come from, never change for that. Nothing
touches a `Layout` until `build()`, which adds everything in one pass.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import MappingProxyType

from rackdesigner.catalog import Catalog, DeviceSpec
from rackdesigner.generators.cabling import (
    FLOOR_PROP,
    RACK_WIDTH_M,
    ROW_PITCH_M,
    CablePicker,
    FloorSpot,
    run_length_m,
)
from rackdesigner.generators.canvas import TARGET_ASPECT, Packed, Slot, pack_rack, place_racks
from rackdesigner.model import Device, Group, Layout, Link, Meta, Parts, PortRef, instantiate
from rackdesigner.model.instantiate import CELL_H, CELL_W
from rackdesigner.vocabulary.wording import SettingError


class GeneratorError(SettingError):
    """A request a generator cannot fulfil (bad option, impossible size); the message says why
    in the design's words, naming template options as `{name}` so that each surface adds its
    own name for them (the CLI's `--sus`, the template dialog's field; vocabulary/wording.py),
    and `option` names the template option at fault."""

    DESIGN_WORDS = MappingProxyType({
        "sus": "the number of SUs", "nodes": "the number of nodes",
        "racks": "the number of racks", "levels": "the number of levels",
        "endpoints": "the number of endpoints", "switch": "the switch model",
        "system": "the system model"})


#: Largest fabric a generator builds (endpoints or GPU NICs): 131,072 keeps a design in the
#: hundreds of thousands of objects, a few seconds to build and about a gigabyte to hold.
MAX_ENDPOINTS = 131_072


def check_size(endpoints: int, what: str) -> None:
    if endpoints > MAX_ENDPOINTS:
        raise GeneratorError(f"{endpoints} {what} is more than the {MAX_ENDPOINTS} a generated "
                             "design may have; ask for fewer")


#: Canvas gaps (scene units) between blocks in a rack column, between columns and rows.
BLOCK_GAP = 40.0
COLUMN_GAP = 160.0
ROW_GAP = 400.0


@dataclass
class Block:
    """Devices drawn together in a rack column (one node, one switch...)."""

    top_u: int
    ids: list[str]
    width: float
    height: float


@dataclass
class RackPlace:
    """A rack being filled: its device id, its group, floor spot and free U positions."""

    id: str
    group: str
    spec: DeviceSpec
    row: int
    col: int
    spot: FloorSpot
    next_u: int = 1
    blocks: list[Block] = field(default_factory=list)

    @property
    def height_u(self) -> int:
        assert self.spec.rack is not None
        return self.spec.rack.height_u

    def take(self, height: int) -> int:
        """The next free U position (bottom-up) for a device `height` U tall."""
        u = self.next_u
        if u + max(height, 1) - 1 > self.height_u:
            raise GeneratorError(f"rack {self.id} ({self.spec.id}) is full: no room for "
                                 f"{height}U at U{u}")
        self.next_u = u + max(height, 1)
        return u


class DesignBuilder:
    """Collects groups, devices and links for one generated design."""

    def __init__(self, catalog: Catalog, name: str, description: str = "") -> None:
        self.catalog = catalog
        self.meta = Meta(name=name, description=description)
        self.picker = CablePicker(catalog)
        self.groups: list[Group] = []
        self.devices: dict[str, Device] = {}
        self.links: list[Link] = []
        self.racks: dict[str, RackPlace] = {}
        self._counters: dict[str, int] = {}
        self._port_cache: dict[tuple[str, str], tuple[str, float]] = {}

    # ---- ids -----------------------------------------------------------------------------
    def next_id(self, prefix: str) -> str:
        n = self._counters.get(prefix, 0) + 1
        self._counters[prefix] = n
        return f"{prefix}-{n}"

    # ---- groups and racks ----------------------------------------------------------------
    def group(self, group_id: str, name: str = "", kind: str = "group", parent: str | None = None,
              collapsed: bool = False, template: str | None = None) -> str:
        self.groups.append(Group(group_id, name, kind, parent, collapsed, template))
        return group_id

    def rack(self, model: str, row: int, col: int, parent: str | None, name: str = "",
             rack_group: str | None = None) -> RackPlace:
        """A new rack at floor position (row, col); its own group unless `rack_group` is given."""
        spec = self.catalog.get(model)
        if spec.rack is None:
            raise GeneratorError(f"{model} is not a rack")
        rack_id = self.next_id("rack")
        label = name or f"Rack {rack_id.split('-')[1]}"
        if rack_group is None:
            rack_group = self.group(f"{rack_id}.group", label, "rack", parent)
        spot = FloorSpot(col * RACK_WIDTH_M, row * ROW_PITCH_M, spec.rack.height_u)
        place = RackPlace(rack_id, rack_group, spec, row, col, spot)
        self.racks[rack_id] = place
        # the floor spot is saved with the rack (`floor`), so cable lengths recomputed later
        # (a rack or a system moved in the racks view) use the floor these lengths came from
        self.devices[rack_id] = Device(rack_id, spec.id, label, (0.0, 0.0), None, None, rack_group,
                                       ((FLOOR_PROP, (round(spot.x_m, 3), round(spot.y_m, 3))),))
        return place

    # ---- devices -------------------------------------------------------------------------
    def device(self, device_id: str, model: str, rack: RackPlace, name: str = "",
               group: str | None = None, u: int | None = None,
               pos: tuple[float, float] | None = None) -> Device:
        """One plain device in a rack (at the next free U unless `u` is given).

        Without `pos` the device is its own canvas block; with `pos` (relative) the caller adds
        it to a shared block with `add_block`.
        """
        spec = self.catalog.get(model)
        height = round(spec.u_height or 0)
        if u is None:
            u = rack.take(height)
        device = Device(device_id, spec.id, name, pos or (0.0, 0.0), rack.id, u,
                        group if group is not None else rack.group)
        self.devices[device_id] = device
        if pos is None:
            rack.blocks.append(Block(u + max(height, 1) - 1, [device_id], CELL_W, CELL_H))
        return device

    def add_block(self, rack: RackPlace, top_u: int, ids: list[str]) -> None:
        """Draw devices (placed with relative `pos`) together as one block of a rack column."""
        if not ids:
            return
        xs = [self.devices[i].pos[0] for i in ids]
        ys = [self.devices[i].pos[1] for i in ids]
        rack.blocks.append(Block(top_u, ids, max(xs) - min(xs) + CELL_W,
                                 max(ys) - min(ys) + CELL_H))

    def system(self, model: str, prefix: str, rack: RackPlace, name: str = "",
               group: str | None = None, collapsed: bool = False,
               drop: frozenset[str] = frozenset()) -> Parts:
        """A catalog system (or a plain model) at the next free U of `rack`, wired inside;
        `drop` leaves those part devices (and their links) out: a board built with fewer NICs
        than the catalog system lists."""
        spec = self.catalog.get(model)
        height = round(spec.u_height or 0)
        u = rack.take(height)
        parts = instantiate(self.catalog, spec.id, prefix, rack=rack.id, u=u,
                            group=group if group is not None else rack.group, name=name)
        if drop:
            parts.devices[:] = [d for d in parts.devices if d.id not in drop]
            parts.links[:] = [k for k in parts.links
                              if k.a.device not in drop and k.b.device not in drop]
        if collapsed and parts.groups:
            parts.groups[0] = dataclasses.replace(parts.groups[0], collapsed=True)
        self.add_parts(parts, rack, u + max(height, 1) - 1)
        return parts

    def add_parts(self, parts: Parts, rack: RackPlace | None, top_u: int) -> None:
        self.groups.extend(parts.groups)
        for device in parts.devices:
            self.devices[device.id] = device
        self.links.extend(parts.links)
        if rack is not None:
            width, height = parts.size()
            rack.blocks.append(Block(top_u, [d.id for d in parts.devices], width, height))

    # ---- links ---------------------------------------------------------------------------
    def _port(self, device_id: str, group: str) -> tuple[str, float]:
        model = self.devices[device_id].model
        key = (model, group)
        found = self._port_cache.get(key)
        if found is None:
            port = self.catalog.get(model).port(group)
            found = (port.protocol, port.rate_gbps)
            self._port_cache[key] = found
        return found

    def connect(self, a: PortRef, b: PortRef, count: int = 1) -> Link:
        """A link whose cable and length follow from the racks and U positions of its ends."""
        protocol, rate_a = self._port(a.device, a.group)
        _, rate_b = self._port(b.device, b.group)
        da, db = self.devices[a.device], self.devices[b.device]
        cable = length = None
        if da.rack is not None and db.rack is not None:
            ra, rb = self.racks[da.rack], self.racks[db.rack]
            same = da.rack == db.rack
            run = run_length_m(ra.spot, da.u, rb.spot, db.u, same)
            picked = self.picker.pick(protocol, min(rate_a, rate_b), same, run)
            if picked is not None:
                cable, length = picked
        link = Link(self.next_id("link"), a, b, count, cable, length)
        self.links.append(link)
        return link

    # ---- finishing -----------------------------------------------------------------------
    def _arrange_canvas(self) -> None:
        """Racks in rows as on the floor (`canvas.place_racks`); each rack's contents top-down
        by U, stacked or wrapped into rows (`canvas.pack_rack`)."""
        if not self.racks:
            return
        per_row: dict[int, int] = {}
        for r in self.racks.values():
            per_row[r.row] = per_row.get(r.row, 0) + 1
        header = CELL_H + BLOCK_GAP
        packed: dict[str, tuple[list[Block], Packed]] = {}
        slots = []
        for r in self.racks.values():
            blocks = sorted(r.blocks, key=lambda b: -b.top_u)
            pack = pack_rack([(b.width, b.height) for b in blocks], BLOCK_GAP,
                             TARGET_ASPECT / per_row[r.row], header)
            packed[r.id] = (blocks, pack)
            slots.append(Slot(r.id, r.row, r.col, max(CELL_W, pack.width),
                              header + pack.height + BLOCK_GAP))
        places = place_racks(slots, COLUMN_GAP, ROW_GAP)
        devices = self.devices
        for r in self.racks.values():
            x0, y0 = places[r.id]
            devices[r.id] = dataclasses.replace(devices[r.id], pos=(x0, y0))
            blocks, pack = packed[r.id]
            for block, (bx, by) in zip(blocks, pack.offsets, strict=True):
                members = [devices[i] for i in block.ids]
                min_x = min(d.pos[0] for d in members)
                min_y = min(d.pos[1] for d in members)
                dx, dy = x0 + bx - min_x, y0 + header + by - min_y
                for d in members:
                    devices[d.id] = dataclasses.replace(d, pos=(d.pos[0] + dx, d.pos[1] + dy))

    def build(self) -> Layout:
        self._arrange_canvas()
        layout = Layout(self.catalog, self.meta)
        layout.add_all(self.groups, self.devices.values(), self.links)
        return layout


def system_power_w(catalog: Catalog, model: str) -> float:
    """A model's maximum power as the design rules add it up (its parts and chassis)."""
    spec = catalog.get(model)
    if spec.system is None:
        return spec.power.max_w or spec.power.typical_w or 0.0
    total = 0.0
    if spec.system.chassis is not None:
        total += system_power_w(catalog, spec.system.chassis)
    for part in spec.system.parts:
        total += part.count * system_power_w(catalog, part.model)
    return total


def compute_nic_part(catalog: Catalog, model: str) -> tuple[str, int, DeviceSpec]:
    """The system part holding its compute (rail) NICs: the most numerous NIC part.

    DGX systems list 8 single-port compute NICs beside 2 dual-port storage NICs or DPUs; the
    compute NICs are the part with the most NICs, and NIC i is GPU i's rail NIC.
    """
    spec = catalog.get(model)
    if spec.system is None:
        raise GeneratorError(f"{model} is not a system")
    best: tuple[str, int, DeviceSpec] | None = None
    for part in spec.system.parts:
        part_spec = catalog.get(part.model)
        if not part_spec.traits.endpoint or not (part_spec.ports_of("infiniband")
                                            or part_spec.ports_of("ethernet")):
            continue
        if best is None or part.count > best[1]:
            best = (part.name, part.count, part_spec)
    if best is None:
        raise GeneratorError(f"{model} has no NIC among its parts to connect to a fabric "
                             "(fabrics of nested systems such as NVL72 racks are not generated)")
    return best


def fabric_port(spec: DeviceSpec) -> str:
    """The name of a switch's or NIC's fabric port group (InfiniBand first, then Ethernet)."""
    groups = spec.ports_of("infiniband") or spec.ports_of("ethernet")
    if not groups:
        raise GeneratorError(f"{spec.id} has no InfiniBand or Ethernet ports")
    return groups[0].name
