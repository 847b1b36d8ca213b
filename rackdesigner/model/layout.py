"""The layout document: devices, links and groups, with networkx keeping the topology.

The graph (`Layout.graph`, a read-only view) is the single source of truth: nodes are device
ids with the `Device` under the `device` attribute; edges are links, keyed by link id, with the
`Link` under `link`. Groups are not topology and live beside the graph. Every mutator validates,
changes the state, bumps `revision` and then emits exactly one event to the subscribers.

Links whose devices do not exist (possible only when loading a hand-edited file) are kept in
`unresolved_links`, outside the graph, so design rules can report them and saving keeps them.

Snapshots for worker threads (`copy()`) must be cheap, so the graph's inner dicts are treated as
copy-on-write: a node's attribute dict, an edge's attribute dict and the key dict of a device
pair are never changed in place once in the graph — the mutators put a new dict in their place
(`_put_edge`, `_drop_edge`, `update_device`). A copy then only needs new top-level node and
adjacency dicts and a shallow copy of each device's neighbour dict (C-level dict copies), and
shares everything below with the original; neither side can see the other's later edits.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import networkx as nx

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
from rackdesigner.model.items import Device, Group, Link, Meta, is_valid_id

Listener = Callable[[Event], None]


class LayoutError(ValueError):
    """A mutation that would make the document inconsistent (duplicate id, missing device...)."""


class Layout:
    """A RackDesigner design document."""

    def __init__(self, catalog: Catalog | None = None, meta: Meta | None = None) -> None:
        self.catalog = catalog if catalog is not None else default_catalog()
        self._graph: nx.MultiGraph = nx.MultiGraph()
        self._view = self._graph.copy(as_view=True)
        self._link_ends: dict[str, tuple[str, str]] = {}
        self._groups: dict[str, Group] = {}
        self._group_devices: dict[str, set[str]] = {}
        self._group_children: dict[str, set[str]] = {}
        self._unresolved: dict[str, Link] = {}
        self._meta = meta or Meta()
        self._listeners: list[Listener] = []
        self._counters: dict[str, int] = {}
        self.revision = 0
        #: Where the document was loaded from and the line of each object (for messages).
        self.source_path: str | None = None
        self.source_lines: dict[str, int] = {}

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
        for listener in list(self._listeners):
            listener(event)

    # ---- reading -----------------------------------------------------------------------
    @property
    def graph(self) -> nx.MultiGraph:
        """Read-only view of the topology graph."""
        return self._view

    @property
    def meta(self) -> Meta:
        return self._meta

    def devices(self) -> Iterator[Device]:
        for _, data in self._graph.nodes(data="device"):
            yield data

    def device(self, device_id: str) -> Device:
        try:
            return self._graph.nodes[device_id]["device"]
        except KeyError:
            raise KeyError(f"no device {device_id!r}") from None

    def has_device(self, device_id: str) -> bool:
        return device_id in self._graph

    def spec(self, device_id: str) -> DeviceSpec | None:
        """The catalog spec of a device, or None if its model is unknown."""
        model = self.device(device_id).model
        return self.catalog.get(model) if model in self.catalog else None

    def device_count(self) -> int:
        return self._graph.number_of_nodes()

    def links(self) -> Iterator[Link]:
        graph_edges = self._graph._adj  # direct access: this is the hot path for large designs
        for link_id, (u, v) in self._link_ends.items():
            yield graph_edges[u][v][link_id]["link"]

    def link(self, link_id: str) -> Link:
        try:
            u, v = self._link_ends[link_id]
        except KeyError:
            raise KeyError(f"no link {link_id!r}") from None
        return self._graph._adj[u][v][link_id]["link"]

    def has_link(self, link_id: str) -> bool:
        return link_id in self._link_ends

    def link_count(self) -> int:
        return len(self._link_ends)

    def links_of(self, device_id: str) -> list[Link]:
        """Links with an end on `device_id`, in creation order."""
        out = []
        for _, _, data in self._graph.edges(device_id, data=True):
            out.append(data["link"])
        return out

    @property
    def unresolved_links(self) -> tuple[Link, ...]:
        return tuple(self._unresolved.values())

    def groups(self) -> Iterator[Group]:
        return iter(list(self._groups.values()))

    def group(self, group_id: str) -> Group:
        try:
            return self._groups[group_id]
        except KeyError:
            raise KeyError(f"no group {group_id!r}") from None

    def has_group(self, group_id: str) -> bool:
        return group_id in self._groups

    def group_devices(self, group_id: str, recursive: bool = True) -> list[str]:
        """Ids of the devices in a group (and its sub-groups when `recursive`)."""
        out = list(self._group_devices.get(group_id, ()))
        if recursive:
            for child in self._group_children.get(group_id, ()):
                out.extend(self.group_devices(child, True))
        return out

    def group_children(self, group_id: str) -> list[str]:
        return sorted(self._group_children.get(group_id, ()))

    def has_id(self, object_id: str) -> bool:
        return (object_id in self._graph or object_id in self._link_ends
                or object_id in self._groups or object_id in self._unresolved)

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
        if not is_valid_id(device.id):
            raise LayoutError(f"invalid device id {device.id!r} (letters, digits, . _ - only)")
        if self.has_id(device.id):
            raise LayoutError(f"id {device.id!r} is already used")
        if device.group is not None and device.group not in self._groups:
            raise LayoutError(f"device {device.id!r}: no group {device.group!r}")
        self._graph.add_node(device.id, device=device)
        if device.group is not None:
            self._group_devices.setdefault(device.group, set()).add(device.id)
        self._emit(DeviceAdded(device))
        return device

    def remove_device(self, device_id: str) -> Device:
        """Remove a device that has no links (remove its links first: commands cascade)."""
        device = self.device(device_id)
        if self._graph.degree(device_id):
            raise LayoutError(f"device {device_id!r} still has links; remove them first")
        self._graph.remove_node(device_id)
        if device.group is not None:
            self._group_devices[device.group].discard(device_id)
        self._emit(DeviceRemoved(device))
        return device

    def update_device(self, device_id: str, **changes: Any) -> Device:
        old = self.device(device_id)
        if "id" in changes and changes["id"] != device_id:
            raise LayoutError("a device's id cannot change")
        new = dataclasses.replace(old, **changes)
        if new == old:
            return old
        if new.group is not None and new.group not in self._groups:
            raise LayoutError(f"device {device_id!r}: no group {new.group!r}")
        nodes = self._graph._node
        nodes[device_id] = {**nodes[device_id], "device": new}  # copy-on-write (module doc)
        if old.group != new.group:
            if old.group is not None:
                self._group_devices[old.group].discard(device_id)
            if new.group is not None:
                self._group_devices.setdefault(new.group, set()).add(device_id)
        self._emit(DeviceChanged(old, new))
        return new

    # ---- mutators: links ---------------------------------------------------------------
    def add_link(self, link: Link) -> Link:
        if not is_valid_id(link.id):
            raise LayoutError(f"invalid link id {link.id!r}")
        if self.has_id(link.id):
            raise LayoutError(f"id {link.id!r} is already used")
        if link.count < 1:
            raise LayoutError(f"link {link.id!r}: count must be >= 1")
        for end in (link.a, link.b):
            if end.device not in self._graph:
                raise LayoutError(f"link {link.id!r}: no device {end.device!r}")
        _put_edge(self._graph, link.a.device, link.b.device, link.id, {"link": link})
        self._link_ends[link.id] = (link.a.device, link.b.device)
        self._emit(LinkAdded(link))
        return link

    def add_unresolved_link(self, link: Link) -> None:
        """Keep a link whose devices are missing (loading only; design rules report it)."""
        self._unresolved[link.id] = link

    def remove_link(self, link_id: str) -> Link:
        if link_id in self._unresolved:
            link = self._unresolved.pop(link_id)
            self._emit(LinkRemoved(link))
            return link
        link = self.link(link_id)
        u, v = self._link_ends.pop(link_id)
        _drop_edge(self._graph, u, v, link_id)
        self._emit(LinkRemoved(link))
        return link

    def update_link(self, link_id: str, **changes: Any) -> Link:
        old = self.link(link_id)
        new = dataclasses.replace(old, **changes)
        if new == old:
            return old
        if new.id != old.id or {new.a.device, new.b.device} != {old.a.device, old.b.device}:
            raise LayoutError("update_link cannot change a link's id or devices")
        if new.count < 1:
            raise LayoutError(f"link {link_id!r}: count must be >= 1")
        u, v = self._link_ends[link_id]
        attrs = self._graph._adj[u][v][link_id]
        _put_edge(self._graph, u, v, link_id, {**attrs, "link": new})
        self._emit(LinkChanged(old, new))
        return new

    # ---- mutators: groups --------------------------------------------------------------
    def add_group(self, group: Group) -> Group:
        if not is_valid_id(group.id):
            raise LayoutError(f"invalid group id {group.id!r}")
        if self.has_id(group.id):
            raise LayoutError(f"id {group.id!r} is already used")
        if group.parent is not None and group.parent not in self._groups:
            raise LayoutError(f"group {group.id!r}: no parent group {group.parent!r}")
        self._groups[group.id] = group
        if group.parent is not None:
            self._group_children.setdefault(group.parent, set()).add(group.id)
        self._emit(GroupAdded(group))
        return group

    def remove_group(self, group_id: str) -> Group:
        """Remove an empty group (move or remove its members first: commands cascade)."""
        group = self.group(group_id)
        if self._group_devices.get(group_id) or self._group_children.get(group_id):
            raise LayoutError(f"group {group_id!r} is not empty")
        del self._groups[group_id]
        self._group_devices.pop(group_id, None)
        self._group_children.pop(group_id, None)
        if group.parent is not None:
            self._group_children[group.parent].discard(group_id)
        self._emit(GroupRemoved(group))
        return group

    def update_group(self, group_id: str, **changes: Any) -> Group:
        old = self.group(group_id)
        new = dataclasses.replace(old, **changes)
        if new == old:
            return old
        if new.id != old.id:
            raise LayoutError("a group's id cannot change")
        if new.parent is not None:
            if new.parent not in self._groups:
                raise LayoutError(f"group {group_id!r}: no parent group {new.parent!r}")
            ancestor: str | None = new.parent
            while ancestor is not None:
                if ancestor == group_id:
                    raise LayoutError(f"group {group_id!r} cannot be inside itself")
                ancestor = self._groups[ancestor].parent
        self._groups[group_id] = new
        if old.parent != new.parent:
            if old.parent is not None:
                self._group_children[old.parent].discard(group_id)
            if new.parent is not None:
                self._group_children.setdefault(new.parent, set()).add(group_id)
        self._emit(GroupChanged(old, new))
        return new

    def set_meta(self, **changes: Any) -> Meta:
        old = self._meta
        new = dataclasses.replace(old, **changes)
        if new != old:
            self._meta = new
            self._emit(MetaChanged(old, new))
        return new

    # ---- whole-document helpers --------------------------------------------------------
    def add_all(self, groups: Iterable[Group] = (), devices: Iterable[Device] = (),
                links: Iterable[Link] = ()) -> None:
        """Add groups (parents first), then devices, then links."""
        for group in groups:
            self.add_group(group)
        for device in devices:
            self.add_device(device)
        for link in links:
            self.add_link(link)

    def copy(self) -> Layout:
        """An independent copy with the same content and no listeners (for worker threads)."""
        other = Layout(self.catalog, self._meta)
        other._graph = _copy_multigraph(self._graph)
        other._view = other._graph.copy(as_view=True)
        other._link_ends = dict(self._link_ends)
        other._groups = dict(self._groups)
        other._group_devices = {k: set(v) for k, v in self._group_devices.items()}
        other._group_children = {k: set(v) for k, v in self._group_children.items()}
        other._unresolved = dict(self._unresolved)
        other._counters = dict(self._counters)
        other.revision = self.revision
        other.source_path = self.source_path
        other.source_lines = self.source_lines
        return other

    def content(self) -> tuple[Meta, dict[str, Device], dict[str, Link], dict[str, Group]]:
        links = {link.id: link for link in self.links()}
        links.update(self._unresolved)
        return (self._meta, {d.id: d for d in self.devices()}, links, dict(self._groups))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Layout):
            return NotImplemented
        return self.content() == other.content()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"<Layout {self._meta.name!r}: {self.device_count()} devices, "
                f"{self.link_count()} links, {len(self._groups)} groups>")


_clear_nx_cache = getattr(nx, "_clear_cache", lambda graph: None)  # networkx >= 3.3


def _put_edge(graph: nx.MultiGraph, u: str, v: str, key: str, attrs: dict[str, Any]) -> None:
    """Add or replace edge `key` between existing nodes u and v. The pair's key dict is
    replaced by an updated copy, never changed in place (a snapshot may share it)."""
    adj = graph._adj
    keydict = dict(adj[u].get(v, {}))
    keydict[key] = attrs
    adj[u][v] = keydict  # an existing pair keeps its place in the neighbour order
    adj[v][u] = keydict
    _clear_nx_cache(graph)


def _drop_edge(graph: nx.MultiGraph, u: str, v: str, key: str) -> None:
    """Remove edge `key` between u and v, replacing the pair's key dict (see `_put_edge`)."""
    adj = graph._adj
    keydict = dict(adj[u][v])
    del keydict[key]
    if keydict:
        adj[u][v] = keydict
        adj[v][u] = keydict
    else:
        del adj[u][v]
        if u != v:
            del adj[v][u]
    _clear_nx_cache(graph)


def _copy_multigraph(graph: nx.MultiGraph) -> nx.MultiGraph:
    """An independent copy of `graph`, which must follow the copy-on-write rule (module doc).

    `nx.MultiGraph.copy()` re-adds every node and edge through the public API (30 ms for a
    1,016-GPU SuperPOD, about 1 s at 16k GPUs). Here only the dicts that mutators change in
    place are new: the node dict, the adjacency dict and each node's neighbour dict. Key dicts
    (still one object seen from both ends of a pair, as networkx has it), attribute dicts and the
    frozen values in them are shared. Neighbour order is kept, so `links_of` keeps its order.
    """
    copy = graph.__class__()
    copy.graph.update(graph.graph)
    copy._node = graph._node.copy()
    copy._adj = {u: neighbours.copy() for u, neighbours in graph._adj.items()}
    return copy


def natural_key(text: str) -> tuple:
    """Sort key that orders `gpu-2` before `gpu-10`."""
    parts = re.split(r"(\d+)", text)
    return tuple(int(p) if p.isdigit() else p for p in parts)
