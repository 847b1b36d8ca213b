"""Adding a collective is one vocabulary entry: the engine reads what a collective is (busbw
factor, ring shape, the NCCL algorithms that run it, what crosses the network) from its
`vocabulary.Collective` entry and never from its name.

The proof: collectives registered as data only — twins of the shipped ones under new names, and
an all_gather that only rings — get the curves, link loads, group figures and heat-map rates
their data says, and the engine's source spells no collective name in a condition.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import rackdesigner
from rackdesigner import vocabulary
from rackdesigner.io import load_layout
from rackdesigner.simulation import GroupCollectives, simulate
from rackdesigner.vocabulary import collectives as table_module

PACKAGE = Path(rackdesigner.__file__).resolve().parent
EXAMPLES = PACKAGE.parent / "resources" / "examples"
TWINS = {f"{name}_twin": name for name in vocabulary.COLLECTIVE_NAMES}
GiB = 2**30


@pytest.fixture
def registered(monkeypatch):
    """The shipped table plus collectives made of data alone, as `table()` builds it."""
    shipped = vocabulary.COLLECTIVES
    extra = [dataclasses.replace(shipped[base], name=name, label=name, color="#123456")
             for name, base in TWINS.items()]
    extra.append(dataclasses.replace(shipped["all_reduce"], name="ring_reduce",
                                     label="ring reduce", algorithms=("ring",)))
    extra.append(dataclasses.replace(shipped["all_reduce"], name="reduce_algbw",
                                     label="reduce (algbw)", busbw="1"))
    monkeypatch.setattr(table_module, "COLLECTIVES",
                        table_module.table(*shipped.values(), *extra))
    return table_module.COLLECTIVES


@pytest.fixture(scope="module")
def designs(catalog):
    return {name: load_layout(EXAMPLES / f"{name}.yaml", catalog)
            for name in ("dgx-h100-2node-ib", "gb200-nvl72", "fat-tree-2tier")}


def test_the_table_lists_entries_made_of_data_in_the_engine_order(registered):
    names = vocabulary.collective_names()
    assert set(TWINS) | {"ring_reduce", "reduce_algbw"} <= set(names)
    # point-to-point pairs come last, as the engine lists its curves
    assert names[-2:] == ("send_recv", "send_recv_twin")
    assert "send_recv_twin" not in vocabulary.collective_names(group_only=True)


@pytest.mark.parametrize("design", ["dgx-h100-2node-ib", "gb200-nvl72", "fat-tree-2tier"])
@pytest.mark.parametrize("sharp", [False, True])
def test_a_collective_registered_as_data_gets_its_twins_curves(registered, designs, design,
                                                               sharp):
    result = simulate(designs[design], sharp=sharp, loads_for=None)
    for twin, base in TWINS.items():
        assert result.collective(twin) == result.collective(base), twin
        assert result.collective(base), base
        assert result.latency.collective_small_us[twin] == \
            result.latency.collective_small_us[base]


def test_a_registered_collective_takes_the_algorithms_and_busbw_its_entry_lists(registered,
                                                                                designs):
    layout = designs["gb200-nvl72"]
    auto = simulate(layout, loads_for=None)
    ring = simulate(layout, algorithm="ring", loads_for=None)
    # on one NVL72 all_reduce runs NVLS; an all_reduce that lists only the ring rings
    assert {p.algorithm for p in auto.collective("all_reduce")} == {"nvls"}
    assert auto.collective("ring_reduce") == ring.collective("all_reduce")
    assert auto.collective("ring_reduce") != auto.collective("all_reduce")
    # forcing an algorithm the entry does not list falls back to what it lists, with a warning
    forced = simulate(layout, algorithm="nvls", loads_for=None)
    assert forced.collective("ring_reduce") == ring.collective("all_reduce")
    assert any("ring_reduce: algorithm nvls is not available" in w.text for w in forced.warnings())
    # nccl-tests' busbw factor is the entry's: "1" reports algbw
    for mine, theirs in zip(auto.collective("reduce_algbw"), auto.collective("all_reduce"),
                            strict=True):
        assert mine.time_us == theirs.time_us and mine.busbw_GBps == mine.algbw_GBps
        assert theirs.busbw_GBps == pytest.approx(theirs.algbw_GBps * 2 * 71 / 72)


def test_link_loads_and_group_figures_of_a_registered_collective(registered, designs):
    layout = designs["dgx-h100-2node-ib"]
    for twin in ("all_reduce_twin", "all_to_all_twin", "send_recv_twin"):
        base = TWINS[twin]
        mine = simulate(layout, loads_for=(twin, GiB)).link_loads
        theirs = simulate(layout, loads_for=(base, GiB)).link_loads
        assert mine is not None and theirs is not None
        assert (mine.pattern, mine.algorithm, mine.max_fabric_utilisation, mine.bytes) == \
            (theirs.pattern, theirs.algorithm, theirs.max_fabric_utilisation, theirs.bytes)
        assert mine.pattern is not None
    groups = GroupCollectives(layout)
    gpus = [d.id for d in layout.devices() if layout.spec(d.id).kind == "gpu"]
    for twin, base in TWINS.items():
        assert groups.point(gpus, twin, GiB) == groups.point(gpus, base, GiB)


def test_the_heat_maps_nvlink_rate_reads_the_entry(registered):
    from rackdesigner.analysis.jobheat import _nvlink_rate

    for twin, base in TWINS.items():
        for islands in (1, 2, 4):
            assert _nvlink_rate(twin, 100.0, 32, 8, islands) == \
                _nvlink_rate(base, 100.0, 32, 8, islands)


def test_table_refuses_an_entry_whose_fields_do_not_fit():
    base = vocabulary.COLLECTIVES["all_reduce"]
    for change, words in ((dict(busbw="n/2"), "busbw"), (dict(ring="spiral"), "ring"),
                          (dict(algorithms=("ring", "magic")), "algorithms"),
                          (dict(algorithms=("tree",)), "ring first"),
                          (dict(traffic="p2p"), "point-to-point"),
                          (dict(traffic="broadcast_storm"), "traffic")):
        with pytest.raises(ValueError, match=words):
            table_module.table(dataclasses.replace(base, name="bad", **change))


# ---- the engine never spells a collective's name in a condition ------------------------------

#: where what a collective is decides what happens: the simulation and what reads its traffic
ENGINE = ("simulation", "analysis", "workload")


def named_conditions(source: str, names: frozenset[str]) -> list[int]:
    """Lines of `source` where a comparison (==, !=, in, not in) or a match case names one of
    `names` as a string literal."""
    def literals(node: ast.AST) -> set[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return {v for elt in node.elts for v in literals(elt)}
        return set()

    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            if any(literals(x) & names for x in (node.left, *node.comparators)):
                lines.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and literals(node.value) & names:
            lines.append(node.lineno)
    return lines


def test_engine_code_decides_by_the_entry_never_by_a_collective_name():
    names = frozenset(vocabulary.COLLECTIVE_NAMES)
    offenders = []
    for folder in ENGINE:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            for line in named_conditions(path.read_text(encoding="utf-8"), names):
                offenders.append(f"{path.relative_to(PACKAGE)}:{line}")
    assert not offenders, ("read the collective's vocabulary entry instead of its name:\n"
                           + "\n".join(offenders))


def test_the_name_check_catches_what_it_is_for():
    names = frozenset(vocabulary.COLLECTIVE_NAMES)
    assert named_conditions('if coll == "all_reduce":\n    pass\n', names) == [1]
    assert named_conditions('x = c in ("broadcast", "reduce")\n', names) == [1]
    assert named_conditions('match c:\n    case "send_recv":\n        pass\n', names) == [2]
    assert named_conditions('x = point_at(curves["all_reduce"], 8)\n', names) == []
