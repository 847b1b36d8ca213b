"""`rackdesigner cost`: text and JSON, options, and bad input as located errors (exit 2)."""

from __future__ import annotations

import json

import pytest

from rackdesigner._resources import examples_dir
from rackdesigner.cli import main

NVL72 = str(examples_dir() / "gb200-nvl72.yaml")
TWO_NODE = str(examples_dir() / "dgx-h100-2node-ib.yaml")
BOOK = """\
schema_version: 1
currency: USD
date: 2025-01-01
sources: {s: {title: t}}
prices:
  dgx-h100: {price: 300000, source: s, date: 2025}
  qm9700: {price: 40000, source: s, date: 2025}
"""


def test_text_report_names_the_book_and_says_what_is_unpriced(capsys, tmp_path):
    assert main(["cost", TWO_NODE]) == 0
    out = capsys.readouterr().out
    assert "bundled example book" in out and "not quotes" in out
    assert "Capex        $" in out and "without a price" not in out  # all priced (#35)
    book = tmp_path / "b.yaml"
    book.write_text(BOOK)  # prices no racks
    assert main(["cost", TWO_NODE, "--prices", str(book)]) == 0
    out = capsys.readouterr().out
    assert "Capex        ≥ $" in out and "items without a price" in out
    assert "Without a price" in out and "rack-42u" in out
    assert "Per GPU-hour ≥ $" in out


def test_json_has_the_stable_keys_and_the_assumptions_given(capsys, tmp_path):
    book = tmp_path / "b.yaml"
    book.write_text(BOOK)
    assert main(["cost", TWO_NODE, "--prices", str(book), "--json", "--years", "3",
                 "--kwh-price", "0.12", "--pue", "1.2", "--utilisation", "0.5"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "rackdesigner.cost/1"
    for key in ("capex", "opex_per_year", "tco", "usd_per_gpu_hour", "breakdown", "unpriced",
                "complete", "cooling"):
        assert key in data
    assert data["capex"] == 640000
    assert data["assumptions"]["years"] == 3 and data["assumptions"]["kwh_price"] == 0.12
    assert data["assumptions"]["kwh_price_source"] == "set by the user"
    assert data["tco"] == pytest.approx(data["capex"] + 3 * data["opex_per_year"], abs=0.05)
    assert data["prices"]["origin"] == f"--prices {book}"


@pytest.mark.slow
def test_a_job_adds_days_dollars_and_tokens_per_dollar(capsys, tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text("model: llama3-8b\ntp: 8\ngbs: 72\n")
    assert main(["cost", NVL72, "--job", str(job), "--tokens", "1T", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["time_to_train_days"] > 0 and data["cost_to_train"] > 0
    assert data["tokens_per_usd"] > 0 and data["job"]["gpus"] == 72
    assert main(["cost", NVL72, "--job", str(job), "--tokens", "1T"]) == 0
    assert "Training     llama3-8b on 72 GPUs, 1T tokens:" in capsys.readouterr().out


@pytest.mark.parametrize("args, words", [
    (["--tokens", "1T"], "--tokens goes with --job"),
    (["--utilisation", "2"], "utilisation must be a number from 0 to 1"),
    (["--years", "0"], "years must be"),
    (["--prices", "/nonexistent/book.yaml"], "/nonexistent/book.yaml: no such file"),
])
def test_bad_options_exit_2_with_a_message(args, words, capsys):
    assert main(["cost", TWO_NODE, *args]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_a_bad_price_book_is_located_and_nothing_is_printed(capsys, tmp_path):
    book = tmp_path / "b.yaml"
    book.write_text(BOOK.replace("price: 40000", "price: -40000"))
    assert main(["cost", TWO_NODE, "--prices", str(book)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{book}:7: prices.qm9700.price: must not be negative" in captured.err


def test_ids_not_in_the_catalog_are_warned_about(capsys, tmp_path):
    book = tmp_path / "b.yaml"
    book.write_text(BOOK.replace("qm9700:", "qm9770:"))
    assert main(["cost", TWO_NODE, "--prices", str(book)]) == 0
    err = capsys.readouterr().err
    assert "warning:" in err and "qm9770" in err and "did you mean 'qm9700'" in err


def test_pack_embeds_a_price_book_that_cost_then_uses(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("RACKDESIGNER_PRICES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "nodata"))
    book = tmp_path / "b.yaml"
    book.write_text(BOOK)
    packed = tmp_path / "packed.yaml"
    assert main(["pack", TWO_NODE, "-o", str(packed), "--prices", str(book)]) == 0
    assert "and the price book" in capsys.readouterr().out
    assert main(["cost", str(packed), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["prices"]["origin"] == "embedded in the design" and data["capex"] == 640000
    bad = tmp_path / "bad.yaml"
    bad.write_text(BOOK.replace("currency: USD", "currency: USB"))
    again = tmp_path / "again.yaml"
    assert main(["pack", TWO_NODE, "-o", str(again), "--prices", str(bad)]) == 2
    assert "unknown currency 'USB'" in capsys.readouterr().err and not again.exists()


def test_a_job_without_tokens_is_worded_by_each_surface(capsys, tmp_path):
    from rackdesigner.cost import design_cost, find_price_book
    from rackdesigner.io import load_layout
    from rackdesigner.workload.jobfile import load_job

    job = tmp_path / "job.yaml"
    job.write_text("model: llama3-8b\ngpus: 72\ntp: 8\ngbs: 512\nmbs: 1\n")
    assert main(["cost", NVL72, "--job", str(job)]) == 2
    err = capsys.readouterr().err
    assert "--job: a training job needs the tokens to train: give --tokens (e.g. 15T)" in err
    layout = load_layout(NVL72)
    with pytest.raises(ValueError) as core:  # the core in the design's words, no option
        design_cost(layout, find_price_book(layout), job=load_job(str(job)))
    assert "tokens to train" in str(core.value) and "--" not in str(core.value)


def test_the_example_books_note_speaks_of_the_design_not_an_option():
    from rackdesigner.cost import design_cost, find_price_book
    from rackdesigner.io import load_layout

    layout = load_layout(TWO_NODE)
    notes = design_cost(layout, find_price_book(layout, None)).notes
    assert any("EXAMPLE book" in n for n in notes) and not any("--" in n for n in notes)


def test_one_unpriced_part_is_counted_in_the_singular(capsys, tmp_path):
    # a book pricing everything of the NVL72 example (its system and its CDU) but its one
    # rack: "1 item", never "1 items"
    book = tmp_path / "b.yaml"
    book.write_text(BOOK.replace("qm9700:", "gb200-nvl72:")
                    + "  supermicro-inrack-cdu: {price: 50000, source: s, date: 2025}\n")
    assert main(["cost", NVL72, "--prices", str(book)]) == 0
    out = capsys.readouterr().out
    assert "Without a price (1 item)" in out and "1 items" not in out
