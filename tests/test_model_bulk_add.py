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


def _derived(layout):
    state = layout.state
    return ({d: tuple(v) for d, v in state.links_by_device.items()},
            {d: tuple(v) for d, v in state.port_use.items()},
            {g: set(m) for g, m in state.group_members.items()})


def test_a_file_read_state_derives_what_a_built_one_keeps(catalog):
    """A state read from a file (dict-backed maps, links per device, port use and group
    members made on first use) equals the state the mutators build, derived maps included,
    and edits from it (which first make what it left for later) equal edits of that one."""
    groups, devices, links, design = _pieces(catalog)
    built = Layout(catalog, design.meta)
    built.add_all(groups, devices, links)
    read = Layout(catalog, design.meta)
    read.add_all(groups, devices, links, checked=True)
    assert read.state._port_use is None  # nothing derived yet
    assert read == built and _derived(read) == _derived(built)
    for layout in (read, built):
        layout.remove_link(links[3].id)
        layout.update_device(devices[5].id, group=None)
        layout.add_link(links[3])
    assert read == built and _derived(read) == _derived(built)
    assert read.state.devices == built.state.devices  # a trie and a dict-backed map compare


def test_settle_makes_everything_a_first_edit_would(catalog):
    from rackdesigner.model.order import DictMap

    groups, devices, links, design = _pieces(catalog)
    read = Layout(catalog, design.meta)
    read.add_all(groups, devices, links, checked=True)
    state = read.state
    assert isinstance(state.links, DictMap) and state.links._map is None
    read.settle()
    assert state._links_by_device is not None and state.links._map is not None
    assert dict(state.links.as_map()) == dict(state.links.items())


def test_a_dict_backed_map_answers_as_a_trie():
    import pickle

    from immutables import Map

    from rackdesigner.model.order import DictMap

    plain = {f"d{i}": i for i in range(50)}
    dm, trie = DictMap(dict(plain)), Map(plain)
    assert dm == trie and trie == dm and len(dm) == 50 and "d3" in dm and dm["d7"] == 7
    assert dm.get("nope") is None and set(dm) == set(trie) and dict(dm.items()) == plain
    edited = dm.set("x", 1).delete("d0")
    assert isinstance(edited, Map) and len(edited) == 50 and "x" in edited
    assert dict(dm.items()) == plain  # the dict-backed map itself never changes
    assert pickle.loads(pickle.dumps(dm)) == dm
