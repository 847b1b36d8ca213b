"""Adding many objects as one new state (`Layout.add_all`): a file being read, a generator's
output, a paste. Each object is refused for what its own mutator would refuse
(`refusals.py`); a part of `Layout` (`layout.py`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rackdesigner.model.events import DeviceAdded, Event, GroupAdded, LinkAdded
from rackdesigner.model.items import Device, Group, Link
from rackdesigner.model.mounting import batch_mount_cycle, cycle_problem
from rackdesigner.model.refusals import LayoutError, device_refusal, group_refusal, link_refusal
from rackdesigner.model.state import DesignState


class BulkAdd:
    """The bulk-adding part of `Layout`."""

    _state: DesignState
    _listeners: list[Any]
    _recording: list[Any]
    revision: int

    if TYPE_CHECKING:
        def _emit(self, event: Event) -> None: ...

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
