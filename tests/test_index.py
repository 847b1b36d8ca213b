"""The derived index: one answer per state, shared by rules, simulation and the canvas."""

from __future__ import annotations

from rackdesigner.commands import port_usage
from rackdesigner.model import Device, Layout, Link, PortRef, check_layout, nvlink_domains
from rackdesigner.simulation import simulate
from rackdesigner.simulation.topology import Topology


def _gpus(catalog, n: int) -> Layout:
    layout = Layout(catalog)
    for i in range(1, n + 1):
        layout.add_device(Device(f"gpu-{i}", "h100-sxm5"))
    return layout


def test_a_mis_wired_link_joins_nothing_for_rules_and_simulation_alike(catalog):
    layout = _gpus(catalog, 3)
    layout.add_device(Device("nvsw-1", "nvswitch-gen3"))
    layout.add_link(Link("link-1", PortRef("gpu-1", "nvlink"), PortRef("nvsw-1", "nvlink"), 4))
    layout.add_link(Link("link-2", PortRef("gpu-2", "nvlink"), PortRef("nvsw-1", "nvlink"), 4))
    # NVLink at one end, PCIe at the other: the rules used to join gpu-3 on its NVLink end
    layout.add_link(Link("link-3", PortRef("gpu-3", "nvlink"), PortRef("gpu-2", "pcie")))
    index = layout.index()
    assert index.protocol(layout.link("link-3")) is None
    domains = sorted(sorted(d) for d in nvlink_domains(layout))
    assert domains == [["gpu-1", "gpu-2"], ["gpu-3"]]
    topo = Topology.build(layout)
    by_topology: dict[str, set[str]] = {}
    for gpu, root in topo.nvlink_domain_of.items():
        by_topology.setdefault(root, set()).add(gpu)
    assert sorted(sorted(d) for d in by_topology.values()) == domains
    assert any(f.code == "protocol-mismatch" for f in check_layout(layout))


def test_rules_and_simulation_report_the_same_unreachable_gpus(catalog):
    layout = _gpus(catalog, 4)
    for i in (1, 2, 3, 4):
        layout.add_device(Device(f"nic-{i}", "connectx-7"))
        layout.add_link(Link(f"pcie-{i}", PortRef(f"gpu-{i}", "pcie"), PortRef(f"nic-{i}", "pcie")))
    layout.add_device(Device("leaf-1", "qm9700"))
    for i in (1, 2, 3):  # nic-4 is not cabled: gpu-4 is cut off
        layout.add_link(Link(f"ib-{i}", PortRef(f"nic-{i}", "ib"), PortRef("leaf-1", "ib")))
    finding = next(f for f in check_layout(layout) if f.code == "gpus-unreachable")
    assert finding.objects == ("gpu-4",) and "1 of 4 GPUs cannot reach" in finding.message
    result = simulate(layout)
    assert any("1 of 4 GPUs cannot reach" in text for text in result.messages)
    layout.add_link(Link("ib-4", PortRef("nic-4", "ib"), PortRef("leaf-1", "ib")))
    assert not any(f.code == "gpus-unreachable" for f in check_layout(layout))


def test_one_index_per_state_shared_by_snapshots_and_new_after_an_edit(catalog):
    layout = _gpus(catalog, 2)
    layout.add_device(Device("nvsw-1", "nvswitch-gen3"))
    layout.add_link(Link("link-1", PortRef("gpu-1", "nvlink"), PortRef("nvsw-1", "nvlink"), 4))
    index = layout.index()
    assert layout.snapshot().index() is index  # a snapshot reads the same facts
    assert port_usage(layout, "nvsw-1") == {"nvlink": 4}
    layout.add_link(Link("link-2", PortRef("gpu-2", "nvlink"), PortRef("nvsw-1", "nvlink"), 18))
    assert layout.index() is not index
    assert port_usage(layout, "nvsw-1") == {"nvlink": 22}
    assert index.port_usage("nvsw-1") == {"nvlink": 4}  # the old state's answer never changes
