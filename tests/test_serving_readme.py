"""The README's serving comparison is what its commands print (the two designs, the figures)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rackdesigner.cli import main

README = Path(__file__).resolve().parent.parent / "README.md"


def _paragraph() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("**How many users can it serve")
    return text[start:text.index("## Layout files", start)]


def _number(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    assert found, pattern
    return float(found.group(1).replace(",", ""))


def test_the_readme_serving_comparison_is_reproduced_by_its_commands(tmp_path, capsys,
                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)
    para = _paragraph()
    commands = [line.split()[1:] for line in para.splitlines()
                if line.startswith("rackdesigner ")]
    assert [c[0] for c in commands] == ["generate", "generate", "serve", "serve"]
    for c in commands[:2]:
        assert main(c) == 0
    capsys.readouterr()
    docs = []
    for c in commands[2:]:
        assert main([*c, "--json"]) == 0
        docs.append(json.loads(capsys.readouterr().out))
    rack, nodes = docs
    assert rack["at"]["output_tokens_per_s_per_gpu"] == pytest.approx(
        _number(r"the rack gives ([\d,]+) output", para), rel=0.005)
    assert nodes["at"]["output_tokens_per_s_per_gpu"] == pytest.approx(
        _number(r"and the B200 nodes ([\d,]+)", para), rel=0.005)
    assert rack["usd_per_million_tokens"] == pytest.approx(
        _number(r"\$([\d.]+) per million tokens", para), abs=0.0006)
    assert nodes["usd_per_million_tokens"] == pytest.approx(
        _number(r"RoCE, \$([\d.]+);", para), abs=0.0006)
    assert rack["max_load"]["output_tokens_per_s_per_gpu"] == pytest.approx(
        _number(r"\(([\d,]+) and [\d,]+\)", para), rel=0.005)
    assert nodes["max_load"]["output_tokens_per_s_per_gpu"] == pytest.approx(
        _number(r"\([\d,]+ and ([\d,]+)\)", para), rel=0.005)
    # the rack runs wide EP on its NVLink; the B200 nodes keep each instance in one node
    assert rack["at"]["config"]["ep"] > 8 and nodes["at"]["config"]["gpus"] <= 8
