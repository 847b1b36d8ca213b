"""Reading a `DesignState`: its objects in order, by id and by device, and the maps derived
from its links and devices (links per device, port use, group members), made on first use for
a state read from a file. A part of `DesignState` (`state.py`), which makes new states."""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from immutables import Map

from rackdesigner.model.items import Device, Group, Link, Meta
from rackdesigner.model.order import AnyMap, DictMap, Order
from rackdesigner.model.state_memo import MAX_EDITS
from rackdesigner.model.state_sets import _sets_add

if TYPE_CHECKING:
    import networkx as nx

    from rackdesigner.model.state import DesignState

_EMPTY: Map = Map()


class StateReading:
    """The reading half of `DesignState`."""

    __slots__ = ("_group_members", "_links_by_device", "_port_use")

    meta: Meta
    devices: AnyMap
    links: AnyMap
    groups: AnyMap
    unresolved: AnyMap
    device_order: Order
    link_order: Order
    group_order: Order
    unresolved_order: Order
    memo: dict[str, Any]
    _links_by_device: AnyMap | None
    _group_members: AnyMap | None
    _port_use: AnyMap | None

    # ---- derived maps (made on first use for a state read from a file) -------------------
    @property
    def links_by_device(self) -> AnyMap:
        """Device id -> the ids of its links, in creation order."""
        found = self._links_by_device
        if found is None:
            by_device: dict[str, list[str]] = {}
            for link in self.link_list():
                a, b, lid = link.a.device, link.b.device, link.id
                (by_device.get(a) or by_device.setdefault(a, [])).append(lid)
                if b != a:
                    (by_device.get(b) or by_device.setdefault(b, [])).append(lid)
            found = self._links_by_device = DictMap({d: tuple(ids) for d, ids in
                                                     by_device.items()})
        return found

    @property
    def port_use(self) -> AnyMap:
        """Device id -> ((port group, ports in use), ...): the counts of its links' ends."""
        found = self._port_use
        if found is None:
            use: dict[str, dict[str, int]] = {}
            for link in self.link_list():
                n = link.count
                for end in (link.a, link.b):
                    groups_of = use.get(end.device)
                    if groups_of is None:
                        use[end.device] = {end.group: n}
                    else:
                        groups_of[end.group] = groups_of.get(end.group, 0) + n
            found = self._port_use = DictMap({d: tuple(added.items()) for d, added in
                                              use.items()})
        return found

    @property
    def group_members(self) -> AnyMap:
        """Group id -> Map(device id -> None) of the devices directly in it."""
        found = self._group_members
        if found is None:
            members: dict[str, list[str]] = {}
            for device in self.device_list():
                if device.group is not None:
                    members.setdefault(device.group, []).append(device.id)
            found = self._group_members = _sets_add(_EMPTY, members)
        return found

    def port_use_if_made(self) -> AnyMap | None:
        """`port_use` if this state has it (kept by edits, or made once asked), else None."""
        return self._port_use

    def _derive(self) -> tuple[AnyMap, ...]:
        return self.links_by_device, self.port_use, self.group_members

    def settle(self) -> None:
        """Make now what a state read from a file leaves for first use (its derived maps, the
        tries of its dict-backed maps), so that the first edit does not: the designer asks this
        on the worker that opened the file. A cache only: the content does not change."""
        for found in (*self._derive(), self.devices, self.links, self.groups):
            if isinstance(found, DictMap):
                found.as_map()

    # ---- reading ---------------------------------------------------------------------------
    def has_id(self, item_id: str) -> bool:
        return (item_id in self.devices or item_id in self.links or item_id in self.groups
                or item_id in self.unresolved)

    def iter_devices(self) -> Iterator[Device]:
        return iter(self.device_list())

    def device_list(self) -> tuple[Device, ...]:
        """All devices in insertion order (materialised once per state, as `link_list`: the
        design rules and the simulation each walk every device several times)."""
        return self._listed("devices", self.devices, self.device_order)

    def link_list(self) -> tuple[Link, ...]:
        """All resolved links in creation order (materialised once per state; from an
        earlier state's list and the links changed since when there is one: reading 300,000
        links through the order's tombstones after a cable was removed took 0.4 s)."""
        cached = self.memo.get("links")
        if cached is None:
            cached = self._links_by_edits()
            if cached is not None:
                self.memo["links"] = cached
        return cached if cached is not None else self._listed("links", self.links,
                                                              self.link_order)

    def _listed(self, key: str, items: AnyMap, order: Order) -> tuple[Any, ...]:
        cached = self.memo.get(key)
        if cached is None:
            cached = self.memo[key] = tuple(map(items.__getitem__, order))
        return cached

    def _links_by_edits(self) -> tuple[Link, ...] | None:
        """The link list from the nearest earlier state that has one, through the links
        added (at the end of the order), removed and changed (in place) since."""
        steps: list[tuple[DesignState, DesignState, str | None]] = []
        state = cast("DesignState", self)
        base = None
        while len(steps) < MAX_EDITS:
            hint = state.memo.get("links_from")
            if hint is None:
                return None
            prev = hint[0]()
            if prev is None:
                return None
            steps.append((prev, state, hint[1]))
            base = prev.memo.get("links")
            if base is not None:
                break
            state = prev
        if base is None:
            return None
        removed: set[str] = set()
        replaced: dict[str, Link] = {}
        appended: dict[str, Link] = {}
        for prev, now, link_id in reversed(steps):
            if link_id is None:
                continue
            a, b = prev.links.get(link_id), now.links.get(link_id)
            if a is None and b is not None:
                appended[link_id] = b
            elif a is not None and b is None:
                if link_id in appended:
                    del appended[link_id]
                else:
                    removed.add(link_id)
                    replaced.pop(link_id, None)
            elif a is not None and b is not None:
                if link_id in appended:
                    appended[link_id] = b
                else:
                    replaced[link_id] = b
        if removed or replaced:
            base = tuple(replaced.get(lk.id, lk) for lk in base if lk.id not in removed)
        return base + tuple(appended.values()) if appended else base

    def iter_groups(self) -> Iterator[Group]:
        groups = self.groups
        return (groups[i] for i in self.group_order)

    def iter_unresolved(self) -> Iterator[Link]:
        unresolved = self.unresolved
        return (unresolved[i] for i in self.unresolved_order)

    def link_ids_of(self, device_id: str) -> tuple[str, ...]:
        return self.links_by_device.get(device_id, ())

    def graph(self) -> nx.MultiGraph:
        """A frozen networkx MultiGraph of this state (built on first use, then shared while
        someone holds it: the state keeps only a weak reference, like the index's)."""
        ref = self.memo.get("graph")
        graph = ref() if ref is not None else None
        if graph is None:
            import networkx as nx

            graph = nx.MultiGraph()
            graph.add_nodes_from((d.id, {"device": d}) for d in self.iter_devices())
            graph.add_edges_from((lk.a.device, lk.b.device, lk.id, {"link": lk})
                                 for lk in self.link_list())
            graph = nx.freeze(graph)
            self.memo["graph"] = weakref.ref(graph)
        return graph

    def content(self) -> tuple[Meta, dict[str, Device], dict[str, Link], dict[str, Group]]:
        links = {link.id: link for link in self.link_list()}
        links.update((link.id, link) for link in self.iter_unresolved())
        return (self.meta, {d.id: d for d in self.iter_devices()}, links,
                {g.id: g for g in self.iter_groups()})
