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
