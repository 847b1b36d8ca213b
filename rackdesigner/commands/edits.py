"""The edits a designer makes: add, remove (with cascade), move, change properties, group.

Removals cascade (incident links, rack references, group members) inside the command's
transaction, so undo — the history replaying it — restores a document equal to the one before.
Builders such as `ungroup`
read the layout once to decide the children of a `Macro`; build them right before pushing.
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from rackdesigner.commands.base import Command, Macro
from rackdesigner.model import Device, Group, Layout, LayoutError, Link
from rackdesigner.vocabulary.wording import counted

Point = tuple[float, float]


class AddItems(Command):
    """Add groups (parents first), devices and links as one step (a drop, a paste, a wire)."""

    def __init__(self, groups: Iterable[Group] = (), devices: Iterable[Device] = (),
                 links: Iterable[Link] = (), text: str = "") -> None:
        self.groups = list(groups)
        self.devices = list(devices)
        self.links = list(links)
        self.text = text or self._describe()

    def _describe(self) -> str:
        if self.links and not self.devices and not self.groups:
            return "Wire" if len(self.links) == 1 else f"Add {counted(len(self.links), 'link')}"
        if len(self.devices) == 1 and not self.groups:
            return f"Add {self.devices[0].model}"
        return f"Add {counted(len(self.devices), 'device')}"

    def apply(self, layout: Layout) -> None:
        with layout.transaction():  # one event after each object, as views expect
            for group in self.groups:
                layout.add_group(group)
            for device in self.devices:
                layout.add_device(device)
            for link in self.links:
                layout.add_link(link)

    def is_noop(self) -> bool:
        return not (self.groups or self.devices or self.links)


class RemoveItems(Command):
    """Remove devices, links and groups; a group goes with everything inside it.

    Cascades: links on removed devices; groups' member devices and sub-groups; `rack`/`u` of
    devices placed in a removed rack (cleared; undo restores them with everything else).
    """

    def __init__(self, devices: Iterable[str] = (), links: Iterable[str] = (),
                 groups: Iterable[str] = (), text: str = "") -> None:
        self.device_ids = list(dict.fromkeys(devices))
        self.link_ids = list(dict.fromkeys(links))
        self.group_ids = list(dict.fromkeys(groups))
        self.text = text or self._describe()
        self._links: list[Link] = []
        self._devices: list[Device] = []
        self._groups: list[Group] = []  # children before parents
        self._unracked: list[Device] = []

    def _describe(self) -> str:
        parts = []
        if self.group_ids:
            parts.append(counted(len(self.group_ids), "group"))
        if self.device_ids:
            parts.append(counted(len(self.device_ids), "device"))
        if self.link_ids:
            parts.append(counted(len(self.link_ids), "link"))
        return "Delete " + (", ".join(parts) or "nothing")

    def _collect(self, layout: Layout) -> None:
        groups: list[str] = []

        def visit(gid: str) -> None:
            for child in layout.group_children(gid):
                visit(child)
            if gid not in groups:
                groups.append(gid)

        for gid in self.group_ids:
            if layout.has_group(gid):
                visit(gid)
        device_ids = [d for d in self.device_ids if layout.has_device(d)]
        for gid in groups:
            device_ids.extend(sorted(layout.group_devices(gid, recursive=False)))
        device_ids = list(dict.fromkeys(device_ids))
        removed = set(device_ids)
        link_ids = [lk for lk in self.link_ids if layout.has_link(lk)]
        for device_id in device_ids:
            link_ids.extend(link.id for link in layout.links_of(device_id))
        link_ids = list(dict.fromkeys(link_ids))
        self._links = [layout.link(lk) for lk in link_ids]
        self._devices = [layout.device(d) for d in device_ids]
        self._groups = [layout.group(g) for g in groups]
        self._unracked = [d for d in layout.devices()  # a scan only when devices go
                          if d.rack in removed and d.id not in removed] if removed else []

    def apply(self, layout: Layout) -> None:
        self._collect(layout)
        with layout.transaction():
            for link in self._links:
                layout.remove_link(link.id)
            for device in self._unracked:
                layout.update_device(device.id, rack=None, u=None)
            for device in self._devices:
                layout.remove_device(device.id)
            for group in self._groups:
                layout.remove_group(group.id)

    def is_noop(self) -> bool:
        return not (self.device_ids or self.link_ids or self.group_ids)


NUDGE_MERGE_SECONDS = 2.0


class MoveDevices(Command):
    """Set canvas positions; `nudge=True` merges consecutive nudges of the same devices made
    within `NUDGE_MERGE_SECONDS` of each other (a burst of arrow keys is one undo step)."""

    def __init__(self, moves: Mapping[str, tuple[Point, Point]], nudge: bool = False) -> None:
        self.moves = {k: (tuple(old), tuple(new)) for k, (old, new) in moves.items()}
        self.nudge = nudge
        self.stamp = time.monotonic()
        self.text = "Move " + (self._name() if len(self.moves) == 1
                               else counted(len(self.moves), "device"))

    def _name(self) -> str:
        return next(iter(self.moves))

    def apply(self, layout: Layout) -> None:
        with layout.transaction():
            for device_id, (_, new) in self.moves.items():
                layout.update_device(device_id, pos=new)

    def merge_key(self) -> Hashable | None:
        return ("nudge", frozenset(self.moves)) if self.nudge else None

    def merge(self, other: Command) -> bool:
        if not isinstance(other, MoveDevices) or set(other.moves) != set(self.moves):
            return False
        if other.stamp - self.stamp > NUDGE_MERGE_SECONDS:
            return False
        self.moves = {k: (old, other.moves[k][1]) for k, (old, _) in self.moves.items()}
        self.stamp = other.stamp
        return True

    def is_noop(self) -> bool:
        return all(old == new for old, new in self.moves.values())


_KINDS = ("device", "link", "group")


class ChangeItem(Command):
    """Change fields of one device, link or group (`kind` says which), e.g. a rename.

    With `mergeable=True`, consecutive changes of the same fields of the same item merge
    (spin-box scrubbing becomes one undo step).
    """

    def __init__(self, kind: str, item_id: str, changes: Mapping[str, Any], text: str = "",
                 mergeable: bool = False) -> None:
        if kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
        self.kind = kind
        self.item_id = item_id
        self.changes = dict(changes)
        self.mergeable = mergeable
        self.text = text or f"Change {' and '.join(sorted(self.changes))} of {item_id}"

    def _get(self, layout: Layout) -> Any:
        return getattr(layout, self.kind)(self.item_id)

    def _update(self, layout: Layout, values: Mapping[str, Any]) -> None:
        getattr(layout, f"update_{self.kind}")(self.item_id, **values)

    def apply(self, layout: Layout) -> None:
        current = self._get(layout)
        for name in self.changes:
            if not hasattr(current, name):
                raise LayoutError(f"a {self.kind} has no field {name!r}")
        self._update(layout, self.changes)

    def merge_key(self) -> Hashable | None:
        if not self.mergeable:
            return None
        return ("change", self.kind, self.item_id, frozenset(self.changes))

    def merge(self, other: Command) -> bool:
        if not isinstance(other, ChangeItem) or other.merge_key() != self.merge_key():
            return False
        self.changes = dict(other.changes)
        return True


def change_device(device_id: str, text: str = "", mergeable: bool = False,
                  **changes: Any) -> ChangeItem:
    return ChangeItem("device", device_id, changes, text, mergeable)


def change_link(link_id: str, text: str = "", mergeable: bool = False,
                **changes: Any) -> ChangeItem:
    return ChangeItem("link", link_id, changes, text, mergeable)


def change_group(group_id: str, text: str = "", mergeable: bool = False,
                 **changes: Any) -> ChangeItem:
    return ChangeItem("group", group_id, changes, text, mergeable)


def group_devices(layout: Layout, device_ids: Iterable[str], name: str = "",
                  kind: str = "group") -> Macro:
    """Put devices into a new group (nested in their common group when they share one)."""
    ids = [d for d in device_ids if layout.has_device(d)]
    if not ids:
        raise LayoutError("nothing to group")
    parents = {layout.device(d).group for d in ids}
    parent = parents.pop() if len(parents) == 1 else None
    group = Group(layout.new_id("group"), name, kind, parent)
    children: list[Command] = [AddItems(groups=[group])]
    children += [change_device(d, group=group.id) for d in ids]
    return Macro(f"Group {counted(len(ids), 'device')}", children)


def ungroup(layout: Layout, group_id: str) -> Macro:
    """Dissolve a group: its devices and sub-groups move to its parent."""
    group = layout.group(group_id)
    children: list[Command] = [change_device(d, group=group.parent)
                               for d in sorted(layout.group_devices(group_id, recursive=False))]
    children += [change_group(g, parent=group.parent) for g in layout.group_children(group_id)]
    children.append(RemoveItems(groups=[group_id]))
    return Macro(f"Ungroup {group.label}", children)
