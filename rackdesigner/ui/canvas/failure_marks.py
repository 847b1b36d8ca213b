"""Failed objects on the canvas: greyed and hatched, still where the designer put them.

The scene keeps the document's failure closure (`model.failures.closure`, the same function
the simulation reads) and sets `failed` on the items it touches: devices down (their own status,
a failed group or a failed rack), groups marked or inside a marked group, and bundles whose
links are all down (a bundle with some members down is drawn dashed). Recomputed only when a
status, a group membership or the set of objects changes; items whose state did not change are
not repainted. Mixed into `RackScene`.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath

from rackdesigner.model.events import (
    DeviceAdded,
    DeviceChanged,
    Event,
    GroupChanged,
    LinkAdded,
    LinkChanged,
)
from rackdesigner.model.failures import FailedSet, closure, marked_failed
from rackdesigner.model.items import FAILED

FAILED_GREY = QColor(120, 120, 120)
FAILED_VEIL = QColor(235, 235, 235, 170)
HATCH = QColor(90, 90, 90, 150)


def paint_failed(painter: QPainter, rect: QRectF, far: bool = False) -> None:
    """Grey out and hatch `rect` (a failed device or collapsed group)."""
    painter.save()
    path = QPainterPath()
    path.addRoundedRect(rect, 6, 6)
    if far:
        painter.fillPath(path, FAILED_GREY)
    else:
        painter.fillPath(path, FAILED_VEIL)
        brush = QBrush(HATCH, Qt.BrushStyle.BDiagPattern)
        painter.setBrushOrigin(rect.topLeft())
        painter.fillPath(path, brush)
    painter.restore()


def status_changed(event: Event, any_failed: bool) -> bool:
    """True when `event` can change what is failed (additions only matter when some are)."""
    if isinstance(event, DeviceChanged | GroupChanged):
        return (event.old.status != event.new.status
                or getattr(event.old, "group", None) != getattr(event.new, "group", None)
                or getattr(event.old, "parent", None) != getattr(event.new, "parent", None))
    if isinstance(event, LinkChanged):
        return event.old.status != event.new.status
    return any_failed and isinstance(event, DeviceAdded | LinkAdded)


class FailureMarks:
    """Keeps `failed` on the scene's items in step with the document."""

    failed_set: FailedSet = FailedSet()
    _marked: dict[str, None] | None = None  # ids failed in the document, kept from events

    def follow_marks(self, event: Event) -> None:
        """Keep the document's failed ids from its events (no pass over the whole design)."""
        if self._marked is None:
            return
        new = getattr(event, "new", None)
        if new is not None:  # changed: its status now
            if getattr(new, "status", None) == FAILED:
                self._marked[new.id] = None
            else:
                self._marked.pop(getattr(new, "id", None), None)
            return
        obj = next((getattr(event, f) for f in ("device", "link", "group")
                    if hasattr(event, f)), None)
        if obj is None:
            return
        if type(event).__name__.endswith("Removed"):
            self._marked.pop(obj.id, None)
        elif obj.status == FAILED:
            self._marked[obj.id] = None

    def refresh_failures(self, everything: bool = False) -> None:
        """Recompute the failure closure and mark what changed (`everything`: every item,
        after a re-layout made new ones)."""
        layout = self.layout
        if layout is None:
            self._marked = None
            new = FailedSet()
        else:
            if everything or self._marked is None:
                self._marked = dict.fromkeys(marked_failed(layout))
            new = closure(layout, list(self._marked)) if self._marked else FailedSet()
        old = FailedSet() if everything else self.failed_set
        self._failures_dirty = False
        self.failed_set = new
        if not new and not old:
            return
        for did in old.devices ^ new.devices:
            item = self.item_for_device.get(did)
            if item is not None:
                item.set_failed(did in new.devices)
            if layout is not None and layout.has_device(did):
                self._mark_groups(layout.device(did).group, moved=False)  # blocks count it
        down = self._groups_down(new.marked)
        before = set() if everything else self._groups_down(old.marked)
        for gid in (down ^ before) | (down if everything else set()):
            item = self.item_for_group.get(gid)
            if item is not None and item.failed != (gid in down):
                item.set_failed(gid in down)
        if new.links != old.links or everything:
            for item in self.bundles.values():
                state = self._bundle_state(item.link_ids, new.links)
                if item.failed != state:
                    item.set_failed(state)
        if self._dirty_groups:
            self._flush_groups()

    def _groups_down(self, marked) -> set[str]:
        """The marked groups and every group inside one."""
        layout = self.layout
        out: set[str] = set()
        todo = [m for m in marked if layout is not None and layout.has_group(m)]
        while todo:
            gid = todo.pop()
            if gid not in out:
                out.add(gid)
                todo.extend(layout.group_children(gid))
        return out

    @staticmethod
    def _bundle_state(link_ids, down) -> str:
        if not down:
            return ""
        hit = sum(1 for k in link_ids if k in down)
        return "" if hit == 0 else ("all" if hit == len(link_ids) else "some")
