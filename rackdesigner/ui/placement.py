"""Where a new item goes: into free space near the spot asked for, never on top of another.

A double-click in the Palette placed the new system at the view centre, on top of the one
already there; a drop landed wherever the pointer was (issue 26). `free_offset` looks for
the nearest place around the requested one where the new item's footprint (its devices as
laid out, or its collapsed block) meets no device, group or wire already drawn, on rings of
footprint-sized steps around the spot, nearest first. The inside of an expanded system or
rack is no free space either: a second DGX dropped between the first one's GPUs and NICs
read as a part of it (an expanded frame picks clicks only on its header and border).
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QRectF, Qt
from PySide6.QtWidgets import QGraphicsScene

from rackdesigner.commands.edits import AddItems
from rackdesigner.model import Layout
from rackdesigner.ui import style
from rackdesigner.ui.canvas.bundle_item import BundleItem
from rackdesigner.ui.canvas.items import DeviceItem, GroupItem

GAP = 30.0  # clear space kept around a new item
RINGS = 12  # how far to look (in footprints) before giving up and using the spot asked for
SOLID_FRAMES = ("node", "tray", "rack")  # expanded, their whole frame is taken; a pod's or
# an SU's is an area where new items may go between its members


def footprint(command: AddItems) -> QRectF:
    """The scene rectangle the items of `command` will cover (expanded or collapsed)."""
    xs = [d.pos[0] for d in command.devices]
    ys = [d.pos[1] for d in command.devices]
    if not xs:
        return QRectF()
    rect = QRectF(min(xs), min(ys), max(xs) - min(xs) + style.DEVICE_WIDTH,
                  max(ys) - min(ys) + style.MIN_DEVICE_HEIGHT)
    top = [g for g in command.groups if g.parent is None]
    if top and all(g.collapsed for g in top):  # one box at the members' top-left corner
        rows = 4  # the box lists a few port protocols under its title
        return QRectF(rect.left(), rect.top(), style.COLLAPSED_WIDTH,
                      style.HEADER_HEIGHT + rows * style.PORT_ROW_HEIGHT + 6)
    if command.groups:  # a group's frame: its header above the members, a margin around
        rect = rect.adjusted(-10, -style.GROUP_HEADER - 10, 10, 10)
        rect.setWidth(max(rect.width(), style.COLLAPSED_WIDTH))
    return rect


def moved(command: AddItems, dx: float, dy: float, grid: float = 10.0) -> AddItems:
    """`command` with its devices moved by (dx, dy), snapped to the grid (same ids)."""
    dx, dy = round(dx / grid) * grid, round(dy / grid) * grid
    devices = [replace(d, pos=(d.pos[0] + dx, d.pos[1] + dy)) for d in command.devices]
    return AddItems(command.groups, devices, command.links, text=command.text)


def occupied(scene: QGraphicsScene, rect: QRectF) -> bool:
    """Whether `rect` meets a device, a collapsed group, a wire (its drawn stroke, not its
    bounding box: a system double-clicked from the Palette landed over wires) or the frame of
    an expanded system or rack (`SOLID_FRAMES`) drawn on `scene`."""
    if any(isinstance(item, DeviceItem | GroupItem | BundleItem) and item.isVisible()
           for item in scene.items(rect)):
        return True
    return any(isinstance(item, GroupItem) and item.isVisible() and item.kind in SOLID_FRAMES
               for item in scene.items(rect, Qt.ItemSelectionMode.IntersectsItemBoundingRect))


def free_offset(scene: QGraphicsScene, rect: QRectF) -> tuple[float, float]:
    """(dx, dy) moving `rect` to the nearest free place; (0, 0) when it is free already."""
    if rect.isEmpty() or not occupied(scene, rect.adjusted(-GAP, -GAP, GAP, GAP)):
        return (0.0, 0.0)
    step_x, step_y = rect.width() + GAP, rect.height() + GAP
    for ring in range(1, RINGS + 1):
        spots = [(i, j) for i in range(-ring, ring + 1) for j in range(-ring, ring + 1)
                 if max(abs(i), abs(j)) == ring]
        spots.sort(key=lambda s: (s[0] * step_x) ** 2 + (s[1] * step_y) ** 2)
        for i, j in spots:
            dx, dy = i * step_x, j * step_y
            if not occupied(scene, rect.translated(dx, dy).adjusted(-GAP, -GAP, GAP, GAP)):
                return (dx, dy)
    return (0.0, 0.0)


def near_rack(scene: QGraphicsScene, layout: Layout, command: AddItems,
              rack_id: str) -> AddItems:
    """A unit added in the Racks view (`command`, built at the origin) placed on the canvas
    under the devices already in rack `rack_id` (or under the rack itself when it holds
    none), in the nearest free space there: not at (0, 0) over the first SU."""
    mates = [d for d in layout.devices() if d.rack == rack_id]
    if not mates and layout.has_device(rack_id):
        mates = [layout.device(rack_id)]
    rect = footprint(command)
    if not mates or rect.isEmpty():
        return command
    left = min(d.pos[0] for d in mates)
    bottom = max(d.pos[1] for d in mates) + style.MIN_DEVICE_HEIGHT + GAP
    drawn = getattr(scene, "item_for_device", {})
    for mate in mates:  # a mate's drawn box may be taller than the smallest one
        item = drawn.get(mate.id)
        if item is not None and item.isVisible():
            bottom = max(bottom, item.sceneBoundingRect().bottom() + GAP)
    placed = moved(command, left - rect.left(), bottom - rect.top())
    dx, dy = free_offset(scene, footprint(placed))
    return moved(placed, dx, dy) if dx or dy else placed


__all__ = ["footprint", "free_offset", "moved", "near_rack", "occupied"]
