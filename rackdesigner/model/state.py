"""The design as one immutable value: `DesignState`.

A state never changes once made. An edit computes a new state from the old one (the Layout's
mutators do it and swap the new one in), sharing everything it did not touch: the maps are
`immutables.Map` (hash array mapped tries, O(log n) per change, structural sharing), so a
snapshot for a worker thread is a reference — taken on the GUI thread, no later edit can reach
it — and undo/redo swap whole states, which restores order as exactly as content.

Order is part of the value: devices, links, groups and unresolved links iterate in the order
they were added, and `links_of(device)` in the order the links were made. `Order` keeps an
insertion order persistently: appends go to one buffer shared by every state that is a prefix
of it (a state remembers its length), a state that appends behind a longer buffer (after an
undo) copies its prefix first; removals leave tombstones that are compacted once they outnumber
the live entries.

The derived facts readers share (port usage, NVLink domains, NIC reach, rack occupancy,
reachability) hang off a state as `state.index` (`rackdesigner.model.index`), computed once per
state on first use, so every reader of one state sees the same answer.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from immutables import Map

from rackdesigner.model.items import Device, Group, Link, Meta
from rackdesigner.model.order import AnyMap, DictMap, Order, bulk_update

if TYPE_CHECKING:
    import networkx as nx

    from rackdesigner.catalog import Catalog
    from rackdesigner.model.index import DesignIndex

_EMPTY: Map = Map()
_KEEP: Any = object()  # "leave this field as it is" in `DesignState._evolve`


class DesignState:
    """One immutable version of a design; build new ones with the `with_*` methods (fields are
never assigned after `_evolve` returns)."""

    __slots__ = (
        "__weakref__",
        "_cache",
        "_group_members",
        "_links_by_device",
        "_port_use",
        "device_order",
        "devices",
        "failed",
        "group_kids",
        "group_order",
        "groups",
        "link_order",
        "links",
        "meta",
        "unresolved",
        "unresolved_order",
    )

    def __init__(self, meta: Meta | None = None) -> None:
        self.meta = meta if meta is not None else Meta()
        self.devices: AnyMap = _EMPTY  # id -> Device
        self.links: AnyMap = _EMPTY  # id -> Link (both devices exist)
        self.groups: AnyMap = _EMPTY  # id -> Group
        self.unresolved: AnyMap = _EMPTY  # id -> Link whose devices are missing (loading only)
        self.device_order = Order()
        self.link_order = Order()
        self.group_order = Order()
        self.unresolved_order = Order()
        # derived from the links and devices (see the properties below); None: not yet made
        self._links_by_device: AnyMap | None = _EMPTY  # device id -> (link id, ...), in order
        self._group_members: AnyMap | None = _EMPTY  # group id -> Map(device id -> None)
        self._port_use: AnyMap | None = _EMPTY  # device id -> ((port group, ports in use), ...)
        self.group_kids: AnyMap = _EMPTY  # group id -> Map(group id -> None)
        self.failed: AnyMap = _EMPTY  # id -> None: groups, devices and links marked failed
        self._cache: dict[str, Any] = {}

    def _evolve(self, *,
                meta: Any = _KEEP, devices: Any = _KEEP, links: Any = _KEEP, groups: Any = _KEEP,
                unresolved: Any = _KEEP, device_order: Any = _KEEP, link_order: Any = _KEEP,
                group_order: Any = _KEEP, unresolved_order: Any = _KEEP,
                links_by_device: Any = _KEEP, group_members: Any = _KEEP,
                group_kids: Any = _KEEP, port_use: Any = _KEEP,
                failed: Any = _KEEP) -> DesignState:
        """A new state with the given fields, sharing every other one. States are never
        changed after this (by convention: plain slots keep this the hot path of every edit)."""
        if (self._links_by_device is None or self._port_use is None
                or self._group_members is None):  # a state read from a file: its successors
            self._derive()  # are made from its derived maps, never left to derive their own
        new = DesignState.__new__(DesignState)
        new.meta = self.meta if meta is _KEEP else meta
        new.devices = self.devices if devices is _KEEP else devices
        new.links = self.links if links is _KEEP else links
        new.groups = self.groups if groups is _KEEP else groups
        new.unresolved = self.unresolved if unresolved is _KEEP else unresolved
        new.device_order = self.device_order if device_order is _KEEP else device_order
        new.link_order = self.link_order if link_order is _KEEP else link_order
        new.group_order = self.group_order if group_order is _KEEP else group_order
        new.unresolved_order = (self.unresolved_order if unresolved_order is _KEEP
                                else unresolved_order)
        new._links_by_device = (self._links_by_device if links_by_device is _KEEP
                                else links_by_device)
        new._group_members = self._group_members if group_members is _KEEP else group_members
        new.group_kids = self.group_kids if group_kids is _KEEP else group_kids
        new._port_use = self._port_use if port_use is _KEEP else port_use
        new.failed = self.failed if failed is _KEEP else failed
        new._cache = {}
        return new

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
        """All resolved links in creation order (materialised once per state)."""
        return self._listed("links", self.links, self.link_order)

    def _listed(self, key: str, items: AnyMap, order: Order) -> tuple[Any, ...]:
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = tuple(items[i] for i in order)
        return cached

    def iter_groups(self) -> Iterator[Group]:
        groups = self.groups
        return (groups[i] for i in self.group_order)

    def iter_unresolved(self) -> Iterator[Link]:
        unresolved = self.unresolved
        return (unresolved[i] for i in self.unresolved_order)

    def link_ids_of(self, device_id: str) -> tuple[str, ...]:
        return self.links_by_device.get(device_id, ())

    def index(self, catalog: Catalog) -> DesignIndex:
        """The derived facts of this state (computed on first use, then shared).

        The state keeps only a weak reference: whoever reads the index (the Layout showing
        this state, a worker's snapshot) keeps it alive, while the states kept by the undo
        history do not keep a derived index each (100k+ objects at 4k GPUs)."""
        ref = self._cache.get("index")
        index = ref() if ref is not None else None
        if index is None or index.catalog is not catalog:
            from rackdesigner.model.index import DesignIndex

            like_ref = self._cache.get("index_like")  # a state this one differs from by moves
            like = like_ref() if like_ref is not None else None
            index = DesignIndex(self, catalog,
                                like=like if like is not None and like.catalog is catalog
                                else None)
            self._cache["index"] = weakref.ref(index)
        return index

    def graph(self) -> nx.MultiGraph:
        """A frozen networkx MultiGraph of this state (built on first use, then shared while
        someone holds it: the state keeps only a weak reference, like the index's)."""
        ref = self._cache.get("graph")
        graph = ref() if ref is not None else None
        if graph is None:
            import networkx as nx

            graph = nx.MultiGraph()
            graph.add_nodes_from((d.id, {"device": d}) for d in self.iter_devices())
            graph.add_edges_from((lk.a.device, lk.b.device, lk.id, {"link": lk})
                                 for lk in self.link_list())
            graph = nx.freeze(graph)
            self._cache["graph"] = weakref.ref(graph)
        return graph

    # ---- new states ------------------------------------------------------------------------
    def with_device(self, device: Device, old: Device | None = None) -> DesignState:
        """`device` added (old None) or replacing `old` (same id, order kept)."""
        changes: dict[str, Any] = {"devices": self.devices.set(device.id, device)}
        if old is None:
            changes["device_order"] = self.device_order.append(device.id)
        old_group = old.group if old is not None else None
        if old_group != device.group:
            changes["group_members"] = _set_move(self.group_members, old_group, device.group,
                                                 device.id)
        failed = _mark(self.failed, device, old)
        if failed is not self.failed:
            changes["failed"] = failed
        new = self._evolve(**changes)
        if old is not None and old.pos != device.pos and replace(old, pos=device.pos) == device:
            # a move: nothing the derived index holds depends on a position, so the new
            # state's index may start from this one's (`index`)
            new.take_index_hint(self)
        return new

    def take_index_hint(self, other: DesignState) -> None:
        """`other` differs from this state by device positions only: unless this state has
        its index already, it may start from `other`'s (a cache hint, not a change)."""
        own = self._cache.get("index")
        if own is not None and own() is not None:
            return
        ref = other._cache.get("index") or other._cache.get("index_like")
        if ref is not None:
            self._cache["index_like"] = ref

    def without_device(self, device: Device) -> DesignState:
        changes: dict[str, Any] = {"devices": self.devices.delete(device.id),
                                   "device_order": self.device_order.remove(device.id)}
        if device.id in self.links_by_device:
            changes["links_by_device"] = self.links_by_device.delete(device.id)
        if device.id in self.port_use:
            changes["port_use"] = self.port_use.delete(device.id)
        if device.group is not None:
            changes["group_members"] = _set_drop(self.group_members, device.group, device.id)
        if device.id in self.failed:
            changes["failed"] = self.failed.delete(device.id)
        return self._evolve(**changes)

    def with_link(self, link: Link, old: Link | None = None) -> DesignState:
        failed = _mark(self.failed, link, old)
        if old is not None:
            use = _use(_use(self.port_use, old, -1), link, +1)
            return self._evolve(links=self.links.set(link.id, link), port_use=use, failed=failed)
        by_device = self.links_by_device
        for device_id in dict.fromkeys((link.a.device, link.b.device)):
            by_device = by_device.set(device_id, (*by_device.get(device_id, ()), link.id))
        return self._evolve(links=self.links.set(link.id, link),
                            link_order=self.link_order.append(link.id),
                            links_by_device=by_device, port_use=_use(self.port_use, link, +1),
                            failed=failed)

    def without_link(self, link: Link) -> DesignState:
        by_device = self.links_by_device
        for device_id in dict.fromkeys((link.a.device, link.b.device)):
            rest = tuple(i for i in by_device.get(device_id, ()) if i != link.id)
            by_device = by_device.set(device_id, rest) if rest else by_device.delete(device_id)
        return self._evolve(links=self.links.delete(link.id),
                            link_order=self.link_order.remove(link.id),
                            links_by_device=by_device, port_use=_use(self.port_use, link, -1),
                            failed=_mark(self.failed, None, link))

    def with_unresolved(self, link: Link) -> DesignState:
        order = self.unresolved_order
        if link.id not in order:
            order = order.append(link.id)
        return self._evolve(unresolved=self.unresolved.set(link.id, link),
                            unresolved_order=order)

    def without_unresolved(self, link_id: str) -> DesignState:
        return self._evolve(unresolved=self.unresolved.delete(link_id),
                            unresolved_order=self.unresolved_order.remove(link_id))

    def with_group(self, group: Group, old: Group | None = None) -> DesignState:
        changes: dict[str, Any] = {"groups": self.groups.set(group.id, group)}
        if old is None:
            changes["group_order"] = self.group_order.append(group.id)
        old_parent = old.parent if old is not None else None
        if old_parent != group.parent:
            changes["group_kids"] = _set_move(self.group_kids, old_parent, group.parent,
                                              group.id)
        failed = _mark(self.failed, group, old)
        if failed is not self.failed:
            changes["failed"] = failed
        return self._evolve(**changes)

    def without_group(self, group: Group) -> DesignState:
        kids = self.group_kids
        if group.parent is not None:
            kids = _set_drop(kids, group.parent, group.id)
        members = self.group_members
        if group.id in members:
            members = members.delete(group.id)
        if group.id in kids:
            kids = kids.delete(group.id)
        return self._evolve(groups=self.groups.delete(group.id),
                            group_order=self.group_order.remove(group.id),
                            group_kids=kids, group_members=members,
                            failed=_mark(self.failed, None, group))

    def with_all(self, groups: list[Group], devices: list[Device],
                 links: list[Link], *, lazy: bool = False,
                 by_id: tuple[dict[str, Device], dict[str, Link]] | None = None) -> DesignState:
        """Many new (already validated) objects at once: one new state, not one per object.

        Each map gets one bulk update (the per-object updates of the mutators took most of a
        16k-GPU load); the result equals adding the objects one by one, orders included.
        `lazy` (a file read into an empty state): plain dicts instead of tries, and the maps
        derived from the links and devices made when first asked for (`_loaded`; `by_id`:
        the devices and links already filed by id, in order)."""
        if lazy and not (self.devices or self.links or self.groups or self.unresolved):
            return self._loaded(groups, devices, links, by_id)
        changes: dict[str, Any] = {}
        if groups:
            kids: dict[str, list[str]] = {}
            for group in groups:
                if group.parent is not None:
                    kids.setdefault(group.parent, []).append(group.id)
            changes["groups"] = bulk_update(self.groups, [(g.id, g) for g in groups])
            changes["group_kids"] = _sets_add(self.group_kids, kids)
            changes["group_order"] = self.group_order.extend([g.id for g in groups])
        if devices:
            members: dict[str, list[str]] = {}
            for device in devices:
                if device.group is not None:
                    members.setdefault(device.group, []).append(device.id)
            changes["devices"] = bulk_update(self.devices, [(d.id, d) for d in devices])
            changes["group_members"] = _sets_add(self.group_members, members)
            changes["device_order"] = self.device_order.extend([d.id for d in devices])
        if links:
            by_device: dict[str, list[str]] = {}
            use: dict[str, dict[str, int]] = {}
            for link in links:  # the hot loop of a large load: plain dict work only
                a, b, lid, n = link.a, link.b, link.id, link.count
                ad, bd = a.device, b.device
                (by_device.get(ad) or by_device.setdefault(ad, [])).append(lid)
                if bd != ad:
                    (by_device.get(bd) or by_device.setdefault(bd, [])).append(lid)
                for end_device, port_group in ((ad, a.group), (bd, b.group)):
                    groups_of = use.get(end_device)
                    if groups_of is None:
                        use[end_device] = {port_group: n}
                    else:
                        groups_of[port_group] = groups_of.get(port_group, 0) + n
            old_by, old_use = self.links_by_device, self.port_use
            changes["links"] = bulk_update(self.links, [(lk.id, lk) for lk in links])
            changes["links_by_device"] = bulk_update(
                old_by, [(d, (*old_by.get(d, ()), *ids)) for d, ids in by_device.items()])
            changes["port_use"] = bulk_update(old_use, [
                (d, _merge_use(old, added) if (old := old_use.get(d)) else tuple(added.items()))
                for d, added in use.items()])
            changes["link_order"] = self.link_order.extend([lk.id for lk in links])
        marked = [item.id for items in (groups, devices, links) for item in items
                  if item.status != "active"]
        if marked:
            changes["failed"] = bulk_update(self.failed, ((i, None) for i in marked))
        return self._evolve(**changes) if changes else self

    def _loaded(self, groups: list[Group], devices: list[Device], links: list[Link],
                by_id: tuple[dict[str, Device], dict[str, Link]] | None) -> DesignState:
        """`with_all` into an empty state, as a file reader does: the objects are filed in
        dicts (`DictMap`) and the state's lists are the given ones; links per device, port use
        and group members are made on first use (a validate or simulate of a 100k-GPU design
        reads none of them whole; the designer settles them on its reading worker). Equal to
        the state `with_all` makes, orders included."""
        group_ids = [g.id for g in groups]
        if by_id is None:
            by_id = ({d.id: d for d in devices}, {lk.id: lk for lk in links})
        device_map, link_map = by_id
        device_ids, link_ids = list(device_map), list(link_map)
        kids: dict[str, list[str]] = {}
        for group in groups:
            if group.parent is not None:
                kids.setdefault(group.parent, []).append(group.id)
        marked = [item.id for items in (groups, devices, links) for item in items
                  if item.status != "active"]
        new = self._evolve(
            groups=DictMap(dict(zip(group_ids, groups, strict=True))),
            devices=DictMap(device_map), links=DictMap(link_map),
            group_order=self.group_order.extend(group_ids),
            device_order=self.device_order.extend(device_ids),
            link_order=self.link_order.extend(link_ids),
            group_kids=_sets_add(self.group_kids, kids),
            failed=bulk_update(self.failed, [(i, None) for i in marked]))
        new._links_by_device = new._port_use = new._group_members = None
        new._cache["devices"] = tuple(devices)
        new._cache["links"] = tuple(links)
        return new

    def with_meta(self, meta: Meta) -> DesignState:
        return self._evolve(meta=meta)

    def content(self) -> tuple[Meta, dict[str, Device], dict[str, Link], dict[str, Group]]:
        links = {link.id: link for link in self.link_list()}
        links.update((link.id, link) for link in self.iter_unresolved())
        return (self.meta, {d.id: d for d in self.iter_devices()}, links,
                {g.id: g for g in self.iter_groups()})


def _bump(pairs: tuple[tuple[str, int], ...], group: str, delta: int) -> tuple:
    """Port usage pairs of one device with `delta` ports added to `group` (zeros dropped)."""
    out, found = [], False
    for name, count in pairs:
        if name == group:
            found = True
            count += delta
        if count:
            out.append((name, count))
    if not found and delta:
        out.append((group, delta))
    return tuple(out)


def _merge_use(pairs: tuple[tuple[str, int], ...], added: dict[str, int]) -> tuple:
    """`_bump` of every (group, count) in `added`, in order, at once."""
    out = []
    for name, count in pairs:
        count += added.get(name, 0)
        if count:
            out.append((name, count))
    have = {name for name, _ in pairs}
    out.extend((name, n) for name, n in added.items() if name not in have and n)
    return tuple(out)


def _sets_add(sets: AnyMap, added: dict[str, list[str]]) -> AnyMap:
    """`_set_add` of every member of `added` (key -> members), at once."""
    if not added:
        return sets
    return bulk_update(sets, ((key, bulk_update(sets.get(key, _EMPTY),
                                                ((m, None) for m in members)))
                              for key, members in added.items()))


def _use(port_use: AnyMap, link: Link, sign: int) -> AnyMap:
    """Port usage with `link`'s ends added (sign +1) or taken away (-1)."""
    for end in (link.a, link.b):
        port_use = port_use.set(end.device, _bump(port_use.get(end.device, ()), end.group,
                                                  sign * link.count))
    return port_use


def _mark(failed: AnyMap, new: Any, old: Any) -> AnyMap:
    """The failed-id set after `old` (or nothing) became `new` (or nothing)."""
    was = old is not None and old.status != "active"
    now = new is not None and new.status != "active"
    if was == now:
        return failed
    return failed.set(new.id, None) if now else failed.delete(old.id)


def _set_add(sets: AnyMap, key: str, member: str) -> AnyMap:
    return sets.set(key, sets.get(key, _EMPTY).set(member, None))


def _set_move(sets: AnyMap, old: str | None, new: str | None, member: str) -> AnyMap:
    """`member` filed under `new` instead of `old` (either may be None: not filed)."""
    if old is not None:
        sets = _set_drop(sets, old, member)
    return _set_add(sets, new, member) if new is not None else sets


def _set_drop(sets: AnyMap, key: str, member: str) -> AnyMap:
    current = sets.get(key)
    if current is None or member not in current:
        return sets
    rest = current.delete(member)
    return sets.set(key, rest) if len(rest) else sets.delete(key)
