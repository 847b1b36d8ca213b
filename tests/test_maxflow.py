"""The minimum cut (simulation/maxflow.py, Dinic) gives the same cut as networkx's on fabric-like
graphs."""

from __future__ import annotations

import random

import pytest

from rackdesigner.simulation.maxflow import min_cut


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


def _min_cut_networkx(arcs: dict, source: str, sink: str) -> tuple[float, set]:
    import networkx as nx

    graph = nx.DiGraph()
    for u, heads in arcs.items():
        for v, cap in heads.items():
            if cap is None:
                graph.add_edge(u, v)
            else:
                graph.add_edge(u, v, capacity=cap)
    value, (reach, _) = nx.minimum_cut(graph, source, sink, capacity="capacity")
    return float(value), set(reach)


@pytest.mark.parametrize("seed", range(40))
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


def test_parallel_paths_of_different_lengths_all_count():
    """Dinic's later phases find the longer paths: the cut is the sum of both routes."""
    arcs = {"A": {"x": None}, "x": {"B": 3.0, "y": 4.0}, "y": {"z": 4.0}, "z": {"B": 2.5}}
    assert min_cut(arcs, "A", "B") == (5.5, {"A", "x", "y", "z"})


def test_simulate_imports_no_scipy():
    """scipy is no dependency any more (issue 26 §19): a bisection runs without it."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['scipy'] = None\n"
            "from rackdesigner.generators import generate\n"
            "from rackdesigner.simulation import simulate\n"
            "r = simulate(generate('superpod', system='dgx-h100', sus=1))\n"
            "print(r.bandwidth.bisection_GBps > 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
