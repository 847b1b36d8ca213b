"""The compiled minimum cut (scipy) gives the same cut as networkx's on fabric-like graphs."""

from __future__ import annotations

import random

import pytest

from rackdesigner.simulation.maxflow import _min_cut_networkx, min_cut


def _fabric(seed: int) -> dict:
    """Two sides of islands on leaves, leaves on spines; symmetric float capacities."""
    rng = random.Random(seed)
    arcs: dict = {"A": {}}
    leaves = [f"leaf{i}" for i in range(rng.randint(2, 8))]
    spines = [f"spine{i}" for i in range(rng.randint(1, 4))]

    def add(u, v, cap):
        for x, y in ((u, v), (v, u)):
            arcs.setdefault(x, {})
            arcs[x][y] = arcs[x].get(y, 0.0) + cap

    for i in range(rng.randint(2, 12)):
        node = f"island{i}"
        for leaf in rng.sample(leaves, rng.randint(1, len(leaves))):
            add(node, leaf, rng.choice((48.0, 50.0, 25.0, 12.5)) * rng.randint(1, 8))
        if i % 2:
            arcs["A"][node] = None
        else:
            arcs.setdefault(node, {})["B"] = None
    for leaf in leaves:
        for spine in spines:
            if rng.random() < 0.8:
                add(leaf, spine, 400.0 * rng.random())
    return arcs


@pytest.mark.parametrize("seed", range(12))
def test_min_cut_matches_networkx(seed):
    arcs = _fabric(seed)
    value, reach = min_cut(arcs, "A", "B")
    ref_value, ref_reach = _min_cut_networkx(arcs, "A", "B")
    assert value == pytest.approx(ref_value, rel=1e-9, abs=1e-6)
    assert reach == ref_reach


def test_an_unbounded_arc_never_cuts_and_a_missing_sink_gives_zero():
    arcs = {"A": {"x": None}, "x": {"y": 5.0}, "y": {"x": 5.0, "B": None}}
    assert min_cut(arcs, "A", "B") == (5.0, {"A", "x"})
    assert min_cut({"A": {"x": 1.0}}, "A", "B")[0] == 0.0
