"""The whole bill (#35): facility, PUE by cooling, rent against buy, cost of capital,
sensitivity, and the price book's new sections refused when wrong."""

from __future__ import annotations

import json

import pytest

from rackdesigner.cli import main
from rackdesigner.cost import Assumptions, PriceBookError, design_cost, parse_price_book
from rackdesigner.cost.facility import PUE_AIR, PUE_LIQUID
from rackdesigner.cost.locate import example_book_path, read_price_book
from rackdesigner.cost.sensitivity import sensitivity, winner_changes
from rackdesigner.generators import default_catalog, generate


@pytest.fixture(scope="module")
def book():
    return read_price_book(example_book_path(), default_catalog())


@pytest.fixture(scope="module")
def dgx():
    return generate("superpod", default_catalog(), system="dgx-b200", sus=1)


@pytest.fixture(scope="module")
def nvl72():
    return generate("superpod", default_catalog(), system="gb200-nvl72", racks=4)


def test_pue_follows_the_cooling_mix_and_the_users_pue_wins(book, dgx, nvl72):
    air = design_cost(dgx, book)
    liquid = design_cost(nvl72, book)
    assert air.assumptions.pue == pytest.approx(PUE_AIR)  # all heat to air
    assert PUE_LIQUID < liquid.assumptions.pue < PUE_AIR  # mostly liquid: lower PUE
    assert "cooling mix" in liquid.to_json()["assumptions"]["pue_why"]
    mine = design_cost(nvl72, book, Assumptions(pue=1.5))
    assert mine.assumptions.pue == 1.5
    assert mine.to_json()["assumptions"]["pue_why"].startswith("set by the user")
    assert mine.energy_per_year > liquid.energy_per_year


def test_facility_build_by_cooling_and_colocation(book, dgx, nvl72):
    air = design_cost(dgx, book).facility
    liquid = design_cost(nvl72, book).facility
    assert air.basis == "build" and air.cooling == "air"
    assert liquid.cooling == "hybrid"  # NVL72: liquid plus the air-cooled rest
    assert liquid.usd_per_mw_it > air.usd_per_mw_it  # liquid-cooled halls cost more per MW
    assert air.capex == pytest.approx(air.usd_per_mw_it * air.it_kw / 1000)
    colo = design_cost(dgx, book, Assumptions(facility="colocation"))
    assert colo.facility.basis == "colocation"
    assert colo.facility.per_year == pytest.approx(colo.facility.usd_per_kw_month * 12
                                                   * colo.facility.it_kw)
    none = design_cost(dgx, book, Assumptions(facility="none"))
    assert none.facility is None
    # a building is a cost: with it the TCO and $/GPU-hour only go up
    with_it = design_cost(dgx, book)
    assert with_it.tco > none.tco and colo.tco > none.tco
    data = with_it.to_json()["facility"]
    assert {"basis", "usd_per_mw_it", "capex", "source"} <= set(data)


def test_cost_of_capital_only_raises_the_bill(book, dgx):
    plain = design_cost(dgx, book)
    rates = [design_cost(dgx, book, Assumptions(capital_rate=r)) for r in (0.0, 0.05, 0.1)]
    assert rates[0].tco == pytest.approx(plain.tco)
    assert plain.tco < rates[1].tco < rates[2].tco
    assert rates[2].capital_charge > rates[2].capex.total


def test_rent_against_buy(book, dgx):
    report = design_cost(dgx, book)
    rent = report.to_json()["rent_vs_buy"]
    assert rent["cloud_usd_per_gpu_hour"] == book.cloud["b200"].unit
    assert rent["rent_total"] == pytest.approx(report.gpus * 5 * 8766
                                               * book.cloud["b200"].unit, rel=1e-6)
    assert rent["breakeven_months"] > 0
    # a dearer cloud pays the purchase back sooner
    import dataclasses

    dear = dataclasses.replace(book, cloud={"b200": dataclasses.replace(
        book.cloud["b200"], unit=2 * book.cloud["b200"].unit)})
    sooner = design_cost(dgx, dear).to_json()["rent_vs_buy"]["breakeven_months"]
    assert sooner < rent["breakeven_months"]


def test_sensitivity_moves_the_figure_the_way_physics_says(book, dgx):
    report = design_cost(dgx, book)
    rows = {r.factor: r for r in sensitivity(report).rows}
    assert set(rows) == {"gpu_price", "network_price", "kwh_price", "pue", "utilisation",
                         "years"}
    base = report.usd_per_gpu_hour
    for factor in ("gpu_price", "network_price", "kwh_price", "pue"):  # dearer: worse
        assert rows[factor].low < base < rows[factor].high, factor
    assert rows["years"].low > base > rows["years"].high  # longer life: cheaper per hour
    swings = [r.swing for r in sensitivity(report).rows]
    assert swings == sorted(swings, reverse=True)


def test_compare_says_whether_the_winner_holds(book, dgx, nvl72):
    a, b = design_cost(dgx, book), design_cost(nvl72, book)
    result = winner_changes([a, b])
    cheaper = min((0, 1), key=lambda i: (a, b)[i].usd_per_gpu_hour)
    assert result["base_winner"] == cheaper  # the design that is cheaper per GPU-hour
    assert isinstance(result["robust"], bool)


def test_cli_sensitivity_text_and_json(capsys, tmp_path, dgx):
    from rackdesigner.io import save_layout

    path = tmp_path / "d.yaml"
    save_layout(dgx, path)
    assert main(["cost", str(path), "--sensitivity", "--capital-rate", "0.08",
                 "--facility", "colocation"]) == 0
    out = capsys.readouterr().out
    assert "Sensitivity of $/GPU-hour" in out and "Facility     colocation" in out
    assert "Rent " in out and "Capital      8 %/year" in out
    assert main(["cost", str(path), "--sensitivity", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["sensitivity"]["rows"]) == 6 and data["complete"] is True


GOOD = """\
schema_version: 1
currency: USD
date: 2025-01-01
sources: {s: {title: a source}}
prices:
  qm9700: {price: 40000, source: s, date: 2025}
"""


@pytest.mark.parametrize(("extra", "message"), [
    ("  dgx-h100: {price: -1, source: s, date: 2025}\n", "must not be negative"),
    ("  dgx-h100: {price: .nan, source: s, date: 2025}\n", "finite"),
    ("  dgx-h100: {price: 1, source: s, date: 2025, basis: derived}\n", "method"),
    ("  dgx-h100: {price: 1, source: s, date: 2025, basis: guess}\n", "basis"),
    ("cloud:\n  h100-sxm9: {price: 2, source: s, date: 2025}\n", "not a GPU of the catalog"),
    ("facility:\n  basis: rent\n", "build or colocation"),
])
def test_bad_books_are_refused_with_the_line(extra, message):
    text = GOOD + extra
    catalog = default_catalog()
    with pytest.raises(PriceBookError) as err:
        parse_price_book(text, "b.yaml", known=catalog.__contains__,
                         gpus=[s.id for s in catalog.of_kind("gpu")])
    assert message in str(err.value)
    assert str(err.value).startswith("b.yaml:") and str(err.value)[7].isdigit()


def test_a_bad_book_on_the_command_line_is_exit_2_and_nothing_printed(capsys, tmp_path):
    from rackdesigner._resources import examples_dir

    book = tmp_path / "b.yaml"
    book.write_text(GOOD + "cloud:\n  h100-sxm9: {price: 2, source: s, date: 2025}\n")
    code = main(["cost", str(examples_dir() / "dgx-h100.yaml"), "--prices", str(book)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert f"{book}:" in captured.err and "Traceback" not in captured.err


def test_compare_has_pue_facility_and_rent_rows(capsys):
    from rackdesigner._resources import examples_dir

    air = str(examples_dir() / "dgx-h100-2node-ib.yaml")
    liquid = str(examples_dir() / "gb200-nvl72.yaml")
    assert main(["compare", air, liquid, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {r["key"]: r for r in data["rows"]}
    assert rows["pue"]["values"][0] > rows["pue"]["values"][1]  # liquid-cooled: lower PUE
    assert all(v > 0 for v in rows["facility"]["values"])
    assert rows["rent_equivalent"]["values"] == [3.0, 4.54]  # the book's H100 and GB200 prices
    assert data["sensitivity"]["base_winner"] in (0, 1)
    assert isinstance(data["sensitivity"]["robust"], bool)


def test_sweep_points_carry_pue_facility_and_rent(book, dgx, nvl72):
    from types import SimpleNamespace

    from rackdesigner.sweep.cost import COST_COLUMNS, cost_columns

    assert {"pue", "facility", "rent_usd_per_gpu_hour", "breakeven_months"} <= set(COST_COLUMNS)
    spec = SimpleNamespace(prices_text=None, prices_label="", cost=())
    air, liquid = cost_columns(dgx, spec, None), cost_columns(nvl72, spec, None)
    assert air["pue"] > liquid["pue"]
    assert air["facility"] == pytest.approx(design_cost(dgx, book).facility_charge, abs=0.01)
    assert air["rent_usd_per_gpu_hour"] == book.cloud["b200"].unit
    assert air["breakeven_months"] > 0


def test_the_tokens_per_dollar_winner_is_checked_too(book, dgx, nvl72):
    """With a training job, compare's sensitivity also asks who trains the most tokens per $;
    a design twice as fast at the same $/GPU-hour stays the winner at every ±20 % end."""
    import dataclasses

    from rackdesigner.cost.report import Training

    a = design_cost(dgx, book)
    slow = Training("m", a.gpus, 1e12, 1000.0, 1.0, 1e6, True)
    fast = dataclasses.replace(slow, tokens_per_s=2000.0)
    result = winner_changes([dataclasses.replace(a, training=slow),
                             dataclasses.replace(a, training=fast)])
    assert result["per_token"]["base_winner"] == 1 and result["per_token"]["robust"]
    assert "per_token" not in winner_changes([a, design_cost(nvl72, book)])


def test_derived_lines_carry_their_method(book):
    layout = generate("superpod", default_catalog(), system="dgx-h200", sus=1)
    lines = design_cost(layout, book).to_json()["lines"]
    dgx = next(line for line in lines if line["model"] == "dgx-h200")
    assert dgx["basis"] == "derived" and dgx["method"] == book.price("dgx-h200").method
    plain = next(line for line in lines if line["model"] == "qm9700")
    assert "method" not in plain  # a retail listing needs no method
