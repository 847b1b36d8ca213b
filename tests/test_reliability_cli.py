"""`rackdesigner reliability`: text and JSON with the stable keys, a job's effective tokens/s,
the options, and bad input as located errors with exit status 2."""

from __future__ import annotations

import json

import pytest

from rackdesigner._resources import examples_dir
from rackdesigner.cli import main

NVL72 = str(examples_dir() / "gb200-nvl72.yaml")
TWO_NODE = str(examples_dir() / "dgx-h100-2node-ib.yaml")
ONE_NODE = str(examples_dir() / "dgx-h100.yaml")
JOB = "model: llama3-8b\ngpus: 8\ntp: 2\ngbs: 16\ntokens: 1T\n"


def _json(capsys, *args):
    assert main(["reliability", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_has_the_stable_keys(capsys):
    data = _json(capsys, ONE_NODE)
    assert data["schema"] == "rackdesigner.reliability/1"
    for key in ("interruptions_per_day", "mtbf_hours", "by_cause", "blast_radius_gpus",
                "ettr", "checkpoint"):
        assert key in data
    assert set(data["checkpoint"]) >= {"interval_s", "write_s", "basis"}
    assert data["blast_radius_gpus"] == 8
    assert sum(data["by_cause"].values()) == pytest.approx(1.0, abs=1e-3)
    assert data["mtbf_hours"] == pytest.approx(24 / data["interruptions_per_day"], rel=1e-3)
    assert "no storage system" in data["checkpoint"]["basis"]  # says what it assumed


def test_the_nvl72_rack_stops_its_nvlink_domain(capsys):
    data = _json(capsys, NVL72)
    assert data["blast_radius_gpus"] == 72 == data["largest_nvlink_domain"]


def test_text_names_causes_blast_radius_and_the_library(capsys):
    assert main(["reliability", ONE_NODE]) == 0
    out = capsys.readouterr().out
    assert "interruptions" in out and "MTBF" in out and "ETTR" in out
    assert "GPU HBM memory" in out and "blast radius      8 GPUs" in out
    assert "bundled" in out


def test_a_longer_interval_than_the_optimum_lowers_ettr(capsys):
    best = _json(capsys, TWO_NODE)
    longer = _json(capsys, TWO_NODE, "--checkpoint-interval",
                   str(best["checkpoint"]["interval_s"] / 60 * 8))
    assert longer["ettr"] < best["ettr"]
    assert longer["checkpoint"]["interval_basis"] == "given"


def test_a_job_gets_effective_tokens_per_s_below_its_tokens_per_s(capsys, tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text(JOB)
    data = _json(capsys, TWO_NODE, "--job", str(job), "--spares", "8")
    assert 0 < data["effective_tokens_per_s"] < data["job"]["tokens_per_s"]
    assert data["effective_tokens_per_s"] == pytest.approx(
        data["job"]["tokens_per_s"] * data["goodput"], rel=1e-3)
    assert data["availability"]["spare_gpus"] == 8
    assert "parameters x 14 bytes" in data["checkpoint"]["basis"]
    assert data["effective_days_to_train"] > 1e12 / data["job"]["tokens_per_s"] / 86400


@pytest.mark.parametrize("args, words", [
    (["--checkpoint-interval", "0"], "--checkpoint-interval: minutes greater than 0"),
    (["--spares", "-1"], "--spares: a number of GPUs, 0 or more"),
])
def test_bad_options_exit_2(capsys, args, words):
    assert main(["reliability", TWO_NODE, *args]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_a_bad_library_is_a_located_error_exit_2(capsys, tmp_path):
    mine = tmp_path / "fleet.yaml"
    mine.write_text("schema_version: 1\ncauses:\n  gpu:\n    per: gpu\n    rate: -1\n"
                    "    stops: node\n    source: llama3\n    derived: ours\n")
    assert main(["reliability", TWO_NODE, "--failures", str(mine)]) == 2
    err = capsys.readouterr().err
    assert f"{mine}:5:" in err and "must be 0 or more" in err
    mine.write_text("schema_version: 1\ncauses:\n  fan:\n    per: fan\n    rate: 1\n"
                    "    stops: node\n    source: llama3\n    derived: ours\n")
    assert main(["reliability", TWO_NODE, "--failures", str(mine)]) == 2
    err = capsys.readouterr().err
    assert f"{mine}:4:" in err and "unknown unit 'fan'" in err


def test_a_users_rates_change_the_figures(capsys, tmp_path):
    mine = tmp_path / "fleet.yaml"
    mine.write_text("schema_version: 1\ncauses:\n  gpu:\n    per: gpu\n    rate: 10\n"
                    "    stops: nvlink_domain\n    source: llama3\n    derived: ours\n")
    bundled = _json(capsys, TWO_NODE)
    ours = _json(capsys, TWO_NODE, "--failures", str(mine))
    assert ours["interruptions_per_day"] > bundled["interruptions_per_day"]
    assert ours["by_cause"]["gpu"] > bundled["by_cause"]["gpu"]


def test_the_library_door_refuses_a_fifo_and_runaway_numbers(capsys, tmp_path):
    import os

    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    assert main(["reliability", ONE_NODE, "--failures", str(fifo)]) == 2
    assert str(fifo) in capsys.readouterr().err
    big = tmp_path / "big.yaml"
    big.write_text("schema_version: 1\ncauses:\n  gpu:\n    per: gpu\n    rate: "
                   + "9" * 5000 + "\n")
    assert main(["reliability", ONE_NODE, "--failures", str(big)]) == 2
    err = capsys.readouterr().err
    assert f"{big}:5" in err and "Traceback" not in err


def test_a_group_scopes_the_job(capsys, tmp_path):
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout

    path = tmp_path / "pod.yaml"
    save_layout(generate("superpod", system="dgx-h100", nodes=64), path)
    whole = _json(capsys, str(path))
    su = _json(capsys, str(path), "--group", "su-1")
    assert 0 < su["scope_gpus"] < whole["scope_gpus"]
    assert su["interruptions_per_day"] == pytest.approx(
        whole["interruptions_per_day"] * su["scope_gpus"] / whole["scope_gpus"], rel=1e-3)
    assert su["mtbf_hours"] > whole["mtbf_hours"]
    assert main(["reliability", str(path), "--group", "su-9"]) == 2
    assert "no group 'su-9'" in capsys.readouterr().err


def test_estimate_with_tokens_adds_days_with_failures(capsys):
    args = ["estimate", TWO_NODE, "--model", "llama3-8b", "--gpus", "8", "--tp", "2",
            "--gbs", "16"]
    assert main([*args, "--tokens", "100B", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    lost = data["with_failures"]
    assert lost["time_to_train_days"] > data["time_to_train_days"]
    assert 0 < lost["goodput"] < 1
    assert main([*args, "--json"]) == 0
    assert "with_failures" not in json.loads(capsys.readouterr().out)
    assert main([*args, "--tokens", "100B"]) == 0
    assert "with failures:" in capsys.readouterr().out
