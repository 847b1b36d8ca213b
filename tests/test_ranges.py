"""Figures with honest ranges (issue 33, item 4): each collective figure carries the spread
published runs of its class show on the validation set, in `simulate` (text and JSON), the
panel's headline and `compare`, where a winner inside the other design's range is a tie."""

from __future__ import annotations

import pytest
from script_module import script_module

from rackdesigner.cli import main
from rackdesigner.cost import Assumptions, parse_price_book
from rackdesigner.cost.compare import Row, compare, figures
from rackdesigner.generators import generate
from rackdesigner.simulation import ranges, simulate
from rackdesigner.simulation.ranges import FigureRange, collective_class

GiB = 2**30


@pytest.fixture(scope="module")
def table():
    with script_module("published_vs_model") as pvm:
        runs = pvm.load_table(pvm.TABLE)
        rows = pvm.compare_runs([r for r in runs if r.data["set"] == "validation"])
        yield pvm, runs, rows


def _class(row) -> str:
    return collective_class(row.algorithm.split("/")[0], row.domains or 1,
                            row.run.data["size_bytes"], row.transport)


def _range(row, spread) -> FigureRange | None:
    if spread is None or spread.runs < ranges.MIN_RUNS:
        return None
    if row.run.compare == "time_us":
        return FigureRange(spread.name, row.simulated / spread.hi, row.simulated / spread.lo,
                           spread.runs)
    return FigureRange(spread.name, row.simulated * spread.lo, row.simulated * spread.hi,
                       spread.runs)


def test_the_shipped_spreads_are_what_the_validation_runs_give(table):
    pvm, runs, _ = table
    derived = pvm.derive_ranges(runs)
    shipped = ranges.spreads()
    assert set(shipped) == set(derived)
    for name, spread in derived.items():
        assert shipped[name].runs == spread.runs, name
        assert shipped[name].lo == pytest.approx(spread.lo, abs=5e-4), name
        assert shipped[name].hi == pytest.approx(spread.hi, abs=5e-4), name


def test_published_values_fall_inside_the_tool_range_in_80_percent_of_validation_rows(table):
    _, _, rows = table
    shipped = ranges.spreads()
    compared = [r for r in rows if r.simulated is not None]
    inside = 0
    for row in compared:
        spread = _range(row, shipped.get(_class(row)))
        if spread is not None and spread.lo * 0.9995 <= row.run.published <= spread.hi * 1.0005:
            inside += 1
    assert len(compared) >= 70
    assert inside / len(compared) >= 0.80, (inside, len(compared))


def test_ranges_hold_out_of_sample_leaving_each_run_out(table):
    """The honest check: each validation run against the range of its class derived from the
    OTHER runs of that class (a class spread is only worth showing if it predicts)."""
    _, _, rows = table
    compared = [r for r in rows if r.simulated is not None]
    inside = 0
    for row in compared:
        others = [(_class(o), o.ratio) for o in compared if o is not row]
        spread = ranges.derive_spreads(others).get(_class(row))
        got = _range(row, spread)
        if got is not None and got.lo <= row.run.published <= got.hi:
            inside += 1
    assert inside / len(compared) >= 0.70, (inside, len(compared))


def test_simulate_json_gives_large_points_a_range_and_class():
    layout = generate("rail-optimized", system="dgx-h100", nodes=16, switch="qm9700")
    doc = simulate(layout, loads_for=None).to_dict()
    big = [p for p in doc["collectives"]["all_reduce"] if p["bytes"] >= 128 << 20]
    assert big and all("range" in p and p["class"] in ranges.LABELS for p in big)
    for p in big:
        lo, hi = p["range"]
        assert 0 < lo < hi
        # the spread of the class, around the model's own figure
        assert lo < p["busbw_GBps"] * 1.2 and hi > p["busbw_GBps"] * 0.8
        t_lo, t_hi = p["time_range_us"]
        assert t_lo < t_hi
    # the latency region has too few validation runs: no range is claimed
    assert all("range" not in p for p in doc["collectives"]["all_reduce"] if p["bytes"] < 1024)


def test_simulate_text_states_the_headline_range(tmp_path, capsys):
    from rackdesigner.io.writer import save_layout

    path = tmp_path / "h.yaml"
    save_layout(generate("rail-optimized", system="dgx-h100", nodes=16, switch="qm9700"), path)
    assert main(["simulate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "busbw at 1 GiB:" in out and "published clusters of this class" in out


def test_the_panel_headline_tile_shows_the_range():
    from rackdesigner.ui.panel.figures import headline

    layout = generate("rail-optimized", system="dgx-b200", nodes=8, switch="qm9700")
    result = simulate(layout, loads_for=None)
    tile = next(f for f in headline(result) if f.key == "busbw")
    spread = result.ranges(result.point_at("all_reduce", GiB))[0]
    assert spread is not None
    assert f"published {spread.lo:,.0f}–{spread.hi:,.0f}" in tile.detail
    assert "published clusters of this class" in tile.explain


def _row(values, spreads):
    return Row("x", "x", "GB/s", "high", tuple(values), (False,) * len(values), False,
               tuple(spreads))


def test_a_winner_inside_the_other_range_is_a_tie_and_outside_it_wins():
    near = _row((330.0, 345.0), (FigureRange("ring-across-domains", 307, 350, 11),
                                 FigureRange("ring-across-domains", 321, 353, 11)))
    assert near.best == 1 and near.winner is None and near.range_tie
    far = _row((250.0, 345.0), (FigureRange("ring-across-domains", 232, 256, 11),
                                FigureRange("ring-across-domains", 321, 353, 11)))
    assert far.winner == 1 and not far.range_tie
    plain = Row("x", "x", "GB/s", "high", (250.0, 345.0), (False, False))  # no ranges
    assert plain.winner == 1


def test_compare_marks_range_ties_in_text_and_json():
    book = parse_price_book("""\
schema_version: 1
currency: USD
date: 2025-01-01
sources: {s: {title: t}}
prices: {}
""", "book.yaml")
    a = Assumptions()
    # 8 and 16 nodes of DGX B200: their all_reduce figures differ by less than the spread of
    # their class, so neither wins; all_to_all across twice the nodes loses more than that
    small = generate("rail-optimized", system="dgx-b200", nodes=8, switch="qm9700")
    large = generate("rail-optimized", system="dgx-b200", nodes=16, switch="qm9700")
    table = compare([figures("8", small, book, a), figures("16", large, book, a)])
    row = next(r for r in table.rows if r.key == "all_reduce_busbw_GBps")
    assert all(r is not None for r in row.ranges)
    doc = table.to_json()
    jrow = next(r for r in doc["rows"] if r["key"] == "all_reduce_busbw_GBps")
    assert [r["class"] for r in jrow["ranges"]] == [r.cls for r in row.ranges]
    assert jrow["range_tie"] is True and jrow["winner"] is None
    assert row.best is not None  # without ranges it would have had a winner
    assert "≈" in table.format_table()
