"""The link-protocol facet: which links carry a protocol (`CarriedLink`: both ends name port
groups of known models with that same protocol) and which carry nothing (rejected: a missing
port group, ends of two protocols) — what the rules, islands, NIC reach and the simulation read.

Forms (`facets/protocol.Facet`): plain (`classify`, per link), NumPy (`classify_arrays`: the
carried-link mask of the link columns), evolved (`carried_evolved`: the changed links
classified again and put back where the new state's link order has them) and degraded
(`carried_without`: the same tuples without the failed links, order kept).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rackdesigner.model.facets.changes import changes
from rackdesigner.model.facets.protocol import PlainFacet
from rackdesigner.model.index_values import CarriedLink
from rackdesigner.model.items import Link

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex
    from rackdesigner.model.linktable import LinkTable

Carried = tuple[tuple[CarriedLink, ...], tuple[tuple[str, Link, Any], ...]]


def classify(index: DesignIndex, links: Iterable[Link]
             ) -> tuple[list[CarriedLink], list[tuple[str, Link, Any]]]:
    """`links` (in order) split into the carried and the rejected (see `rejected`)."""
    out: list[CarriedLink] = []
    rejected: list[tuple[str, Link, Any]] = []
    spec_of = index.all_specs()
    groups = index.group_cache
    append = out.append
    for link in links:  # the hot loop of a 700,000-link design
        a, b = link.a, link.b
        if a.device == b.device:
            continue
        sa, sb = spec_of.get(a.device), spec_of.get(b.device)
        if sa is None or sb is None:
            continue
        key = (sa.id, a.group)
        ga = groups[key] if key in groups else index.port_group(a.device, a.group)
        key = (sb.id, b.group)
        gb = groups[key] if key in groups else index.port_group(b.device, b.group)
        if ga is not None and gb is not None:
            if ga.protocol == gb.protocol:
                append(CarriedLink(link, ga, gb, ga.protocol))
            else:
                rejected.append(("protocol-mismatch", link,
                                 (ga.protocol, gb.protocol)))
        else:
            rejected.append(("missing-port", link, a if ga is None else b))
    return out, rejected


def classify_arrays(table: LinkTable
                    ) -> tuple[list[CarriedLink], list[tuple[str, Link, Any]]]:
    """`classify` of every link: the carried links and the rejected ones."""
    import numpy as np

    from rackdesigner.model.linktable import pick

    carried = table.carried_mask()
    at = np.flatnonzero(carried).tolist()
    groups, protocols = table.port_groups, table.protocols
    picked = pick(table.links, at)
    out = list(map(CarriedLink, picked, pick(groups, table.pga[carried].tolist()),
                   pick(groups, table.pgb[carried].tolist()),
                   pick(protocols, table.proto_a[carried].tolist())))
    return out, rejected_arrays(table)


def rejected_arrays(table: LinkTable) -> list[tuple[str, Link, Any]]:
    """`DesignIndex.rejected`: links between distinct known devices that carry nothing."""
    import numpy as np

    links, groups = table.links, table.port_groups
    both = (table.a != table.b) & table.known[table.a] & table.known[table.b]
    rejected: list[tuple[str, Link, Any]] = []
    for i in np.flatnonzero(both & ~table.carried_mask()).tolist():
        link, ga, gb = links[i], int(table.pga[i]), int(table.pgb[i])
        if ga >= 0 and gb >= 0:
            rejected.append(("protocol-mismatch", link,
                             (groups[ga].protocol, groups[gb].protocol)))
        else:
            rejected.append(("missing-port", link, link.a if ga < 0 else link.b))
    return rejected


def carried_evolved(index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                    ) -> tuple[tuple[CarriedLink, ...], tuple[tuple, ...]]:
    """`index`'s carried and rejected links from `base`'s (see the module docstring): the
    links to classify again are taken out, then put back classified where the new state's
    link order has them (a binary search by position: no pass over every link)."""
    ch = changes(index, base, touched)
    state = index.state
    again = set(ch.links_new | ch.links_changed)
    for device_id in ch.models_changed:
        again.update(state.link_ids_of(device_id))
    out = _redo(base.carried(), lambda c: c.link.id, ch.links_gone | again)
    rejected = _redo(base.rejected(), lambda r: r[1].id, ch.links_gone | again)
    if not again:
        return tuple(out), tuple(rejected)
    links = state.links
    fresh_carried, fresh_rejected = classify(index, (links[i] for i in again if i in links))
    position = state.link_order.position
    _insert(out, fresh_carried, lambda c: position(c.link.id))
    _insert(rejected, fresh_rejected, lambda r: position(r[1].id))
    return tuple(out), tuple(rejected)


def _redo(items: tuple, key, drop: set[str]) -> list:
    """`items` without those whose `key` is in `drop` (a plain copy when none is)."""
    if not drop:
        return list(items)
    return [x for x in items if key(x) not in drop]


def _insert(items: list, fresh: list, position) -> None:
    """Put each of `fresh` into `items` (sorted by `position`) where it belongs."""
    for item in sorted(fresh, key=position):
        where = position(item)
        low, high = len(items), len(items)
        if items and position(items[-1]) > where:  # not at the end: search
            low, high = 0, len(items)
            while low < high:
                mid = (low + high) // 2
                if position(items[mid]) < where:
                    low = mid + 1
                else:
                    high = mid
        items.insert(low, item)


def carried_without(source: DesignIndex, links: frozenset[str]
                    ) -> tuple[tuple[CarriedLink, ...], tuple[tuple[str, Any, Any], ...]]:
    """`source`'s carried and rejected links without `links` (ids), in the same order."""
    carried = source.carried()
    rejected = source.rejected()
    if not links:
        return carried, rejected
    return (tuple(c for c in carried if c.link.id not in links),
            tuple(r for r in rejected if r[1].id not in links))


class CarriedFacet(PlainFacet):
    """(carried links, rejected links) of a state, in link order."""

    name = "carried"

    def plain(self, index: DesignIndex) -> Carried:
        out, rejected = classify(index, index.state.link_list())
        return tuple(out), tuple(rejected)

    def arrays(self, index: DesignIndex, table: LinkTable) -> Carried:
        out, rejected = classify_arrays(table)
        return tuple(out), tuple(rejected)

    def evolved(self, index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                ) -> Carried:
        return carried_evolved(index, base, touched)

    def without(self, index: DesignIndex, source: DesignIndex, failed: Any) -> Carried:
        return carried_without(source, failed.links)


CARRIED = CarriedFacet()
