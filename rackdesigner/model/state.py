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

This module makes new states (`_evolve` and the `with_*` / `without_*` methods); reading one is
`state_reading.StateReading`, its derived values and hints `state_memo.StateMemo`, the maps kept
beside its objects `state_sets`. Every name is still imported from here.
"""

from __future__ import annotations

import weakref
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from immutables import Map

from rackdesigner.model import state_cut
from rackdesigner.model.items import Device, Group, Link, Meta
from rackdesigner.model.order import AnyMap, DictMap, Order, bulk_update
from rackdesigner.model.refusals import LayoutError
from rackdesigner.model.state_memo import EDIT_BASES, GROUP_PROOF, HINTED, MAX_EDITS, StateMemo
from rackdesigner.model.state_reading import StateReading
from rackdesigner.model.state_sets import (
    _mark,
    _merge_use,
    _set_drop,
    _set_move,
    _sets_add,
    _use,
)

__all__ = ["EDIT_BASES", "GROUP_PROOF", "HINTED", "MAX_EDITS", "DesignState"]

_EMPTY: Map = Map()
_KEEP: Any = object()  # "leave this field as it is" in `DesignState._evolve`


class DesignState(StateReading, StateMemo):
    """One immutable version of a design; build new ones with the `with_*` methods (fields are
never assigned after `_evolve` returns)."""

    __slots__ = (
        "__weakref__",
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

    def without_all(self, device_ids: Collection[str], link_ids: Collection[str]) -> DesignState:
        """Without the links `link_ids`, then the devices `device_ids` (all present; every link
        of those devices among `link_ids`), as one new state equal to removing them one at a
        time (`model/state_cut.py`: a what-if's degraded copy)."""
        links = [self.links[i] for i in link_ids]
        gone_links, gone_devices = set(link_ids), set(device_ids)
        new: DesignState = DesignState.__new__(DesignState)
        new.meta, new.groups, new.group_kids = self.meta, self.groups, self.group_kids
        new.group_order, new.unresolved = self.group_order, self.unresolved
        new.unresolved_order = self.unresolved_order
        new.devices = state_cut.without(self.devices, gone_devices)
        new.links = state_cut.without(self.links, gone_links)
        new.device_order = Order.of([i for i in self.device_order if i not in gone_devices])
        new.link_order = Order.of([i for i in self.link_order if i not in gone_links])
        new.failed = state_cut.without(self.failed, [i for i in (*link_ids, *device_ids)
                                                     if i in self.failed])
        new._links_by_device = state_cut.links_by_device(self._links_by_device, links,
                                                         gone_devices)
        new._port_use = state_cut.port_use(self._port_use, links, gone_devices)
        members = self._group_members
        if members is not None:
            for device_id in device_ids:
                if (group := self.devices[device_id].group) is not None:
                    members = _set_drop(members, group, device_id)
        new._group_members = members
        listed = self.memo.get("links")
        new.memo = {"links": tuple(lk for lk in (listed if listed is not None
                                                 else self.link_list())
                                   if lk.id not in gone_links)}
        if gone_devices and any(lk.a.device in gone_devices or lk.b.device in gone_devices
                                for lk in new.memo["links"]):  # as `Layout.remove_device`
            raise LayoutError("a device left out still has links; leave them out too")
        edits = [*(("l", i) for i in link_ids), *(("d", i) for i in device_ids)]
        if edits and len(edits) <= MAX_EDITS:
            self._pass_edit(new, ("bulk", edits))  # what changed: as the removals would say
        return new

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
