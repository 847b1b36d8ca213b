"""A what-if's degraded copy made in one step (`model/state_cut.py`) equals removing the failed
links and devices one at a time, as `Layout.remove_link` / `remove_device` do: the same
objects, orders, per-device maps, failed ids and what changed since the intact state, and the
same simulation figures — on generated designs, read back from a file (dict-backed maps, made
lazily) and as generated (tries), with random failure sets of SUs, racks, nodes, switches and
single links."""

from __future__ import annotations

import random

import pytest

from rackdesigner.generators import generate
from rackdesigner.io.reader import parse_text
from rackdesigner.io.writer import dump_layout_text
from rackdesigner.model import Layout
from rackdesigner.model.failures import closure, degraded
from rackdesigner.simulation import simulate

DESIGNS = {
    "superpod-2": lambda: generate("superpod", system="dgx-h100", sus=2),
    "gb200": lambda: generate("superpod", system="gb200-nvl72", racks=3),
    "rail-b200": lambda: generate("rail-optimized", system="dgx-b200", nodes=6, switch="qm9700"),
}


def _one_at_a_time(layout: Layout, ids: list[str]) -> Layout:
    """The degraded copy as it was made before: one new state per removed object."""
    down = closure(layout, ids)
    out = layout.copy()
    for link_id in down.links:
        out.remove_link(link_id)
    for device_id in down.devices:
        out.remove_device(device_id)
    return out


def _failure_sets(layout: Layout, rng: random.Random, n: int) -> list[list[str]]:
    groups: dict[str, list[str]] = {}
    for group in layout.groups():
        groups.setdefault(group.kind, []).append(group.id)
    devices = [d.id for d in layout.devices()]
    links = [lk.id for lk in layout.links()]
    pools = [*groups.values(), devices, links]
    return [[rng.choice(rng.choice(pools)) for _ in range(rng.choice((1, 2, 3)))]
            for _ in range(n)]


def _plain(mapping) -> dict:
    return {key: (_plain(value) if hasattr(value, "items") else value)
            for key, value in mapping.items()}


def _use(port_use) -> dict[str, dict[str, int]]:
    """Ports in use per device and port group. A state read from a file makes its map from
    its links when first asked (as the cut does then): a device none of whose links is left
    has no entry there, and an empty one after the removals; both read as nothing in use."""
    return {device: dict(pairs) for device, pairs in port_use.items() if pairs}


def _touched(layout: Layout) -> dict[str, set]:
    found = layout.state.edit_base("index")
    assert found is not None  # both derive the degraded index from the intact one's
    return found[1]


def _assert_same_state(bulk: Layout, slow: Layout) -> None:
    a, b = bulk.state, slow.state
    assert a.content() == b.content()
    assert list(a.device_order) == list(b.device_order)
    assert list(a.link_order) == list(b.link_order)
    assert a.link_list() == b.link_list() and a.device_list() == b.device_list()
    assert _plain(a.failed) == _plain(b.failed)
    assert _plain(a.links_by_device) == _plain(b.links_by_device)
    assert _use(a.port_use) == _use(b.port_use)
    assert _plain(a.group_members) == _plain(b.group_members)


@pytest.mark.parametrize("name", sorted(DESIGNS))
@pytest.mark.parametrize("read", [False, True], ids=["generated", "read-from-file"])
def test_the_bulk_degraded_copy_equals_removing_one_at_a_time(name, read):
    layout = DESIGNS[name]()
    if read:
        layout = parse_text(dump_layout_text(layout), f"{name}.yaml")
    layout.index()  # the intact design's index: what the degraded one is derived from
    rng = random.Random(f"cut-{name}-{read}")
    for ids in _failure_sets(layout, rng, 6):
        bulk = degraded(layout, closure(layout, ids))
        slow = _one_at_a_time(layout, ids)
        _assert_same_state(bulk, slow)
        assert _touched(bulk) == _touched(slow)


@pytest.mark.parametrize("name", ["superpod-2", "gb200"])
def test_the_bulk_degraded_copy_simulates_as_removing_one_at_a_time(name):
    layout = DESIGNS[name]()
    simulate(layout)  # the intact design's topology is cached: the degraded one derives
    rng = random.Random(f"cut-sim-{name}")
    for ids in _failure_sets(layout, rng, 3):
        bulk = degraded(layout, closure(layout, ids))
        assert bulk.state is not layout.state  # something was taken down
        assert simulate(bulk).to_dict() == simulate(_one_at_a_time(layout, ids)).to_dict()


def test_a_device_left_out_with_a_link_kept_is_refused_as_remove_device_refuses_it():
    from rackdesigner.model.refusals import LayoutError

    layout = DESIGNS["superpod-2"]()
    link = next(iter(layout.links()))
    with pytest.raises(LayoutError, match="still has links"):
        layout.remove_device(link.a.device)
    with pytest.raises(LayoutError, match="still has links"):
        layout.state.without_all([link.a.device], [])
