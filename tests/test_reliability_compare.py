"""`compare` with the reliability rows (issue 37): an NVL72 rack against 8-GPU nodes on the same
job — the GPUs one GPU fault stops, interruptions, ETTR, and days and dollars to train with the
work failures lose."""

from __future__ import annotations

import json

import pytest

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import save_layout

JOB = "model: llama3-8b\ngpus: 56\ntp: 2\ngbs: 56\ntokens: 100B\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("designs")
    paths = []
    for name, layout in (("nvl72", generate("nvl72")),
                         ("dgx", generate("rail-optimized", system="dgx-h100", nodes=8,
                                          switch="qm9700"))):
        path = folder / f"{name}.yaml"
        save_layout(layout, path)
        paths.append(str(path))
    job = folder / "job.yaml"
    job.write_text(JOB)
    return paths, str(job)


def test_compare_shows_what_the_blast_radius_does_to_ettr_and_cost(capsys, files):
    (nvl72, dgx), job = files
    assert main(["compare", nvl72, dgx, "--job", job, "--json"]) == 0
    rows = {r["key"]: r["values"] for r in json.loads(capsys.readouterr().out)["rows"]}
    assert rows["gpu_fault_blast_gpus"] == [72, 8]
    assert all(v > 0 for v in rows["interruptions_per_day"])
    assert all(0 < v < 100 for v in rows["ettr_percent"])
    # the GPUs the job leaves free are spares: enough for a DGX node, not for an NVLink
    # domain of 72, so the NVL72 job waits for repairs
    assert rows["goodput_percent"][0] < rows["goodput_percent"][1]
    for with_failures, plain in (("effective_days_to_train", "time_to_train_days"),
                                 ("effective_cost_to_train", "cost_to_train")):
        for lost, ideal in zip(rows[with_failures], rows[plain], strict=True):
            assert lost > ideal


def test_compare_text_has_the_reliability_rows_and_their_basis(capsys, files):
    (nvl72, dgx), _ = files
    assert main(["compare", nvl72, dgx]) == 0
    out = capsys.readouterr().out
    assert "interruptions per day" in out and "GPUs one GPU fault stops" in out
    assert "ETTR" in out and "reliability: rates from bundled" in out


def test_cost_with_a_job_adds_days_and_dollars_with_failures(capsys, files):
    (nvl72, _), job = files
    assert main(["cost", nvl72, "--job", job, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    lost = data["with_failures"]
    assert lost["time_to_train_days"] > data["time_to_train_days"]
    assert lost["cost_to_train"] > data["cost_to_train"]
    assert 0 < lost["goodput"] <= lost["ettr"] < 1
    assert main(["cost", nvl72, "--job", job]) == 0
    assert "With failures" in capsys.readouterr().out


def test_cost_without_a_job_has_no_failure_figures(capsys, files):
    (nvl72, _), _ = files
    assert main(["cost", nvl72, "--json"]) == 0
    assert "with_failures" not in json.loads(capsys.readouterr().out)
