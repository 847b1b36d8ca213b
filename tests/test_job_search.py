"""Issue 38 items 1, 3, 4: a job that lays itself out on each design (`layout: search`), on all
of its GPUs or on fewer when that is faster; job files that round-trip; compare, cost and
whatif take such a job on designs of any GPU count."""

from __future__ import annotations

import json

import pytest

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.workload import Job
from rackdesigner.workload.jobfile import JobFileError, dump_job, parse_job
from rackdesigner.workload.jobsearch import (
    MAX_COUNTS,
    MIN_SHARE,
    best_layout,
    estimate_spec,
    gpu_counts,
)


@pytest.mark.parametrize("gpus, domain", [(936, 72), (1008, 72), (1024, 8), (16, 8), (72, 72),
                                          (4096, 8)])
def test_gpu_counts_are_whole_domains_from_all_down_to_the_floor(gpus, domain):
    counts = gpu_counts(gpus, domain)
    assert counts[0] == gpus and len(counts) <= MAX_COUNTS
    assert counts == sorted(set(counts), reverse=True)
    assert all(c % domain == 0 and c >= gpus * MIN_SHARE for c in counts[1:])


def test_a_search_job_file_reads_writes_and_refuses_degrees_with_their_line():
    text = "model: llama3-70b\nlayout: search\ngbs: 512\ntokens: 15T\nprecision: fp8\n"
    spec = parse_job(text, "job.yaml")
    assert spec.search and spec.job.gbs == 512 and spec.tokens == 15e12
    again = parse_job(dump_job(spec), "again.yaml")
    assert (again.model, again.job, again.tokens, again.search) == (
        spec.model, spec.job, spec.tokens, True)
    fixed = parse_job("model: llama3-8b\ntp: 8\npp: 2\ngbs: 64\nmbs: 2\n", "f.yaml")
    assert not fixed.search
    back = parse_job(dump_job(fixed), "f2.yaml")
    assert (back.job, back.search) == (fixed.job, False)
    with pytest.raises(JobFileError, match=r"job.yaml:3: tp: a search job \(layout: search\) "
                                           "chooses its own degrees"):
        parse_job("model: llama3-70b\nlayout: search\ntp: 8\ngbs: 512\n", "job.yaml")
    with pytest.raises(JobFileError, match=r"job.yaml:2: layout must be one of fixed, search"):
        parse_job("model: llama3-70b\nlayout: best\ngbs: 512\n", "job.yaml")


@pytest.mark.slow
def test_a_search_job_leaves_gpus_idle_only_when_that_is_faster():
    """Failing one NVL72 rack of fourteen: every layout on the 936 survivors is slower than
    the best on 864 (the issue's case: a 22 % pipeline bubble against ~14 %)."""
    layout = generate("superpod", system="gb200-nvl72", racks=14)
    for device in layout.group_devices("nvl72-14"):
        layout.update_device(device, status="failed")
    found = best_layout(layout, "llama3-70b", Job(gbs=512), tokens=15e12)
    on_all = best_layout(layout, "llama3-70b", Job(gbs=512), gpus=936)  # may use fewer too
    assert found.estimate.tokens_per_s >= on_all.estimate.tokens_per_s
    if found.idle_gpus:
        assert f"of the {936:,} GPUs" in found.why and found.estimate.gpus == 936 - found.idle_gpus
    # a design of a single count: nothing to leave idle
    node = generate("dgx-h100")
    alone = best_layout(node, "llama3-8b", Job(gbs=16))
    assert alone.idle_gpus == 0 and alone.estimate.gpus == 8


@pytest.mark.slow
def test_compare_takes_one_search_job_on_designs_of_different_gpu_counts(tmp_path, capsys):
    """Item 1: a job written for 1,024 GPUs failed on 1,008; a search job runs on both."""
    paths = []
    for name, nodes in (("three", 3), ("four", 4)):
        path = tmp_path / f"{name}.yaml"
        save_layout(generate("rail-optimized", system="dgx-h100", nodes=nodes,
                             switch="qm9700"), path)
        paths.append(str(path))
    fixed = tmp_path / "fixed.yaml"
    fixed.write_text("model: llama3-8b\ntp: 8\ndp: 4\ngbs: 64\ntokens: 1T\n")
    search = tmp_path / "search.yaml"
    search.write_text("model: llama3-8b\nlayout: search\ngbs: 64\ntokens: 1T\n")
    assert main(["compare", *paths, "--job", str(search), "--json"]) == 0
    rows = {r["key"]: r["values"] for r in json.loads(capsys.readouterr().out)["rows"]}
    assert all(v > 0 for v in rows["tokens_per_s"]) and rows["tokens_per_s"][1] > \
        rows["tokens_per_s"][0]  # a fourth node trains faster
    spec = parse_job(search.read_text(), str(search))
    three = estimate_spec(generate("rail-optimized", system="dgx-h100", nodes=3,
                                   switch="qm9700"), spec)
    assert three.gpus <= 24
    # the same job with fixed degrees is refused on the design it does not divide
    assert main(["compare", *paths, "--job", str(fixed), "--json"]) == 2
    assert "is not the 24 GPUs" in capsys.readouterr().err


def test_counts_tried_put_those_the_batch_divides_over_first():
    """1,008 B200 GPUs and a batch of 256: no layout uses them all without a deep pipeline;
    the counts tried include 768 (32 replicas of 8 GPUs), not only evenly spread ones."""
    counts = gpu_counts(1008, 8, 256)
    assert 768 in counts and counts[0] == 1008 and len(counts) <= MAX_COUNTS
    assert counts == sorted(set(counts), reverse=True)
    assert all(c % 8 == 0 and c >= 1008 * MIN_SHARE for c in counts[1:])
    # a batch that divides nothing better falls back to the even spread
    assert gpu_counts(1008, 8, 1) == gpu_counts(1008, 8)


@pytest.mark.slow
def test_a_search_job_on_a_cut_fabric_runs_on_the_largest_part_and_a_lost_rack_costs_less():
    """Issue 38 item 3: a failure's job impact is the best layout on what survives. A cut
    fabric runs the search job on its largest connected part (never 'cannot run' while a
    part can hold it); one DGX B200 rack of 64 lost leaves a count the batch divides over."""
    from rackdesigner.analysis.whatif_job import job_deltas, job_outcome
    from rackdesigner.workload.jobfile import parse_job

    spec = parse_job("model: llama3-70b\nlayout: search\ngbs: 256\ntokens: 15T\n", "job.yaml")
    layout = generate("superpod", system="dgx-b200", nodes=128)
    intact = job_outcome(layout, spec)
    assert intact.ran
    one_rack = generate("superpod", system="dgx-b200", nodes=128)
    one_rack.update_group("rack-1.group", status="failed")  # SU1 compute rack 1: 16 GPUs
    after = job_outcome(one_rack, spec)
    assert after.ran, after.error
    loss = -job_deltas(intact, after)["tokens_per_s"]
    assert 0 < loss < 0.45, after.label  # was -64.7 % on a 63-stage pipeline
    # every spine failed: the four SUs fall apart, the job runs on one of them
    cut = generate("superpod", system="dgx-b200", nodes=128)
    for device in list(cut.devices()):
        if device.name.startswith("Spine "):
            cut.update_device(device.id, status="failed")
    parted = job_outcome(cut, spec)
    assert parted.ran, parted.error
    assert parted.figures["tokens_per_s"] < intact.figures["tokens_per_s"]


def test_a_job_on_some_of_a_degraded_designs_gpus_says_of_how_many_working_ones():
    """After a rack failure the label counts the survivors, not the design's whole count."""
    from rackdesigner.workload import Estimator

    layout = generate("superpod", system="dgx-h100", nodes=32)
    layout.update_group("rack-1.group", status="failed")
    working = 256 - 8 * sum(1 for g in layout.groups() if g.kind == "node"
                            and g.parent == "rack-1.group")
    assert working < 256
    assert Estimator(layout, "llama3-8b", gpus=64).label == (
        f"the first 64 of the {working:,} working GPUs of the design")
