"""Counts say their noun in the right number (issue 38 item 12: "1 device(s)", "1 racks"): the
designer's and the importers' and exporters' texts use `vocabulary.wording.counted`, and no
string literal in them writes a "(s)" plural any more."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "rackdesigner"
#: user-facing text: the designer, the importers and exporters, the command line, the engines'
#: warnings and reports (a log line for developers is not checked)
SCANNED = ("ui", "interop", "cli", "model", "reliability", "simulation", "serving", "catalog",
           "cost", "generators", "workload", "vocabulary")
PLURAL_S = re.compile(r"[A-Za-z]\((e?s)\)")  # "device(s)", "switch(es)" (round 4)


def _strings(path: Path):
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    for token in tokens:
        if token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE",
                                                                  -1):
            yield token.start[0], token.string


def test_no_string_writes_a_parenthesised_plural():
    found = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line, text in _strings(path):
                if text.lstrip("rbfRBF").startswith(('"""', "'''")):
                    continue  # docstrings and comments explain, they are not shown
                shown = text
                while re.search(r"\{[^{}]*\}", shown):  # an f-string's expressions are code
                    shown = re.sub(r"\{[^{}]*\}", "", shown)
                if PLURAL_S.search(shown):
                    found.append(f"{path.relative_to(ROOT)}:{line}: {text[:60]}")
    assert not found, "use vocabulary.wording.counted:\n" + "\n".join(found)


def test_the_inspector_counts_a_mixed_selection_in_the_right_number(qtbot, tmp_path):
    pytest.importorskip("pytestqt")
    from designer_fixtures import make_window, small_layout

    window = make_window(qtbot, tmp_path, small_layout())
    window.editor.select_ids(["gpu-2", "link-2"])
    window.flush()
    text = window.inspector.empty.text()
    assert text == "1 device, 1 link selected.", text
    window.editor.select_ids(["gpu-1", "gpu-2", "link-1", "link-2"])
    window.flush()
    assert window.inspector.empty.text() == "2 devices, 2 links selected."


def test_the_problems_status_says_one_error(qtbot, tmp_path):
    pytest.importorskip("pytestqt")
    from designer_fixtures import make_window

    from rackdesigner.ui.status_icons import ProblemsStatus

    window = make_window(qtbot, tmp_path)
    status = window.findChild(ProblemsStatus)
    assert status is not None
    status.set_counts(1, 1)
    assert status.text().startswith("1 error, 1 warning")
    status.set_counts(2, 0)
    assert status.text().startswith("2 errors, 0 warnings")
