"""`Topology.read_carried` for a large design, from the index's link columns.

At 102,400 GPUs the carried links are 700,000: the plain pass makes a `CarriedLink` per link
and then asks each one's ends, kinds and rates in Python. Here the link table
(`model/linktable.py`) gives, as arrays, which links are carried, their protocol, their rate
(the slower end's, times the cable count) and the kinds of both ends; each protocol's links
are then filed in one tight loop over plain lists. Each map of the topology takes links of
one protocol family only, in link order, so the maps come out equal to the plain pass's, key
order and every float included (the same operations on the same values:
tests/test_topology_columns.py).
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np

from rackdesigner.model.index import HOST_PROTOCOLS, NETWORK_PROTOCOLS
from rackdesigner.model.linktable import pick
from rackdesigner.simulation import constants as C

if TYPE_CHECKING:
    from rackdesigner.model.linktable import LinkTable
    from rackdesigner.simulation.topology import Topology

_ID, _LENGTH, _CABLE = attrgetter("id"), attrgetter("length_m"), attrgetter("cable")


def read_carried(topo: Topology, table: LinkTable) -> None:
    """File the capacities of `table`'s carried links into `topo` (as `read_carried`)."""
    at = np.flatnonzero(table.carried_mask())
    a, b = table.a[at], table.b[at]
    raw = table.count[at] * np.minimum(table.pg_rate[table.pga[at]],
                                       table.pg_rate[table.pgb[at]]) / 8.0
    proto = table.proto_a[at]
    names = table.protocols
    codes = {family: [i for i, p in enumerate(names) if p in wanted]
             for family, wanted in (("nvlink", ("nvlink",)), ("host", HOST_PROTOCOLS),
                                    ("network", NETWORK_PROTOCOLS))}
    for family, read in (("nvlink", _nvlink), ("host", _host), ("network", _network)):
        if codes[family]:
            rows = np.flatnonzero(np.isin(proto, codes[family]))
            if rows.size:
                read(topo, table, at[rows], a[rows], b[rows], raw[rows], proto[rows])


def _nvlink(topo: Topology, table: LinkTable, at: np.ndarray, a: np.ndarray, b: np.ndarray,
            raw: np.ndarray, proto: np.ndarray) -> None:
    from rackdesigner.simulation.topology import nvlink_eff_per_GBps

    gpu = table.is_gpu
    swap = ~gpu[a] & gpu[b]  # the GPU end first
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    keep = gpu[a]  # switch-to-switch NVLink joins the island and carries no GPU port
    at, a, b, raw = at[keep], a[keep], b[keep], raw[keep]
    per_model = np.array([nvlink_eff_per_GBps(spec) if spec is not None and spec.traits.computes
                          else 0.0 for spec in table.specs])
    eff = raw * per_model[table.model_of[a]]
    ids = table.ids
    link_ids = list(map(_ID, pick(table.links, at.tolist())))
    nvl_links, nvl_link_ids = topo.nvl_links, topo.nvl_link_ids
    sw_raw, sw_eff = topo.nvl_sw_raw, topo.nvl_sw_eff
    peer_raw, peer_eff = topo.nvl_peer_raw, topo.nvl_peer_eff
    for lid, x, y, r, e, count, peer in zip(
            link_ids, pick(ids, a.tolist()), pick(ids, b.tolist()), raw.tolist(),
            eff.tolist(), table.count[at].tolist(), gpu[b].tolist(), strict=True):
        nvl_links[x] += count
        nvl_link_ids[x].append((lid, y, r))
        if peer:
            nvl_links[y] += count
            nvl_link_ids[y].append((lid, x, r))
            for p, q in ((x, y), (y, x)):
                pr, pe = peer_raw[p], peer_eff[p]
                pr[q] = pr.get(q, 0.0) + r
                pe[q] = pe.get(q, 0.0) + e
        else:
            sr, se = sw_raw[x], sw_eff[x]
            sr[y] = sr.get(y, 0.0) + r
            se[y] = se.get(y, 0.0) + e


def _host(topo: Topology, table: LinkTable, at: np.ndarray, a: np.ndarray, b: np.ndarray,
          raw: np.ndarray, proto: np.ndarray) -> None:
    pcie = [i for i, p in enumerate(table.protocols) if p == "pcie"]
    factor = np.where(np.isin(proto, pcie), C.PCIE_EFFICIENCY, C.C2C_EFFICIENCY)
    eff = raw * factor
    ids, gpu = table.ids, table.is_gpu
    host_adj, gpu_host_raw, gpu_host_eff = topo.host_adj, topo.gpu_host_raw, topo.gpu_host_eff
    for x, y, r, e, x_gpu, y_gpu in zip(
            pick(ids, a.tolist()), pick(ids, b.tolist()), raw.tolist(), eff.tolist(),
            gpu[a].tolist(), gpu[b].tolist(), strict=True):
        host_adj[x].append((y, r, e))
        host_adj[y].append((x, r, e))
        if x_gpu:
            gpu_host_raw[x] += r
            gpu_host_eff[x] += e
        if y_gpu:
            gpu_host_raw[y] += r
            gpu_host_eff[y] += e


def _network(topo: Topology, table: LinkTable, at: np.ndarray, a: np.ndarray, b: np.ndarray,
             raw: np.ndarray, proto: np.ndarray) -> None:
    nic, switch = table.is_nic, table.is_switch
    swap = nic[a]  # the switch end first
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    to_nic = nic[b] & switch[a]
    keep = to_nic | (switch[a] & switch[b])  # anything else carries no fabric traffic
    at, a, b, raw, to_nic = at[keep], a[keep], b[keep], raw[keep], to_nic[keep]
    ids = table.ids
    nic_up, sw_nics, sw_adj = topo.nic_up, topo.sw_nics, topo.sw_adj
    net_links, lengths, prop = topo.net_links, topo.link_lengths, topo.link_prop_ns_per_m
    links = pick(table.links, at.tolist())
    # a cable model's propagation delay, looked up once per model (None: no figure)
    per_m: dict[str | None, float | None] = {None: None}
    for model in set(map(_CABLE, links)) - {None}:
        cable = topo.cable_spec(model)  # type: ignore[arg-type]
        per_m[model] = (cable.cable.latency_ns_per_m
                        if cable is not None and cable.cable is not None else None)
    if _network_unique(topo, ids, a, b, raw, to_nic, links, per_m):
        return
    for lid, x, y, r, up, length, cable in zip(
            map(_ID, links), pick(ids, a.tolist()), pick(ids, b.tolist()), raw.tolist(),
            to_nic.tolist(), map(_LENGTH, links), map(_CABLE, links), strict=True):
        if up:
            ups = nic_up[y]
            ups[x] = ups.get(x, 0.0) + r
            sw_nics[x].append(y)
            key = (y, x)
        else:
            ax, ay = sw_adj[x], sw_adj[y]
            ax[y] = ax.get(y, 0.0) + r
            ay[x] = ay.get(x, 0.0) + r
            key = (x, y) if x < y else (y, x)
        net_links[key].append((lid, r))
        if length is not None:
            lengths[key].append(length)
        if cable is not None:
            ns = per_m[cable]
            if ns is not None:
                prop[key] = ns


def _network_unique(topo: Topology, ids: list[str], a: np.ndarray, b: np.ndarray,
                    raw: np.ndarray, to_nic: np.ndarray, links: list,
                    per_m: dict[str | None, float | None]) -> bool:
    """`_network`'s filing when no two network links join the same two devices and no NIC has
    two uplinks (a generated fabric: one cable per pair, `count` carrying bundles), each map in
    one pass of its own: every key then takes one link, so a sum is the link's own rate
    (0.0 + r is r) and a list its one entry, in link order as the per-link pass files them.
    False (nothing filed) otherwise."""
    if not a.size:  # (a device cabled to itself is never carried: `model/facets/carried.py`)
        return False
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    width = int(hi.max()) + 1
    if np.unique(lo * width + hi).size != a.size:
        return False
    if np.unique(b[to_nic]).size != int(to_nic.sum()):
        return False
    xs, ys = pick(ids, a.tolist()), pick(ids, b.tolist())
    ups = to_nic.tolist()
    rates = raw.tolist()
    keys = [(y, x) if up else ((x, y) if x < y else (y, x))
            for x, y, up in zip(xs, ys, ups, strict=True)]
    nic_up, sw_nics, sw_adj = topo.nic_up, topo.sw_nics, topo.sw_adj
    for x, y, r, up in zip(xs, ys, rates, ups, strict=True):
        if up:
            nic_up[y] = {x: r}
            sw_nics[x].append(y)
        else:
            sw_adj[x][y] = r
            sw_adj[y][x] = r
    topo.net_links.update(zip(keys, [[(lid, r)] for lid, r in zip(
        map(_ID, links), rates, strict=True)], strict=True))
    topo.link_lengths.update((key, [length]) for key, length in zip(
        keys, map(_LENGTH, links), strict=True) if length is not None)
    topo.link_prop_ns_per_m.update((key, ns) for key, cable in zip(
        keys, map(_CABLE, links), strict=True) if cable is not None
        and (ns := per_m[cable]) is not None)
    return True
