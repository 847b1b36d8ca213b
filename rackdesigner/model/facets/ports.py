"""The port facet: port groups wired beyond their port count (device, group, ports in use,
ports it has), in device order — what the rules report and the simulation warns of. Ports in use
per group are kept by the state itself, link by link (`DesignState.port_use`).

Forms (`facets/protocol.Facet`): plain (`exhausted`: over the state's port use) and NumPy
(`exhausted_arrays`: a count of the link ends per (device, group) over the link columns).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.model.facets.protocol import PlainFacet

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex
    from rackdesigner.model.linktable import LinkTable

Exhausted = tuple[tuple[str, str, int, int], ...]


def exhausted(index: DesignIndex) -> Exhausted:
    """(device, port group, ports in use, ports it has) of every port group wired beyond
    its port count, in device order: what the rules report and the simulation warns of."""
    out = []
    spec_of, groups = index.all_specs(), index.group_cache
    for device_id, usage in index.state.port_use.items():
        spec = spec_of.get(device_id)
        if spec is None:
            continue
        for name, used in usage:  # (group, ports in use) pairs, one per group
            key = (spec.id, name)
            group = groups[key] if key in groups else index.port_group(device_id,
                                                                       name)
            if group is not None and used > group.count:
                out.append((device_id, name, used, group.count))
    order = {d: i for i, d in enumerate(index.state.device_order)} if out else {}
    out.sort(key=lambda e: order.get(e[0], len(order)))
    return tuple(out)


def exhausted_arrays(table: LinkTable, order: Any = None) -> Exhausted:
    """`exhausted`: port groups wired beyond their port count, in device
    order, a device's groups in the order `order(device)` lists them (the state's port
    use, when it has it) or else in the order its links first name them."""
    import numpy as np

    width = max(len(table.group_names), 1)
    # link ends in order (a before b): (device, group) as one number, ports it takes
    keys = np.stack((table.a * width + table.ga, table.b * width + table.gb), axis=1).ravel()
    counts = np.repeat(table.count, 2)
    size = len(table.ids) * width
    used = np.bincount(keys, weights=counts, minlength=size).astype(np.int64)
    # each (device, group)'s port group: the same at every end naming it
    group_of = np.full(size, -1, dtype=np.int64)
    group_of[keys] = np.stack((table.pga, table.pgb), axis=1).ravel()
    over = np.flatnonzero((group_of >= 0) & (used > table.pg_count[group_of]))
    if over.size:  # where its links first name it: the order of a device's groups
        ends = np.flatnonzero(np.isin(keys, over))
        first = dict(zip(keys[ends].tolist()[::-1], ends.tolist()[::-1], strict=True))
    found = sorted((int(k) // width, first[k], k) for k in over.tolist())
    out = [(table.ids[r], table.group_names[k % width], int(used[k]),
            int(table.pg_count[group_of[k]])) for r, _, k in found]
    if order is not None and out:  # a device's groups as the state's port use lists them
        by_device: dict[str, list[tuple[str, str, int, int]]] = {}
        for entry in out:  # in device order
            by_device.setdefault(entry[0], []).append(entry)
        out = []
        for device, entries in by_device.items():
            rank = {name: i for i, name in enumerate(order(device))}
            out += sorted(entries, key=lambda e: rank.get(e[1], len(rank)))
    return tuple(out)


class ExhaustedFacet(PlainFacet):
    """Port groups wired beyond their port count (`DesignIndex.exhausted_ports`)."""

    name = "exhausted_ports"

    def plain(self, index: DesignIndex) -> Exhausted:
        return exhausted(index)

    def arrays(self, index: DesignIndex, table: LinkTable) -> Exhausted:
        use = index.state.port_use_if_made()  # kept by edits: its order of groups
        return exhausted_arrays(
            table, None if use is None else (lambda d: [g for g, _ in use.get(d, ())]))


EXHAUSTED = ExhaustedFacet()
