"""Reading a layout: its objects, their counts and ids, and the values derived from its state
(the graph, the index, what `derived` builds), held while the layout shows that state. A part of
`Layout` (`layout.py`), which edits and emits."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from rackdesigner.catalog import Catalog, DeviceSpec
from rackdesigner.model.items import Device, Group, Link, Meta
from rackdesigner.model.refusals import MissingError
from rackdesigner.model.state import DesignState

if TYPE_CHECKING:
    import networkx as nx

    from rackdesigner.model.index import DesignIndex


class LayoutReading:
    """The reading half of `Layout`."""

    catalog: Catalog
    _state: DesignState
    _derived: tuple[DesignState, dict[str, Any]] | None
    _counters: dict[str, int]

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
