"""Which objects of a design are interchangeable, so N-1 analysis simulates one of each kind.

Colour refinement (1-dimensional Weisfeiler-Leman) on the topology graph: every device starts
with its model as colour; each round a device's new colour is its colour plus the multiset of
(neighbour colour, port groups, link count) over its links; rounds stop when no class splits.
Two devices with the same final colour have the same model and the same neighbourhood to any
depth: the 32 leaves of one SU, the 16 spines, the 1,016 GPU-NVSwitch links of a SuperPOD. A link's
class is its count, cable and the classes of its two ends; a group's class is its kind and the
classes of the devices it holds.

This is a model assumption stated in docs/simulation.md and in the output ("any of the 24
...: one simulated"): equal colours are taken to mean equal figures. Colour refinement never
puts two objects with different neighbourhoods together; it can (rarely, on very regular graphs)
merge objects that no automorphism maps onto each other, which on fat-trees, rail-optimized
fabrics and NVL72 racks it does not.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from rackdesigner.model import Layout, natural_key


def device_colours(layout: Layout, max_rounds: int = 32) -> dict[str, int]:
    """Colour refinement of the devices; equal colour = structurally interchangeable."""
    intern: dict[object, int] = {}

    def code(value: object) -> int:
        return intern.setdefault(value, len(intern))

    colour = {d.id: code(("model", d.model)) for d in layout.devices()}
    adj: dict[str, list[tuple[str, tuple[str, str, int]]]] = defaultdict(list)
    for link in layout.links():
        a, b = link.a, link.b
        adj[a.device].append((b.device, (a.group, b.group, link.count)))
        adj[b.device].append((a.device, (b.group, a.group, link.count)))
    n_classes = len(set(colour.values()))
    for _ in range(max_rounds):
        intern = {}
        new = {dev: code((c, tuple(sorted((colour[n], lab) for n, lab in adj.get(dev, ())))))
               for dev, c in colour.items()}
        n_new = len(set(new.values()))
        colour = new
        if n_new == n_classes:
            break
        n_classes = n_new
    return colour


def link_colour(layout: Layout, colour: dict[str, int], link_id: str) -> tuple:
    link = layout.link(link_id)
    ends = sorted(((colour[link.a.device], link.a.group), (colour[link.b.device], link.b.group)))
    return (link.count, link.cable, tuple(ends))


def group_colour(layout: Layout, colour: dict[str, int], group_id: str) -> tuple:
    group = layout.group(group_id)
    return (group.kind, tuple(sorted(colour[d] for d in layout.group_devices(group_id))))


def rack_colour(layout: Layout, colour: dict[str, int], rack_id: str,
                mounted: dict[str, list[str]]) -> tuple:
    return ("rack", colour[rack_id], tuple(sorted(colour[d] for d in mounted.get(rack_id, ()))))


def classes(layout: Layout, ids: Iterable[str]) -> list[list[str]]:
    """`ids` (devices, links or groups) split into classes of interchangeable objects.

    Each class is in natural id order; classes are in the order of their first member.
    """
    colour = device_colours(layout)
    mounted: dict[str, list[str]] = defaultdict(list)
    for d in layout.devices():
        if d.rack is not None:
            mounted[d.rack].append(d.id)
    by_key: dict[tuple, list[str]] = {}
    for oid in sorted(ids, key=natural_key):
        if layout.has_link(oid):
            key = ("link", link_colour(layout, colour, oid))
        elif layout.has_group(oid):
            key = ("group", group_colour(layout, colour, oid))
        elif oid in mounted:
            key = rack_colour(layout, colour, oid, mounted)
        else:
            key = ("device", colour[oid])
        by_key.setdefault(key, []).append(oid)
    return list(by_key.values())
