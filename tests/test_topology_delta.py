"""A degraded design's index and topology derived from the whole design's equal a full build.

The what-if path (`model.failures.degraded`) derives the degraded state's carried links,
islands, components (`model/facets/connectivity.py`) and topology (`simulation/topology_delta.py`)
from the intact design's. Here random failure sets — SUs, racks, nodes, switches of every tier,
NVSwitches, NICs, PCIe switches, GPUs, single links of every protocol, and mixes — on several
generated designs are built both ways and compared field by field, and simulated both ways.
"""

from __future__ import annotations

import random
from dataclasses import fields

import pytest

from rackdesigner.generators import generate
from rackdesigner.model import Layout
from rackdesigner.model.failures import closure, degraded
from rackdesigner.simulation import simulate
from rackdesigner.simulation.stages import gpu_capacity
from rackdesigner.simulation.topology import Topology
from rackdesigner.simulation.topology_delta import DEVICE_FIELDS

pytestmark = pytest.mark.slow  # large designs or many random edits

DESIGNS = {
    "superpod-2": lambda: generate("superpod", system="dgx-h100", sus=2),
    "gb200": lambda: generate("superpod", system="gb200-nvl72", racks=3),
    "rail-b200": lambda: generate("rail-optimized", system="dgx-b200", nodes=6, switch="qm9700"),
    "fat-tree": lambda: generate("fat-tree", switch="qm9700", levels=3, endpoints=64),
}
# caches, and what a delta was derived from; the catalog is one object
SKIPPED = {"_leaf", "_cables", "catalog", "island_memo", "delta"}
PARTITIONS = {"island_of", "nvlink_domain_of", "component_of"}  # roots are names only


def _fresh(layout: Layout) -> Layout:
    """The same state content with nothing cached and no hints: what a full build sees."""
    out = layout.copy()
    out._state = layout.state._evolve()
    out._state.memo.clear()
    return out


def _groups(mapping: dict[str, str]) -> set[frozenset[str]]:
    by: dict[str, set[str]] = {}
    for key, root in mapping.items():
        by.setdefault(root, set()).add(key)
    return {frozenset(v) for v in by.values()}


def _assert_same(delta: Topology, full: Topology) -> None:
    for f in fields(Topology):
        name = f.name
        if name in SKIPPED:
            continue
        a, b = getattr(delta, name), getattr(full, name)
        if name in PARTITIONS:
            assert _groups(a) == _groups(b), name
        elif name == "islands":
            assert list(a.values()) == list(b.values()), name
        elif name == "nvswitches_of":
            assert ({frozenset(delta.islands.get(r, ())): v for r, v in a.items()}
                    == {frozenset(full.islands.get(r, ())): v for r, v in b.items()}), name
        elif name in DEVICE_FIELDS:  # looked up by device, never iterated: content per key
            assert set(a) == set(b), name
            for key in b:
                x, y = a[key], b[key]
                assert (list(x.items()) if isinstance(x, dict) else x) == (
                    list(y.items()) if isinstance(y, dict) else y), (name, key)
        elif name == "gpu_nics":
            assert list(a) == list(b)
            assert all([vars(p) for p in a[g]] == [vars(p) for p in b[g]] for g in b)
        elif isinstance(b, dict):
            assert list(a.items()) == list(b.items()), name
        else:
            assert a == b, name


def _failure_sets(layout: Layout, rng: random.Random, n: int) -> list[list[str]]:
    index = layout.index()
    by_kind: dict[str, list[str]] = {}
    for device in layout.devices():
        by_kind.setdefault(index.kind(device.id) or "?", []).append(device.id)
    groups: dict[str, list[str]] = {}
    for group in layout.groups():
        groups.setdefault(group.kind, []).append(group.id)
    protocols: dict[str, list[str]] = {}
    for c in index.carried():
        protocols.setdefault(c.protocol, []).append(c.link.id)
    pools = [ids for ids in (*by_kind.values(), *groups.values(), *protocols.values()) if ids]
    sets = []
    for _ in range(n):
        picked = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            picked.append(rng.choice(rng.choice(pools)))
        sets.append(picked)
    return sets


def _count(monkeypatch, module, name: str) -> list:
    calls: list = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_degraded_index_and_topology_equal_a_full_build(name, monkeypatch):
    from rackdesigner.model.facets import connectivity as connectivity_facet
    from rackdesigner.simulation import topology_delta

    topologies = _count(monkeypatch, topology_delta, "_without")
    connectivities = _count(monkeypatch, connectivity_facet, "connectivity_without")
    layout = DESIGNS[name]()
    rng = random.Random(f"delta-{name}")
    intact = layout.copy()
    whole = Topology.of(intact)  # the whole design's topology and index: a delta starts there
    capacity = gpu_capacity(intact)
    assert capacity.source is not None and capacity.source is whole.memo.get("stage-token")
    distinct = set()
    for ids in _failure_sets(layout, rng, 12):
        down = closure(intact, ids)
        distinct.add((down.devices, down.links))
        broken = degraded(intact, down)
        assert "minus" in broken.state.memo
        delta = Topology.of(broken)
        fresh = _fresh(broken)
        full = Topology.build(fresh)
        _assert_same(delta, full)
        assert delta.delta is not None and delta.delta[0] is whole
        # the GPUs outside the islands that lost something keep the whole design's figures
        via_delta = gpu_capacity(broken, capacity)
        assert via_delta.source is not None and via_delta.source is delta.memo.get("stage-token")
        assert dict(via_delta.per_gpu) == dict(gpu_capacity(fresh).per_gpu)
        a, b = broken.index().connectivity(), fresh.index().connectivity()
        assert _groups(a.island_of) == _groups(b.island_of)
        assert _groups(a.nvlink_domain_of) == _groups(b.nvlink_domain_of)
        assert _groups(a.component_of) == _groups(b.component_of)
        assert a.gpus == b.gpus
        assert broken.index().carried() == fresh.index().carried()
        del delta, full, fresh, broken, a, b, via_delta  # nothing of this one is kept for the next
    # every one derived from the whole design's, none built from nothing
    assert len(topologies) == len(connectivities) == 12 and len(distinct) > 6


@pytest.mark.parametrize("name", ["superpod-2", "gb200"])
def test_a_failure_simulates_the_same_through_the_delta_as_from_nothing(name, monkeypatch):
    from rackdesigner.simulation import topology_delta

    topologies = _count(monkeypatch, topology_delta, "_without")
    layout = DESIGNS[name]()
    rng = random.Random(f"sim-{name}")
    simulate(layout)  # the intact design's topology is now cached: failures start from it
    for ids in _failure_sets(layout, rng, 4):
        marked = layout.copy()
        for oid in ids:
            if marked.has_group(oid):
                marked.update_group(oid, status="failed")
            elif marked.has_device(oid):
                marked.update_device(oid, status="failed")
            else:
                marked.update_link(oid, status="failed")
        via_delta = simulate(marked)
        from_nothing = simulate(_fresh(marked))
        assert via_delta.to_dict() == from_nothing.to_dict()
    assert len(topologies) == 4


def test_status_changes_and_moves_share_the_topology_and_undo_keeps_it(catalog):
    layout = generate("superpod", system="dgx-h100", sus=1)
    topo = Topology.of(layout)
    node = next(g.id for g in layout.groups() if g.kind == "node")
    spine = next(d.id for d in layout.devices() if d.id.startswith("spine"))
    layout.update_group(node, status="failed")
    layout.update_device(spine, status="failed", pos=(1.0, 2.0))
    assert Topology.of(layout) is topo
    layout.update_device(spine, rack=None)  # a rack change is not a move: a new topology
    assert Topology.of(layout) is not topo
