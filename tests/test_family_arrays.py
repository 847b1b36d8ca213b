"""The busiest link of a family of concurrent groups, routed as arrays
(`family_arrays.peak_arrays`), is exactly the plain stages' (`family_traffic` → `route` →
`LinkLoads.peak`): the same utilisation to the last bit and the same link, first of equals, on
symmetric, oversubscribed, hand-wired and broken designs."""

from __future__ import annotations

import numpy as np
import pytest
from workload_designs import remove_switches, tor_cluster

from rackdesigner.generators import generate
from rackdesigner.model import Link, PortRef
from rackdesigner.model.failures import closure, degraded
from rackdesigner.simulation import families
from rackdesigner.simulation.families import StridedGroups, family_traffic, peak_utilisation
from rackdesigner.simulation.family_arrays import FamilyTables, peak_arrays, peak_of_flows
from rackdesigner.simulation.loads import FabricIndex, route
from rackdesigner.simulation.topology import Topology
from rackdesigner.simulation.traffic import Traffic


def _tangled():
    """Top-of-rack leaves with NICs cabled to two leaves, parallel leaf-spine cables of
    unequal rates and a NIC on no leaf: splits, shared cables and idle NICs."""
    layout = tor_cluster(nodes=4, spines=2)
    extra = [Link("extra-1", PortRef("node-1.nic0", "ib"), PortRef("leaf-2", "ib")),
             Link("extra-2", PortRef("node-2.nic3", "ib"), PortRef("leaf-3", "ib"), 2),
             Link("extra-3", PortRef("leaf-1", "ib"), PortRef("spine-1", "ib"), 3),
             Link("extra-4", PortRef("leaf-4", "ib"), PortRef("spine-2", "ib"))]
    for link in extra:
        layout.add_link(link)
    layout.remove_link(next(x.id for x in layout.links_of("node-3.nic5")))
    return layout


def _tor_two_to_one():
    """Top-of-rack leaves with half their spines unplugged: every hop between nodes needs
    twice what a leaf's uplinks carry."""
    layout = tor_cluster(nodes=4, spines=4)
    remove_switches(layout, ["spine-3", "spine-4"])
    return layout


def _broken(ids):
    su = generate("superpod", system="dgx-h100", sus=1)
    return degraded(su, closure(su, ids))


DESIGNS = {
    "rail": lambda: generate("rail-optimized", system="dgx-h100", nodes=16, switch="qm9700"),
    "rail-2to1": lambda: generate("rail-optimized", system="dgx-h100", nodes=16,
                                  switch="qm9700", oversubscription=2.0),
    "superpod": lambda: generate("superpod", system="dgx-b200", nodes=64),
    "nvl72": lambda: generate("superpod", system="gb200-nvl72", racks=2),
    "tangled": _tangled,
    "tor-2to1": _tor_two_to_one,
    "failed-leaf": lambda: _broken(("leaf-1",)),
    "failed-spine-and-gpu": lambda: _broken(("spine-2", "dgx-3.gpu5", "dgx-7.nic2")),
}


def _families(gpus):
    n = len(gpus)
    out = []
    for stride in (1, 3, 8, 16):
        size = n // stride
        out.append([[gpus[s + i * stride] for i in range(size)] for s in range(stride)])
    out.append([gpus[i:i + 16] for i in range(0, n - 15, 16)])  # TP 16: two nodes each
    out.append([gpus[i:i + 24:3] for i in range(0, n - 23, 24)])  # odd islands per group
    out.append([gpus[i:i + 8] for i in range(0, n, 8)])  # inside an island: no network
    out.append([gpus[:5], gpus[40:41], gpus[3:200:7], [], gpus[::-9]])  # any sizes and orders
    out.append([[gpus[i], gpus[(i + n // 2) % n]] for i in range(n)])  # send/recv pairs
    # by ranks: over the topology's GPU list (no lookups), over another order of it
    out.append(StridedGroups(gpus, tuple(range(8)), 8, n // 8))
    out.append(StridedGroups(gpus, tuple(range(0, n - 8, 16)), 8, 2))
    out.append(StridedGroups(gpus[::-1], (0, 5, 2), 3, n // 3 - 2))
    return out


@pytest.fixture(scope="module", params=sorted(DESIGNS))
def design(request):
    topo = Topology.build(DESIGNS[request.param]())
    return topo, FabricIndex.of(topo)


@pytest.mark.parametrize("pattern", ["ring", "tree", "p2p"])
def test_the_arrays_give_the_plain_peak_bit_for_bit(design, pattern):
    topo, index = design
    busy = 0
    for members in _families(topo.gpus):
        plain = route(topo, index, family_traffic(topo, members, pattern)).peak(topo, index)
        fast = peak_arrays(topo, index, members, pattern)
        assert fast == plain
        if isinstance(members, StridedGroups):  # the same groups, listed
            assert peak_arrays(topo, index, [list(g) for g in members], pattern) == plain
        assert fast is None or type(fast[0]) is float
        busy += plain[1] is not None
    assert busy  # some family crosses the network on every design


@pytest.mark.parametrize("pattern", ["ring", "tree", "p2p"])
def test_an_oversubscribed_fabric_peaks_on_a_switch_link_and_the_arrays_say_which(pattern):
    topo = Topology.build(_tor_two_to_one())
    index = FabricIndex.of(topo)
    gpus = topo.gpus
    members = ([gpus[i::8] for i in range(8)] if pattern != "p2p"
               else [[gpus[i], gpus[i + 8]] for i in range(8)])
    plain = route(topo, index, family_traffic(topo, members, pattern)).peak(topo, index)
    assert plain[0] == 2.0 and plain[1][1].startswith("leaf-")
    assert peak_arrays(topo, index, members, pattern) == plain


def test_one_way_flows_rank_receivers_after_senders_as_the_plain_list_does():
    """Flows the families never make (one way only: NICs that only receive, domains only
    entered from above) are ranked as `LinkLoads.peak` lists them: senders, then receivers;
    domains loaded upward, then those loaded only downward."""
    topo = Topology.build(_tor_two_to_one())
    index = FabricIndex.of(topo)
    tables = FamilyTables.of(topo, index)
    row = {nic: i for i, nic in enumerate(tables.nics)}
    for flows in ([("node-2.nic0", "node-1.nic0", 1.0)],  # ties at the NICs: the sender's
                  [(f"node-2.nic{r}", f"node-1.nic{r}", 1.0) for r in range(8)],  # the leaves
                  [("node-3.nic1", "node-1.nic2", 0.5), ("node-1.nic2", "node-4.nic0", 0.25),
                   ("node-2.nic7", "node-1.nic2", 0.75)]):
        plain = route(topo, index, Traffic("ring", tuple(flows))).peak(topo, index)
        src, dst, w = (np.array([row[f[0]] for f in flows]), np.array([row[f[1]] for f in flows]),
                       np.array([f[2] for f in flows]))
        assert peak_of_flows(tables, src, dst, w) == plain


def test_all_to_all_and_unknown_gpus_are_left_to_the_plain_stages(design):
    topo, index = design
    gpus = topo.gpus
    assert peak_arrays(topo, index, [gpus[::8]], "all_to_all") is None
    assert peak_arrays(topo, index, [[*gpus[:8], "no-such-gpu"]], "ring") is None


def test_large_families_take_the_arrays_and_give_what_the_stages_give(monkeypatch):
    topo = Topology.build(DESIGNS["failed-spine-and-gpu"]())
    index = FabricIndex.of(topo)
    members = [topo.gpus[s::8] for s in range(8)]
    plain = peak_utilisation(topo, index, members, "ring")
    taken = []

    def spy(*args):
        taken.append(args)
        return peak_arrays(*args)

    monkeypatch.setattr(families, "ARRAY_MIN_GPUS", len(topo.gpus))
    monkeypatch.setattr("rackdesigner.simulation.family_arrays.peak_arrays", spy)
    assert peak_utilisation(topo, index, members, "ring") == plain
    assert len(taken) == 1
