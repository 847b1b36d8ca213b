"""Many devices and links left out of a state in one step (`cut`): what-if's degraded copy.

Removing a failed scalable unit from a 32,760-GPU SuperPOD is 2,240 links and 945 devices; one
new state per object (`DesignState.without_link` / `without_device`, as `Layout.remove_*`
make them) turned the file's dict-backed maps into tries and derived every per-device map on
the first removal, then copied a trie path per object. `cut` makes the one state those removals
end on: the same objects, orders, per-device maps and failed ids (tests/test_state_cut.py
holds it to that on generated designs). A part of `model/failures.py`'s `degraded`.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from immutables import Map

from rackdesigner.model.order import AnyMap, DictMap, Order
from rackdesigner.model.state import DesignState
from rackdesigner.model.state_memo import MAX_EDITS
from rackdesigner.model.state_sets import _set_drop, _use


def _without(items: AnyMap, gone: Collection[str]) -> AnyMap:
    """`items` less the keys in `gone` (all present): a dict filtered at C speed for a file's
    dict-backed map, one trie mutation for a trie."""
    if not gone:
        return items
    if isinstance(items, DictMap):
        d = items._d  # a read-only view: the filtered copy is a new dict
        return DictMap({k: v for k, v in d.items() if k not in gone})
    mutation = items.mutate()
    for key in gone:
        del mutation[key]
    return mutation.finish()


def cut(state: DesignState, device_ids: Collection[str], link_ids: Collection[str]) -> DesignState:
    """`state` without the links `link_ids`, then the devices `device_ids` (every link of
    those devices among `link_ids`; all ids present): equal to removing them one at a time."""
    links = [state.links[i] for i in link_ids]
    devices = [state.devices[i] for i in device_ids]
    gone_links, gone_devices = set(link_ids), set(device_ids)
    new: DesignState = DesignState.__new__(DesignState)
    new.meta, new.groups, new.group_kids = state.meta, state.groups, state.group_kids
    new.group_order = state.group_order
    new.unresolved, new.unresolved_order = state.unresolved, state.unresolved_order
    new.devices = _without(state.devices, gone_devices)
    new.links = _without(state.links, gone_links)
    new.device_order = Order.of([i for i in state.device_order if i not in gone_devices])
    new.link_order = Order.of([i for i in state.link_order if i not in gone_links])
    new.failed = _without(state.failed, [i for i in (*link_ids, *device_ids) if i in state.failed])
    new._links_by_device = _links_by_device(state, links, gone_devices)
    new._port_use = _port_use(state, links, gone_devices)
    members = state._group_members
    if members is not None:
        for device in devices:
            if device.group is not None:
                members = _set_drop(members, device.group, device.id)
    new._group_members = members
    new.memo = {}
    listed = state.memo.get("links")
    new.memo["links"] = tuple(lk for lk in (listed if listed is not None else state.link_list())
                              if lk.id not in gone_links)
    edits = [*(("l", i) for i in link_ids), *(("d", i) for i in device_ids)]
    if edits and len(edits) <= MAX_EDITS:
        state._pass_edit(new, ("bulk", edits))
    return new


def _links_by_device(state: DesignState, links: list[Any], gone: set[str]) -> AnyMap | None:
    """Device id -> its link ids, less `links` and the devices `gone` (None: not yet made)."""
    found = state._links_by_device
    if found is None:
        return None
    cut_links = {lk.id for lk in links}
    touched = {end for lk in links for end in (lk.a.device, lk.b.device)} - gone
    out: Any = found.mutate() if isinstance(found, Map) else dict(found.items())
    for device_id in gone:
        if device_id in out:
            del out[device_id]
    for device_id in touched:
        rest = tuple(i for i in found.get(device_id, ()) if i not in cut_links)
        if rest:
            out[device_id] = rest
        elif device_id in out:
            del out[device_id]
    return out.finish() if isinstance(found, Map) else DictMap(out)


def _port_use(state: DesignState, links: list[Any], gone: set[str]) -> AnyMap | None:
    """Port use less `links`' ends and the devices `gone` (None: not yet made)."""
    use = state._port_use
    if use is None:
        return None
    for link in links:
        use = _use(use, link, -1)
    mutation = use.mutate()
    for device_id in gone:
        if device_id in mutation:
            del mutation[device_id]
    return mutation.finish()
