"""The rack-occupancy facet: rack id -> (lowest U, top U, device id) of the devices placed in
it, sorted — what the Racks view and the rack rules read.

Forms (`facets/protocol.Facet`): plain (`rack_occupancy`: one pass over the devices) and
evolved (`racks_evolved`: the changed devices' spans taken out and put back; a changed rack
itself derives it anew).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from rackdesigner.model.facets.changes import changes
from rackdesigner.model.facets.protocol import PlainFacet

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex

Occupancy = dict[str, list[tuple[int, int, str]]]


def rack_occupancy(index: DesignIndex) -> Occupancy:
    """Rack id -> (lowest U, top U, device id) of the devices placed in it, sorted; only
    devices with a U position, a known height and a rack that is a known rack model."""
    racks: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for device in index.state.iter_devices():
        span = index.rack_span(device)
        if span is not None and device.rack is not None:
            racks[device.rack].append(span)
    for spans in racks.values():
        spans.sort()
    return dict(racks)


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
        return rack_occupancy(index)  # a rack itself changed: its occupants may all change
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


class OccupancyFacet(PlainFacet):
    """Rack id -> the spans of the devices placed in it."""

    name = "rack_occupancy"

    def plain(self, index: DesignIndex) -> Occupancy:
        return rack_occupancy(index)

    def evolved(self, index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                ) -> Occupancy:
        return racks_evolved(index, base, touched)

    def canonical(self, value: Occupancy) -> object:
        return sorted(value.items())


OCCUPANCY = OccupancyFacet()
