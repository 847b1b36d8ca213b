"""Names are data on a terminal and in XML (issue 31, item 9's first parts).

Names carrying ESC (an ANSI colour), NUL, a C1 control, a bidirectional override and a newline
followed by a forged line reach every text report and listing: the output must hold none of
those characters raw (they are shown as escapes), and no forged line may start a line of a
listing. `render -o x.svg` (canvas and rack elevations) with such names stays well-formed XML.
"""

from __future__ import annotations

import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from hostile import named_design, switch_model

from rackdesigner.catalog.user import ENV
from rackdesigner.cli import main
from rackdesigner.io.sanitize import shown, terminal, xml_document

EVIL = "\x1b[31mRED\x00\x85\u202eevil\nFORGED: 0 errors"
SWITCH = switch_model(manufacturer=f"Acme{EVIL}", model=f"X1{EVIL}")
BOOK = {"schema_version": 1, "name": f"book{EVIL}", "currency": "USD", "date": "2026-12-01",
        "sources": {"s": {"title": f"t{EVIL}", "date": "2026-01-01"}},
        "prices": {"dgx-h100": {"price": 100, "source": "s", "date": "2026-01-01",
                                "basis": "list", "note": f"n{EVIL}"}}}


def hidden(text: str) -> list[str]:
    """Characters a terminal would act on or hide (line ends and tabs are fine)."""
    return sorted({f"U+{ord(c):04X}" for c in text if c not in "\n\t" and
                   unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co")})


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("text")
    doc = named_design(EVIL)
    doc["devices"].append({"id": "ghost", "model": f"ghost{EVIL}", "name": f"ghost{EVIL}"})
    design = root / "design.yaml"
    design.write_text(yaml.safe_dump(doc, sort_keys=False))
    stem = root / "evil\x1b[31mRED\u202e\nFORGED.yaml"  # a file name is a name too (compare)
    stem.write_text(design.read_text())
    book = root / "book.yaml"
    book.write_text(yaml.safe_dump(BOOK, sort_keys=False))
    catalog = root / "catalog"
    catalog.mkdir()
    (catalog / "acme-x1.yaml").write_text(yaml.safe_dump(SWITCH, sort_keys=False))
    return {"design": design, "book": book, "catalog": catalog, "stem": stem}


REPORTS = {
    "validate": lambda f: ["validate", str(f["design"])],
    "simulate": lambda f: ["simulate", str(f["design"])],
    "bom": lambda f: ["bom", str(f["design"]), "--no-prices"],
    "cost": lambda f: ["cost", str(f["design"]), "--prices", str(f["book"])],
    "catalog": lambda f: ["--catalog", str(f["catalog"]), "catalog", "--kind", "switch"],
    "catalog --check": lambda f: ["catalog", "--check", str(f["catalog"])],
    "compare": lambda f: ["compare", str(f["design"]), str(f["stem"])],
    "reliability": lambda f: ["reliability", str(f["design"])],
}


def _run(argv: list[str], capsys, monkeypatch) -> tuple[str, str]:
    """(stdout, stderr) of the CLI with no user catalog but the one `argv` names."""
    from rackdesigner.catalog import reset_default_catalog

    monkeypatch.setenv(ENV, "")
    reset_default_catalog()
    try:
        main(argv)
    finally:
        reset_default_catalog()
    return capsys.readouterr()


@pytest.mark.parametrize("verb", sorted(REPORTS))
def test_no_report_prints_a_control_or_bidi_character(files, verb, capsys, monkeypatch):
    out, err = _run(REPORTS[verb](files), capsys, monkeypatch)
    assert "evil" in out + err or "RED" in out + err, (out + err)[:500]  # the names got there
    assert hidden(out) == [] and hidden(err) == []
    assert "\\x1b" in out + err  # shown, not dropped


@pytest.mark.parametrize("verb", ["bom", "catalog", "compare", "cost", "reliability",
                                  "simulate", "validate"])
def test_a_name_cannot_forge_a_line_of_a_listing(files, verb, capsys, monkeypatch):
    out, _err = _run(REPORTS[verb](files), capsys, monkeypatch)
    assert not [line for line in out.splitlines() if line.startswith("FORGED")]


@pytest.mark.parametrize("view", [[], ["--view", "racks"]])
def test_render_to_svg_stays_well_formed_with_control_characters_in_names(files, tmp_path,
                                                                          view, capsys):
    out = tmp_path / "x.svg"
    assert main(["render", str(files["design"]), *view, "-o", str(out)]) == 0
    ET.parse(out)  # raises on a character XML 1.0 forbids
    assert "RED" in out.read_text()  # the names were drawn


def test_the_functions_keep_what_is_text():
    assert terminal("a\tb\nc é 中 ✓") == "a\tb\nc é 中 ✓"
    assert terminal("a\x1bb\u202ec") == "a\\x1bb\\u202ec"
    assert shown("a\nb") == "a\\x0ab" and shown("plain") == "plain"
    assert xml_document("<a>é\x1b&#27;&#65;</a>".encode()) == "<a>é\ufffd&#xFFFD;&#65;</a>".encode()
