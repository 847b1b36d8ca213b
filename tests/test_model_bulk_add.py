"""Adding a whole design at once (what the file reader does) gives the design, the orders, the
port usage and the events that adding it piece by piece gives."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.model import Device, Layout, LayoutError


def _pieces(catalog):
    design = generate("superpod", system="dgx-h100", sus=1, catalog=catalog)
    design.update_device(next(iter(design.devices())).id, status="failed")
    return list(design.groups()), list(design.devices()), list(design.links()), design


@pytest.mark.parametrize("checked", [False, True])
def test_a_bulk_add_equals_adding_piece_by_piece(catalog, checked):
    groups, devices, links, design = _pieces(catalog)
    one_by_one, bulk = Layout(catalog, design.meta), Layout(catalog, design.meta)
    for group in groups:
        one_by_one.add_group(group)
    for device in devices:
        one_by_one.add_device(device)
    for link in links:
        one_by_one.add_link(link)
    heard: list = []
    bulk.subscribe(heard.append)
    bulk.add_all(groups, devices, links, checked=checked)
    assert bulk == one_by_one == design
    assert [lk.id for lk in bulk.links()] == [lk.id for lk in one_by_one.links()]
    some = devices[len(devices) // 2].id
    assert bulk.links_of(some) == one_by_one.links_of(some)
    assert bulk.index().port_usage(some) == one_by_one.index().port_usage(some)
    assert bulk.state.failed == one_by_one.state.failed
    assert len(heard) == len(groups) + len(devices) + len(links)
    assert bulk.revision == one_by_one.revision


def test_checked_is_only_taken_on_trust_for_an_empty_document(catalog):
    layout = Layout(catalog)
    layout.add_device(Device("gpu-1", "h100-sxm5"))
    with pytest.raises(LayoutError, match="already used"):
        layout.add_all(devices=[Device("gpu-1", "h100-sxm5")], checked=True)
    assert layout.device_count() == 1


def test_after_moves_the_derived_facts_are_those_of_the_moved_design(catalog):
    """A moved device's new state starts its index from the old one's (moves change nothing
    it holds); every fact must equal one derived from scratch."""
    from rackdesigner.model.failures import closure
    from rackdesigner.model.index import DesignIndex

    layout = generate("superpod", system="dgx-h100", sus=1, catalog=catalog)
    layout.update_device(next(d.id for d in layout.devices() if d.rack), status="failed")
    before = layout.index()
    facts = (before.connectivity(), before.nic_reach(), before.rack_occupancy(),
             before.counts(), before.reachability(), closure(layout))
    device = next(d for d in layout.devices() if d.u is not None and d.status == "active")
    for step in range(1, 4):
        layout.update_device(device.id, pos=(device.pos[0] + 10.0 * step, device.pos[1]))
    layout.update_device(device.id, rack=None, u=None)  # not a move: derived from scratch
    moved = layout.index()
    fresh = DesignIndex(layout.state, catalog)
    assert moved.rack_occupancy() == fresh.rack_occupancy() != facts[2]
    layout.update_device(device.id, pos=(0.0, 0.0))
    again = layout.index()
    fresh = DesignIndex(layout.state, catalog)
    assert again.connectivity() == fresh.connectivity() == facts[0]
    assert again.nic_reach() == fresh.nic_reach()
    assert again.rack_occupancy() == fresh.rack_occupancy()
    assert again.counts() == fresh.counts()
    assert closure(layout) == fresh.failed(lambda: closure(layout))


def test_undoing_and_redoing_a_move_keeps_the_derived_facts_right(catalog):
    from rackdesigner.model.index import DesignIndex

    layout = generate("superpod", system="dgx-h100", sus=1, catalog=catalog)
    layout.index().connectivity()
    device = next(d for d in layout.devices() if d.u is not None)
    with layout.transaction() as move:
        layout.update_device(device.id, pos=(device.pos[0] + 40.0, device.pos[1]))
    with layout.transaction() as unrack:
        layout.update_device(device.id, rack=None, u=None)
    layout.index().rack_occupancy()
    layout.replay(unrack, forward=False)
    assert layout.index().rack_occupancy() == DesignIndex(layout.state, catalog).rack_occupancy()
    for forward in (False, True, False):
        layout.replay(move, forward=forward)
        fresh = DesignIndex(layout.state, catalog)
        assert layout.index().rack_occupancy() == fresh.rack_occupancy()
        assert layout.index().connectivity() == fresh.connectivity()
        assert layout.device(device.id).pos == (device.pos if not forward else
                                                (device.pos[0] + 40.0, device.pos[1]))
