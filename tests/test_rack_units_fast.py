"""A unit's rack and face are those most common among its parts (issue 38 item 19 gave the
common case, every part in one rack and none with a face, a path without counting): the rack
index must answer as counting does, on a generated design and after parts moved racks and
faces (ties go to the first part, as `Counter.most_common` does)."""

from __future__ import annotations

from collections import Counter

from rackdesigner.generators import generate
from rackdesigner.model.rack_units import face_of, with_face
from rackdesigner.model.racks import RackIndex


def _counted(layout, unit):
    devices = [layout.device(d) for d in unit.members]
    order = {d.id: i for i, d in enumerate(layout.devices())}
    devices.sort(key=lambda d: order[d.id])  # the design's order, as the index reads them
    racks = Counter(d.rack for d in devices if d.rack is not None)
    faces = Counter(face_of(d) for d in devices)
    return (racks.most_common(1)[0][0] if racks else None,
            faces.most_common(1)[0][0] if faces else "front")


def _check(layout) -> int:
    index = RackIndex(layout)
    for unit in index.units.values():
        assert (unit.rack, unit.face) == _counted(layout, unit), unit.id
    return len(index.units)


def test_units_of_a_generated_design_take_their_parts_rack_and_face():
    layout = generate("superpod", system="dgx-h100", sus=1)
    assert _check(layout) > 32


def test_parts_in_two_racks_and_with_faces_still_give_the_most_common():
    layout = generate("superpod", system="dgx-h100", sus=1)
    node = "dgx-1"  # a mounted system of many parts
    parts = [d for d in layout.devices() if d.group == node]
    racks = [d.id for d in layout.devices() if d.model.startswith("rack")]
    here = next(d.rack for d in parts if d.rack is not None)
    elsewhere = next(r for r in racks if r != here)
    for device in parts[: len(parts) * 2 // 3]:  # most parts moved: the unit goes with them
        layout.update_device(device.id, rack=elsewhere)
    for device in parts[1: len(parts) // 2 + 2]:  # most parts face the rear
        layout.update_device(device.id, props=with_face(device.props, "rear"))
    assert _check(layout) > 32
    unit = RackIndex(layout).units[node]
    assert unit.rack == elsewhere and unit.face == "rear"
