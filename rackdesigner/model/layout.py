"""The layout document: a mutable handle on an immutable `DesignState`, with change events.

The design itself is a `DesignState` (`model/state.py`): immutable, structurally shared, so a
snapshot is a reference (`snapshot()`, `copy()` are O(1)) and no later edit can change what a
worker reads. Every mutator validates, computes the next state from the current one, swaps it
in, bumps `revision` and then emits exactly one event to the subscribers. A refusal is a
`LayoutError` raised before anything changed.

`transaction()` makes a group of mutations all-or-nothing: it records the events emitted inside
it; if the block raises, the recorded changes are undone in reverse (one inverse event each, so
listeners follow) and the exact state from before is swapped back in. The same record replays
forward (redo) or backward (undo) through `replay()`, ending on the exact recorded state, order
of devices, links and `links_of` included.

`graph` is a frozen networkx MultiGraph built from the state on first use and cached per state
(no networkx private attributes anywhere). Links whose devices do not exist (possible only when
loading a hand-edited file) are kept in `unresolved_links`, outside the graph, so design rules
can report them and saving keeps them.

`Layout` is made of parts by what they hold: reading (`layout_reading.py`), adding in bulk
(`layout_bulk.py`), what is refused and in which words (`refusals.py`); this module keeps the
state, the events, transactions and the one-object mutators. Every name is still imported from
here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from rackdesigner.catalog import Catalog, default_catalog
from rackdesigner.model.events import (
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
    MetaChanged,
)
from rackdesigner.model.items import (
    Device,
    Group,
    Link,
    Meta,
    device_problem,
    link_problem,
)
from rackdesigner.model.layout_bulk import BulkAdd
from rackdesigner.model.layout_reading import LayoutReading
from rackdesigner.model.mounting import cycle_problem, mount_cycle
from rackdesigner.model.natural import natural_key
from rackdesigner.model.refusals import (
    LayoutError,
    MissingError,
    device_refusal,
    group_refusal,
    link_refusal,
    replaced,
)
from rackdesigner.model.state import GROUP_PROOF, HINTED, DesignState
from rackdesigner.model.transaction import Transaction, inverse, keeps_derived, step, touched_by

Listener = Callable[[Event], None]

#: the names read through this module
__all__ = ["Layout", "LayoutError", "Listener", "MissingError", "device_refusal", "group_refusal",
           "link_refusal", "natural_key"]


class Layout(LayoutReading, BulkAdd):
    """A RackDesigner design document: the current `DesignState` plus events and history hooks."""

    def __init__(self, catalog: Catalog | None = None, meta: Meta | None = None) -> None:
        self.catalog = catalog if catalog is not None else default_catalog()
        self._state = DesignState(meta)
        self._listeners: list[Listener] = []
        self._recording: list[Transaction] = []
        self._counters: dict[str, int] = {}
        self._derived: tuple[DesignState, dict[str, Any]] | None = None  # values held
        self.revision = 0
        #: Where the document was loaded from and the line of each object (for messages).
        self.source_path: str | None = None
        #: the form it was read in ("plain" or "compact", io/compact.py): saving keeps it
        self.source_form = "plain"
        self.source_lines: Mapping[str, int] = {}  # object id -> line (io.reader.SourceLines)

    # ---- events ------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(event)` after every change; returns a function that unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _emit(self, event: Event) -> None:
        self.revision += 1
        for tx in self._recording:
            tx.events.append(event)
        for listener in list(self._listeners):
            listener(event)

    # ---- state, snapshots, transactions --------------------------------------------------
    @property
    def state(self) -> DesignState:
        """The current immutable state (a snapshot: hold it, no edit will change it)."""
        return self._state

    def snapshot(self) -> Layout:
        """A Layout on the current state, with no listeners: O(1), safe to hand to a worker."""
        return self.copy()

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """All mutations in the block, or none: on an exception they are undone (inverse events
        emitted) and the exact previous state is restored before the exception propagates."""
        tx = Transaction(self._state)
        self._recording.append(tx)
        try:
            yield tx
        except BaseException:
            self._recording.remove(tx)
            self.replay(tx, forward=False)
            raise
        self._recording.remove(tx)
        tx.after = self._state

    def replay(self, tx: Transaction, forward: bool) -> None:
        """Redo (`forward`) or undo a recorded transaction, one event per change, ending on its
        exact recorded state."""
        target = tx.after if forward else tx.before
        events = tx.events if forward else [inverse(e) for e in reversed(tx.events)]
        start = self._state
        try:
            for event in events:
                self._state = step(self._state, event)
                self._emit(event)
        finally:  # even if a listener raised: the design is the recorded one
            if target is not None:
                kept = [keeps_derived(e) for e in events]
                if all(kept):  # undoing a move, a Fail: the same derived facts
                    target.take_index_hint(start, HINTED if all(k is HINTED for k in kept)
                                           else GROUP_PROOF)
                # else what differs from the state left: derive from its values
                target.take_edit_hint(start, [touched_by(e) for e in events])
                self._state = target

    # ---- mutators: devices -------------------------------------------------------------
    def add_device(self, device: Device) -> Device:
        state = self._state
        if (problem := device_refusal(device, state.has_id, state.groups.__contains__)):
            raise LayoutError(problem)
        self._refuse_mount_cycle(device)
        self._state = state.with_device(device)
        self._emit(DeviceAdded(device))
        return device

    def remove_device(self, device_id: str) -> Device:
        """Remove a device that has no links (remove its links first: commands cascade)."""
        device = self.device(device_id)
        if self._state.link_ids_of(device_id):
            raise LayoutError(f"device {device_id!r} still has links; remove them first")
        self._state = self._state.without_device(device)
        self._emit(DeviceRemoved(device))
        return device

    def update_device(self, device_id: str, **changes: Any) -> Device:
        old = self.device(device_id)
        if "id" in changes and changes["id"] != device_id:
            raise LayoutError("a device's id cannot change")
        new = replaced(old, changes, "device")
        if new == old:
            return old
        if new.group is not None and new.group not in self._state.groups:
            raise LayoutError(f"device {device_id!r}: no group {new.group!r}")
        if (new.pos != old.pos or new.u != old.u) and (problem := device_problem(new)):
            raise LayoutError(problem)
        if new.rack != old.rack:
            self._refuse_mount_cycle(new)
        self._state = self._state.with_device(new, old)
        self._emit(DeviceChanged(old, new))
        return new

    def _refuse_mount_cycle(self, device: Device) -> None:
        """LayoutError when `device` (added or changed) would be mounted in itself, directly
        or through other racks (`model/mounting.py`)."""
        if device.rack is None:
            return
        devices = self._state.devices

        def rack_of(device_id: str) -> str | None:
            if device_id == device.id:
                return device.rack
            other = devices.get(device_id)
            return None if other is None else other.rack

        if (cycle := mount_cycle(device.id, rack_of)) is not None:
            raise LayoutError(cycle_problem(cycle))

    # ---- mutators: links ---------------------------------------------------------------
    def add_link(self, link: Link) -> Link:
        state = self._state
        if (problem := link_refusal(link, state.has_id, state.devices.__contains__)):
            raise LayoutError(problem)
        self._state = state.with_link(link)
        self._emit(LinkAdded(link))
        return link

    def add_unresolved_link(self, link: Link) -> None:
        """Keep a link whose devices are missing (loading only; design rules report it)."""
        self._state = self._state.with_unresolved(link)

    def remove_link(self, link_id: str) -> Link:
        state = self._state
        if link_id in state.unresolved:
            link = state.unresolved[link_id]
            self._state = state.without_unresolved(link_id)
            self._emit(LinkRemoved(link))
            return link
        link = self.link(link_id)
        self._state = state.without_link(link)
        self._emit(LinkRemoved(link))
        return link

    def update_link(self, link_id: str, **changes: Any) -> Link:
        old = self.link(link_id)
        new = replaced(old, changes, "link")
        if new == old:
            return old
        if new.id != old.id or {new.a.device, new.b.device} != {old.a.device, old.b.device}:
            raise LayoutError("update_link cannot change a link's id or devices")
        if (problem := link_problem(new)) is not None:
            raise LayoutError(problem)
        self._state = self._state.with_link(new, old)
        self._emit(LinkChanged(old, new))
        return new

    # ---- mutators: groups --------------------------------------------------------------
    def add_group(self, group: Group) -> Group:
        state = self._state
        problem = group_refusal(group, state.has_id, state.groups.__contains__)
        if problem:
            raise LayoutError(problem)
        self._state = state.with_group(group)
        self._emit(GroupAdded(group))
        return group

    def remove_group(self, group_id: str) -> Group:
        """Remove an empty group (move or remove its members first: commands cascade)."""
        group = self.group(group_id)
        state = self._state
        if state.group_members.get(group_id) or state.group_kids.get(group_id):
            raise LayoutError(f"group {group_id!r} is not empty")
        self._state = state.without_group(group)
        self._emit(GroupRemoved(group))
        return group

    def update_group(self, group_id: str, **changes: Any) -> Group:
        old = self.group(group_id)
        new = replaced(old, changes, "group")
        if new == old:
            return old
        if new.id != old.id:
            raise LayoutError("a group's id cannot change")
        groups = self._state.groups
        if new.parent is not None:
            if new.parent not in groups:
                raise LayoutError(f"group {group_id!r}: no parent group {new.parent!r}")
            ancestor: str | None = new.parent
            while ancestor is not None:
                if ancestor == group_id:
                    raise LayoutError(f"group {group_id!r} cannot be inside itself")
                ancestor = groups[ancestor].parent
        self._state = self._state.with_group(new, old)
        self._emit(GroupChanged(old, new))
        return new

    def set_meta(self, **changes: Any) -> Meta:
        old = self._state.meta
        new = replaced(old, changes, "design")
        if new != old:
            self._state = self._state.with_meta(new)
            self._emit(MetaChanged(old, new))
        return new

    def settle(self) -> None:
        """Prepare a design just read from a file for editing (`DesignState.settle`): what its
        first edit would otherwise make on the GUI thread (0.3 s at 32k GPUs), made now."""
        self._state.settle()

    def copy(self, state: DesignState | None = None) -> Layout:
        """A Layout on the same (immutable) state with no listeners: O(1). Edits on either side
        swap in new states and never show on the other. With `state`: on that state instead
        (one derived from this design's, such as `failures.degraded` keeps)."""
        other = Layout(self.catalog)
        other._state = self._state if state is None else state
        other._counters = dict(self._counters)
        other.revision = self.revision
        other.source_path = self.source_path
        other.source_lines = self.source_lines
        return other

    def content(self) -> tuple[Meta, dict[str, Device], dict[str, Link], dict[str, Group]]:
        return self._state.content()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Layout):
            return NotImplemented
        return self._state is other._state or self.content() == other.content()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"<Layout {self.meta.name!r}: {self.device_count()} devices, "
                f"{self.link_count()} links, {len(self._state.groups)} groups>")
