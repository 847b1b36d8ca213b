"""The canvas scene: a mirror of a `Layout`, updated from its events, never editing it.

`item_for_device`/`item_for_group` dicts map ids to items (as orange-canvas-core's scene
does). Links are drawn as bundles between *visible endpoints*: a device, or the outermost
collapsed group holding it. Groups collapse explicitly (`Group.collapsed`) or, in the overview
shown when zoomed far out, implicitly for nodes and trays, so a SuperPOD draws as a few hundred
boxes and bundles instead of thousands of ports. Small edits update only the items they touch;
group frames are recomputed lazily (`flush()`).

User intent leaves the scene as signals (see `interaction.py`) that the editor turns into
commands.
"""

from __future__ import annotations

import logging
from collections import defaultdict

from PySide6.QtCore import QPointF, QRectF, QTimer, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsScene

from rackdesigner.model import (
    DeviceAdded,
    DeviceChanged,
    DeviceRemoved,
    Event,
    GroupAdded,
    GroupChanged,
    GroupRemoved,
    Layout,
    LinkAdded,
    LinkChanged,
    LinkRemoved,
)
from rackdesigner.model.failures import FailedSet
from rackdesigner.ui import style
from rackdesigner.ui.canvas.bundling import BundleIndex
from rackdesigner.ui.canvas.cells import (
    CELL_KINDS,
    CELL_MIN_DEVICES,
    TIER_KINDS,
    TURN_BUDGET_S,
    CellIndex,
)
from rackdesigner.ui.canvas.failure_marks import FailureMarks, status_changed
from rackdesigner.ui.canvas.far_wires import paint_far_wires, set_batched
from rackdesigner.ui.canvas.heat import HeatMarks
from rackdesigner.ui.canvas.interaction import CanvasTools
from rackdesigner.ui.canvas.items import BUNDLE_TYPE, BundleItem, DeviceItem, GroupItem
from rackdesigner.ui.canvas.labels import paint_count_labels, place_count_labels
from rackdesigner.ui.canvas.structure import LEVELS, GroupStructure

log = logging.getLogger(__name__)

LABELS_DELAY_MS = 80


class RackScene(GroupStructure, CellIndex, HeatMarks, FailureMarks, BundleIndex, QGraphicsScene):
    """Mirrors one Layout; `set_layout` switches documents."""

    model_dropped = Signal(str, object)  # model id, (x, y) scene position
    move_finished = Signal(object)  # {device id: ((x0, y0), (x1, y1))}
    wire_requested = Signal(str, str, object, int)  # device a, b, port group of a or None, count
    bulk_wire_requested = Signal(str, str)  # group, switch: connect its compute NICs
    wire_feedback = Signal(str)  # status text while wiring
    group_toggled = Signal(str)  # the ▸/▾ button of a group was clicked

    def __init__(self, parent=None) -> None:
        QGraphicsScene.__init__(self, parent)
        self.tools = CanvasTools(self)  # wiring and moving: objects with their own state
        self.layout: Layout | None = None
        self.item_for_device: dict[str, DeviceItem] = {}
        self.item_for_group: dict[str, GroupItem] = {}
        self.bundles: dict[frozenset[str], BundleItem] = {}
        self._bundle_links: dict[frozenset[str], set[str]] = defaultdict(set)
        self._link_key: dict[str, frozenset[str]] = {}
        self._endpoint_bundles: dict[str, set[frozenset[str]]] = defaultdict(set)
        self._link_info: dict[str, tuple[str | None, float]] = {}
        self._chains: dict[str, tuple[str, ...]] = {}
        self._endpoints: dict[str, str] = {}  # device -> visible endpoint (cache)
        self._collapsed: dict[str, bool] = {}  # group -> collapsed now (structure.py)
        self.level = "detail"  # of detail: "detail", "overview" or "far" (structure.py)
        self._init_cells()
        self.batched_wires = False  # far out the scene draws the wires (far_wires.py)
        self._dirty_groups: set[str] = set()
        self._failures_dirty = False
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(0)
        self._flush_timer.timeout.connect(self._on_flush_timer)
        # count pills are placed after a burst of changes (a drag, opening a file), not per wire
        self._labels_timer = QTimer(self)
        self._labels_timer.setSingleShot(True)
        self._labels_timer.setInterval(LABELS_DELAY_MS)
        self._labels_timer.timeout.connect(self.place_labels)
        self.setBackgroundBrush(style.CANVAS_BG)
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)

    # ---- tools (ui/canvas/interaction.py) ------------------------------------------------
    @property
    def wire_mode(self) -> bool:
        return self.tools.wire.mode

    @wire_mode.setter
    def wire_mode(self, on: bool) -> None:
        self.tools.wire.mode = on

    @property
    def is_wiring(self) -> bool:
        return self.tools.wire.is_wiring

    def cancel_wiring(self) -> None:
        self.tools.wire.cancel_wiring()

    def type_wire_count(self, text: str) -> bool:
        """A key typed while wiring: the new link's count (see `WireTool.type_wire_count`)."""
        return self.tools.wire.type_wire_count(text)

    @property
    def wire_count_text(self) -> str:
        return self.tools.wire.wire_count_text

    def forget_item(self, item) -> None:
        """Drop the tools' references to an item about to be removed."""
        self.tools.forget_item(item)

    def restore_frames(self, group_ids=None) -> None:
        """Put dragged group frames back where the model says (after a move or a no-op)."""
        ids = self.item_for_group if group_ids is None else group_ids
        self._dirty_groups.update(g for g in ids if g in self.item_for_group)
        self.flush(cells=False)

    def mousePressEvent(self, event) -> None:
        if not self.tools.press(event):
            super().mousePressEvent(event)
            self.tools.after_press(event)

    def mouseMoveEvent(self, event) -> None:
        if not self.tools.move_event(event):
            super().mouseMoveEvent(event)
            self.tools.after_move(event)

    def mouseReleaseEvent(self, event) -> None:
        if not self.tools.release(event):
            super().mouseReleaseEvent(event)
            self.tools.after_release(event)

    def dragEnterEvent(self, event) -> None:
        self.tools.accepts_drag(event)

    def dragMoveEvent(self, event) -> None:
        self.tools.accepts_drag(event)

    def dropEvent(self, event) -> None:
        self.tools.drop(event)

    # ---- whole document -----------------------------------------------------------------
    def set_layout(self, layout: Layout | None) -> None:
        """Rebuild every item for `layout` (opening a file; small edits use `on_event`)."""
        self.cancel_wiring()
        self.clear()
        self.item_for_device.clear()
        self.item_for_group.clear()
        self.bundles.clear()
        self._bundle_links.clear()
        self._link_key.clear()
        self._endpoint_bundles.clear()
        self._link_info.clear()
        self._chains.clear()
        self._endpoints.clear()
        self._collapsed.clear()
        self._dirty_groups.clear()
        self._open_cells.clear()
        self._area_pending = False
        self.failed_set = FailedSet()
        self.heat = None
        self.heat_legend = None  # clear() removed it
        self.layout = layout
        self._find_cells()
        if layout is None:
            return
        if self.lazy and self.level != "far":
            self._open_cells = self._wanted_cells()
        for group in layout.groups():
            self._add_group_item(group.id)
        self._relayout_all()

    def _relayout_all(self) -> None:
        """Recompute every endpoint, item and bundle (a new document, a regrouping)."""
        assert self.layout is not None
        for key in list(self.bundles):
            self.removeItem(self.bundles.pop(key))
        self._bundle_links.clear()
        self._link_key.clear()
        self._endpoint_bundles.clear()
        self._chains.clear()
        self._endpoints.clear()
        self._collapsed = {g.id: self._compute_collapsed(g.id) for g in self.layout.groups()}
        self._sync_items([d.id for d in self.layout.devices()])
        for device_id in [d for d in self.item_for_device if not self.layout.has_device(d)]:
            self._drop_device_item(device_id)
        self._rekey_many(self.layout.links())
        self._dirty_groups.update(self.item_for_group)
        self.refresh_failures(everything=True)
        self.flush()
        self._grow_scene_rect()

    @property
    def overview(self) -> bool:
        """Nodes and trays are collapsed (the "overview" and "far" levels of detail)."""
        return self.level != "detail"

    @overview.setter
    def overview(self, on: bool) -> None:  # before `set_layout`: no re-layout
        self.level = "overview" if on else "detail"

    def set_overview(self, overview: bool) -> None:
        """Collapse nodes and trays implicitly (used when zoomed far out)."""
        self.set_level("overview" if overview else "detail")

    def set_level(self, level: str) -> None:
        """"detail": every device; "overview": nodes and trays collapsed; "far": aggregate
        blocks for SUs and switch tiers (`canvas.cells`) too."""
        if level not in LEVELS:
            raise ValueError(f"unknown level of detail {level!r}")
        if level == self.level:
            return
        self.level = level
        if self.layout is None:
            return
        if self.lazy:
            self._close_all_cells()
        self._sync_collapse()
        self.flush(cells=not self.lazy)
        if self._area_pending:
            self._flush_timer.start()

    # ---- mirroring events ------------------------------------------------------------------
    def on_event(self, event: Event) -> None:
        if self.layout is None:
            return
        if self._cell_links:  # a cell's links by the other end's cell (structure.py)
            self._forget_cell_links(*_devices_of(event))
        handler = getattr(self, f"_on_{type(event).__name__}", None)
        if handler is not None:
            handler(event)
        if self._cell_links:
            self._forget_cell_links(*_devices_of(event))
        self.follow_marks(event)
        if status_changed(event, bool(self.failed_set)):
            self._failures_dirty = True
            self._flush_timer.start()
        self._labels_timer.start()  # a box or a wire moved, came or went

    def _repaint_if_first_or_last(self) -> None:
        """The view draws an empty-canvas hint over the whole viewport: repaint all of it
        when the first device arrives or the last one goes, or the hint stays on screen."""
        if self.layout is not None and self.layout.device_count() <= 1:
            for view in self.views():
                view.viewport().update()

    def _on_DeviceAdded(self, event: DeviceAdded) -> None:
        device = event.device
        self._repaint_if_first_or_last()
        self._endpoints.pop(device.id, None)
        self._chains.pop(device.id, None)
        self._sync_items([device.id])
        self._mark_groups(device.group)
        item = self.item_for_device.get(device.id)
        if item is not None:
            self._grow_scene_rect(item.sceneBoundingRect())

    def _on_DeviceRemoved(self, event: DeviceRemoved) -> None:
        self._drop_device_item(event.device.id)
        self._chains.pop(event.device.id, None)
        self._endpoints.pop(event.device.id, None)
        self._mark_groups(event.device.group)
        self._repaint_if_first_or_last()

    def _on_DeviceChanged(self, event: DeviceChanged) -> None:
        old, new = event.old, event.new
        if old.model != new.model:
            self._drop_device_item(new.id)
            self._sync_items([new.id])
            for link in self.layout.links_of(new.id):
                self._link_info.pop(link.id, None)
                self._rekey(link)
            self._mark_groups(new.group)
            return
        item = self.item_for_device.get(new.id)
        if item is not None:
            item.set_label(new.label)
        if old.pos != new.pos:
            if item is not None:
                item.setPos(QPointF(*new.pos))
                self._on_item_moved(item)
            self._mark_groups(new.group)
        if old.group != new.group:
            self._chains.pop(new.id, None)
            self._endpoints.pop(new.id, None)
            self._sync_items([new.id])
            self._rekey_many(self.layout.links_of(new.id))
            self._mark_groups(old.group)
            self._mark_groups(new.group)

    def _on_LinkAdded(self, event: LinkAdded) -> None:
        self._rekey(event.link)
        self._update_usage(event.link.a.device, event.link.b.device)

    def _on_LinkRemoved(self, event: LinkRemoved) -> None:
        self._unfile_link(event.link.id)
        self._link_info.pop(event.link.id, None)
        self._update_usage(event.link.a.device, event.link.b.device)

    def _on_LinkChanged(self, event: LinkChanged) -> None:
        self._link_info.pop(event.new.id, None)
        self._rekey(event.new)
        self._update_usage(event.new.a.device, event.new.b.device)

    def _on_GroupAdded(self, event: GroupAdded) -> None:
        self._add_group_item(event.group.id)
        if self._cells_change(event.group.kind):
            self._regroup()
            return
        self._collapsed[event.group.id] = self._compute_collapsed(event.group.id)
        self._mark_groups(event.group.id)

    def _on_GroupRemoved(self, event: GroupRemoved) -> None:
        item = self.item_for_group.pop(event.group.id, None)
        if item is not None:
            self.forget_item(item)
            self.removeItem(item)
        self._dirty_groups.discard(event.group.id)
        self._collapsed.pop(event.group.id, None)
        if event.group.id in self._cells:
            self._regroup()
            return
        self._mark_groups(event.group.parent)

    def _on_GroupChanged(self, event: GroupChanged) -> None:
        old, new = event.old, event.new
        item = self.item_for_group.get(new.id)
        if item is not None:
            item.label, item.kind = new.label, new.kind
            item.update()
        if old.parent != new.parent or (old.kind != new.kind
                                        and self._cells_change(old.kind, new.kind)):
            self._chains.clear()
            self._regroup()
        elif old.collapsed != new.collapsed:
            self._sync_collapse([new.id])
            self.flush(cells=False)
        else:
            self._mark_groups(new.id)

    def _cells_change(self, *kinds: str) -> bool:
        """Whether a group of these kinds coming, going or changing can change the cells."""
        return (self.layout.device_count() > CELL_MIN_DEVICES
                and any(k in CELL_KINDS or k in TIER_KINDS for k in kinds))

    def _regroup(self) -> None:
        """The group tree changed shape: find the cells again and re-lay out everything."""
        self._find_cells()
        if self.lazy and self.level != "far":
            self._open_cells = self._wanted_cells()
        self._relayout_all()

    # ---- items ---------------------------------------------------------------------------
    def _add_device_item(self, device_id: str) -> DeviceItem:
        assert self.layout is not None
        device = self.layout.device(device_id)
        item = DeviceItem(device.id, self.layout.spec(device.id), device.model, device.label)
        item.setPos(QPointF(*device.pos))
        if device.id in self.failed_set.devices:
            item.set_failed(True)
        self.addItem(item)
        self.item_for_device[device.id] = item
        return item

    def _drop_device_item(self, device_id: str) -> None:
        item = self.item_for_device.pop(device_id, None)
        if item is not None:
            self.forget_item(item)
            self.removeItem(item)

    def _add_group_item(self, group_id: str) -> GroupItem:
        assert self.layout is not None
        group = self.layout.group(group_id)
        item = GroupItem(group.id, group.label, group.kind)
        self.addItem(item)
        self.item_for_group[group.id] = item
        return item

    def _update_usage(self, *device_ids: str) -> None:
        assert self.layout is not None
        for device_id in device_ids:
            if not self.layout.has_device(device_id):
                continue
            item = self.item_for_device.get(device_id)
            if item is not None:
                item.set_usage(self.layout.index().port_usage(device_id))
                continue
            hidden_by = self._hidden_by(device_id)
            if hidden_by is not None and not self.is_block(hidden_by):
                self._mark_groups(hidden_by, moved=False)  # its summary counts ports

    def _on_item_moved(self, item) -> None:
        endpoint = item.device_id if isinstance(item, DeviceItem) else item.group_id
        for key in self._endpoint_bundles.get(endpoint, ()):
            self._place_bundle(key)

    def item_standing_for(self, object_id: str):
        """The item drawing a device, group or link: itself, or the collapsed group or block
        holding it (for a link inside one collapsed group, that group)."""
        layout = self.layout
        if layout is None:
            return None
        if layout.has_device(object_id):
            endpoint = self._endpoint(object_id)
            return self.item_for_device.get(endpoint) or self.item_for_group.get(endpoint)
        if layout.has_group(object_id):
            item = self.item_for_group.get(object_id)
            parent, outer = layout.group(object_id).parent, None
            while parent is not None:
                if self.is_collapsed(parent):
                    outer = parent
                parent = layout.group(parent).parent
            return self.item_for_group.get(outer) if outer is not None else item
        key = self._link_key.get(object_id)
        if key is not None:
            return self.bundles.get(key)
        if layout.has_link(object_id):  # both ends inside one collapsed group or block
            return self.item_standing_for(layout.link(object_id).a.device)
        return None

    def _on_flush_timer(self) -> None:
        """Deferred updates: one more cell opened per turn while some are pending."""
        if self._area_pending:
            self._apply_area(budget_s=TURN_BUDGET_S)
        self.flush(cells=False)

    def flush(self, cells: bool = True) -> None:
        """Open or close cells for the view's area (unless not `cells`), bring group frames and
        blocks up to date (deepest groups first), then failures and the bundles' pills."""
        self._flush_timer.stop()
        if self._area_pending and cells:
            self._apply_area()
        self._flush_groups()
        if self._failures_dirty:
            self.refresh_failures()
        if self._labels_timer.isActive():
            self.place_labels()
        if self._area_pending:  # cells still to open, one per turn
            self._flush_timer.start()

    def set_batched_wires(self, on: bool) -> None:
        """Draw the wires in one pass under the boxes (zoomed out) or bundle by bundle."""
        if on != self.batched_wires:
            self.batched_wires = on
            set_batched(self.bundles.values(), on)

    def paint_batched_wires(self, painter: QPainter, rect: QRectF) -> None:
        if self.batched_wires and self.bundles:
            paint_far_wires(self, painter, rect)

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:  # exports
        super().drawBackground(painter, rect)
        self.paint_batched_wires(painter, rect)

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        if self.bundles and style.lod(painter) >= style.LOD_TEXT:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            shown = [item for item in self.items(rect) if item.type() == BUNDLE_TYPE]
            paint_count_labels(painter, shown, rect)

    def place_labels(self) -> None:
        self._labels_timer.stop()
        if self.overview:  # zoomed out too far for any text; leaving it re-places them
            return
        boxes = [item.sceneBoundingRect() for item in self.item_for_device.values()
                 if item.isVisible()]
        boxes += [item.sceneBoundingRect() for item in self.item_for_group.values()
                  if item.collapsed and not item.block and item.isVisible()]
        place_count_labels(self.bundles.values(), boxes)

    def _grow_scene_rect(self, rect: QRectF | None = None) -> None:
        bounds = self.itemsBoundingRect() if rect is None else self.sceneRect().united(rect)
        self.setSceneRect(bounds.adjusted(-2000, -2000, 2000, 2000) if rect is None else bounds)


def _devices_of(event: Event) -> tuple[str, ...]:
    """The devices whose links or cell an event can change."""
    for name in ("link", "new", "old"):
        link = getattr(event, name, None)
        if link is not None and hasattr(link, "a") and hasattr(link, "b"):
            other = getattr(event, "old", None)
            ends = (link.a.device, link.b.device)
            if other is not None and hasattr(other, "a"):
                ends += (other.a.device, other.b.device)
            return ends
    device = getattr(event, "device", None) or getattr(event, "new", None)
    if device is not None and hasattr(device, "model"):
        return (device.id,)
    return ()
