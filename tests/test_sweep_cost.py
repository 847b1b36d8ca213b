"""Cost columns of sweep results: the book travels with the spec, the figures are `cost`'s,
a bad `cost:` block is refused when the spec is read, and cost is an axis of the Pareto front."""

from __future__ import annotations

import textwrap

import pytest

from rackdesigner.cost import Assumptions, design_cost, parse_price_book
from rackdesigner.generators import generate
from rackdesigner.sweep import SweepSpecError, parse_spec, run_sweep
from rackdesigner.sweep.pareto import lower_is_better, pareto_front

BOOK = """\
schema_version: 1
currency: USD
date: 2025-01-01
sources: {s: {title: t}}
prices:
  dgx-b200: {price: 500000, source: s, date: 2025}
  qm9700: {price: 40000, source: s, date: 2025}
"""


def _spec(tmp_path, cost: str):
    (tmp_path / "book.yaml").write_text(BOOK)
    return parse_spec(textwrap.dedent(f"""\
        schema_version: 1
        generate: rail-optimized
        fixed: {{system: dgx-b200, switch: qm9700, nodes: 64}}
        grid: {{oversubscription: [1, 2]}}
        {cost}
        """), str(tmp_path / "spec.yaml"), tmp_path)


@pytest.mark.slow
def test_points_are_priced_with_the_spec_book_and_assumptions(tmp_path):
    spec = _spec(tmp_path, "cost: {prices: book.yaml, years: 4, kwh_price: 0.1}")
    assert spec.prices_text == BOOK
    result = run_sweep(spec, "synchronous")
    rows = result.rows
    assert [r["status"] for r in rows] == ["ok", "ok"]
    book = parse_price_book(BOOK, "b")
    for row, ratio in zip(rows, (1, 2), strict=True):
        layout = generate("rail-optimized", system="dgx-b200", switch="qm9700", nodes=64,
                          oversubscription=ratio)
        report = design_cost(layout, book, Assumptions(years=4, kwh_price=0.1))
        assert row["capex"] == pytest.approx(report.capex.total)
        assert row["tco"] == pytest.approx(report.tco, abs=0.01)
        assert row["capex_complete"] is False and row["unpriced_items"] > 0
    assert rows[1]["capex"] < rows[0]["capex"]  # four spines fewer


@pytest.mark.parametrize("cost, words", [
    ("cost: {prices: missing.yaml}", "no such file"),
    ("cost: {years: -1}", "years must be"),
    ("cost: {yeras: 3}", "has no option 'yeras'"),
    ("cost: 5", "'cost' must be a mapping"),
])
def test_a_bad_cost_block_is_refused_with_its_line(tmp_path, cost, words):
    with pytest.raises(SweepSpecError) as err:
        _spec(tmp_path, cost)
    assert ":5:" in str(err.value) and words in str(err.value)


def test_a_bad_book_is_refused_before_any_point_runs(tmp_path):
    (tmp_path / "bad.yaml").write_text(BOOK.replace("price: 40000", "price: -1"))
    with pytest.raises(SweepSpecError) as err:
        _spec(tmp_path, "cost: {prices: bad.yaml}")
    assert "bad.yaml:7: prices.qm9700.price: must not be negative" in str(err.value)


def test_cost_on_an_axis_gives_the_performance_per_dollar_front():
    assert lower_is_better("capex") and lower_is_better("usd_per_gpu_hour")
    assert not lower_is_better("tokens_per_usd")
    capex = [10.0, 12.0, 8.0, 15.0]
    busbw = [300.0, 350.0, 200.0, 340.0]
    front = pareto_front(capex, busbw, maximize_x=False, maximize_y=True)
    assert front == [2, 0, 1]  # the 15-for-340 point is beaten by 12-for-350
