"""`rackdesigner simulate`: report, JSON, scope options and clean errors (exit 2, no traceback)."""

from __future__ import annotations

import json

import pytest

from rackdesigner._resources import example_paths
from rackdesigner.cli import main


def _example(name: str) -> str:
    path = next((p for p in example_paths() if p.name == name), None)
    if path is None:
        pytest.skip(f"example {name} not shipped")
    return str(path)


def test_report_has_key_figures_and_an_nccl_tests_table(capsys):
    assert main(["simulate", _example("dgx-h100.yaml")]) == 0
    out = capsys.readouterr().out
    assert "8 GPUs" in out and "scale-up per GPU" in out and "facility" in out
    table = [line for line in out.splitlines() if line.strip() and line.split()[0].isdigit()]
    assert len(table) == 32
    assert table[0].split()[0] == "8" and table[-1].split()[0] == str(16 * 2**30)


def test_json_output_is_the_documented_document(capsys):
    assert main(["simulate", _example("dgx-h100-2node-ib.yaml"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "rackdesigner.simulation/1"
    assert doc["scope"]["gpus"] == 16 and doc["scope"]["nodes"] == 2
    assert len(doc["collectives"]["all_to_all"]) == 32


def test_group_collective_algorithm_and_pue_options(capsys):
    path = _example("dgx-h100-2node-ib.yaml")
    assert main(["simulate", path, "--group", "dgx-1", "--collective", "all_gather",
                 "--algorithm", "ring", "--pue", "1.2"]) == 0
    out = capsys.readouterr().out
    assert "all_gather (8 ranks, algorithm ring)" in out and "PUE 1.2" in out


@pytest.mark.parametrize(("args", "message"), [
    (["/nonexistent/layout.yaml"], "no such file"),
    (["{dgx}", "--group", "no-such-group"], "no group"),
    (["{dgx}", "--gpus", "dgx-1.nvswitch0"], "not a GPU"),
    (["{dgx}", "--pue", "0.4"], "PUE"),
    (["{dgx}", "--p2p", "dgx-1.gpu0", "nope"], "not a GPU"),
])
def test_bad_input_exits_2_with_a_message(capsys, args, message):
    dgx = _example("dgx-h100.yaml")
    args = [a.replace("{dgx}", dgx) for a in args]
    assert main(["simulate", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_file_that_is_not_a_layout_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"\x00\x01 not yaml: [")
    assert main(["simulate", str(bad)]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_a_layout_without_gpus_still_reports(tmp_path, capsys):
    # (the shipped fat-tree example carries GPU nodes since fcaf378: build a switch-only file)
    from rackdesigner import save_layout
    from rackdesigner.catalog import default_catalog
    from rackdesigner.model import Device, Layout, Link, PortRef

    layout = Layout(catalog=default_catalog())
    for name in ("leaf-1", "spine-1"):
        layout.add_device(Device(name, "qm9700"))
    group = layout.catalog.get("qm9700").ports[0].name
    layout.add_link(Link("l1", PortRef("leaf-1", group), PortRef("spine-1", group), 4))
    path = tmp_path / "switches.yaml"
    save_layout(layout, path)
    assert main(["simulate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "no GPUs" in out and "not applicable" in out


def test_sharp_placement_and_link_loads_options(capsys):
    path = _example("dgx-h100-2node-ib.yaml")
    assert main(["simulate", path, "--json", "--link-loads", "--algorithm", "ring"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sharp"] is False and doc["placement"] == "contiguous"
    links = doc["link_loads"]["links"]
    assert links and {"link", "load_GBps", "capacity_GBps", "utilisation"} <= set(links[0])
    assert all(0 <= x["utilisation"] <= 1.0 for x in links)
    assert main(["simulate", path, "--json", "--sharp", "on", "--placement", "random"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sharp"] is True and doc["placement"] == "random"
    assert doc["collectives"]["all_reduce"][-1]["algorithm"] == "nvls"
    assert main(["simulate", path, "--link-loads", "--collective", "all_to_all",
                 "--size", "64M"]) == 0
    out = capsys.readouterr().out
    assert "Link loads: all_to_all at 67,108,864 B" in out


@pytest.mark.parametrize(("args", "message"), [
    (["--algorithm", "collnet"], "SHARP) is off"),
    (["--size", "lots"], "--size"),
])
def test_an_impossible_choice_exits_2_naming_why(capsys, args, message):
    assert main(["simulate", _example("dgx-h100-2node-ib.yaml"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
