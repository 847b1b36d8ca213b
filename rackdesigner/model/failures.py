"""What is failed in a design: the one closure every reader (simulation, views, what-if) shares.

A device, link or group marked `status: failed` stays in the document (drawn greyed and
hatched) but is left out of the figures. Failure spreads downward only:

- a failed group fails every device it contains (sub-groups included);
- a failed rack (the rack device, e.g. `rack-42u`) fails every device mounted in it (`rack:`),
  which takes their power and their links with it;
- a failed device fails every link that ends on it.

`degraded(layout)` is the design the simulation sees: a copy without the failed objects. It is
the only place the rules above are applied, so the panel, the CLI and the N-1 analysis cannot
disagree on what a failure takes down.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable
from dataclasses import dataclass

from rackdesigner.model.items import ACTIVE, FAILED
from rackdesigner.model.layout import Layout

_DEGRADED_LOCK = threading.Lock()


@dataclass(frozen=True, slots=True)
class FailedSet:
    """The marked objects and everything they take down with them."""

    marked: tuple[str, ...] = ()  # ids marked failed in the document (devices, links, groups)
    devices: frozenset[str] = frozenset()
    links: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.marked)


def marked_failed(layout: Layout) -> tuple[str, ...]:
    """Ids of the groups, devices and links whose own status is failed (in document order).

    The state keeps the set of failed ids itself (`DesignState.failed`), so this costs what
    is failed, not the size of the design (it runs for every state the views show)."""
    state = layout.state
    if not state.failed:
        return ()
    out: list[str] = []
    for items, order in ((state.groups, state.group_order), (state.devices, state.device_order),
                         (state.links, state.link_order)):
        mine = [i for i in state.failed if i in items and items[i].status == FAILED]
        out += order.ordered(mine)
    return tuple(out)


def closure(layout: Layout, marked: Iterable[str] | None = None) -> FailedSet:
    """Everything down when `marked` (default: the document's own failed ids) have failed.

    Unknown ids raise KeyError naming the id. The document's own closure is computed once per
    state and kept in its derived index (`Layout.index().failed`).
    """
    if marked is None:
        return layout.index().failed(lambda: _closure(layout, marked_failed(layout)))
    return _closure(layout, tuple(dict.fromkeys(marked)))


def _closure(layout: Layout, ids: tuple[str, ...]) -> FailedSet:
    devices: set[str] = set()
    links: set[str] = set()
    for oid in ids:
        if layout.has_group(oid):
            devices.update(layout.group_devices(oid))
        elif layout.has_device(oid):
            devices.add(oid)
        elif layout.has_link(oid):
            links.add(oid)
        else:
            raise KeyError(f"no device, link or group {oid!r} in this design")
    if devices:
        racks = {d for d in devices if _is_rack(layout, d)}
        if racks:  # a failed rack takes down what is mounted in it
            devices.update(d.id for d in layout.devices() if d.rack in racks)
        links.update(_incident_links(layout, devices))
    return FailedSet(ids, frozenset(devices), frozenset(links))


def _incident_links(layout: Layout, devices: set[str]) -> Iterable[str]:
    """The ids of the links with an end on one of `devices` (in no particular order): from
    the state's device -> links map when it is made (an N-1 walk asks again and again), else
    from the link table's columns when the design's index has made them (a what-if after the
    intact simulation: one vectorised test, where making the map was a pass over every link,
    0.2 s of a 32k-GPU SU failure), else from the map, made for it."""
    state = layout.state
    table = None
    if state._links_by_device is None:  # the map's slot (model package): not made yet
        table = layout.index().made_link_table()
    if table is None:
        link_ids_of = state.link_ids_of  # incident links, kept by the state
        return [i for dev in devices for i in link_ids_of(dev)]
    import numpy as np

    hit = np.fromiter(map(devices.__contains__, table.ids), dtype=bool, count=len(table.ids))
    rows = np.flatnonzero(hit[table.a] | hit[table.b]).tolist()
    links = table.links
    return [links[r].id for r in rows]


def _is_rack(layout: Layout, device_id: str) -> bool:
    spec = layout.spec(device_id)
    return spec is not None and spec.traits.contains == "units"


def degraded(layout: Layout, failed: FailedSet | None = None) -> Layout:
    """`layout` as the simulation sees it: failed devices and links left out.

    Returns `layout` itself when nothing is failed (no copy: the intact design is cheap).
    The degraded state is made once per state and failure set (the panel's worker asks for
    it three times per run) and remembers the state it was cut from: its derived index and
    topology are then derived from that state's instead of from nothing
    (`model/index_delta.py`, `simulation/topology_delta.py`).
    """
    failed = closure(layout) if failed is None else failed
    if not failed.devices and not failed.links:
        return layout
    source = layout.state
    key = (failed.devices, failed.links)
    with _DEGRADED_LOCK:
        kept = source.memo.get("degraded")
        if kept is not None and kept[0] == key:
            return layout.copy(kept[1])
    # one new state without them all (`DesignState.without_all`), equal to removing them one
    # at a time (2,240 links and 945 devices for an SU of the 32k SuperPOD: a state each cost
    # 0.5 s);
    # its devices and links are listed once, from the source's lists (order kept): reading
    # them through the order's tombstones cost several times as much, for every pass
    link_ids = [i for i in failed.links if i in source.links]
    state = source.without_all(failed.devices, link_ids)
    out = layout.copy(state)
    out.revision += len(link_ids) + len(failed.devices)  # as many as the removals' events
    state.memo["minus"] = (weakref.ref(source), failed)
    gone = failed.devices
    state.memo["devices"] = tuple(d for d in source.iter_devices() if d.id not in gone)
    with _DEGRADED_LOCK:
        source.memo["degraded"] = (key, state)  # the last one only: a what-if's N-1 walk
    return out


def restored(layout: Layout) -> Layout:
    """A copy of `layout` with every failed status back to active (the intact design)."""
    out = layout.copy()
    for oid in marked_failed(layout):
        if out.has_group(oid):
            out.update_group(oid, status=ACTIVE)
        elif out.has_device(oid):
            out.update_device(oid, status=ACTIVE)
        else:
            out.update_link(oid, status=ACTIVE)
    return out
