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

#: Designs with at least this many links refine their colours with NumPy (`_colours_numpy`).
ARRAY_MIN_LINKS = 20_000


def device_colours(layout: Layout, max_rounds: int = 32,
                   array_min_links: int = ARRAY_MIN_LINKS) -> dict[str, int]:
    """Colour refinement of the devices; equal colour = structurally interchangeable."""
    if layout.link_count() >= array_min_links:
        return _colours_numpy(layout, max_rounds)
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


def _colours_numpy(layout: Layout, max_rounds: int) -> dict[str, int]:
    """`device_colours`, each round's multisets sorted with NumPy: the same colours, numbered
    alike (a device's new colour is its colour and its sorted (neighbour colour, label) codes,
    numbered in device order as they first appear). A 32k-GPU SuperPOD's eight rounds over
    606,000 link ends took 3 s as tuples."""
    import numpy as np

    ids: list[str] = []
    first: dict[object, int] = {}
    start: list[int] = []
    for device in layout.devices():
        ids.append(device.id)
        start.append(first.setdefault(("model", device.model), len(first)))
    at = {device_id: i for i, device_id in enumerate(ids)}
    labels: dict[tuple[str, str, int], int] = {}
    a_end: list[int] = []
    b_end: list[int] = []
    a_lab: list[int] = []
    b_lab: list[int] = []
    for link in layout.links():
        a, b = link.a, link.b
        a_end.append(at[a.device])
        b_end.append(at[b.device])
        a_lab.append(labels.setdefault((a.group, b.group, link.count), len(labels)))
        b_lab.append(labels.setdefault((b.group, a.group, link.count), len(labels)))
    # each link end as (device, neighbour, label); grouped by device
    src = np.array(a_end + b_end, dtype=np.int64)
    dst = np.array(b_end + a_end, dtype=np.int64)
    lab = np.array(a_lab + b_lab, dtype=np.int64)
    n = len(ids)
    bounds = np.concatenate(([0], np.cumsum(np.bincount(src, minlength=n)))).tolist()
    colour = np.array(start, dtype=np.int64)
    n_classes = len(set(start))
    width = max(len(labels), 1)
    for _ in range(max_rounds):
        pair = colour[dst] * width + lab  # (neighbour colour, label), ordered as the tuples
        sorted_pairs = pair[np.lexsort((pair, src))]
        intern: dict[tuple[int, bytes], int] = {}
        own = colour.tolist()
        new = [intern.setdefault((own[i], sorted_pairs[bounds[i]:bounds[i + 1]].tobytes()),
                                 len(intern)) for i in range(n)]
        colour = np.array(new, dtype=np.int64)
        if len(intern) == n_classes:
            break
        n_classes = len(intern)
    return dict(zip(ids, colour.tolist(), strict=True))


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
        key: tuple
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
