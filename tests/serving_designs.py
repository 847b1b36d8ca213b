"""Designs for the serving tests that the generators do not make.

`tor_nodes`: 8-GPU nodes on top-of-rack leaves (a node's eight NICs on its own leaf), the leaves
on spines with `uplinks` links each: 8 is 1:1, 4 is 2:1 oversubscribed. Every byte between
nodes crosses a spine, so an expert-parallel group over several nodes sees the uplinks.
"""

from __future__ import annotations

from rackdesigner.catalog import default_catalog
from rackdesigner.model import Device, Layout, Link, PortRef, instantiate


def tor_nodes(nodes: int = 4, uplinks: int = 8, system: str = "dgx-b200",
              switch: str = "qm9700", spines: int = 4) -> Layout:
    catalog = default_catalog()
    layout = Layout(catalog=catalog)
    groups, devices, links = [], [], []

    def link(a: PortRef, b: PortRef, count: int = 1) -> None:
        links.append(Link(f"link-{len(links) + 1}", a, b, count, "fiber-mm-ndr", 10.0))

    devices += [Device(f"spine-{s + 1}", switch) for s in range(spines)]
    for i in range(1, nodes + 1):
        devices.append(Device(f"leaf-{i}", switch))
        parts = instantiate(catalog, system, f"node-{i}")
        groups += parts.groups
        devices += parts.devices
        links += parts.links
        for r in range(8):
            link(PortRef(f"node-{i}.nic{r}", "ib"), PortRef(f"leaf-{i}", "ib"))
        for s in range(spines):
            link(PortRef(f"leaf-{i}", "ib"), PortRef(f"spine-{s + 1}", "ib"),
                 uplinks // spines)
    layout.add_all(groups, devices, links)
    return layout
