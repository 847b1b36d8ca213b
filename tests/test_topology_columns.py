"""The engine topology of a large design read from the link columns
(simulation/topology_columns.py) equals the plain per-link pass: every capacity map, in the same
key order with the same floats, and what the later stages derive from them (each GPU's NICs and
rail, switch tiers and capacities), on generated designs and on ones broken every way the rules
know (tests/test_linktable.py's)."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.model import Link, PortRef
from rackdesigner.model import index as index_module
from rackdesigner.model.index import DesignIndex
from rackdesigner.simulation import topology_columns
from rackdesigner.simulation.topology import Topology
from tests.test_linktable import _broken, _fresh

#: the maps the link pass fills, and what is derived from them without naming sets
FIELDS = ("specs", "gpus", "nvl_sw_raw", "nvl_sw_eff", "nvl_peer_raw", "nvl_peer_eff",
          "nvl_links", "nvl_link_ids", "host_adj", "gpu_host_raw", "gpu_host_eff", "nic_up",
          "sw_adj", "sw_nics", "link_lengths", "link_prop_ns_per_m", "net_links", "bad_links",
          "gpus_near_nic", "gpu_nics", "nic_users", "primary_nic", "tier", "up_cap",
          "down_cap", "unknown_models", "cpu_vendor")


def _ordered(value):
    """`value` with every dict as its list of items (so key order counts)."""
    if isinstance(value, dict):
        return [(k, _ordered(v)) for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [_ordered(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if hasattr(value, "__dataclass_fields__") and not hasattr(value, "ports"):
        return repr(value)
    return value


def _topology(layout, columns: bool, monkeypatch) -> Topology:
    monkeypatch.setattr(index_module, "_ARRAY_MIN_LINKS", 0 if columns else 10**12)
    index = DesignIndex(layout.state, layout.catalog)
    assert (index.link_table() is not None) == columns
    return Topology.build(_fresh(layout, index))


DESIGNS = [
    lambda c: generate("superpod", system="dgx-h100", nodes=8, catalog=c),
    lambda c: generate("nvl72", catalog=c),
    lambda c: generate("rail-optimized", system="dgx-b200", nodes=8, switch="q3400", catalog=c),
    lambda c: generate("superpod", system="dgx-h100", nodes=16, switch="sn5600", catalog=c),
    lambda c: generate("fat-tree", switch="qm9700", levels=2, endpoints=64, catalog=c),
    lambda c: _broken(c, 0),
    lambda c: _broken(c, 1),
    lambda c: _broken(c, 2),
]


@pytest.mark.parametrize("number", range(len(DESIGNS)))
def test_columns_give_the_plain_topology(number, catalog, monkeypatch):
    layout = DESIGNS[number](catalog)
    plain = _topology(layout, False, monkeypatch)
    columns = _topology(layout, True, monkeypatch)
    assert plain.net_links or plain.nvl_links  # the design has something to read
    for name in FIELDS:
        assert _ordered(getattr(columns, name)) == _ordered(getattr(plain, name)), name


def test_a_failed_link_is_read_by_neither(catalog, monkeypatch):
    """Failed parts carry nothing in both passes (the design index leaves them out)."""
    layout = generate("superpod", system="dgx-h100", nodes=8, catalog=catalog)
    link = next(lk for lk in layout.links() if lk.a.group == "ib" or lk.b.group == "ib")
    before = _topology(layout, True, monkeypatch)
    layout.remove_link(link.id)
    after = _topology(layout, True, monkeypatch)
    plain = _topology(layout, False, monkeypatch)
    ids = [lid for links in after.net_links.values() for lid, _ in links]
    assert link.id not in ids
    assert sum(map(len, after.net_links.values())) == sum(map(len, before.net_links.values())) - 1
    assert _ordered(after.net_links) == _ordered(plain.net_links)


def _rail_with(catalog, change: str):
    """A rail-optimized design (one cable per device pair), changed so that the one-link-per-
    pair filing must not be taken: a second cable between a leaf and a spine, a NIC with a
    second uplink (and a spine cabled to itself, which no pass reads)."""
    layout = generate("rail-optimized", system="dgx-b200", nodes=8, switch="q3400", catalog=catalog)
    nets = [lk for lk in layout.links() if lk.a.group not in ("nvlink", "pcie")
            and lk.b.group not in ("nvlink", "pcie")]
    if change == "parallel":
        lk = next(lk for lk in nets if "spine" in lk.a.device or "spine" in lk.b.device)
        layout.add_link(Link("extra-1", PortRef(lk.a.device, lk.a.group, 60),
                             PortRef(lk.b.device, lk.b.group, 60), 1))
    elif change == "second-uplink":
        lk = next(lk for lk in nets if "leaf" in lk.b.device and "nic" in lk.a.device)
        other = next(k for k in nets if "leaf" in k.b.device and k.b.device != lk.b.device)
        layout.add_link(Link("extra-1", PortRef(lk.a.device, lk.a.group, 1),
                             PortRef(other.b.device, other.b.group, 61), 1))
    elif change == "self":
        lk = next(lk for lk in nets if "spine" in lk.b.device)
        layout.add_link(Link("extra-1", PortRef(lk.b.device, lk.b.group, 62),
                             PortRef(lk.b.device, lk.b.group, 63), 1))
    return layout


@pytest.mark.parametrize("change", ["none", "parallel", "second-uplink", "self"])
def test_one_link_per_pair_filing_is_taken_only_when_it_holds(change, catalog, monkeypatch):
    """`_network_unique` files a fabric of one cable per device pair in bulk and declines
    anything else; either way the maps are the plain pass's."""
    taken: list[bool] = []
    original = topology_columns._network_unique

    def spy(*args):
        taken.append(original(*args))
        return taken[-1]

    monkeypatch.setattr(topology_columns, "_network_unique", spy)
    layout = _rail_with(catalog, change)
    columns = _topology(layout, True, monkeypatch)
    plain = _topology(layout, False, monkeypatch)
    assert taken == [change in ("none", "self")]  # a link to itself is never carried
    for name in FIELDS:
        assert _ordered(getattr(columns, name)) == _ordered(getattr(plain, name)), name


def _domains_by_union_find(topo: Topology) -> list[dict[str, str]]:
    """The domains per tier as `build_tiers` made them with `UnionFind` (the reference)."""
    from rackdesigner.model.index import UnionFind

    tier = topo.tier
    top = max(tier.values(), default=0)
    uf = UnionFind()
    out = []
    for t in range(1, top + 1):
        for s in [s for s, ts in tier.items() if ts == t]:
            for nbr in topo.sw_adj.get(s, ()):
                if tier.get(nbr, top + 1) <= t:
                    uf.union(s, nbr)
        out.append({leaf: uf.find(leaf) for leaf in topo.sw_nics})
    return out


@pytest.mark.parametrize("number", range(len(DESIGNS) + 2))
def test_domains_are_the_union_finds(number, catalog, monkeypatch):
    """`build_tiers` joins switches with its own inlined union-find: every tier's domain of
    every leaf is named as `UnionFind` names it (the same joins, in the same order), on
    generated, broken and three-tier designs and a fabric with a parallel spine cable."""
    if number < len(DESIGNS):
        layout = DESIGNS[number](catalog)
    elif number == len(DESIGNS):
        layout = generate("fat-tree", switch="qm9700", levels=3, endpoints=256, catalog=catalog)
    else:
        layout = _rail_with(catalog, "parallel")
    for columns in (False, True):
        topo = _topology(layout, columns, monkeypatch)
        assert topo.domains == _domains_by_union_find(topo)
        if topo.sw_nics and max(topo.tier.values()) > 1:  # some leaves share a domain
            assert len(set(topo.domains[-1].values())) < len(topo.sw_nics)
