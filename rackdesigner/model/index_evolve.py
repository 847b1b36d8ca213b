"""The derived index of a state made by edits, from the index of the state it was edited from.

Every edit makes a new state, and its derived index (`DesignIndex`) used to start from
nothing: carried links, islands, components, NIC reach and rack occupancy of a 32k-GPU
design took 2-3 s after each cable added or unit moved, before the Problems dock and the
panel could say anything. The state remembers which objects changed since the nearest earlier
state that had its index (`DesignState.edit_base`), and each facet here is that index's
facet updated by those objects:

- carried and rejected links: the earlier classification of every unchanged link, the
  changed links (and the links of devices whose model changed) classified again, in the new
  state's link order;
- islands and NVLink domains: unchanged except those holding a changed object, joined again
  from their members' own links; components: labelled again over the network links when the
  network or an island changed (NumPy, `index_delta._components`);
- NIC reach: the earlier set outside the changed islands, searched again inside them (the
  search follows host links, which never leave an island);
- rack occupancy: the changed devices' spans taken out and put back;
- devices per model, links counted: adjusted.

Both directions work (an Undo derives the recorded state from the one it leaves): everything
compares the two states' objects, never the order of the edits. A facet equals a full
derivation's; partitions may be named by other roots, and maps list devices in another order
after an undo, which no reader depends on (tests/test_index_evolve.py).
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rackdesigner.model.index import (
    HOST_PROTOCOLS,
    NETWORK_PROTOCOLS,
    NVLINK,
    CarriedLink,
    Connectivity,
)
from rackdesigner.model.index_delta import _components, joined_inside

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex


@dataclass
class Changes:
    """What differs between two states, by object (positions and statuses left out)."""

    devices_gone: set[str]
    devices_new: set[str]
    devices_changed: set[str]  # present in both, something but position/status differs
    models_changed: set[str]  # ... its model among it
    links_gone: set[str]
    links_new: set[str]
    links_changed: set[str]

    @property
    def devices(self) -> set[str]:
        return self.devices_gone | self.devices_new | self.devices_changed

    @property
    def links(self) -> set[str]:
        return self.links_gone | self.links_new | self.links_changed


def changes(index: DesignIndex, base: DesignIndex, touched: dict[str, set]) -> Changes:
    """The objects `touched` since `base`'s state that really differ in `index`'s state."""
    cached = index.changes_since_base.get("changes")
    if cached is not None:
        return cached
    before, after = base.state, index.state
    out = Changes(set(), set(), set(), set(), set(), set(), set())
    for device_id in touched["d"]:
        a, b = before.devices.get(device_id), after.devices.get(device_id)
        if a is None and b is None:
            continue
        if a is None:
            out.devices_new.add(device_id)
        elif b is None:
            out.devices_gone.add(device_id)
        elif a != b and replace(a, pos=b.pos, status=b.status) != b:
            out.devices_changed.add(device_id)
            if a.model != b.model:
                out.models_changed.add(device_id)
    for link_id in touched["l"]:
        a, b = before.links.get(link_id), after.links.get(link_id)
        if a is None and b is None:
            continue
        if a is None:
            out.links_new.add(link_id)
        elif b is None:
            out.links_gone.add(link_id)
        elif a != b and replace(a, status=b.status) != b:
            out.links_changed.add(link_id)
    index.changes_since_base["changes"] = out
    return out


def wiring(index: DesignIndex, base: DesignIndex, touched: dict[str, set]) -> Changes:
    """`changes` as far as islands, components and NIC reach can tell: a device that kept its
    model and a link that kept its ends (a cable or length followed a Racks-tab mount) join
    what they joined before (a protocol is the ends' port groups' on the devices' models)."""
    cached = index.changes_since_base.get("wiring")
    if cached is not None:
        return cached
    ch = changes(index, base, touched)
    before, after = base.state.links, index.state.links
    rewired = {i for i in ch.links_changed
               if (before[i].a, before[i].b) != (after[i].a, after[i].b)}
    out = Changes(ch.devices_gone, ch.devices_new, set(ch.models_changed),
                  ch.models_changed, ch.links_gone, ch.links_new, rewired)
    index.changes_since_base["wiring"] = out
    return out


def carried_evolved(index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                    ) -> tuple[tuple[CarriedLink, ...], tuple[tuple, ...]]:
    """`index`'s carried and rejected links from `base`'s (see the module docstring): the
    links to classify again are taken out, then put back classified where the new state's
    link order has them (a binary search by position: no pass over every link)."""
    ch = changes(index, base, touched)
    state = index.state
    again = set(ch.links_new | ch.links_changed)
    for device_id in ch.models_changed:
        again.update(state.link_ids_of(device_id))
    out = _redo(base.carried(), lambda c: c.link.id, ch.links_gone | again)
    rejected = _redo(base.rejected(), lambda r: r[1].id, ch.links_gone | again)
    if not again:
        return tuple(out), tuple(rejected)
    links = state.links
    fresh_carried, fresh_rejected = index.classify(links[i] for i in again if i in links)
    position = state.link_order.position
    _insert(out, fresh_carried, lambda c: position(c.link.id))
    _insert(rejected, fresh_rejected, lambda r: position(r[1].id))
    return tuple(out), tuple(rejected)


def _redo(items: tuple, key, drop: set[str]) -> list:
    """`items` without those whose `key` is in `drop` (a plain copy when none is)."""
    if not drop:
        return list(items)
    return [x for x in items if key(x) not in drop]


def _insert(items: list, fresh: list, position) -> None:
    """Put each of `fresh` into `items` (sorted by `position`) where it belongs."""
    for item in sorted(fresh, key=position):
        where = position(item)
        low, high = len(items), len(items)
        if items and position(items[-1]) > where:  # not at the end: search
            low, high = 0, len(items)
            while low < high:
                mid = (low + high) // 2
                if position(items[mid]) < where:
                    low = mid + 1
                else:
                    high = mid
        items.insert(low, item)


def _ends(state, link_ids) -> set[str]:
    ends: set[str] = set()
    links = state.links
    for link_id in link_ids:
        link = links.get(link_id)
        if link is not None:
            ends.add(link.a.device)
            ends.add(link.b.device)
    return ends


def _dirty(index: DesignIndex, base: DesignIndex, ch: Changes) -> set[str]:
    """Devices whose island (in either state) holds a changed device or link end."""
    before, after = base.state, index.state
    out = set(ch.devices)
    links_again = ch.links | {i for d in ch.models_changed for i in before.link_ids_of(d)}
    links_again |= {i for d in ch.models_changed for i in after.link_ids_of(d)}
    out |= _ends(before, links_again)
    out |= _ends(after, links_again)
    return out


def connectivity_evolved(index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                         ) -> Connectivity:
    """`index`'s islands, NVLink domains and components from `base`'s."""
    ch = wiring(index, base, touched)
    src = base.connectivity()
    state = index.state
    if not ch.devices and not ch.links:
        return src
    dirty = _dirty(index, base, ch)
    gone = {d for d in ch.devices_gone | ch.models_changed if index.spec(d) is None}
    island_of, island_split = _regroup(index, base, src.island_of, dirty, gone, _joins_island)
    nvlink_of, _ = _regroup(index, base, src.nvlink_domain_of, dirty, gone, _joins_nvlink)
    before = base.state.links
    network = any(base.protocol(before[i]) in NETWORK_PROTOCOLS
                  for i in ch.links_gone | ch.links_changed)
    network = network or any(index.protocol(state.links[i]) in NETWORK_PROTOCOLS
                             for i in ch.links_new | ch.links_changed)
    if network or island_split or ch.devices_gone or ch.devices_new or ch.models_changed:
        component_of = _components(index, island_of)
    else:  # the same islands, joined by the same network links: the same components
        component_of = dict(src.component_of)
    gpu_changes = {d for d in ch.devices if index.device_traits(d).computes
                   or base.device_traits(d).computes}
    gpus = src.gpus
    if gpu_changes:
        from rackdesigner.model.layout import natural_key

        kept = [g for g in src.gpus if g not in gpu_changes]
        kept += [g for g in gpu_changes if index.device_traits(g).computes]
        gpus = tuple(sorted(kept, key=natural_key))
    return Connectivity(island_of, nvlink_of, component_of, gpus)


def _group(index: DesignIndex, seeds: set[str], joins) -> set[str]:
    """The devices joined to `seeds` by links of `index`'s state whose protocol `joins`
    (a search from each seed: the size of their groups, not of the design)."""
    state = index.state
    links, link_ids_of, devices = state.links, state.link_ids_of, state.devices
    found = {d for d in seeds if d in devices}
    queue = deque(found)
    while queue:
        device = queue.popleft()
        for link_id in link_ids_of(device):
            link = links[link_id]
            other = link.b.device if link.a.device == device else link.a.device
            if other not in found and joins(index.protocol(link)):
                found.add(other)
                queue.append(other)
    return found


def _regroup(index: DesignIndex, base: DesignIndex, root_of: dict[str, str],
             dirty: set[str], gone: set[str], joins) -> tuple[dict[str, str], bool]:
    """`root_of` with the groups holding a `dirty` device joined again (from the new
    state's links whose protocol `joins`); whether the devices in both states are grouped
    otherwise than before."""
    state = index.state
    earlier = _group(base, {d for d in dirty if d in root_of}, joins)
    members = earlier | _group(index, dirty, joins)
    inside = {d for d in members if d in state.devices and d not in gone
              and index.spec(d) is not None}
    out = dict(root_of)
    for device in members:
        if device not in inside:
            out.pop(device, None)
    uf = joined_inside(index, inside, inside, joins)
    old_groups: dict[str, set[str]] = {}
    new_groups: dict[str, set[str]] = {}
    for device in inside:
        root = uf.find(device)
        out[device] = root
        new_groups.setdefault(root, set()).add(device)
        if device in root_of:
            old_groups.setdefault(root_of[device], set()).add(device)
    regrouped = ({frozenset(g) for g in old_groups.values()}
                 != {frozenset(g) for g in new_groups.values()})
    return out, regrouped


def _joins_island(protocol: str | None) -> bool:
    return protocol == NVLINK or protocol in HOST_PROTOCOLS


def _joins_nvlink(protocol: str | None) -> bool:
    return protocol == NVLINK


def nic_reach_evolved(index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                      ) -> frozenset[str]:
    """`index`'s NIC reach from `base`'s: searched again in the changed islands only."""
    ch = wiring(index, base, touched)
    earlier = base.nic_reach()
    if not ch.devices and not ch.links:
        return earlier
    dirty = _dirty(index, base, ch)
    # the members of the changed islands, before and after (the search never leaves one)
    redo = _group(base, dirty, _joins_island) | _group(index, dirty, _joins_island)
    reached = set(earlier - redo)
    reached.difference_update(ch.devices_gone)
    traits = index.device_traits
    host: dict[str, list[str]] = {}
    state = index.state
    links, link_ids_of, devices = state.links, state.link_ids_of, state.devices
    redo = {d for d in redo if d in devices}
    for device in redo:
        for link_id in link_ids_of(device):
            link = links[link_id]
            other = link.b.device if link.a.device == device else link.a.device
            if other != device and index.protocol(link) in HOST_PROTOCOLS:
                host.setdefault(device, []).append(other)
    start = {d for d in redo if traits(d).endpoint}
    reached |= start
    queue = deque(start)
    while queue:
        node = queue.popleft()
        if traits(node).computes:
            continue
        for nbr in host.get(node, ()):
            if nbr not in reached:
                reached.add(nbr)
                queue.append(nbr)
    return frozenset(reached)


def racks_evolved(index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                  ) -> dict[str, list[tuple[int, int, str]]]:
    """`index`'s rack occupancy from `base`'s: the changed devices' spans moved."""
    ch = changes(index, base, touched)
    earlier = base.rack_occupancy()
    moved = ch.devices
    if not moved:
        return earlier
    before, after = base.state, index.state
    if any((s := base.spec(d)) is not None and s.rack is not None for d in moved) or any(
            (s := index.spec(d)) is not None and s.rack is not None for d in moved):
        return _racks_full(index)  # a rack itself changed: its occupants may all change
    out = dict(earlier)
    redo: set[str] = set()
    for device_id in moved:
        old = before.devices.get(device_id)
        if old is not None and old.rack in out:
            redo.add(old.rack)
        new = after.devices.get(device_id)
        if new is not None and new.rack is not None:
            redo.add(new.rack)
    for rack in redo:
        spans = [s for s in out.get(rack, ()) if s[2] not in moved]
        for device_id in moved:
            device = after.devices.get(device_id)
            if device is not None and device.rack == rack:
                span = index.rack_span(device)
                if span is not None:
                    spans.append(span)
        if spans:
            spans.sort()
            out[rack] = spans
        else:
            out.pop(rack, None)
    return out


def _racks_full(index: DesignIndex) -> dict[str, list[tuple[int, int, str]]]:
    racks: dict[str, list[tuple[int, int, str]]] = {}
    for device in index.state.iter_devices():
        span = index.rack_span(device)
        if span is not None and device.rack is not None:
            racks.setdefault(device.rack, []).append(span)
    for spans in racks.values():
        spans.sort()
    return racks


def models_evolved(index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                   ) -> Counter[str]:
    """Devices per model, from `base`'s count."""
    ch = changes(index, base, touched)
    out = Counter(base.models())
    before, after = base.state.devices, index.state.devices
    for device_id in ch.devices:
        if device_id in before:
            out[before[device_id].model] -= 1
        if device_id in after:
            out[after[device_id].model] += 1
    return +out  # drop models no device has any more


def links_evolved(index: DesignIndex, base: DesignIndex, touched: dict[str, set]) -> int:
    """Links counted with their bundles (what the status bar shows), from `base`'s count."""
    ch = changes(index, base, touched)
    total = base.counts()[1]
    before, after = base.state.links, index.state.links
    for link_id in ch.links:
        if link_id in before:
            total -= before[link_id].count
        if link_id in after:
            total += after[link_id].count
    return total
