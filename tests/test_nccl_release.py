"""The NCCL version a cluster runs as an input (issue 33, item 5): which algorithms it has
(NVLS since 2.17, NVLS-tree since 2.18) and how many GPUs per domain NVLS spans (8 before
2.21, 32 since), from the NVIDIA/nccl repository's tags."""

from __future__ import annotations

import json

import pytest

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.simulation import SimulationInputError, simulate
from rackdesigner.simulation.nccl_release import DEFAULT_VERSION, parse_version

GiB = 2**30


def test_versions_parse_and_bad_ones_are_refused():
    assert parse_version(None).text == DEFAULT_VERSION
    assert parse_version("v2.19.3-1").text == "2.19.3"
    assert not parse_version("2.16").has_nvls and parse_version("2.17").has_nvls
    assert not parse_version("2.17.1").has_nvls_tree and parse_version("2.18").has_nvls_tree
    with pytest.raises(ValueError, match=r"expected 2\.MINOR"):
        parse_version("latest")


def test_an_older_nccl_runs_without_the_algorithms_it_lacks():
    two = generate("rail-optimized", system="dgx-h100", nodes=2, switch="qm9700")
    algos = {v: {p.algorithm for p in simulate(two, loads_for=None, nccl_version=v)
                 .collective("all_reduce")} for v in ("2.16", "2.17", "2.30")}
    assert "nvls_tree" in algos["2.30"]
    assert "nvls_tree" not in algos["2.17"] and "nvls_tree" not in algos["2.16"]
    one = generate("dgx-h100")
    old = simulate(one, loads_for=None, nccl_version="2.16").point_at("all_reduce", 8 * GiB)
    new = simulate(one, loads_for=None).point_at("all_reduce", 8 * GiB)
    assert old.algorithm == "ring" and new.algorithm == "nvls"
    assert old.busbw_GBps < new.busbw_GBps
    with pytest.raises(SimulationInputError, match=r"NVLS-tree needs NCCL 2\.18"):
        simulate(two, algorithm="nvls_tree", nccl_version="2.17.1")


def test_nvls_over_more_than_eight_gpus_needs_2_21():
    # 16 GPUs of one NVL72 rack: NVLS AllGather spans them from NCCL 2.21 (arity 32), not
    # before (arity 8): forced, the older NCCL falls back with a warning
    rack = generate("nvl72")
    scope = [d.id for d in rack.devices() if d.id.split(".")[-1].startswith("gpu")][:16]
    wide = simulate(rack, scope, algorithm="nvls", loads_for=None)
    narrow = simulate(rack, scope, algorithm="nvls", loads_for=None, nccl_version="2.20.5")
    assert wide.point_at("all_gather", GiB).algorithm == "nvls"
    assert narrow.point_at("all_gather", GiB).algorithm != "nvls"
    assert any(m.code == "algorithm_unavailable" and m.text.startswith("all_gather")
               for m in narrow.warnings())


def test_cli_takes_the_version_and_json_states_it(tmp_path, capsys):
    from rackdesigner.io.writer import save_layout

    path = tmp_path / "one.yaml"
    save_layout(generate("dgx-h100"), path)
    assert main(["simulate", str(path), "--json", "--nccl-version", "2.16"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["nccl_version"] == "2.16"
    assert any(d["code"] == "nccl_version" for d in doc["diagnostics"])
    assert main(["simulate", str(path), "--nccl-version", "two"]) == 2
    err = capsys.readouterr().err
    assert "NCCL version" in err and "Traceback" not in err
