"""Names are data in spreadsheets (issue 31, item 3): no tabular output holds a live formula.

Every CSV the program writes — `bom --format csv` (with and without prices), sweep results,
`compare --csv` (also the designer's compare CSV: the same `Comparison.to_csv`), the panel's
figures CSV, the cabling plan and the NetBox files — is produced from a design whose model ids,
price sources, grid values and file names start with `=`, `+`, `-` or `@`. A cell that a
spreadsheet would evaluate must not appear: it starts with such a character only if it is a
number. A source scan makes the one writer (`rackdesigner.io.sanitize.csv_text`) the only use of
the csv module's writers, so a new CSV output is covered by default.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
import yaml
from hostile import switch_model

from rackdesigner.catalog.user import ENV
from rackdesigner.cli import main
from rackdesigner.io.sanitize import FORMULA_START, cell, csv_text, uncell

FORMULA = '=HYPERLINK("http://evil","x")'
HOSTILE_ID = "=2+5+cmd|' -C calc'!A0"
SWITCH = switch_model(HOSTILE_ID, manufacturer="@Acme", model="+X1 800G switch")
PRICES = {
    "schema_version": 1, "name": "=1+1 book", "currency": "USD", "date": "2026-12-01",
    "sources": {"=evil": {"title": FORMULA, "date": "2026-01-01"}},
    "prices": {HOSTILE_ID: {"price": 1000, "source": "=evil", "date": "2026-01-01",
                            "basis": "list", "note": "-note"}},
}


@pytest.fixture
def arena(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, "")
    from rackdesigner.catalog import reset_default_catalog

    reset_default_catalog()
    yield tmp_path
    reset_default_catalog()


def _design(path: Path, name: str = FORMULA) -> Path:
    doc = {"schema_version": 1, "name": name,
           "devices": [{"id": "sw-1", "model": HOSTILE_ID, "name": "-1+1", "rack": "rack-1",
                        "u": 1},
                       {"id": "sw-2", "model": HOSTILE_ID, "name": "@SUM(A1)", "rack": "rack-2",
                        "u": 1},
                       {"id": "rack-1", "model": "rack-42u", "name": "=rack one"},
                       {"id": "rack-2", "model": "rack-42u", "name": "+rack two"}],
           "links": [{"id": "link-1", "a": "sw-1:eth.0", "b": "sw-2:eth.0", "count": 2}],
           "x-rackdesigner-models": {HOSTILE_ID: SWITCH}}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _stdout(capsys, args: list[str], codes=(0,)) -> str:
    code = main(args)
    out, err = capsys.readouterr()
    assert code in codes, err
    return out


def _bom(root: Path, capsys) -> str:
    return _stdout(capsys, ["bom", str(_design(root / "d.yaml")), "--format", "csv",
                            "--no-prices"])


def _bom_priced(root: Path, capsys) -> str:
    (root / "book.yaml").write_text(yaml.safe_dump(PRICES, sort_keys=False))
    return _stdout(capsys, ["bom", str(_design(root / "d.yaml")), "--format", "csv",
                            "--prices", str(root / "book.yaml")])


def _compare(root: Path, capsys) -> str:
    a = _design(root / "=1+1.yaml")
    b = _design(root / "@SUM(A1).yaml")
    return _stdout(capsys, ["compare", str(a), str(b), "--csv"])


def _sweep(root: Path, capsys) -> str:
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout

    save_layout(generate("dgx-h100"), root / "base.yaml")
    (root / "spec.yaml").write_text(
        "schema_version: 1\nname: '=sweep'\nbase: base.yaml\n"
        "grid: {'-gone': ['=1+1', '@SUM(A1)', '+2', '-3+x']}\n"
        "edits:\n- remove: '{-gone}'\n")
    out = root / "results.csv"
    _stdout(capsys, ["sweep", str(root / "spec.yaml"), "-o", str(out), "--scheduler",
                     "synchronous"], codes=(0, 1))
    return out.read_text()


def _panel_figures(root: Path, capsys) -> str:
    from rackdesigner.io import load_layout
    from rackdesigner.simulation import simulate
    from rackdesigner.ui.panel.figures import result_csv

    return result_csv(simulate(load_layout(_design(root / "d.yaml"))))


def _cabling(root: Path, capsys) -> str:
    out = root / "plan.csv"
    _stdout(capsys, ["export", str(_design(root / "d.yaml")), "-f", "cabling", "-o", str(out)])
    return out.read_text()


def _netbox(root: Path, capsys) -> str:
    out = root / "nb"
    _stdout(capsys, ["export", str(_design(root / "d.yaml")), "-f", "netbox", "-o", str(out)])
    return "\n".join(p.read_text() for p in sorted(out.glob("*.csv")))


#: Writers no user text reaches today (their figures and labels are the program's own): they
#: are still checked for live formulas, but need not show a guard.
NO_USER_TEXT = {"panel figures CSV"}
WRITERS = {"bom --format csv": _bom, "bom --format csv --prices": _bom_priced,
           "compare --csv (and the designer's compare CSV)": _compare,
           "sweep -o results.csv": _sweep, "panel figures CSV": _panel_figures,
           "export -f cabling": _cabling, "export -f netbox": _netbox}


def _live_formulas(text: str) -> list[str]:
    bad = []
    for cells in csv.reader(io.StringIO(text)):
        for c in cells:
            if c[:1] in FORMULA_START and c[:1]:
                try:
                    float(c)
                except ValueError:
                    bad.append(c)
    return bad


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_no_tabular_writer_puts_a_live_formula_in_a_cell(arena, writer, capsys):
    text = WRITERS[writer](arena, capsys)
    guarded = any(f"'{start}" in text for start in "=@+-")
    assert writer in NO_USER_TEXT or guarded, text[:400]  # the hostile text reached the file
    assert _live_formulas(text) == []


def test_the_guard_round_trips_through_our_own_readers(tmp_path):
    """A sweep results file read back gives the grid values as they were."""
    from rackdesigner.sweep.results import read_results

    path = tmp_path / "r.csv"
    path.write_text(csv_text([["point", "-gone", "x"], [0, "=1+1", -2.5], [1, "@A", "'b"]]))
    columns, rows, _meta = read_results(path)
    assert columns == ["point", "-gone", "x"]
    assert [r["-gone"] for r in rows] == ["=1+1", "@A"]
    assert rows[0]["x"] == -2.5 and rows[1]["x"] == "'b"
    for text in ("=1", "+1", "-x", "@y", "plain", "'=kept"):
        assert uncell(cell(text)) == text


_WRITER_CALL = re.compile(r"\bcsv\.(writer|DictWriter)\(")


def test_every_csv_is_written_through_the_one_sanitiser():
    """Only io/sanitize.py may create a csv writer; a module that makes XLSX cells uses
    `xlsx_value` (openpyxl infers a formula from a leading `=`)."""
    root = Path(__file__).parents[1] / "rackdesigner"
    offenders = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).as_posix()
        text = path.read_text()
        if rel == "rackdesigner/io/sanitize.py":
            continue
        if _WRITER_CALL.search(text):
            offenders.append(f"{rel}: writes CSV itself (use io.sanitize.csv_text)")
        if re.search(r"^\s*(from|import) openpyxl", text, re.MULTILINE) \
                and "xlsx_value" not in text:
            offenders.append(f"{rel}: writes XLSX cells without sanitize.xlsx_value")
    assert not offenders, "\n".join(offenders)
