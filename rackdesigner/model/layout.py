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
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rackdesigner.catalog import Catalog, DeviceSpec, default_catalog
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
    is_valid_id,
    link_problem,
)
from rackdesigner.model.mounting import batch_mount_cycle, cycle_problem, mount_cycle
from rackdesigner.model.state import GROUP_PROOF, HINTED, DesignState
from rackdesigner.model.transaction import Transaction, inverse, step

if TYPE_CHECKING:
    import networkx as nx

    from rackdesigner.model.index import DesignIndex

Listener = Callable[[Event], None]



# ---- what makes an object acceptable: one check per kind of object, for every mutator --------
# (`add_device`/`add_link`/`add_group` one by one and `add_all` in bulk, so an edit and a bulk
# add are refused for the same reasons in the same words)

def group_refusal(group: Group, taken: Callable[[str], bool],
                  has_group: Callable[[str], bool]) -> str | None:
    """Why `group` cannot join a design where `taken` ids are used, or None."""
    if not is_valid_id(group.id):
        return f"invalid group id {group.id!r}"
    if taken(group.id):
        return f"id {group.id!r} is already used"
    if group.parent is not None and not has_group(group.parent):
        return f"group {group.id!r}: no parent group {group.parent!r}"
    return None


def device_refusal(device: Device, taken: Callable[[str], bool],
                   has_group: Callable[[str], bool]) -> str | None:
    """Why `device` cannot join a design where `taken` ids are used, or None: its id and
    group here, its values (position, rack unit) by `model.items.device_problem`."""
    if not is_valid_id(device.id):
        return f"invalid device id {device.id!r} (letters, digits, . _ - only)"
    if taken(device.id):
        return f"id {device.id!r} is already used"
    if device.group is not None and not has_group(device.group):
        return f"device {device.id!r}: no group {device.group!r}"
    return device_problem(device)


def link_refusal(link: Link, taken: Callable[[str], bool],
                 has_device: Callable[[str], bool]) -> str | None:
    """Why `link` cannot join a design where `taken` ids are used, or None: its id and ends
    here, its values (count, length) by `model.items.link_problem`."""
    if not is_valid_id(link.id):
        return f"invalid link id {link.id!r}"
    if taken(link.id):
        return f"id {link.id!r} is already used"
    if (problem := link_problem(link)) is not None:
        return problem
    for end in (link.a, link.b):
        if not has_device(end.device):
            return f"link {link.id!r}: no device {end.device!r}"
    return None

class LayoutError(ValueError):
    """A mutation that would make the document inconsistent (duplicate id, missing device...)."""


class MissingError(LayoutError, KeyError):
    """No object with that id: a refusal for an edit (`LayoutError`), a `KeyError` for readers."""

    __str__ = BaseException.__str__  # KeyError would quote the message


class Layout:
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
                kept = [_keeps_derived(e) for e in events]
                if all(kept):  # undoing a move, a Fail: the same derived facts
                    target.take_index_hint(start, HINTED if all(k is HINTED for k in kept)
                                           else GROUP_PROOF)
                # else what differs from the state left: derive from its values
                target.take_edit_hint(start, [_touched(e) for e in events])
                self._state = target

    # ---- reading -----------------------------------------------------------------------
    @property
    def graph(self) -> nx.MultiGraph:
        """Read-only (frozen) networkx view of the topology, built once per state."""
        graph = self._state.graph()
        self._hold(graph=graph)
        return graph

    def index(self) -> DesignIndex:
        """The derived facts of the current state, shared by every reader of that state."""
        index = self._state.index(self.catalog)
        self._hold(index=index)
        return index

    def derived(self, key: str, build: Callable[[DesignState, Any], Any]) -> Any:
        """A value derived from the current state (`DesignState.derived`: built once, shared
        by every Layout on that state), held while this Layout shows that state."""
        value = self._state.derived(key, build)
        self._hold(**{key: value})
        return value

    def _hold(self, **values: Any) -> None:
        """Keep the current state's derived values alive while this Layout shows that state
        (the state itself refers to them weakly, so the undo history does not keep them)."""
        held = self._derived
        if held is None or held[0] is not self._state:
            held = (self._state, {})
        held[1].update(values)
        self._derived = held

    @property
    def meta(self) -> Meta:
        return self._state.meta

    def devices(self) -> Iterator[Device]:
        return self._state.iter_devices()

    def device(self, device_id: str) -> Device:
        device = self._state.devices.get(device_id)
        if device is None:
            raise MissingError(f"no device {device_id!r}")
        return device

    def has_device(self, device_id: str) -> bool:
        return device_id in self._state.devices

    def spec(self, device_id: str) -> DeviceSpec | None:
        """The catalog spec of a device, or None if its model is unknown."""
        model = self.device(device_id).model
        return self.catalog.get(model) if model in self.catalog else None

    def device_count(self) -> int:
        return len(self._state.devices)

    def links(self) -> Iterator[Link]:
        return iter(self._state.link_list())

    def link(self, link_id: str) -> Link:
        link = self._state.links.get(link_id)
        if link is None:
            raise MissingError(f"no link {link_id!r}")
        return link

    def has_link(self, link_id: str) -> bool:
        return link_id in self._state.links

    def link_count(self) -> int:
        return len(self._state.links)

    def links_of(self, device_id: str) -> list[Link]:
        """Links with an end on `device_id`, in creation order."""
        links = self._state.links
        return [links[i] for i in self._state.link_ids_of(device_id)]

    @property
    def unresolved_links(self) -> tuple[Link, ...]:
        return tuple(self._state.iter_unresolved())

    def groups(self) -> Iterator[Group]:
        return self._state.iter_groups()

    def group(self, group_id: str) -> Group:
        group = self._state.groups.get(group_id)
        if group is None:
            raise MissingError(f"no group {group_id!r}")
        return group

    def has_group(self, group_id: str) -> bool:
        return group_id in self._state.groups

    def group_devices(self, group_id: str, recursive: bool = True) -> list[str]:
        """Ids of the devices in a group (and its sub-groups when `recursive`)."""
        state = self._state
        out = list(state.group_members.get(group_id, ()))
        if recursive:
            for child in state.group_kids.get(group_id, ()):
                out.extend(self.group_devices(child, True))
        return out

    def group_children(self, group_id: str) -> list[str]:
        return sorted(self._state.group_kids.get(group_id, ()))

    def has_id(self, object_id: str) -> bool:
        return self._state.has_id(object_id)

    def new_id(self, prefix: str) -> str:
        """A fresh readable id `prefix-N` not used by any device, link or group."""
        n = self._counters.get(prefix, 0)
        while True:
            n += 1
            candidate = f"{prefix}-{n}"
            if not self.has_id(candidate):
                self._counters[prefix] = n
                return candidate

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
        new = _replace(old, changes, "device")
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
        new = _replace(old, changes, "link")
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
        new = _replace(old, changes, "group")
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
        new = _replace(old, changes, "design")
        if new != old:
            self._state = self._state.with_meta(new)
            self._emit(MetaChanged(old, new))
        return new

    # ---- whole-document helpers --------------------------------------------------------
    def add_all(self, groups: Iterable[Group] = (), devices: Iterable[Device] = (),
                links: Iterable[Link] = (),
                on_error: Callable[[Device | Link | Group, LayoutError], None] | None = None,
                *, checked: bool = False,
                by_id: tuple[dict[str, Device], dict[str, Link]] | None = None) -> None:
        """Add groups (parents first), then devices, then links, as one new state.

        Each object is checked as its mutator would; the first refusal raises (through
        `on_error(item, exc)` when given, e.g. to name the file line) and nothing is added.
        `checked=True` skips that for a caller that has made every one of those checks itself,
        with the model's own functions (the file reader, into an empty document: half a second
        at 32k GPUs, and 0.2 s of a 100k-GPU load even as C passes over every object's values;
        the reader decides ids with `items.is_valid_id`, values with `items.position` /
        `rack_unit_ok` / `link_count_ok` / `length_ok` and the bounds `MAX_*`, and
        tests/test_one_fact.py holds it to refusing exactly what the mutators refuse). Such a
        caller may hand over the devices and links by id as it made them for its checks
        (`by_id`, the same objects in the same order), which the new state then files as they
        are.
        Events are emitted after the new state is in place, one per object, in order."""
        def refuse(item: Device | Link | Group, message: str) -> None:
            exc = LayoutError(message)
            if on_error is not None:
                on_error(item, exc)
            raise exc

        state = self._state
        devices = devices if isinstance(devices, list) else list(devices)
        self._refuse_batch_cycle(devices, refuse)
        if checked and not (state.devices or state.links or state.groups or state.unresolved):
            self._add_checked(list(groups), devices, list(links), by_id)
            return
        new_groups: dict[str, Group] = {}
        new_devices: dict[str, Device] = {}
        new_links: dict[str, Link] = {}
        empty = not (state.devices or state.links or state.groups or state.unresolved)

        def taken(item_id: str) -> bool:
            return ((not empty and state.has_id(item_id)) or item_id in new_groups
                    or item_id in new_devices or item_id in new_links)

        def has_group(group_id: str) -> bool:
            return group_id in state.groups or group_id in new_groups

        def has_device(device_id: str) -> bool:
            return device_id in state.devices or device_id in new_devices

        for group in groups:  # the checks of add_group, add_device and add_link, in one pass
            if problem := group_refusal(group, taken, has_group):
                refuse(group, problem)
            new_groups[group.id] = group
        for device in devices:
            if problem := device_refusal(device, taken, has_group):
                refuse(device, problem)
            new_devices[device.id] = device
        for link in links:
            if problem := link_refusal(link, taken, has_device):
                refuse(link, problem)
            new_links[link.id] = link
        self._state = state.with_all(list(new_groups.values()), list(new_devices.values()),
                                     list(new_links.values()))
        if not self._listeners and not self._recording:  # nobody to tell (a file being read)
            self.revision += len(new_groups) + len(new_devices) + len(new_links)
            return
        for group in new_groups.values():
            self._emit(GroupAdded(group))
        for device in new_devices.values():
            self._emit(DeviceAdded(device))
        for link in new_links.values():
            self._emit(LinkAdded(link))

    def _refuse_batch_cycle(self, devices: list[Device],
                            refuse: Callable[[Device, str], None]) -> None:
        """`add_all`'s mounting check: no rack chain through the new devices closes."""
        old = self._state.devices

        def rack_of(device_id: str) -> str | None:
            other = old.get(device_id)
            return None if other is None else other.rack

        if (cycle := batch_mount_cycle(devices, rack_of, alone=not old)) is not None:
            culprit = next(d for d in devices if d.id == cycle[0])
            refuse(culprit, cycle_problem(cycle))

    def _add_checked(self, groups: list[Group], devices: list[Device], links: list[Link],
                     by_id: tuple[dict[str, Device], dict[str, Link]] | None = None) -> None:
        self._state = self._state.with_all(groups, devices, links, lazy=True, by_id=by_id)
        if not self._listeners and not self._recording:
            self.revision += len(groups) + len(devices) + len(links)
            return
        events: list[Event] = [*map(GroupAdded, groups), *map(DeviceAdded, devices),
                               *map(LinkAdded, links)]
        for event in events:
            self._emit(event)

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


def _touched(event: Event) -> tuple[str, Any]:
    """(kind, id) of the object an event changed (`DesignState.edit_base`'s kinds)."""
    if isinstance(event, DeviceAdded | DeviceRemoved):
        return ("d", event.device.id)
    if isinstance(event, LinkAdded | LinkRemoved):
        return ("l", event.link.id)
    if isinstance(event, GroupAdded | GroupRemoved):
        return ("g", event.group.id)
    if isinstance(event, DeviceChanged):
        return ("d", event.new.id)
    if isinstance(event, LinkChanged):
        return ("l", event.new.id)
    if isinstance(event, GroupChanged):
        return ("g", event.new.id)
    return ("m", None)


def _keeps_derived(event: Event) -> tuple[str, ...]:
    """The derived values of the state before `event` that hold after it (what
    `DesignState.take_index_hint` allows): all for a position or status change, the index and
    topology for any group change, none otherwise."""
    if isinstance(event, GroupChanged):
        old, new = event.old, event.new
        same = dataclasses.replace(old, status=new.status, collapsed=new.collapsed) == new
        return HINTED if same else GROUP_PROOF
    if not isinstance(event, DeviceChanged | LinkChanged):
        return ()
    moved: dict[str, Any] = {"pos": event.new.pos} if isinstance(event, DeviceChanged) else {}
    same = dataclasses.replace(event.old, status=event.new.status, **moved) == event.new
    return HINTED if same else ()


def _replace(value: Any, changes: dict[str, Any], what: str) -> Any:
    try:
        return dataclasses.replace(value, **changes)
    except TypeError as exc:  # an unknown field: a refusal, not a crash
        raise LayoutError(f"a {what} has no such field ({exc})") from None


_DIGIT_RUNS = re.compile(r"(\d+)")


@functools.lru_cache(maxsize=1 << 17)
def natural_key(text: str) -> tuple:
    """Sort key that orders `gpu-2` before `gpu-10` (cached: the same ids are sorted by every
    pass over a large design)."""
    return tuple(int(p) if p.isdigit() else p for p in _DIGIT_RUNS.split(text))
