"""The busiest network link of a family of concurrent groups, found without listing every link
(`LinkLoads.peak`), is exactly the one `entries` lists; the fabric index is built once per
topology."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.simulation.families import family_traffic
from rackdesigner.simulation.loads import FabricIndex, route
from rackdesigner.simulation.topology import Topology


def _by_entries(loads, topo, index):
    best, where = 0.0, None
    for load in loads.entries(topo, index):
        if load.utilisation > best:
            best, where = load.utilisation, (load.link, load.a, load.b)
    return best, where


@pytest.mark.parametrize(("design", "ratio"), [
    (dict(kind="rail-optimized", system="dgx-h100", nodes=16, switch="qm9700"), 1.0),
    (dict(kind="rail-optimized", system="dgx-h100", nodes=16, switch="qm9700"), 2.0),
    (dict(kind="superpod", system="dgx-b200", nodes=64), None),
])
@pytest.mark.parametrize("pattern", ["ring", "tree", "all_to_all", "p2p"])
def test_peak_is_the_busiest_entry(design, ratio, pattern):
    kind = design.pop("kind")
    kw = dict(design, **({"oversubscription": ratio} if ratio else {}))
    layout = generate(kind, **kw)
    design["kind"] = kind
    topo = Topology.build(layout)
    index = FabricIndex.of(topo)
    gpus = topo.gpus
    stride = 8
    members = [[gpus[s + i * stride] for i in range(len(gpus) // stride)] for s in range(stride)]
    if pattern == "p2p":
        members = [[gpus[i], gpus[i + len(gpus) // 2]] for i in range(len(gpus) // 2)]
    loads = route(topo, index, family_traffic(topo, members, pattern))
    peak = loads.peak(topo, index)
    assert peak == _by_entries(loads, topo, index)
    assert peak[0] > 0 and peak[1] is not None  # every family crosses the network here


def test_the_fabric_index_is_shared_per_topology():
    topo = Topology.build(generate("rail-optimized", system="dgx-h100", nodes=8,
                                   switch="qm9700"))
    assert FabricIndex.of(topo) is FabricIndex.of(topo)
    other = Topology.build(generate("rail-optimized", system="dgx-h100", nodes=8,
                                    switch="qm9700"))
    assert FabricIndex.of(other) is not FabricIndex.of(topo)
    assert FabricIndex.of(other) == FabricIndex.build(other)


@pytest.mark.parametrize(("kind", "options"), [
    ("superpod", dict(system="dgx-h100", nodes=128)),
    ("rail-optimized", dict(system="dgx-b200", nodes=16, switch="q3400")),
    ("rail-optimized", dict(system="dgx-h100", nodes=64, switch="qm9700", oversubscription=2)),
    ("superpod", dict(system="gb200-nvl72", racks=4)),
])
def test_the_link_count_simulate_writes_is_the_length_of_the_list(kind, options):
    """`simulate --json` writes the loaded links' count without their list (issue 38 item 19:
    building 222,208 entries to count them took 0.45 s at 100k): the count is the list's
    length, with or without the list, and the same after a read-back."""
    from rackdesigner.simulation import simulate
    from rackdesigner.simulation.readback import result_from_dict

    result = simulate(generate(kind, **options))
    counted = result.link_loads.to_dict(with_links=False)["count"]
    assert "entries" not in result.link_loads.__dict__  # counted, not listed
    assert counted == len(result.link_loads.entries) > 0
    assert result.link_loads.to_dict(with_links=True)["count"] == counted
    again = result_from_dict(result.to_dict())
    assert again.link_loads.to_dict(with_links=False)["count"] == counted
