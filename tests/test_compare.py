"""`rackdesigner compare` and the comparison table: the winner of each row, lower bounds, and
the figures agree with `simulate` and `cost`."""

from __future__ import annotations

import csv
import io
import json

import pytest

from rackdesigner.cli import main
from rackdesigner.cost import Assumptions, parse_price_book
from rackdesigner.cost.compare import Comparison, Row, compare, figures
from rackdesigner.generators import generate

BOOK = parse_price_book("""\
schema_version: 1
currency: USD
date: 2025-01-01
sources: {s: {title: t}}
prices:
  dgx-b200: {price: 500000, source: s, date: 2025}
  qm9700: {price: 40000, source: s, date: 2025}
  rack-42u: {price: 2000, source: s, date: 2025}
  fiber-mm-ndr: {per_m: 5, fixed: 100, source: s, date: 2025}
  mma4z00-ns: {price: 1000, source: s, date: 2025}
  mma4z00-ns400: {price: 600, source: s, date: 2025}
""", "book.yaml")


@pytest.fixture(scope="module")
def tapered():
    """The same 4 SUs of DGX B200 on a 1:1 and on a 2:1 rail-optimized fabric."""
    a = Assumptions()
    full = generate("rail-optimized", system="dgx-b200", nodes=128, switch="qm9700")
    half = generate("rail-optimized", system="dgx-b200", nodes=128, switch="qm9700",
                    oversubscription=2)
    return compare([figures("1:1", full, BOOK, a), figures("2:1", half, BOOK, a)])


def _row(table, key):
    return next(r for r in table.rows if r.key == key)


@pytest.mark.slow
def test_a_tapered_fabric_loses_bisection_and_all_to_all_and_costs_less(tapered):
    assert _row(tapered, "bisection_GBps").values[1] == pytest.approx(
        _row(tapered, "bisection_GBps").values[0] / 2)
    assert _row(tapered, "bisection_GBps").winner == 0
    a2a = _row(tapered, "all_to_all_busbw_GBps")
    assert a2a.values[1] < 0.9 * a2a.values[0] and a2a.winner == 0
    ar = _row(tapered, "all_reduce_busbw_GBps")
    assert ar.winner is None  # rail-local: within 0.5 %, a tie
    assert _row(tapered, "switches").values == (48, 40)
    capex = _row(tapered, "capex")
    assert capex.winner == 1 and capex.certain  # every part priced: a sure winner
    assert _row(tapered, "gpus").winner is None  # describes, does not rank


def test_lower_bounds_win_only_maybe():
    row = Row("capex", "capex", "", "low", (10.0, 12.0), (True, False), money=True)
    assert row.winner == 0 and not row.certain
    exact = Row("capex", "capex", "", "low", (10.0, 12.0), (False, True), money=True)
    assert exact.winner == 0 and exact.certain
    tie = Row("busbw", "busbw", "GB/s", "high", (100.0, 100.2), (False, False))
    assert tie.winner is None


def test_the_csv_keeps_the_lower_bound_flags_the_json_has():
    rows = (Row("capex", "capex", "", "low", (10.0, 12.0), (True, False), money=True),
            Row("busbw", "busbw", "GB/s", "high", (100.0, 150.0), (False, False)))
    table = Comparison(("a", "b"), rows, "USD", "$", 1 << 30)
    data = {r["key"]: r for r in table.to_json()["rows"]}
    read = {r["metric"]: r for r in csv.DictReader(io.StringIO(table.to_csv()))}
    for key in ("capex", "busbw"):
        flags = [read[key][f"{d} lower_bound"] == "yes" for d in ("a", "b")]
        assert flags == data[key]["lower_bound"]
        assert read[key]["winner_certain"] == ("yes" if data[key]["winner_certain"] else "no")
    assert read["capex"]["winner"] == "a" and read["capex"]["winner_certain"] == "no"


@pytest.mark.slow
def test_text_json_and_csv_agree(tapered):
    text = tapered.format_table()
    assert "✓" in text and "1:1" in text and "2:1" in text
    data = tapered.to_json()
    assert data["schema"] == "rackdesigner.compare/1" and data["designs"] == ["1:1", "2:1"]
    rows = list(csv.DictReader(io.StringIO(tapered.to_csv())))
    by_key = {r["metric"]: r for r in rows}
    assert by_key["bisection_GBps"]["winner"] == "1:1"
    assert by_key["capex"]["winner"] == "2:1" and by_key["capex"]["unit"] == "USD"
    for row in data["rows"]:
        assert float(by_key[row["key"]]["1:1"] or 0) == pytest.approx(row["values"][0] or 0,
                                                                      abs=1e-3)


@pytest.mark.slow
def test_the_cli_compares_files_with_a_job(tmp_path, capsys):
    a, b = tmp_path / "nvl72.yaml", tmp_path / "b200.yaml"
    assert main(["generate", "nvl72", "-o", str(a)]) == 0
    assert main(["generate", "superpod", "--system", "dgx-b200", "--nodes", "9", "-o",
                 str(b)]) == 0
    job = tmp_path / "job.yaml"
    job.write_text("model: llama3-8b\ngpus: 72\ntp: 8\ngbs: 72\n")
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--job", str(job), "--tokens", "100B",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    keys = [r["key"] for r in data["rows"]]
    assert {"tokens_per_s", "time_to_train_days", "cost_to_train", "tokens_per_usd"} <= set(keys)
    assert data["designs"] == ["nvl72", "b200"]
    assert main(["compare", str(a), str(b), "--csv"]) == 0
    assert capsys.readouterr().out.startswith("metric,unit,better,nvl72,b200,winner")


@pytest.mark.parametrize("args, words", [
    (["ONE"], "two or more design files"),
    (["ONE", "ONE", "--size", "3M"], "--size: the busbw table has powers of two"),
    (["ONE", "ONE", "--tokens", "1T"], "--tokens goes with --job"),
    (["ONE", "/nonexistent.yaml"], "/nonexistent.yaml"),
])
def test_bad_compare_input_exits_2(args, words, tmp_path, capsys):
    one = tmp_path / "one.yaml"
    main(["generate", "dgx-h100", "-o", str(one)])
    capsys.readouterr()
    assert main(["compare", *[str(one) if x == "ONE" else x for x in args]]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_bom_has_price_columns_and_a_total(tmp_path, capsys):
    from rackdesigner._resources import examples_dir

    path = str(examples_dir() / "dgx-h100-2node-ib.yaml")
    assert main(["bom", path]) == 0
    out = capsys.readouterr().out
    assert "UNIT PRICE" in out and "$270,000" in out and "$540,000" in out
    assert "Total $577,760" in out and "without a price" not in out  # all priced (#35)
    assert main(["bom", path, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    dgx = next(r for r in rows if r["model"] == "dgx-h100")
    assert (dgx["unit_price"], dgx["total"], dgx["currency"]) == ("270000.0", "540000.0", "USD")
    assert dgx["price_source"] == "epoch-cost-trends"
    gpu = next(r for r in rows if r["model"] == "h100-sxm5")
    assert gpu["total"] == ""  # the GPUs come with the DGX: nothing to buy
    assert main(["bom", path, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["prices"]["capex"] == 577760 and data["prices"]["unpriced_items"] == 0
    assert main(["bom", path, "--no-prices"]) == 0
    assert "UNIT PRICE" not in capsys.readouterr().out


@pytest.mark.slow
def test_compare_runs_on_every_bundled_example_and_reference_design(tmp_path, capsys):
    from rackdesigner._resources import example_paths
    from rackdesigner.io import save_layout

    files = [str(p) for p in example_paths()]
    for name, (template, options) in {
            "superpod-h100": ("superpod", {"system": "dgx-h100", "sus": 1}),
            "superpod-nvl72": ("superpod", {"system": "gb200-nvl72", "racks": 2}),
            "spectrum-x": ("superpod", {"system": "dgx-b200", "sus": 1, "switch": "sn5600"}),
            "fat-tree": ("fat-tree", {"switch": "qm9700", "levels": 2, "endpoints": 64}),
            "rail-2to1": ("rail-optimized", {"system": "dgx-h100", "nodes": 8,
                                             "switch": "qm9700", "oversubscription": 2}),
    }.items():
        path = tmp_path / f"{name}.yaml"
        save_layout(generate(template, **options), path)
        files.append(str(path))
    assert main(["compare", *files, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["designs"]) == len(files)
    capex = next(r for r in data["rows"] if r["key"] == "capex")
    assert all(v is not None and v >= 0 for v in capex["values"])
