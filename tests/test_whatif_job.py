"""What a failure costs a training job: `whatif --job` and the N-1 rows' workload change."""

from __future__ import annotations

import json

import pytest
from workload_designs import tor_cluster

from rackdesigner.analysis.whatif import WhatIf, WhatIfError, each_doc, scenario_doc
from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import dump_layout_text
from rackdesigner.simulation import simulate
from rackdesigner.workload import Job
from rackdesigner.workload.jobfile import JobSpec

#: TP 16 spans two 8-GPU nodes: its all-gathers ride the NICs and, on top-of-rack leaves, the
#: spines (the estimator times rank 0's group, so a fabric loss shows where that group crosses)
JOB = JobSpec("llama3-8b", Job(tp=16, gbs=64))


@pytest.fixture(scope="module")
def tor():
    return tor_cluster(nodes=4, spines=4)


@pytest.fixture(scope="module")
def tor_whatif(tor):
    return WhatIf(tor, job=JOB)


def test_losing_a_spine_under_tensor_parallel_across_nodes_slows_the_job(tor_whatif):
    impact = tor_whatif.scenario(["spine-1"])
    d = impact.job_delta
    # the TP ring between the two nodes crosses the spines: with a quarter of their capacity
    # gone its exposed all-gathers / reduce-scatters take longer
    assert d["step_time_s"] > 0.02 and d["tokens_per_s"] < -0.02
    assert d["energy_J_per_token"] > 0  # the same power for fewer tokens
    assert abs(d["tokens_per_s"]) < 0.25  # TP is only part of the step
    doc = scenario_doc(impact, tor_whatif.intact_result)
    assert doc["schema"] == "rackdesigner.whatif/1" and doc["failed"] == ["spine-1"]
    w = doc["workload"]
    assert w["degraded"]["step_time_s"] > w["intact"]["step_time_s"]
    assert "Llama 3 8B" in w["job"]


def test_a_failed_node_the_job_needs_is_the_worst_row_and_says_why(tor_whatif):
    rows = tor_whatif.each("node")
    assert len(rows) >= 1
    worst = rows[0].impact
    assert worst.job_after is not None and not worst.job_after.ran
    assert worst.job_delta["tokens_per_s"] == -1.0
    assert "does not divide" in worst.job_after.error or "GPUs" in worst.job_after.error
    row = each_doc("node", rows)["scenarios"][0]
    assert row["workload"]["tokens_per_s"] == -1.0 and row["workload"]["error"]
    assert set(row["delta"]) >= {"bisection_GBps", "all_to_all_busbw_GBps"}  # schema kept


def test_each_without_a_job_keeps_the_rows_as_they_were(tor):
    rows = WhatIf(tor).each("switch")
    assert all("workload" not in r for r in each_doc("switch", rows)["scenarios"])


def test_a_job_that_cannot_run_on_the_intact_design_is_refused(tor):
    with pytest.raises(WhatIfError, match="cannot run on the intact design"):
        WhatIf(tor, job=JobSpec("llama3-8b", Job(tp=3, gbs=64)))


def test_cli_whatif_with_a_job(tmp_path, capsys, tor):
    design = tmp_path / "tor.yaml"
    design.write_text(dump_layout_text(tor))
    job = tmp_path / "job.yaml"
    job.write_text("model: llama3-8b\ntp: 16\ngbs: 64\n")
    assert main(["whatif", str(design), "--fail", "spine-2", "--job", str(job)]) == 0
    out = capsys.readouterr().out
    assert "tokens/s" in out and "energy per token" in out and "training job" in out
    assert main(["whatif", str(design), "--each", "spine", "--job", str(job), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "spine" and doc["scenarios"][0]["workload"]["tokens_per_s"] < 0
    job.write_text("model: llama3-8b\ntp: 3\ngbs: 64\n")
    assert main(["whatif", str(design), "--each", "spine", "--job", str(job)]) == 2
    assert "cannot run on the intact design" in capsys.readouterr().err


@pytest.mark.slow
def test_a_failure_outside_rank_0s_groups_still_slows_the_job():
    # two NVL72 racks, TP 8 groups in both: a switch tray of the second rack fails, so only
    # that rack's TP groups lose NVLink capacity — the step waits for them, not for rank 0's
    from rackdesigner.generators import generate
    from rackdesigner.model.failures import closure, degraded
    from rackdesigner.workload.comm import CommModel

    racks = generate("superpod", system="gb200-nvl72", racks=2)
    whatif = WhatIf(racks, job=JobSpec("llama3-70b", Job(tp=8, gbs=144)))
    tray = "nvl72-2.switch_tray0"
    impact = whatif.scenario([tray])
    assert impact.job_delta["step_time_s"] > 0.002  # TP overlapped with GEMMs: a few ms
    assert impact.job_delta["tokens_per_s"] < 0
    # the intact design is symmetric: one group simulated per shape; the degraded one adds
    # a group for the rack that lost its tray
    shape = Job(tp=8, gbs=144).groups()["tp"]
    intact = CommModel(racks, CommModel.layout_gpus(racks))
    assert len(intact.distinct_groups(shape)) == 1
    broken = degraded(racks, closure(racks, (tray,)))
    after = CommModel(broken, CommModel.layout_gpus(broken))
    groups = after.distinct_groups(shape)
    assert len(groups) == 2 and groups[0].start == 0
    assert after.ids(groups[1])[0].startswith("nvl72-2.")


def test_a_failed_leaf_puts_two_data_parallel_rings_on_one_nic_and_the_estimate_says_so():
    # rail-optimized SU: each data-parallel group (TP 8) is one rail. A failed leaf sends its
    # rail's GPUs to the neighbouring NIC, which then carries two rings at once: the groups
    # are fine alone, together they need twice that NIC's rate
    from rackdesigner.generators import generate
    from rackdesigner.model.failures import closure, degraded
    from rackdesigner.workload import Estimator

    su = generate("superpod", system="dgx-h100", sus=1)
    job = Job(tp=8, gbs=62)
    intact = Estimator(su, "llama3-8b").estimate(job)
    assert not any("contention" in d for d in intact.comm.values())  # rails keep up
    broken = degraded(su, closure(su, ("leaf-1",)))
    after = Estimator(broken, "llama3-8b").estimate(job)
    stretched = {name: d["contention"] for name, d in after.comm.items() if "contention" in d}
    assert stretched and all(name.startswith("dp_") for name in stretched)
    # two rings, one NIC: twice what one ring pushes at NCCL's per-NIC share across the SU's
    # 31 nodes (transport.yaml)
    from rackdesigner.simulation.transport import family

    two = 2 * family("infiniband").nic_efficiency(31)
    assert all(0.85 * two < c["factor"] < 1.15 * two for c in stretched.values())
    assert after.tokens_per_s < 0.95 * intact.tokens_per_s


@pytest.mark.slow
def test_a_job_whose_first_gpus_are_cut_off_runs_on_the_largest_part_that_holds_it():
    """Issue 38 item 3: a job on the first 256 GPUs of a 14-rack NVL72 SuperPOD whose first SU
    lost its leaf rack was reported unchanged while its GPUs could not reach each other (one
    representative group was timed); it now runs on the largest connected part, and a job
    that no part holds cannot run."""
    from rackdesigner.workload import EstimateError, Estimator

    layout = generate("superpod", system="gb200-nvl72", racks=14)
    for device in layout.group_devices("rack-1.group"):  # the first SU's leaf rack
        layout.update_device(device, status="failed")
    assert simulate(layout).scope.unreachable_gpus == 576
    est = Estimator(layout, "llama3-70b", gpus=256)
    assert "largest connected part" in est.label
    assert {g.split(".")[0] for g in est.comm.gpus}.isdisjoint({"nvl72-1", "nvl72-2"})
    with pytest.raises(EstimateError, match="cannot all reach each other"):
        Estimator(layout, "llama3-70b", gpus=900)
