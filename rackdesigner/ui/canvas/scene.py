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
from rackdesigner.ui.canvas.failure_marks import FailureMarks, status_changed
from rackdesigner.ui.canvas.heat import HeatMarks
from rackdesigner.ui.canvas.interaction import CanvasTools
from rackdesigner.ui.canvas.items import BundleItem, DeviceItem, GroupItem
from rackdesigner.ui.canvas.labels import paint_count_labels, place_count_labels

log = logging.getLogger(__name__)

OVERVIEW_KINDS = ("node", "tray")
LABELS_DELAY_MS = 80


class RackScene(HeatMarks, FailureMarks, BundleIndex, QGraphicsScene):
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
        self._dirty_groups: set[str] = set()
        self._failures_dirty = False
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(0)
        self._flush_timer.timeout.connect(self.flush)
        # count pills are placed after a burst of changes (a drag, opening a file), not per wire
        self._labels_timer = QTimer(self)
        self._labels_timer.setSingleShot(True)
        self._labels_timer.setInterval(LABELS_DELAY_MS)
        self._labels_timer.timeout.connect(self.place_labels)
        self.overview = False
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
        self.flush()

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
        self._dirty_groups.clear()
        self.failed_set = FailedSet()
        self.heat = None
        self.heat_legend = None  # clear() removed it
        self.layout = layout
        if layout is None:
            return
        index = layout.index()  # port usage: the same facts the wiring tool and rules read
        for group in layout.groups():
            self._add_group_item(group.id)
        for device in layout.devices():
            item = self._add_device_item(device.id)
            item.set_usage(index.port_usage(device.id))
        self._relayout_all()
        self.refresh_failures()

    def _relayout_all(self) -> None:
        """Recompute visibility, bundles and frames (collapse toggles, overview changes)."""
        assert self.layout is not None
        for key in list(self.bundles):
            self.removeItem(self.bundles.pop(key))
        self._bundle_links.clear()
        self._link_key.clear()
        self._endpoint_bundles.clear()
        self._chains.clear()
        self._endpoints.clear()
        for device_id, item in self.item_for_device.items():
            item.setVisible(self._endpoint(device_id) == device_id)
        touched: set[frozenset[str]] = set()
        for link in self.layout.links():
            key = self._key(link)
            if key is not None:
                self._file_link(link.id, key)
                touched.add(key)
        self._dirty_groups.update(self.item_for_group)
        self.flush()
        for key in touched:
            self._refresh_bundle(key)
        if self.failed_set:  # the bundles are new items
            self.refresh_failures()
        if self.heat is not None:
            self.apply_heat()
        self._grow_scene_rect()

    def set_overview(self, overview: bool) -> None:
        """Collapse nodes and trays implicitly (used when zoomed far out)."""
        if overview != self.overview:
            self.overview = overview
            if self.layout is not None:
                self._relayout_all()

    # ---- mirroring events ------------------------------------------------------------------
    def on_event(self, event: Event) -> None:
        if self.layout is None:
            return
        handler = getattr(self, f"_on_{type(event).__name__}", None)
        if handler is not None:
            handler(event)
        if status_changed(event, bool(self.failed_set)):
            self._failures_dirty = True
            self._flush_timer.start()
        self._labels_timer.start()  # a box or a wire moved, came or went

    def _repaint_if_first_or_last(self) -> None:
        """The view draws an empty-canvas hint over the whole viewport: repaint all of it
        when the first device arrives or the last one goes, or the hint stays on screen."""
        if len(self.item_for_device) <= 1:
            for view in self.views():
                view.viewport().update()

    def _on_DeviceAdded(self, event: DeviceAdded) -> None:
        device = event.device
        self._repaint_if_first_or_last()
        item = self._add_device_item(device.id)
        item.setVisible(self._endpoint(device.id) == device.id)
        self._mark_groups(device.group)
        self._grow_scene_rect(item.sceneBoundingRect())

    def _on_DeviceRemoved(self, event: DeviceRemoved) -> None:
        item = self.item_for_device.pop(event.device.id, None)
        self._chains.pop(event.device.id, None)
        self._endpoints.pop(event.device.id, None)
        if item is not None:
            self.forget_item(item)
            self.removeItem(item)
        self._mark_groups(event.device.group)
        self._repaint_if_first_or_last()

    def _on_DeviceChanged(self, event: DeviceChanged) -> None:
        old, new = event.old, event.new
        item = self.item_for_device.get(new.id)
        if item is None:
            return
        if old.model != new.model:
            self._on_DeviceRemoved(DeviceRemoved(old))
            self._on_DeviceAdded(DeviceAdded(new))
            for link in self.layout.links_of(new.id):
                self._link_info.pop(link.id, None)
                self._rekey(link)
            self._update_usage(new.id)
            return
        item.set_label(new.label)
        if old.pos != new.pos:
            item.setPos(QPointF(*new.pos))
            self._on_item_moved(item)
            self._mark_groups(new.group)
        if old.group != new.group:
            self._chains.pop(new.id, None)
            self._endpoints.pop(new.id, None)
            item.setVisible(self._endpoint(new.id) == new.id)
            for link in self.layout.links_of(new.id):
                self._rekey(link)
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
        self._mark_groups(event.group.id)

    def _on_GroupRemoved(self, event: GroupRemoved) -> None:
        item = self.item_for_group.pop(event.group.id, None)
        if item is not None:
            self.forget_item(item)
            self.removeItem(item)
        self._dirty_groups.discard(event.group.id)
        self._mark_groups(event.group.parent)

    def _on_GroupChanged(self, event: GroupChanged) -> None:
        old, new = event.old, event.new
        item = self.item_for_group.get(new.id)
        if item is not None:
            item.label, item.kind = new.label, new.kind
            item.update()
        if (old.collapsed, old.parent) != (new.collapsed, new.parent):
            self._relayout_all()
        else:
            self._mark_groups(new.id)

    # ---- items ---------------------------------------------------------------------------
    def _add_device_item(self, device_id: str) -> DeviceItem:
        assert self.layout is not None
        device = self.layout.device(device_id)
        item = DeviceItem(device.id, self.layout.spec(device.id), device.model, device.label)
        item.setPos(QPointF(*device.pos))
        self.addItem(item)
        self.item_for_device[device.id] = item
        return item

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
            item = self.item_for_device.get(device_id)
            if item is None:
                continue
            item.set_usage(self.layout.index().port_usage(device_id))
            group = self.layout.device(device_id).group
            if group is not None and self._hidden_by(device_id) is not None:
                self._mark_groups(group)

    def _on_item_moved(self, item) -> None:
        endpoint = item.device_id if isinstance(item, DeviceItem) else item.group_id
        for key in self._endpoint_bundles.get(endpoint, ()):
            self._place_bundle(key)

    # ---- group structure -------------------------------------------------------------------
    def _chain(self, device_id: str) -> tuple[str, ...]:
        """Groups holding a device, outermost first."""
        chain = self._chains.get(device_id)
        if chain is None:
            assert self.layout is not None
            groups = []
            gid = self.layout.device(device_id).group
            while gid is not None and self.layout.has_group(gid):
                groups.append(gid)
                gid = self.layout.group(gid).parent
            chain = self._chains[device_id] = tuple(reversed(groups))
        return chain

    def is_collapsed(self, group_id: str) -> bool:
        assert self.layout is not None
        group = self.layout.group(group_id)
        return group.collapsed or (self.overview and group.kind in OVERVIEW_KINDS)

    def _endpoint(self, device_id: str) -> str:
        endpoint = self._endpoints.get(device_id)
        if endpoint is None:
            endpoint = device_id
            for gid in self._chain(device_id):
                if self.is_collapsed(gid):
                    endpoint = gid
                    break
            self._endpoints[device_id] = endpoint
        return endpoint

    def _hidden_by(self, device_id: str) -> str | None:
        endpoint = self._endpoint(device_id)
        return None if endpoint == device_id else endpoint

    def _group_hidden(self, group_id: str) -> bool:
        assert self.layout is not None
        parent = self.layout.group(group_id).parent
        while parent is not None:
            if self.is_collapsed(parent):
                return True
            parent = self.layout.group(parent).parent
        return False

    def _group_depth(self, group_id: str) -> int:
        assert self.layout is not None
        depth, parent = 0, self.layout.group(group_id).parent
        while parent is not None:
            depth += 1
            parent = self.layout.group(parent).parent
        return depth

    def _mark_groups(self, group_id: str | None) -> None:
        """Mark a group and its ancestors for a frame update at the next `flush()`."""
        assert self.layout is not None
        while group_id is not None and self.layout.has_group(group_id):
            self._dirty_groups.add(group_id)
            group_id = self.layout.group(group_id).parent
        if self._dirty_groups and not self._flush_timer.isActive():
            self._flush_timer.start()

    def flush(self) -> None:
        """Bring group frames and collapsed boxes up to date (deepest groups first), then the
        bundles' count pills."""
        self._flush_timer.stop()
        self._flush_groups()
        if self._failures_dirty or self.failed_set:  # a regrouping may have new bundles
            self.refresh_failures()
        if self.heat is not None:
            self.apply_heat()
        if self._labels_timer.isActive():
            self.place_labels()

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        if self.bundles and style.lod(painter) >= style.LOD_TEXT:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            paint_count_labels(painter, self.bundles.values(), rect)

    def place_labels(self) -> None:
        self._labels_timer.stop()
        if self.overview:  # zoomed out too far for any text; leaving it re-places them
            return
        boxes = [item.sceneBoundingRect() for item in self.item_for_device.values()
                 if item.isVisible()]
        boxes += [item.sceneBoundingRect() for item in self.item_for_group.values()
                  if item.collapsed and item.isVisible()]
        place_count_labels(self.bundles.values(), boxes)

    def _flush_groups(self) -> None:
        if self.layout is None or not self._dirty_groups:
            return
        dirty = [g for g in self._dirty_groups if g in self.item_for_group]
        self._dirty_groups.clear()
        dirty.sort(key=self._group_depth, reverse=True)
        for gid in dirty:
            self._update_group_item(gid)
            for key in self._endpoint_bundles.get(gid, ()):
                self._place_bundle(key)

    def _update_group_item(self, gid: str) -> None:
        assert self.layout is not None
        item = self.item_for_group[gid]
        members = self.layout.group_devices(gid)
        if not members or self._group_hidden(gid):
            item.setVisible(False)
            return
        item.setVisible(True)
        if self.is_collapsed(gid):
            xs = [self.layout.device(d).pos for d in members]
            top_left = QPointF(min(p[0] for p in xs), min(p[1] for p in xs))
            item.set_collapsed_box(top_left, self._summary(members), len(members))
            return
        rect = QRectF()
        for device_id in self.layout.group_devices(gid, recursive=False):
            rect = rect.united(self.item_for_device[device_id].sceneBoundingRect())
        for child in self.layout.group_children(gid):
            child_item = self.item_for_group.get(child)
            if child_item is not None and child_item.isVisible():
                rect = rect.united(child_item.frame_rect())
        m = style.GROUP_MARGIN
        item.set_frame(rect.adjusted(-m, -m - style.GROUP_HEADER, m, m), self._group_depth(gid))

    def _summary(self, members: list[str]) -> list[tuple[str, int, int]]:
        total: dict[str, int] = defaultdict(int)
        used: dict[str, int] = defaultdict(int)
        for device_id in members:
            item = self.item_for_device.get(device_id)
            if item is None or item.spec is None:
                continue
            for group in item.spec.ports:
                total[group.protocol] += group.count
                used[group.protocol] += item.usage.get(group.name, 0)
        return [(p, used[p], total[p]) for p in sorted(total, key=lambda p: -total[p])]

    def _grow_scene_rect(self, rect: QRectF | None = None) -> None:
        bounds = self.itemsBoundingRect() if rect is None else self.sceneRect().united(rect)
        self.setSceneRect(bounds.adjusted(-2000, -2000, 2000, 2000) if rect is None else bounds)
