"""The estimator's representative groups read once per distinct structure give what reading
every GPU and link gives: wiring signatures by parts (`stages.wiring_kinds`) against the
GPU-by-GPU signatures, the propagation per fabric level read in step with its per-metre map
against the per-link lookups, a group's scope model made once for every collective and size
over it, and an all-alike scope's distinct groups without the loop — on symmetric designs and
on degraded and broken ones."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.model.failures import closure, degraded
from rackdesigner.simulation import constants as C
from rackdesigner.simulation import latency, stages
from rackdesigner.simulation.groups import GroupCollectives
from rackdesigner.simulation.topology import Topology
from rackdesigner.workload.comm import CommModel, GroupShape
from tests.test_linktable import _broken


def _su(catalog):
    return generate("superpod", system="dgx-h100", nodes=8, catalog=catalog)


def _failed(catalog, *parts: str):
    su = _su(catalog)
    return degraded(su, closure(su, parts))


def _nvlink_lost(catalog):
    su = _su(catalog)
    link = next(lk for lk in su.links() if lk.a.device == "dgx-2.gpu3"
                and lk.a.group == "nvlink")
    su.remove_link(link.id)
    return su


def _fast_nic(catalog):
    # a NIC cabled twice over (a bundle of two): its GPUs' NIC part differs, so the by-parts
    # check refuses
    su = _su(catalog)
    link = next(lk for lk in su.links() if lk.a.device == "dgx-3.nic1" and lk.a.group == "ib")
    su.update_link(link.id, count=2)
    return su


def _leaf_uplink_lost(catalog):
    # one leaf's bundle to one spine fails: that leaf's NICs have less behind them
    su = _su(catalog)
    link = next(lk for lk in su.links() if {lk.a.device, lk.b.device} == {"leaf-1", "spine-1"})
    return degraded(su, closure(su, (link.id,)))


def _wide_pcie(catalog):
    # one GPU's and one NIC's PCIe links doubled: that GPU's path to that NIC is faster
    su = _su(catalog)
    for device in ("dgx-3.gpu0", "dgx-3.nic0"):
        link = next(lk for lk in su.links() if lk.a.device == device and lk.a.group == "pcie")
        su.update_link(link.id, count=2)
    return su


#: (design, whether every NIC path is alike there: the by-parts reading applies)
DESIGNS = [
    (_su, True),
    (lambda c: generate("superpod", system="gb200-nvl72", racks=2, catalog=c), True),
    (lambda c: generate("rail-optimized", system="dgx-b200", nodes=8, switch="q3400",
                        catalog=c), True),
    (lambda c: generate("nvl72", catalog=c), True),
    (lambda c: _failed(c, "dgx-2.gpu5"), True),  # an island of 7
    (lambda c: _failed(c, "dgx-4.nvswitch1"), True),  # less NVLink on one node
    (_nvlink_lost, True),
    (lambda c: _failed(c, "leaf-1"), True),  # a rail's NICs lost: GPUs of one path
    (lambda c: _failed(c, "spine-1"), True),  # every leaf with less uplink
    (_fast_nic, False),
    (_leaf_uplink_lost, False),
    (_wide_pcie, False),
    (lambda c: _broken(c, 0), False),
    (lambda c: _broken(c, 1), False),
]


@pytest.mark.parametrize("number", range(len(DESIGNS)))
def test_wiring_kinds_by_parts_equal_the_gpu_by_gpu_ones(number, catalog, monkeypatch):
    make, alike = DESIGNS[number]
    topo = Topology.of(make(catalog))
    scopes = [list(topo.gpus), list(topo.gpus)[3::5], list(reversed(topo.gpus))]
    seen = []
    real = stages._nic_paths_alike
    monkeypatch.setattr(stages, "_nic_paths_alike",
                        lambda t, paths: seen.append(real(t, paths)) or seen[-1])
    fast = [stages.wiring_kinds(topo, gpus) for gpus in scopes]
    assert seen[0] is alike
    monkeypatch.setattr(stages, "_nic_paths_alike", lambda t, paths: False)
    assert fast == [stages.wiring_kinds(topo, gpus) for gpus in scopes]


def test_wiring_kinds_tell_apart_what_the_parts_tell_apart(catalog):
    # the by-parts reading on designs it applies to: the lost GPU's island, the node with less
    # NVLink, each its own kinds; the intact design all one
    assert set(stages.wiring_kinds(Topology.of(_su(catalog)), Topology.of(
        _su(catalog)).gpus)) == {0}
    for parts, expected in ((("dgx-2.gpu5",), 2), (("dgx-4.nvswitch1",), 2)):
        topo = Topology.of(_failed(catalog, *parts))
        kinds = stages.wiring_kinds(topo, topo.gpus)
        assert len(set(kinds)) >= expected
        assert list(dict.fromkeys(kinds)) == list(range(len(set(kinds))))


def _propagation_per_link(topo: Topology) -> tuple[dict, dict]:
    """The per-link reading (each link's delay per metre looked up by its end pair)."""
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    longest: dict[int, float] = {}
    for key, lengths in topo.link_lengths.items():
        if not lengths:
            continue
        u, v = key
        level = 0 if topo.does(u).endpoint else min(topo.tier.get(u, 1), topo.tier.get(v, 1))
        per_m = topo.link_prop_ns_per_m.get(key, C.DEFAULT_PROPAGATION_NS_PER_M)
        for length in lengths:
            ns = length * per_m
            sums[level] = sums.get(level, 0.0) + ns
            longest[level] = max(longest.get(level, 0.0), ns)
        counts[level] = counts.get(level, 0) + len(lengths)
    return {lv: sums[lv] / counts[lv] for lv in sums}, longest


def _odd_cables(catalog):
    # links without a length, without a cable model, and of an odd length: the per-metre map
    # then has other keys than the lengths, and the lookups by end pair apply
    su = _su(catalog)
    for n, link in enumerate(list(su.links())):
        if link.cable is None or n % 7:
            continue
        su.update_link(link.id, length_m=None if n % 3 == 0 else 3.7 + n / 1000,
                       cable=None if n % 5 == 0 else link.cable)
    return su


@pytest.mark.parametrize("make, in_step", [
    (_su, True),
    (lambda c: generate("rail-optimized", system="dgx-b200", nodes=8, switch="q3400",
                        catalog=c), True),
    (lambda c: _failed(c, "spine-1", "dgx-3.gpu1"), True),
    (_odd_cables, False),
    (lambda c: _broken(c, 2), None),
    # three tiers: a core switch's id sorts before its spine's, so a link's first end is
    # not always its lower one
    (lambda c: generate("fat-tree", switch="qm9700", levels=3, endpoints=128, catalog=c),
     None),
])
def test_propagation_by_level_equals_the_per_link_reading(make, in_step, catalog):
    topo = Topology.of(make(catalog))
    keys_alike = list(topo.link_prop_ns_per_m) == list(topo.link_lengths)
    assert in_step is None or keys_alike is in_step
    mean, longest = latency._propagation(topo)
    want_mean, want_longest = _propagation_per_link(topo)
    assert list(mean.items()) == list(want_mean.items())
    assert list(longest.items()) == list(want_longest.items())


def test_a_groups_scope_model_is_made_once_for_every_collective_and_size(catalog):
    su = _failed(catalog, "leaf-2")
    gpus = Topology.of(su).gpus[::8]
    once = GroupCollectives(su)
    first = once.evaluate(gpus, "all_reduce", 1 << 30)
    second = once.evaluate(list(reversed(gpus)), "all_gather", 1 << 20)
    assert second[1] is first[1]  # one scope model for the group
    # each as a design's first evaluation gives: the same rows, the same scope
    for collective, size, point in (("all_reduce", 1 << 30, first[0]),
                                    ("all_gather", 1 << 20, second[0])):
        fresh = GroupCollectives(su).evaluate(gpus, collective, size)
        assert fresh[0] == point
        assert vars(fresh[1]).keys() == vars(first[1]).keys()
        assert repr(fresh[1]) == repr(first[1])
    once.sharp = not once.sharp  # another choice: another scope model
    assert once.evaluate(gpus, "all_reduce", 1 << 30)[1] is not first[1]


@pytest.mark.parametrize("make", [_su, lambda c: _failed(c, "dgx-2.gpu5")])
def test_distinct_groups_of_an_alike_scope_are_the_loops(make, catalog, monkeypatch):
    layout = make(catalog)
    comm = CommModel(layout, CommModel.layout_gpus(layout))
    shapes = [GroupShape(1, 8), GroupShape(8, 7), GroupShape(8, 4, 3), GroupShape(1, 2, 63),
              GroupShape(16, 4, 60)]
    fast = [comm.distinct_groups(s) for s in shapes]
    plain = CommModel(layout, CommModel.layout_gpus(layout))
    monkeypatch.setattr(plain, "_wiring_kinds", lambda: (plain.groups.wiring_kinds(
        plain.gpus), False))
    plain._distinct = {}
    assert fast == [plain.distinct_groups(s) for s in shapes]
