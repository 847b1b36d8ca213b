"""Designs for the workload tests that the generators do not make.

`tor_cluster`: DGX H100 nodes on top-of-rack leaves (all eight NICs of a node on its own leaf),
the leaves on spines with 1:1 uplinks. Every ring hop between nodes crosses a spine, so the
spines bound data-parallel traffic (a rail-optimized SuperPOD keeps rings under the rail leaves
and crosses spines only at scalable-unit boundaries).
"""

from __future__ import annotations

from rackdesigner.catalog import default_catalog
from rackdesigner.model import Device, Layout, Link, PortRef, instantiate


def tor_cluster(nodes: int = 8, spines: int = 4) -> Layout:
    catalog = default_catalog()
    layout = Layout(catalog=catalog)
    groups, devices, links = [], [], []

    def link(a: PortRef, b: PortRef, count: int = 1) -> None:
        links.append(Link(f"link-{len(links) + 1}", a, b, count, "fiber-mm-ndr", 10.0))

    devices += [Device(f"spine-{s + 1}", "qm9700") for s in range(spines)]
    for i in range(1, nodes + 1):
        devices.append(Device(f"leaf-{i}", "qm9700"))
        parts = instantiate(catalog, "dgx-h100", f"node-{i}")
        groups += parts.groups
        devices += parts.devices
        links += parts.links
        for r in range(8):
            link(PortRef(f"node-{i}.nic{r}", "ib"), PortRef(f"leaf-{i}", "ib"))
        for s in range(spines):
            link(PortRef(f"leaf-{i}", "ib"), PortRef(f"spine-{s + 1}", "ib"), 8 // spines)
    layout.add_all(groups, devices, links)
    return layout


def remove_switches(layout: Layout, ids: list[str]) -> None:
    """Unplug switches (their links go; the boxes stay, as a half-built fabric would)."""
    for switch in ids:
        for link in list(layout.links_of(switch)):
            layout.remove_link(link.id)


SMALL_MODEL = """\
schema_version: 1
name: "Small 1B"
layers: 16
hidden: 2048
heads: 16
ffn: swiglu
ffn_hidden: 5632
vocab: 32000
seq_len: 2048
source: "a small Llama-shaped model for tests"
"""
