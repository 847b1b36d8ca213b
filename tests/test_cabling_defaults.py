"""Default cables of links drawn by hand: the generators' rules, from the ends' racks and U
(issue 13, item 5); the BOM never lists a placed link as unspecified."""

from __future__ import annotations

from rackdesigner.bom import UNSPECIFIED, bill_of_materials
from rackdesigner.commands import add_model, wire
from rackdesigner.generators.cabling import default_cable, floor_spots
from rackdesigner.model import Layout, Link


def _place(layout: Layout, model: str, pos, rack: str | None = None, u: int | None = None):
    cmd = add_model(layout, model, pos)
    cmd.apply(layout)
    for device in cmd.devices:
        if rack is not None:
            layout.update_device(device.id, rack=rack, u=u)
    return cmd


def _design(catalog):
    layout = Layout(catalog)
    rack_a = _place(layout, "rack-42u", (0.0, 0.0)).devices[0].id
    rack_b = _place(layout, "rack-42u", (3000.0, 0.0)).devices[0].id
    rack_far = _place(layout, "rack-42u", (0.0, 9000.0)).devices[0].id
    node = _place(layout, "dgx-h100", (0.0, 500.0), rack_a, 2)
    near = _place(layout, "qm9700", (0.0, 300.0), rack_a, 40).devices[0].id
    other = _place(layout, "qm9700", (3000.0, 300.0), rack_b, 40).devices[0].id
    far = _place(layout, "qm9700", (0.0, 9300.0), rack_far, 40).devices[0].id
    nic = next(d.id for d in node.devices if d.id.endswith(".nic0"))
    return layout, nic, near, other, far


def test_racks_on_the_canvas_become_floor_rows(catalog):
    layout, *_ = _design(catalog)
    spots = floor_spots(layout)
    assert len(spots) == 3
    rows = sorted((s.y_m, s.x_m) for s in spots.values())
    assert rows[0] == (0.0, 0.0) and rows[1][0] == 0.0 and rows[1][1] > 0.0  # side by side
    assert rows[2][0] > 0.0  # the rack far below on the canvas stands in the next row


def test_copper_in_the_rack_optics_beyond_and_longer_further_away(catalog):
    layout, nic, near, other, far = _design(catalog)
    link = wire(layout, nic, near).links[0]
    same = default_cable(layout, link.a, link.b)
    assert same.cable in ("dac-ndr", "acc-ndr") and not same.assumed
    nxt = default_cable(layout, link.a, wire(layout, nic, other).links[0].b)
    away = default_cable(layout, link.a, wire(layout, nic, far).links[0].b)
    assert nxt.cable.startswith("fiber") and away.cable.startswith("fiber")
    assert same.length_m < nxt.length_m < away.length_m


def test_the_bom_has_no_unspecified_cable_for_placed_ends(catalog):
    layout, nic, near, _other, _far = _design(catalog)
    planned = wire(layout, nic, near).links[0]
    # a link as an older file has it: no cable
    layout.add_link(Link("link-x", planned.a, planned.b))
    bom = bill_of_materials(layout)
    assert bom.cable_count(UNSPECIFIED) == 0 and bom.cable_count() == 1
    layout.update_device(near, rack=None, u=None)
    assert bill_of_materials(layout).cable_count(UNSPECIFIED) == 1
