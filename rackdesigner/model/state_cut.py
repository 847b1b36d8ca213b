"""Many devices and links left out of a state in one step (`DesignState.without_all`): what-if's
degraded copy (`model/failures.py`'s `degraded`).

Removing a failed scalable unit from a 32,760-GPU SuperPOD is 2,240 links and 945 devices; one
new state per object (`DesignState.without_link` / `without_device`, as `Layout.remove_*`
make them) turned the file's dict-backed maps into tries and derived every per-device map on
the first removal, then copied a trie path per object. `without_all` makes the one state those
removals end on: the same objects, orders, per-device maps and failed ids (tests/test_state_cut.py
holds it to that on generated designs). The maps' parts are these pure functions.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from immutables import Map

from rackdesigner.model.items import Link
from rackdesigner.model.order import AnyMap, DictMap
from rackdesigner.model.state_sets import _use


def without(items: AnyMap, gone: Collection[str]) -> AnyMap:
    """`items` less the keys in `gone` (all present): a dict filtered at C speed for a file's
    dict-backed map, one trie mutation for a trie."""
    if not gone:
        return items
    if isinstance(items, DictMap):
        return DictMap({k: v for k, v in items.items() if k not in gone})
    mutation = items.mutate()
    for key in gone:
        del mutation[key]
    return mutation.finish()


def links_by_device(found: AnyMap | None, links: list[Link], gone: set[str]) -> AnyMap | None:
    """Device id -> its link ids, less `links` and the devices `gone` (None: not yet made)."""
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


def port_use(use: AnyMap | None, links: list[Link], gone: set[str]) -> AnyMap | None:
    """Port use less `links`' ends and the devices `gone` (None: not yet made)."""
    if use is None:
        return None
    for link in links:
        use = _use(use, link, -1)
    mutation = use.mutate()
    for device_id in gone:
        if device_id in mutation:
            del mutation[device_id]
    return mutation.finish()
