"""The canvas scene: a mirror of a `Layout`, updated from its events, never editing it.

`item_for_device`/`item_for_group` dicts map ids to items (as orange-canvas-core's scene
does). Links are drawn as bundles between *visible endpoints*: a device, or the outermost
collapsed group holding it, and only those have items. Groups collapse explicitly
(`Group.collapsed`), implicitly for nodes and trays in the overview shown when zoomed out, and,
far out or off screen, SUs and switch tiers become aggregate blocks (`cells.py`,
`structure.py`), so a 32k-GPU SuperPOD is a few thousand items instead of half a million. Events
update only the items they touch (`mirror.py`); group frames and blocks are recomputed lazily
(`flush()`).

User intent leaves the scene as signals (see `interaction.py`) that the editor turns into
commands.
"""

from __future__ import annotations

import logging
from collections import defaultdict

from PySide6.QtCore import QPointF, QRectF, QTimer, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsScene

from rackdesigner.model import Layout
from rackdesigner.model.failures import FailedSet
from rackdesigner.ui import style
from rackdesigner.ui.canvas.blast_marks import BlastMarks
from rackdesigner.ui.canvas.bundling import BundleIndex
from rackdesigner.ui.canvas.cells import TURN_BUDGET_S, CellIndex
from rackdesigner.ui.canvas.failure_marks import FailureMarks
from rackdesigner.ui.canvas.far_wires import paint_far_wires, set_batched
from rackdesigner.ui.canvas.heat import HeatMarks
from rackdesigner.ui.canvas.interaction import CanvasTools
from rackdesigner.ui.canvas.items import BUNDLE_TYPE, BundleItem, DeviceItem, GroupItem
from rackdesigner.ui.canvas.labels import paint_count_labels, place_count_labels
from rackdesigner.ui.canvas.mirror import EventMirror
from rackdesigner.ui.canvas.structure import LEVELS, GroupStructure

log = logging.getLogger(__name__)

LABELS_DELAY_MS = 80


class RackScene(EventMirror, GroupStructure, CellIndex, HeatMarks, FailureMarks, BlastMarks,
                BundleIndex, QGraphicsScene):
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
        #: the same by (model, port group) of each end: a catalog's figures, kept per layout
        self._pair_info: dict[tuple[str, str, str, str], tuple[str | None, float]] = {}
        self._pair_catalog: object = None
        self._chains: dict[str, tuple[str, ...]] = {}  # group -> it and its ancestors
        self._endpoints: dict[str, str | None] = {}  # group -> outermost collapsed around it
        self._device_endpoints: dict[str, str] = {}  # device -> what it is drawn as
        self._collapsed: dict[str, bool] = {}  # group -> collapsed now (structure.py)
        self.level = "detail"  # of detail: "detail", "overview" or "far" (structure.py)
        self._init_cells()
        self.batched_wires = False  # far out the scene draws the wires (far_wires.py)
        # set by the view before it paints (far_lines.py): the bundles between two blocks it
        # routes along the gutters itself, and how much narrower blocks are drawn for lanes
        self.routed_keys: frozenset = frozenset()
        # bumped whenever a group's frame or block, or a bundle, changes: what the view
        # draws over the blocks (routes, names) is recomputed only then
        self.blocks_revision = 0
        self.block_inset_px: tuple[float, float] = (0.0, 0.0)
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
        self.blocks_revision += 1
        self.clear()
        self.item_for_device.clear()
        self.item_for_group.clear()
        self.bundles.clear()
        self._bundle_links.clear()
        self._link_key.clear()
        self._endpoint_bundles.clear()
        self._link_info.clear()
        self._pair_info.clear()
        self._chains.clear()
        self._forget_endpoints()
        self._collapsed.clear()
        self._dirty_groups.clear()
        self._open_cells.clear()
        self._area_pending = False
        self.failed_set = FailedSet()
        self.heat = None
        self.heat_legend = None  # clear() removed it
        self.blast_devices = self.blast_groups = frozenset()
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
        self._forget_endpoints()
        self._collapsed = {g.id: self._compute_collapsed(g.id) for g in self.layout.groups()}
        ends = self._ends_of_all()  # what each device is drawn as, in one walk
        self._sync_items(list(ends))
        for device_id in [d for d in self.item_for_device if not self.layout.has_device(d)]:
            self._drop_device_item(device_id)
        self._rekey_many(self.layout.links(), ends)
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
        self._mark_area_boxes()
        self.flush(cells=not self.lazy)
        if self._area_pending:
            self._flush_timer.start()

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
        if self.blast_devices:
            self.refresh_blast()
        if self._labels_timer.isActive():
            self.place_labels()
        if self._area_pending:  # cells still to open, one per turn
            self._flush_timer.start()

    def set_batched_wires(self, on: bool) -> None:
        """Draw the wires in one pass under the boxes (zoomed out) or bundle by bundle."""
        if on != self.batched_wires:
            self.batched_wires = on
            set_batched(self.bundles.values(), on)

    def paint_batched_wires(self, painter: QPainter, rect: QRectF, on_view: bool = False
                            ) -> None:
        """The one-pass wires; for the view (`on_view`) without those it routes itself."""
        if self.batched_wires and self.bundles:
            paint_far_wires(self, painter, rect, skip_routed=on_view)

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:  # exports, overview map
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
        """Room around the design to scroll over: 2,000 units, or a quarter of the design's
        size (fitted far out, 2,000 units were ~27 px: no room for the heat map's legend)."""
        bounds = self.itemsBoundingRect() if rect is None else self.sceneRect().united(rect)
        if rect is None:
            m = max(2000.0, 0.25 * max(bounds.width(), bounds.height()))
            bounds = bounds.adjusted(-m, -m, m, m)
        self.setSceneRect(bounds)

