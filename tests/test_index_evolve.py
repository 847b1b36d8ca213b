"""A state's derived index evolved from the previous state's equals one derived from nothing.

The random designer (tests/random_edits.py) adds systems, wires, removes, moves, re-racks,
regroups, pastes, undoes and redoes; after every step the document's index — derived from the
index of the state before by what changed (each facet's `evolved` form, `model/facets/`) — is
compared with an index of the same state computed from nothing, facet by facet.
"""

from __future__ import annotations

import pytest
from random_edits import RandomDesigner

from rackdesigner.model.facets import connectivity as connectivity_facet
from rackdesigner.model.index import DesignIndex

pytestmark = pytest.mark.slow  # large designs or many random edits


def _groups(mapping: dict[str, str]) -> set[frozenset[str]]:
    by: dict[str, set[str]] = {}
    for key, root in mapping.items():
        by.setdefault(root, set()).add(key)
    return {frozenset(v) for v in by.values()}


def _facets(index: DesignIndex) -> dict:
    conn = index.connectivity()
    return {
        "carried": index.carried(),
        "rejected": index.rejected(),
        "islands": _groups(conn.island_of),
        "nvlink": _groups(conn.nvlink_domain_of),
        "components": _groups(conn.component_of),
        "gpus": conn.gpus,
        "nic_reach": index.nic_reach(),
        "racks": index.rack_occupancy(),
        "models": index.models(),
        "counts": index.counts(),
        "reach": index.reachability(),
    }


@pytest.mark.parametrize("seed", [3, 11])
def test_an_evolved_index_equals_one_derived_from_nothing(catalog, seed, monkeypatch):
    evolved = []
    real = connectivity_facet.connectivity_evolved

    def counted(*args):
        evolved.append(1)
        return real(*args)

    monkeypatch.setattr(connectivity_facet, "connectivity_evolved", counted)
    designer = RandomDesigner(catalog, seed, check_every=40, max_devices=150)
    layout = designer.layout
    for _ in range(160):
        designer.step()
        index = layout.index()
        got = _facets(index)  # computes every facet: the next state evolves from all of them
        want = _facets(DesignIndex(layout.state, catalog))
        for name in want:
            assert got[name] == want[name], name
        state = layout.state  # the link list made from the previous one's, too
        assert state.link_list() == tuple(state.links[i] for i in state.link_order)
    assert len(evolved) > 60  # most steps evolved their index instead of deriving it anew
