"""What differs between the state of an index and the state of an earlier one: the objects the
incremental forms of the facets (`evolved`) derive again, the rest kept from the earlier index.

Every edit makes a new state, and its derived index (`DesignIndex`) used to start from
nothing: carried links, islands, components, NIC reach and rack occupancy of a 32k-GPU
design took 2-3 s after each cable added or unit moved, before the Problems dock and the
panel could say anything. The state remembers which objects changed since the nearest earlier
state that had its index (`DesignState.edit_base`), and each facet's `evolved` form is that
index's facet updated by those objects. A facet equals a full derivation's; partitions may be
named by other roots, and maps list devices in another order after an undo, which no reader
depends on (tests/test_index_evolve.py, tests/test_facets.py).

Both directions work (an Undo derives the recorded state from the one it leaves): everything
compares the two states' objects, never the order of the edits.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

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


def _ends(state, link_ids) -> set[str]:
    ends: set[str] = set()
    links = state.links
    for link_id in link_ids:
        link = links.get(link_id)
        if link is not None:
            ends.add(link.a.device)
            ends.add(link.b.device)
    return ends


def dirty_devices(index: DesignIndex, base: DesignIndex, ch: Changes) -> set[str]:
    """Devices whose island (in either state) holds a changed device or link end."""
    before, after = base.state, index.state
    out = set(ch.devices)
    links_again = ch.links | {i for d in ch.models_changed for i in before.link_ids_of(d)}
    links_again |= {i for d in ch.models_changed for i in after.link_ids_of(d)}
    out |= _ends(before, links_again)
    out |= _ends(after, links_again)
    return out
