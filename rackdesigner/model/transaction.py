"""What one edit did, as data: `Transaction` (states before and after, the events between),
and the two event functions undo and redo are made of — `inverse` (the event that undoes an
event) and `step` (the state after a recorded event). `Layout.transaction()` records one,
`Layout.replay()` plays it forward or backward; `touched_by` and `keeps_derived` say what an
event changed and which derived values of the state before it still hold after it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

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
from rackdesigner.model.state import GROUP_PROOF, HINTED, DesignState


@dataclass(eq=False)
class Transaction:
    """What one edit did: the state before and after, and the events emitted in between."""

    before: DesignState
    after: DesignState | None = None
    events: list[Event] = field(default_factory=list)

    def extend(self, later: Transaction) -> None:
        """Absorb a later transaction (merged edits: nudges, scrubbing)."""
        self.events.extend(later.events)
        self.after = later.after


def inverse(event: Event) -> Event:
    if isinstance(event, DeviceAdded):
        return DeviceRemoved(event.device)
    if isinstance(event, DeviceRemoved):
        return DeviceAdded(event.device)
    if isinstance(event, LinkAdded):
        return LinkRemoved(event.link)
    if isinstance(event, LinkRemoved):
        return LinkAdded(event.link)
    if isinstance(event, GroupAdded):
        return GroupRemoved(event.group)
    if isinstance(event, GroupRemoved):
        return GroupAdded(event.group)
    changed: Any = event  # one of the *Changed events: (old, new) of one type
    return type(event)(changed.new, changed.old)


def step(state: DesignState, event: Event) -> DesignState:
    """The state after `event` (a recorded, hence valid, change) is applied to `state`."""
    if isinstance(event, DeviceAdded):
        return state.with_device(event.device)
    if isinstance(event, DeviceRemoved):
        return state.without_device(event.device)
    if isinstance(event, DeviceChanged):
        return state.with_device(event.new, event.old)
    if isinstance(event, LinkAdded):
        link = event.link
        if link.a.device in state.devices and link.b.device in state.devices:
            return state.with_link(link)
        return state.with_unresolved(link)
    if isinstance(event, LinkRemoved):
        if event.link.id in state.unresolved:
            return state.without_unresolved(event.link.id)
        return state.without_link(event.link)
    if isinstance(event, LinkChanged):
        return state.with_link(event.new, event.old)
    if isinstance(event, GroupAdded):
        return state.with_group(event.group)
    if isinstance(event, GroupRemoved):
        return state.without_group(event.group)
    if isinstance(event, GroupChanged):
        return state.with_group(event.new, event.old)
    if isinstance(event, MetaChanged):
        return state.with_meta(event.new)
    raise TypeError(f"not a layout event: {event!r}")


def touched_by(event: Event) -> tuple[str, Any]:
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


def keeps_derived(event: Event) -> tuple[str, ...]:
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
