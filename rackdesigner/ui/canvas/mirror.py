"""How the scene follows the document: one handler per model event (mixed into `RackScene`).

Each handler updates only the items the event touches: a device's item (made or dropped when it
comes, goes or changes group: only devices drawn as themselves have one), its bundles, and the
frames and blocks holding it (marked, recomputed at the next `flush`). A change of the group
tree's shape that can change the aggregate blocks (`canvas.cells`) re-lays out everything.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF

from rackdesigner.model import (
    DeviceAdded,
    DeviceChanged,
    DeviceRemoved,
    Event,
    GroupAdded,
    GroupChanged,
    GroupRemoved,
    LinkAdded,
    LinkChanged,
    LinkRemoved,
)
from rackdesigner.ui.canvas.cells import CELL_KINDS, CELL_MIN_DEVICES, TIER_KINDS, find_cells
from rackdesigner.ui.canvas.failure_marks import status_changed


class EventMirror:
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
        self._forget_endpoints(device.id)
        self._sync_items([device.id])
        self._mark_groups(device.group)
        item = self.item_for_device.get(device.id)
        if item is not None:
            self._grow_scene_rect(item.sceneBoundingRect())

    def _on_DeviceRemoved(self, event: DeviceRemoved) -> None:
        self._drop_device_item(event.device.id)
        self._forget_endpoints(event.device.id)
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
            self._forget_endpoints(new.id)
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
        self._chains.clear()  # per-group caches (structure.py): the tree changed
        self._forget_endpoints()
        self._add_group_item(event.group.id)
        if self._cells_change(event.group.kind):
            self._refind_cells()
        self._collapsed[event.group.id] = self._compute_collapsed(event.group.id)
        self._mark_groups(event.group.id)

    def _on_GroupRemoved(self, event: GroupRemoved) -> None:
        item = self.item_for_group.pop(event.group.id, None)
        if item is not None:
            self.forget_item(item)
            self.removeItem(item)
        self._dirty_groups.discard(event.group.id)
        self._collapsed.pop(event.group.id, None)
        self._chains.clear()
        self._forget_endpoints()
        if self._cells_change(event.group.kind):
            self._refind_cells()
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
            self._forget_endpoints()
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

    def _refind_cells(self) -> None:
        """A group of a cell's kind came or went. Groups come before their devices and go
        after them (undoing or deleting an SU), so a cell that appears or disappears is empty
        and only the sets change; anything else re-lays out everything (`_regroup`)."""
        layout = self.layout
        cells = find_cells(layout)
        subcells = {child: gid for gid in cells for child in layout.group_children(gid)}
        if cells == self._cells and subcells == self._subcells:
            return
        changed = (cells ^ self._cells) | {g for g in set(subcells) | set(self._subcells)
                                           if subcells.get(g) != self._subcells.get(g)}
        if any(layout.has_group(g) and layout.group_devices(g) for g in changed):
            self._regroup()
            return
        self._cells, self._subcells = cells, subcells
        self._cell_rects.clear()
        self._cell_links.clear()
        self._open_cells &= cells | set(subcells)
        self._sync_collapse([g for g in changed if layout.has_group(g)])
        if self.lazy:
            self._area_pending = True  # a new block on screen opens
            self._flush_timer.start()

    def _regroup(self) -> None:
        """The group tree changed shape: find the cells again and re-lay out everything."""
        self._find_cells()
        if self.lazy and self.level != "far":
            self._open_cells = self._wanted_cells()
        self._relayout_all()


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
