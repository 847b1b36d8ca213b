"""Numbers and dates from a file (issue 31, items 7 and 8): bounded at the reader, never
`Infinity` in JSON, never a traceback.

A price of 1e308 printed `$inf` and made `cost --json` / `bom --format json` write `Infinity`;
a site of 1e306 kW validated and 1e-300 kW printed a 300-digit percentage; `2025-02-30` in a
price book was a traceback. Each is now a located refusal (file:line: key), exit 2. Every JSON
writer goes through `rackdesigner.io.jsonout.json_text` (a source scan keeps it so).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from rackdesigner.cli import main
from rackdesigner.cost.pricebook import MAX_AMOUNT
from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.io.jsonout import NonFiniteError, json_text
from rackdesigner.model.items import RACK_W_MAX, RACK_W_MIN, SITE_KW_MAX, SITE_KW_MIN

BOOK = """\
schema_version: 1
name: hostile numbers
currency: USD
date: {date}
sources:
  s: {{title: a source, date: 2026-01-01}}
prices:
  dgx-h100: {{price: {price}, source: s, date: 2026-01-01, basis: list}}
"""


@pytest.fixture(scope="module")
def design(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("numbers") / "dgx.yaml"
    save_layout(generate("dgx-h100"), path)
    return path


def _book(tmp_path: Path, price: str = "270000", date: str = "2026-12-01") -> Path:
    path = tmp_path / "book.yaml"
    path.write_text(BOOK.format(price=price, date=date))
    return path


def _line(path: Path, needle: str) -> int:
    return next(n for n, text in enumerate(path.read_text().splitlines(), 1) if needle in text)


@pytest.mark.parametrize("price", ["1.0e+308", "1.0e+13", "1.7976931348623157e+308"])
@pytest.mark.parametrize("verb", [["cost", "--json"], ["bom", "--format", "json", "--prices"],
                                  ["cost"]])
def test_a_price_past_the_bound_is_a_located_error(design, tmp_path, capsys, price, verb):
    book = _book(tmp_path, price=price)
    args = [verb[0], str(design), *verb[1:]]
    args += [str(book)] if args[-1] == "--prices" else ["--prices", str(book)]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert "Infinity" not in out and "inf" not in out
    assert err.startswith(f"rackdesigner: error: {book}:{_line(book, 'dgx-h100')}:")
    assert "must be at most" in err


def test_the_largest_price_allowed_still_writes_standard_json(design, tmp_path, capsys):
    book = _book(tmp_path, price=f"{MAX_AMOUNT:.1e}")
    assert main(["cost", str(design), "--json", "--prices", str(book)]) == 0
    doc = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(c))
    assert math.isfinite(doc["capex"]["total"]) if isinstance(doc.get("capex"), dict) else doc


@pytest.mark.parametrize("kw", ["1.0e+306", "1.0e-300", f"{SITE_KW_MAX * 10:.1f}",
                                f"{SITE_KW_MIN / 10:.5f}"])
def test_a_site_past_its_bounds_is_a_located_error(tmp_path, capsys, kw):
    path = tmp_path / "site.yaml"
    path.write_text(f"schema_version: 1\nname: x\nsite: {{power_kw: {kw}}}\ndevices: []\n")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3: site: 'power_kw' must be from" in err


def test_a_site_inside_its_bounds_reads(tmp_path, capsys):
    for kw in (SITE_KW_MIN, 5000.0, SITE_KW_MAX):
        path = tmp_path / "site.yaml"
        path.write_text(f"schema_version: 1\nname: x\nsite: {{power_kw: {kw!r}}}\ndevices: []\n")
        assert main(["validate", str(path)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("key", ["power_budget_w", "air_cooling_w"])
@pytest.mark.parametrize("watts", ["1.0e-300", "1.0e+300", f"{RACK_W_MIN / 2:.1f}",
                                   f"{RACK_W_MAX * 2:.1f}"])
def test_a_rack_figure_past_its_bounds_is_a_located_error(design, tmp_path, capsys, key, watts):
    """A rack budget of 1e-300 W printed its load as a 300-digit percentage."""
    text = design.read_text()
    rack = next(line for line in text.splitlines() if line.startswith("- {id: rack-1,"))
    path = tmp_path / "rack.yaml"
    path.write_text(text.replace(rack, rack[:-1] + f", {key}: {watts}}}"))
    assert main(["simulate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{_line(path, key)}: device rack-1: '{key}' must be from" in err
    ok = tmp_path / "ok.yaml"
    ok.write_text(text.replace(rack, rack[:-1] + f", {key}: 40000}}"))
    assert main(["simulate", str(ok)]) == 0
    assert re.search(r"[\d,.]{25,}", capsys.readouterr().out) is None


def test_a_tiny_price_prints_sanely(design, tmp_path, capsys):
    book = _book(tmp_path, price="1.0e-300")
    assert main(["cost", str(design), "--prices", str(book)]) == 0
    out = capsys.readouterr().out
    assert "Capex" in out and re.search(r"[\d,.]{25,}", out) is None  # no 300-digit figure


@pytest.mark.parametrize("date", ["2025-02-30", "2025-13-01", "'2025-02-30'", "'2025-13'",
                                  "2023-02-29"])
def test_an_impossible_date_is_a_located_error(design, tmp_path, capsys, date):
    book = _book(tmp_path, date=date)
    assert main(["cost", str(design), "--prices", str(book)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"rackdesigner: error: {book}:4: date:"), err
    assert "Traceback" not in err


def test_a_leap_day_is_a_date(design, tmp_path, capsys):
    assert main(["cost", str(design), "--prices", str(_book(tmp_path, date="2024-02-29"))]) == 0


def test_json_text_refuses_non_finite_numbers_and_says_where():
    assert json.loads(json_text({"a": [1, 2.5]})) == {"a": [1, 2.5]}
    for bad, where in (({"capex": {"total": math.inf}}, "capex.total"),
                       ([1, {"x": [0.0, -math.inf]}], "[1].x[1]"),
                       ({"n": math.nan}, "n")):
        with pytest.raises(NonFiniteError, match=re.escape(where)):
            json_text(bad)


#: JSON written below io/ (the catalog cache, which passes allow_nan=False itself) or holding
#: no numbers (the folder-export manifest: file names and sha256 digests).
_OWN_JSON = {"rackdesigner/catalog/filecache.py", "rackdesigner/interop/folders.py",
             "rackdesigner/io/jsonout.py"}


def test_every_json_writer_goes_through_json_text():
    root = Path(__file__).parents[1]
    offenders = []
    for path in sorted((root / "rackdesigner").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        text = path.read_text()
        for number, line in enumerate(text.splitlines(), 1):
            unguarded = rel not in _OWN_JSON or (rel == "rackdesigner/catalog/filecache.py"
                                                 and "allow_nan=False" not in line)
            if re.search(r"\bjson\.dumps?\(", line) and unguarded:
                offenders.append(f"{rel}:{number}: {line.strip()}")
    assert not offenders, "JSON written without io.jsonout.json_text:\n" + "\n".join(offenders)
