"""The GPUs one fault of a selected part stops, named (rackdesigner/reliability/blast.py): the
members agree with the counts, an NVL72 GPU or tray stops its rack's NVLink domain, a DGX's
part its node, a leaf the nodes cabled to it, a spine nothing."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.reliability import assess, load_library
from rackdesigner.reliability.blast import blast_radius


@pytest.fixture(scope="module")
def library():
    return load_library()


@pytest.fixture(scope="module")
def pod(library):
    layout = generate("superpod", system="dgx-h100", nodes=64)
    return layout, assess(layout, library)


@pytest.fixture(scope="module")
def racks(library):
    layout = generate("superpod", system="gb200-nvl72", racks=2)
    return layout, assess(layout, library)


def _of_role(layout, a, role):
    return [d.id for d in layout.devices() if a.structure.role_of(d.id) == role]


def _gpu_group(layout, gpu):
    return layout.device(gpu).group


def test_an_nvl72_gpu_or_its_tray_stops_every_gpu_of_its_rack_and_no_other(racks):
    layout, a = racks
    gpus = _of_role(layout, a, "gpu")
    assert len(gpus) == 144
    gpu = gpus[0]
    b = blast_radius(a, layout, [gpu])
    assert b.count == 72 == a.part_blast(gpu)[0]
    rack = layout.device(gpu).rack
    assert {layout.device(g).rack for g in b.gpus} == {rack}  # its own rack's domain only
    assert "NVLink domain" in b.sentence() and "72 GPUs" in b.sentence()
    tray = blast_radius(a, layout, [_gpu_group(layout, gpu)])  # the compute tray selected
    assert set(tray.gpus) == set(b.gpus)
    cpu = next(d for d in _of_role(layout, a, "cpu") if layout.device(d).group
               == _gpu_group(layout, gpu))
    node = blast_radius(a, layout, [cpu])
    assert node.count == a.part_blast(cpu)[0] == 4 and set(node.gpus) < set(b.gpus)
    # an NVLink switch tray of the same rack: its whole domain too
    nvswitch = next(d for d in _of_role(layout, a, "nvswitch") if layout.device(d).rack == rack)
    switch_tray = blast_radius(a, layout, [_gpu_group(layout, nvswitch)])
    assert set(switch_tray.gpus) == set(b.gpus)


def test_a_dgx_part_stops_its_node_a_leaf_its_nodes_a_spine_nothing(pod):
    layout, a = pod
    gpu = _of_role(layout, a, "gpu")[0]
    b = blast_radius(a, layout, [gpu])
    assert b.count == 8 == a.part_blast(gpu)[0]
    node = blast_radius(a, layout, [_gpu_group(layout, gpu)])  # the DGX selected
    assert set(node.gpus) == set(b.gpus)
    switches = _of_role(layout, a, "switch")
    blasts = [blast_radius(a, layout, [s]) for s in switches]
    for s, r in zip(switches, blasts, strict=True):
        assert r.count == a.part_blast(s)[0]  # members agree with the counts
    spine = next(r for r in blasts if r.count == 0)
    assert "bandwidth only" in spine.sentence()
    leaf = max(blasts, key=lambda r: r.count)
    nodes = {_gpu_group(layout, g) for g in leaf.gpus}
    assert len(nodes) * 8 == leaf.count and f"{len(nodes)} nodes on" in leaf.sentence()


def test_a_cable_to_a_nic_stops_that_nic_s_node(pod):
    layout, a = pod
    protocol = layout.index().protocol
    nic = next(n for n in _of_role(layout, a, "nic") if a.part_blast(n)[0])  # a compute NIC
    cable = next(k for k in layout.links_of(nic) if blast_radius(a, layout, [k.id]).causes)
    b = blast_radius(a, layout, [cable.id])
    assert b.count == 8 and set(b.gpus) == set(blast_radius(a, layout, [nic]).gpus)
    host = [k for k in layout.links_of(nic) if k.id != cable.id and protocol(k) != protocol(cable)]
    for k in host:  # its PCIe link is no cable: no rate counted on it
        assert not blast_radius(a, layout, [k.id]).causes
    gpu = _of_role(layout, a, "gpu")[0]
    nvlink = next(k for k in layout.links_of(gpu) if protocol(k) != protocol(cable))
    said = blast_radius(a, layout, [nvlink.id])
    assert not said.causes and "counted with the GPU" in said.sentence()
    spine = next(s for s in _of_role(layout, a, "switch") if a.part_blast(s)[0] == 0)
    uplink = layout.links_of(spine)[0]
    said = blast_radius(a, layout, [uplink.id])
    assert not said.gpus and "bandwidth only" in said.sentence()


def test_parts_without_a_rate_and_multiple_parts_say_so(pod):
    layout, a = pod
    rack = next(d.id for d in layout.devices() if a.structure.role_of(d.id) is None)
    assert "no failure rate" in blast_radius(a, layout, [rack]).sentence()
    gpus = _of_role(layout, a, "gpu")[:2]
    assert blast_radius(a, layout, gpus) is None
    assert blast_radius(a, layout, ["no-such-part"]) is None
