"""The engine topology of a large design read from the link columns
(simulation/topology_columns.py) equals the plain per-link pass: every capacity map, in the same
key order with the same floats, and what the later stages derive from them (each GPU's NICs and
rail, switch tiers and capacities), on generated designs and on ones broken every way the rules
know (tests/test_linktable.py's)."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.model import index as index_module
from rackdesigner.model.index import DesignIndex
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
