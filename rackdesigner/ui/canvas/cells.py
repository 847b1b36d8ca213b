"""Aggregate blocks of a large design: which groups stand for their contents when far out, and
which of them the view has opened.

A *cell* is a scalable unit (`su` group), or an outermost rack or fabric group with no SU
inside or around it (a spine tier, a row of switch racks, an NVL72 rack outside any SU). In the
far level of detail (`RackScene.level == "far"`) every cell is drawn as one block covering its
area, with its counts (GPUs, devices, failed, power) written at screen size by the overlay, and
the links between two cells as one bundle. Closer in, only the cells whose area meets the
view (plus a margin) are open, and inside them only the child groups (*sub-cells*: the racks
of an SU) meeting it; the others stay blocks, unseen since they are off screen, and their
devices have no graphics items at all. So the scene holds items for what can be seen, and
opening or closing a cell costs what that cell holds, never the whole design. While the view
moves, cells open a few per turn of the event loop (about `TURN_BUDGET_S` of work), nearest to
the middle first, and a frame is painted between turns (the block stands in until then);
`flush()` opens all of them at once (tests).

Mixed into `RackScene`; the view reports its visible area (`request_area`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF

from rackdesigner.model import Layout
from rackdesigner.ui.canvas.items import device_size

CELL_KINDS = ("su",)
TIER_KINDS = ("rack", "fabric")
CELL_MIN_DEVICES = 200  # smaller designs draw everything
MAX_OPEN_CELLS = 6  # more cells on screen: the view stays in the far level
SUBCELL_ZOOM = 0.09  # below: an open SU shows its racks as blocks (a few lines, not thousands)
TURN_BUDGET_S = 0.03  # opening cells while the view moves: this long per turn of the loop
AREA_MARGIN = 0.25  # share of the view's size added on each side before opening cells


@dataclass(frozen=True)
class BlockStats:
    """What an aggregate block says about its contents."""

    devices: int = 0
    gpus: int = 0
    failed: int = 0  # devices down (own status, or a failed group or rack)
    power_w: float = 0.0  # sum of the members' maximum power

    def text(self) -> str:
        return " · ".join(self.parts())

    def parts(self) -> list[str]:
        """The counts, most telling first (a narrow block shows the first few)."""
        parts = [count(self.gpus, "GPU") if self.gpus else count(self.devices, "device")]
        if self.failed:
            parts.append(f"{self.failed:,} failed")
        if self.gpus:
            parts.append(count(self.devices, "device"))
        if self.power_w:
            parts.append(format_power(self.power_w))
        return parts


def count(n: int, one: str, many: str | None = None) -> str:
    """'1 device', '2 devices', '1 switch', '3 switches' (thousands separated)."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def format_power(watts: float) -> str:
    if watts >= 1e6:
        return f"{watts / 1e6:.2f} MW"
    if watts >= 1e3:
        return f"{watts / 1e3:.0f} kW"
    return f"{watts:.0f} W"


def find_cells(layout: Layout) -> set[str]:
    """The groups drawn as blocks when far out (none for a small design)."""
    if layout.device_count() <= CELL_MIN_DEVICES:
        return set()
    groups = {g.id: g for g in layout.groups()}
    holds_su: set[str] = set()
    for group in groups.values():
        if group.kind in CELL_KINDS:
            parent = group.parent
            while parent is not None and parent in groups and parent not in holds_su:
                holds_su.add(parent)
                parent = groups[parent].parent
    cells: set[str] = set()
    for gid, group in groups.items():
        if group.kind in CELL_KINDS:
            candidate = True
        else:
            candidate = group.kind in TIER_KINDS and gid not in holds_su
        if not candidate:
            continue
        parent, inside = group.parent, False
        while parent is not None and parent in groups:
            if groups[parent].kind in CELL_KINDS or (
                    groups[parent].kind in TIER_KINDS and parent not in holds_su):
                inside = True  # an outer group is the cell
                break
            parent = groups[parent].parent
        if not inside:
            cells.add(gid)
    return cells


def block_stats(layout: Layout, members: list[str], failed: frozenset[str] | set[str]
                ) -> BlockStats:
    gpus, down, power = 0, 0, 0.0
    per_model: dict[str, tuple[int, float]] = {}  # a block's thousands of devices, few models
    device = layout.device
    for device_id in members:
        model = device(device_id).model
        figures = per_model.get(model)
        if figures is None:
            spec = layout.spec(device_id)
            figures = per_model[model] = ((spec.traits.computes, spec.power.max_w or 0.0)
                                          if spec is not None else (0, 0.0))
        gpus += figures[0]
        power += figures[1]
        down += device_id in failed
    return BlockStats(len(members), gpus, down, power)


def members_rect(layout: Layout, members: list[str]) -> QRectF:
    """The scene rectangle the members' boxes cover (from the document, without items)."""
    x0 = y0 = float("inf")
    x1 = y1 = float("-inf")
    sizes: dict[str, tuple[float, float]] = {}  # a box's size is its model's (device_size)
    device = layout.device
    for device_id in members:
        d = device(device_id)
        x, y = d.pos
        size = sizes.get(d.model)
        if size is None:
            size = sizes[d.model] = device_size(layout.spec(device_id))
        if x < x0:
            x0 = x
        if y < y0:
            y0 = y
        if x + size[0] > x1:
            x1 = x + size[0]
        if y + size[1] > y1:
            y1 = y + size[1]
    if x0 > x1:
        return QRectF()
    return QRectF(x0, y0, x1 - x0, y1 - y0)


class CellIndex:
    """The cells of the scene's layout, their areas, and which are open (see module doc)."""

    lazy = False  # True when a view drives which cells are open; else all are open

    def _init_cells(self) -> None:
        self._cells: set[str] = set()
        self._subcells: dict[str, str] = {}  # child group of a cell -> the cell
        self._cell_links: dict[str, dict] = {}  # cell -> its links by the other end's cell
        self._cell_rects: dict[str, QRectF] = {}
        self._open_cells: set[str] = set()
        self._area: QRectF | None = None
        self._area_subcells = True
        self._area_pending = False

    def _find_cells(self) -> None:
        self._cells = find_cells(self.layout) if self.layout is not None else set()
        self._subcells = {child: gid for gid in self._cells
                          for child in self.layout.group_children(gid)}
        self._cell_rects.clear()
        self._cell_links.clear()
        self._open_cells &= self._cells | set(self._subcells)

    def is_cell(self, group_id: str) -> bool:
        """A cell or a sub-cell (a cell's child group: a rack of an SU, opened on its own)."""
        return group_id in self._cells or group_id in self._subcells

    def cells(self) -> set[str]:
        return set(self._cells)

    def open_cells(self) -> set[str]:
        """The cells and sub-cells open now (all of them when not `lazy`)."""
        if self.level == "far":
            return set()
        everything = self._cells | set(self._subcells)
        return everything if not self.lazy else set(self._open_cells)

    def cell_rect(self, group_id: str) -> QRectF:
        rect = self._cell_rects.get(group_id)
        if rect is None:
            rect = members_rect(self.layout, self.layout.group_devices(group_id))
            self._cell_rects[group_id] = rect
        return rect

    def _forget_cell_rect(self, group_id: str) -> None:
        self._cell_rects.pop(group_id, None)

    def request_area(self, rect: QRectF, zoom: float = 1.0) -> None:
        """The view shows `rect` (scene coordinates) at `zoom`: open the cells it meets (and,
        from `SUBCELL_ZOOM`, their sub-cells) and close the others at the next `flush`."""
        mx, my = rect.width() * AREA_MARGIN, rect.height() * AREA_MARGIN
        self._area = rect.adjusted(-mx, -my, mx, my)
        self._area_subcells = zoom >= SUBCELL_ZOOM
        if self.lazy and self._cells:
            self._area_pending = True
            self._flush_timer.start()

    def object_point(self, object_id: str) -> QPointF | None:
        """Where a device, group or link is in the scene (from the document: it may have no
        item), to centre the view on it."""
        layout = self.layout
        if layout is None:
            return None
        if layout.has_device(object_id):
            return members_rect(layout, [object_id]).center()
        if layout.has_group(object_id):
            members = layout.group_devices(object_id)
            return members_rect(layout, members).center() if members else None
        if layout.has_link(object_id):
            link = layout.link(object_id)
            ends = [e.device for e in (link.a, link.b) if layout.has_device(e.device)]
            return members_rect(layout, ends).center() if ends else None
        return None

    def cells_meeting(self, rect: QRectF) -> int:
        """How many cells' areas meet `rect` (the view decides the far level by it)."""
        return sum(1 for gid in self._cells if self.cell_rect(gid).intersects(rect))

    def _wanted_cells(self) -> set[str]:
        """The cells meeting the view's area, and their sub-cells meeting it."""
        if self._area is None:  # no view has said what it shows yet: everything
            return self._cells | set(self._subcells)
        area = self._area
        cells = {gid for gid in self._cells if self.cell_rect(gid).intersects(area)}
        if not self._area_subcells:
            return cells
        return cells | {sub for sub, gid in self._subcells.items()
                        if gid in cells and self.cell_rect(sub).intersects(area)}

    def _apply_area(self, budget_s: float | None = None) -> None:
        """Close the open cells off screen and open those on screen: all of them, or (within
        `budget_s` seconds) one by one, the nearest to the middle of the view first, a cell
        before its sub-cells; the rest stays pending for the next turn."""
        self._area_pending = False
        if not self.lazy or self.layout is None or self.level == "far":
            return
        wanted = self._wanted_cells()
        closing = self._open_cells - wanted
        todo = wanted - self._open_cells
        if budget_s is None:
            if closing:
                self._open_cells -= closing
                self._sync_collapse(closing)
            if todo:
                self._open_cells |= todo
                self._sync_collapse(todo)
            return
        start = time.perf_counter()
        centre = self._area.center()

        def distance(gid: str) -> float:
            c = self.cell_rect(gid).center()
            return (c.x() - centre.x()) ** 2 + (c.y() - centre.y()) ** 2

        # off screen first, sub-cells before their cell, the farthest first
        for gid in sorted(closing, key=lambda g: (g in self._cells, -distance(g))):
            self._open_cells.discard(gid)
            self._sync_collapse([gid])
            if time.perf_counter() - start > budget_s:
                self._area_pending = True
                return
        while todo:
            ready = [g for g in todo if g in self._cells or self._subcells[g] in self._open_cells]
            gid = min(ready or todo, key=distance)
            todo.discard(gid)
            self._open_cells.add(gid)
            self._sync_collapse([gid])
            if time.perf_counter() - start > budget_s:
                break
        self._area_pending = bool(todo)

    def _close_all_cells(self) -> None:
        """Before a change of level: the open sub-cells (or cells, when they have none) close
        now, at the old level where they hold little, and reopen a few per turn of the event
        loop at the new one."""
        keep = {gid for gid in self._open_cells
                if gid in self._cells and any(p == gid for p in self._subcells.values())}
        self._open_cells = keep
        self._area_pending = bool(self._cells)
