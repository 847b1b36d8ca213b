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

import threading
import weakref
from collections.abc import Callable, Iterator
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
#: Derived values a state may take over from one that differs by positions and statuses
#: (the design rules' findings too: no rule reads a position or a status), and those it may
#: take from one that differs by groups as well (no index or topology reads a group).
HINTED = ("index", "topology", "findings", "racks")
GROUP_PROOF = ("index", "topology")
#: Values a later state may be derived from by what changed since (`DesignState._pass_edit`).
EDIT_BASES = ("index", "findings", "racks")
MAX_EDITS = 20_000  # past this many changed objects deriving is no cheaper than computing
_DERIVE_LOCK = threading.RLock()


class DesignState:
    """One immutable version of a design; build new ones with the `with_*` methods (fields are
never assigned after `_evolve` returns)."""

    __slots__ = (
        "__weakref__",
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
        "memo",
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
        #: values derived from this state, by key, made on first use: weak references to
        #: its index and topology, lists of its devices and links, hints to the state it was
        #: evolved or cut from (model/ reads and files them: `derived`, `failures.degraded`)
        self.memo: dict[str, Any] = {}

    def _evolve(self, *,
                meta: Any = _KEEP, devices: Any = _KEEP, links: Any = _KEEP, groups: Any = _KEEP,
                unresolved: Any = _KEEP, device_order: Any = _KEEP, link_order: Any = _KEEP,
                group_order: Any = _KEEP, unresolved_order: Any = _KEEP,
                links_by_device: Any = _KEEP, group_members: Any = _KEEP,
                group_kids: Any = _KEEP, port_use: Any = _KEEP,
                failed: Any = _KEEP, edit: Any = None) -> DesignState:
        """A new state with the given fields, sharing every other one. States are never
        changed after this (by convention: plain slots keep this the hot path of every edit)."""
        if (self._links_by_device is None or self._port_use is None
                or self._group_members is None):  # a state read from a file: its successors
            self._derive()  # are made from its derived maps, never left to derive their own
        new: DesignState = DesignState.__new__(DesignState)
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
        new.memo = {}
        if links is _KEEP and link_order is _KEEP:
            if "links" in self.memo:
                new.memo["links"] = self.memo["links"]  # the same links in the same order
            else:
                new.memo["links_from"] = (weakref.ref(self), None)
        elif edit is not None and edit[0] == "l":  # one link added, removed or changed
            new.memo["links_from"] = (weakref.ref(self), edit[1])
        if edit is not None:
            self._pass_edit(new, edit)
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

    # ---- what changed since a state whose derived values are known -------------------------
    def _pass_edit(self, new: DesignState, edit: Any) -> None:
        """Remember in `new` which objects differ from the nearest earlier state that had
        derived values (its index or findings) when `new` was made: ("edit", (that state,
        touched)), `touched` a linked list of (kind, id) — kind "d" device, "l" link,
        "g" group, "u" unresolved link, "m" meta — so that `new`'s values can be derived
        from that state's by the objects that changed (`model/index_evolve.py`,
        `model/findings.py`) instead of from nothing. A bulk edit is one entry of ids."""
        size = len(edit[1]) if edit[0] == "bulk" else 1
        if any(self.alive_memo(key) is not None for key in EDIT_BASES):
            new.memo["edit"] = (weakref.ref(self), (edit, None, size))
            return
        hint = self.memo.get("edit")
        if hint is not None and hint[1][2] + size <= MAX_EDITS:
            base, touched = hint
            new.memo["edit"] = (base, (edit, touched, touched[2] + size))

    def take_edit_hint(self, other: DesignState, touched: list[tuple[str, Any]]) -> None:
        """This state differs from `other` in the `touched` objects only (an undo or redo ends
        on a recorded state: its missing values may be derived from the state it left)."""
        if all(self.alive_memo(key) is not None for key in EDIT_BASES):
            return
        if any(other.alive_memo(key) is not None for key in EDIT_BASES):
            node: Any = None
            for n, item in enumerate(touched, 1):
                node = (item, node, n)
            if node is not None and node[2] <= MAX_EDITS:
                self.memo["edit"] = (weakref.ref(other), node)

    def edit_base(self, key: str) -> tuple[Any, dict[str, set]] | None:
        """(the alive `key` value of the nearest earlier state that has one, the ids touched
        since, by kind) — see `_pass_edit` — or None. The chain goes from base to base: a
        state whose index was derived on the way (the canvas asks for it) is the base of the
        next edits, and its own base may be the one whose rack index is known."""
        touched: dict[str, set] = {"d": set(), "l": set(), "g": set(), "u": set(), "m": set()}
        state: DesignState = self
        size = 0
        seen = {id(self)}  # an undo's hint points forward: never around in a circle
        while True:
            hint = state.memo.get("edit")
            if hint is None:
                return None
            node = hint[1]
            size += node[2] if node is not None else 0
            if size > MAX_EDITS:
                return None
            while node is not None:
                kind, ids = node[0]
                if kind == "bulk":
                    for k, i in ids:
                        touched[k].add(i)
                else:
                    touched[kind].add(ids)
                node = node[1]
            base: DesignState | None = hint[0]()
            if base is None or id(base) in seen:
                return None
            value = base.alive_memo(key)
            if value is not None:
                return value, touched
            seen.add(id(base))
            state = base

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
        state = self
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

    def index(self, catalog: Catalog) -> DesignIndex:
        """The derived facts of this state (computed on first use, then shared).

        The state keeps only a weak reference: whoever reads the index (the Layout showing
        this state, a worker's snapshot) keeps it alive, while the states kept by the undo
        history do not keep a derived index each (100k+ objects at 4k GPUs)."""
        index = self.alive_memo("index")
        if index is not None and index.catalog is catalog:
            return index
        from rackdesigner.model.index import DesignIndex

        with _DERIVE_LOCK:
            index = self.alive_memo("index")
            if index is not None and index.catalog is catalog:
                return index
            like_ref = self.memo.get("index_like")  # differs by moves and statuses only
            like = like_ref() if like_ref is not None else None
            if like is not None and like.catalog is not catalog:
                like = None
            minus = None  # this state is another with failed objects left out (`degraded`)
            if like is None and "minus" in self.memo:
                source_ref, failed = self.memo["minus"]
                source: DesignState | None = source_ref()
                ref = source.memo_ref("index") if source is not None else None
                of = ref() if ref is not None else None
                if of is not None and of.catalog is catalog:
                    minus = (of, failed)
            evolve = None  # made by edits from a state whose index is known
            if minus is not None:  # the failed objects are what changed, for other facets
                failed = minus[1]
                evolve = (minus[0], {"d": set(failed.devices), "l": set(failed.links),
                                     "g": set(), "u": set(), "m": set()})
            elif like is None:
                found = self.edit_base("index")
                if found is not None and found[0].catalog is catalog:
                    evolve = found
            index = DesignIndex(self, catalog, like=like, minus=minus, evolve=evolve)
            self.memo["index"] = weakref.ref(index)
        return index

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

    # ---- new states ------------------------------------------------------------------------
    def with_device(self, device: Device, old: Device | None = None) -> DesignState:
        """`device` added (old None) or replacing `old` (same id, order kept)."""
        changes: dict[str, Any] = {"devices": self.devices.set(device.id, device),
                                   "edit": ("d", device.id)}
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
        if old is not None and replace(old, pos=device.pos, status=device.status) == device:
            # a move or a Fail / Restore: nothing the derived index or the simulation's
            # topology holds depends on a position or a status, so the new state's may start
            # from this one's (`index`, `derived`)
            new.take_index_hint(self)
        return new

    def take_index_hint(self, other: DesignState, keys: tuple[str, ...] = HINTED) -> None:
        """`other` differs from this state by device positions and statuses only (or by
        groups, which the values in `GROUP_PROOF` do not read): unless this state has them
        already, its derived index may start from `other`'s and it may share `other`'s
        topology and findings (a cache hint, not a change)."""
        for key in keys:
            if self.alive_memo(key) is not None:
                continue
            ref = other.memo_ref(key)
            if ref is not None:
                self.memo[key + "_like"] = ref

    def memo_ref(self, key: str) -> weakref.ref | None:
        """A live weak reference to this state's `key` value, or to the one it may share."""
        for name in (key, key + "_like"):
            ref = self.memo.get(name)
            if ref is not None and ref() is not None:
                return ref
        return None

    def alive_memo(self, key: str) -> Any:
        ref = self.memo.get(key)
        return ref() if ref is not None else None

    def derived(self, key: str, build: Callable[[DesignState, Any], Any]) -> Any:
        """A value derived from this state (the simulation's topology), built on first use by
        `build(state, hint)` and then shared while someone holds it: the state keeps only a
        weak reference, like the index's. `hint` is what the state may start from: a value
        of a state that differs by positions and statuses only (share it as is) as
        ("like", value), or ("minus", value of the state this one is with failed objects
        left out, that `FailedSet`, that state) — see `model.failures.degraded` — or None."""
        value = self.alive_memo(key)
        if value is not None:
            return value
        with _DERIVE_LOCK:  # two workers asking at once build it once
            value = self.alive_memo(key)
            if value is not None:
                return value
            hint: Any = None
            like = self.memo_ref(key)
            if like is not None:
                hint = ("like", like())
            else:
                minus = self.memo.get("minus")
                source: DesignState | None = minus[0]() if minus is not None else None
                ref = source.memo_ref(key) if source is not None else None
                value_of = ref() if ref is not None else None
                if value_of is not None and minus is not None:
                    hint = ("minus", value_of, minus[1], source)
            value = build(self, hint)
            self.memo[key] = weakref.ref(value)
            return value

    def without_device(self, device: Device) -> DesignState:
        changes: dict[str, Any] = {"devices": self.devices.delete(device.id),
                                   "device_order": self.device_order.remove(device.id),
                                   "edit": ("d", device.id)}
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
            if replace(old, status=link.status) == link:  # a Fail / Restore: see with_device
                new = self._evolve(links=self.links.set(link.id, link), failed=failed,
                                   edit=("l", link.id))
                new.take_index_hint(self)
                return new
            use = _use(_use(self.port_use, old, -1), link, +1)
            return self._evolve(links=self.links.set(link.id, link), port_use=use, failed=failed,
                                edit=("l", link.id))
        by_device = self.links_by_device
        for device_id in dict.fromkeys((link.a.device, link.b.device)):
            by_device = by_device.set(device_id, (*by_device.get(device_id, ()), link.id))
        return self._evolve(links=self.links.set(link.id, link),
                            link_order=self.link_order.append(link.id),
                            links_by_device=by_device, port_use=_use(self.port_use, link, +1),
                            failed=failed, edit=("l", link.id))

    def without_link(self, link: Link) -> DesignState:
        by_device = self.links_by_device
        for device_id in dict.fromkeys((link.a.device, link.b.device)):
            rest = tuple(i for i in by_device.get(device_id, ()) if i != link.id)
            by_device = by_device.set(device_id, rest) if rest else by_device.delete(device_id)
        return self._evolve(links=self.links.delete(link.id),
                            link_order=self.link_order.remove(link.id),
                            links_by_device=by_device, port_use=_use(self.port_use, link, -1),
                            failed=_mark(self.failed, None, link), edit=("l", link.id))

    def with_unresolved(self, link: Link) -> DesignState:
        order = self.unresolved_order
        if link.id not in order:
            order = order.append(link.id)
        return self._evolve(unresolved=self.unresolved.set(link.id, link),
                            unresolved_order=order, edit=("u", link.id))

    def without_unresolved(self, link_id: str) -> DesignState:
        return self._evolve(unresolved=self.unresolved.delete(link_id),
                            unresolved_order=self.unresolved_order.remove(link_id),
                            edit=("u", link_id))

    def with_group(self, group: Group, old: Group | None = None) -> DesignState:
        changes: dict[str, Any] = {"groups": self.groups.set(group.id, group),
                                   "edit": ("g", group.id)}
        if old is None:
            changes["group_order"] = self.group_order.append(group.id)
        old_parent = old.parent if old is not None else None
        if old_parent != group.parent:
            changes["group_kids"] = _set_move(self.group_kids, old_parent, group.parent,
                                              group.id)
        failed = _mark(self.failed, group, old)
        if failed is not self.failed:
            changes["failed"] = failed
        new = self._evolve(**changes)
        if old is not None:  # neither the index nor the topology reads groups (nor the
            # failure closure, which is not kept); the rules read all but status and folding
            new.take_index_hint(self, HINTED if replace(old, status=group.status,
                                                        collapsed=group.collapsed) == group
                                else GROUP_PROOF)
        return new

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
                            failed=_mark(self.failed, None, group), edit=("g", group.id))

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
        if not changes:
            return self
        added = len(groups) + len(devices) + len(links)
        if added <= MAX_EDITS:
            changes["edit"] = ("bulk", [*(("g", g.id) for g in groups),
                                        *(("d", d.id) for d in devices),
                                        *(("l", lk.id) for lk in links)])
        new = self._evolve(**changes)
        # into a state without devices (links): the list is the given one, as `_loaded` files it
        # (a generated design's first simulate or estimate read 150k links back through the
        # tries: 0.07 s at 16k GPUs)
        if devices and not self.device_order and len(new.device_order) == len(devices):
            new.memo["devices"] = tuple(devices)
        if links and not self.link_order and len(new.link_order) == len(links):
            new.memo["links"] = tuple(links)
        return new

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
        new: DesignState = self._evolve(
            groups=DictMap(dict(zip(group_ids, groups, strict=True))),
            devices=DictMap(device_map), links=DictMap(link_map),
            group_order=self.group_order.extend(group_ids),
            device_order=self.device_order.extend(device_ids),
            link_order=self.link_order.extend(link_ids),
            group_kids=_sets_add(self.group_kids, kids),
            failed=bulk_update(self.failed, [(i, None) for i in marked]))
        new._links_by_device = new._port_use = new._group_members = None
        new.memo["devices"] = tuple(devices)
        new.memo["links"] = tuple(links)
        return new

    def with_meta(self, meta: Meta) -> DesignState:
        return self._evolve(meta=meta, edit=("m", None))

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
