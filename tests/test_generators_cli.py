"""`rackdesigner generate` and `rackdesigner bom` from the command line."""

from __future__ import annotations

import json

import pytest

from rackdesigner.cli import main
from rackdesigner.generators.examples import EXAMPLES, example_text


def test_generate_list(capsys):
    assert main(["generate", "--list"]) == 0
    out = capsys.readouterr().out
    assert "superpod" in out and "--sus" in out and "fat-tree" in out


def test_generate_writes_a_loadable_file_and_prints_a_summary(tmp_path, capsys):
    target = tmp_path / "pod.yaml"
    assert main(["generate", "superpod", "--system", "dgx-h100", "--sus", "1",
                 "-o", str(target)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    assert "248 GPUs" in out[0] and "12 switches" in out[0] and "10 racks" in out[0]
    assert main(["validate", "-q", str(target)]) == 0


def test_generate_to_stdout(capsys):
    assert main(["generate", "dgx-h100", "-o", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("# RackDesigner layout")
    assert "8 GPUs" in captured.err


@pytest.mark.parametrize(("argv", "message"), [
    (["generate", "superpod", "--system", "dgx-h100"], "-o FILE"),
    (["generate", "-o", "x.yaml"], "needs a TEMPLATE"),
    (["generate", "superpod", "--system", "dgx-h100", "-o", "x.yaml"],
     "give either --sus or --nodes"),
    (["generate", "fat-tree", "--switch", "qm9700", "--levels", "2", "--endpoints", "9999",
      "-o", "x.yaml"], "at most 2048 endpoints"),
    (["generate", "superpod", "--system", "dgx-h100", "--sus", "two", "-o", "x.yaml"],
     "expects int"),
    (["generate", "nvl72", "--nodes", "2", "-o", "x.yaml"], "no option 'nodes'"),
])
def test_generate_usage_errors_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "x.yaml").exists()


def test_bom_formats(tmp_path, capsys):
    target = tmp_path / "two.yaml"
    main(["generate", "single-leaf", "--system", "dgx-h100", "--nodes", "2", "--switch",
          "qm9700", "-o", str(target)])
    capsys.readouterr()
    assert main(["bom", str(target), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"model": "dgx-h100", "kind": "system", "count": 2, "in_systems": 0} in data["items"]
    assert sum(c["count"] for c in data["cables"]) == 16
    assert main(["bom", str(target), "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("section,model,kind,length_m,count,in_systems")
    assert main(["bom", str(target)]) == 0
    assert "dac-ndr" in capsys.readouterr().out


def test_bom_of_a_missing_file_exits_2(tmp_path, capsys):
    assert main(["bom", str(tmp_path / "nope.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_shipped_examples_are_what_the_generators_make(name):
    from rackdesigner._resources import examples_dir

    path = examples_dir() / name
    assert path.exists(), f"missing example {name}"
    assert path.read_text(encoding="utf-8") == example_text(name), (
        f"{name} is out of date: run 'python -m rackdesigner.generators.examples'")
