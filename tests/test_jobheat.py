"""The heat map under a training job's traffic: where TP, PP and DP exchanges land on the links."""

from __future__ import annotations

import json

import pytest
from workload_designs import remove_switches, tor_cluster

from rackdesigner.analysis.jobheat import group_starts, parse_workload, workload_heat
from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import dump_layout_text
from rackdesigner.workload import Job
from rackdesigner.workload.jobfile import JobSpec, parse_job


def kinds(layout, load) -> tuple[str, str]:
    return tuple(sorted(layout.spec(x).kind for x in (load.a, load.b)))


def nvlink(layout, load) -> bool:
    return "gpu" in kinds(layout, load) and not any(
        k in ("nic", "switch") for k in kinds(layout, load))


def switch_to_switch(layout, load) -> bool:
    return kinds(layout, load) == ("switch", "switch")


def spec(**kw) -> JobSpec:
    gpus = kw.pop("gpus", None)
    return JobSpec("llama3-8b", Job(gbs=kw.pop("gbs", 64), **kw), gpus=gpus)


@pytest.fixture(scope="module")
def tor():
    return tor_cluster(nodes=4, spines=4)


@pytest.fixture(scope="module")
def sp2():
    return generate("superpod", system="dgx-h100", sus=2)


def test_tp_inside_a_node_loads_nvlink_only_and_tp_across_nodes_reaches_the_nics(tor):
    heat, _ = workload_heat(tor, spec(tp=8, gpus=8), ["TP"])
    assert heat.loads, "TP 8 must load the node's NVLinks"
    assert all(nvlink(tor, x) for x in heat.loads.values())
    assert 0.3 < heat.peak <= 1.0  # a ring at NCCL's busbw on 450 GB/s of NVLink per GPU
    wide, _ = workload_heat(tor, spec(tp=16, gpus=16), ["TP"])
    network = [x for x in wide.loads.values() if not nvlink(tor, x)]
    assert network, "TP 16 on 8-GPU nodes must cross the network"
    assert all(wide.link_class[x.link] == "TP" for x in network)


def test_dp_traffic_lands_on_the_nics_and_crosses_the_spines_of_top_of_rack_leaves(tor):
    heat, _ = workload_heat(tor, spec(tp=8, gpus=32), ["DP"])
    nic_links = [x for x in heat.loads.values() if "nic" in kinds(tor, x)]
    spine_links = [x for x in heat.loads.values() if switch_to_switch(tor, x)]
    assert len(nic_links) == 32  # every NIC of the 4 nodes: one ring per rail
    assert spine_links, "ring hops between top-of-rack leaves cross the spines"
    assert not any(nvlink(tor, x) for x in heat.loads.values())  # one GPU per node per group


def test_dp_on_a_rail_optimized_su_stays_on_the_rail_leaves(sp2):
    heat, _ = workload_heat(sp2, spec(tp=8, gpus=248, gbs=62), ["DP"])  # one SU: 31 nodes
    assert heat.loads
    assert not any(switch_to_switch(sp2, x) for x in heat.loads.values())
    for load in heat.loads.values():  # NIC r of a node on the leaf of rail r
        nic = load.a if sp2.spec(load.a).kind == "nic" else load.b
        leaf = load.b if nic == load.a else load.a
        rail = int(nic.rsplit("nic", 1)[1])
        assert leaf == f"leaf-{rail + 1}", (nic, leaf)


def test_pipeline_stages_in_different_sus_put_their_sends_on_the_spines(sp2):
    two_stages, _ = workload_heat(sp2, spec(tp=8, pp=2, gpus=496, gbs=62), ["PP"])
    spines = [x for x in two_stages.loads.values() if switch_to_switch(sp2, x)]
    assert spines and max(x.utilisation for x in spines) > 0.3
    assert {two_stages.link_class[x.link] for x in spines} == {"PP"}
    no_pp, _ = workload_heat(sp2, spec(tp=8, pp=1, gpus=496, gbs=62), ["PP"])
    assert not no_pp.loads


def test_a_larger_dp_moves_the_hottest_link_from_nvlink_to_the_oversubscribed_spines():
    layout = tor_cluster(nodes=4, spines=4)
    remove_switches(layout, ["spine-3", "spine-4"])  # 2:1 oversubscribed leaf uplinks
    one_node, _ = workload_heat(layout, spec(tp=8, gpus=8))
    hottest = one_node.hottest(1)[0]
    assert nvlink(layout, hottest) and one_node.link_class[hottest.link] == "TP"
    four_nodes, _ = workload_heat(layout, spec(tp=8, gpus=32))
    hottest = four_nodes.hottest(1)[0]
    assert switch_to_switch(layout, hottest) and four_nodes.link_class[hottest.link] == "DP"
    nic = max(x.utilisation for x in four_nodes.loads.values() if "nic" in kinds(layout, x))
    assert hottest.utilisation > 1.5 * nic  # the uplinks carry twice what the NICs push


def test_groups_of_one_kind_cover_every_rank_once():
    job = Job(tp=4, pp=2, ep=2, gbs=64).resolved(64, __import__(
        "rackdesigner.workload", fromlist=["resolve_model"]).resolve_model("mixtral-8x7b"))
    for key in ("tp", "dp", "ep", "edp"):
        shape = job.groups()[key]
        ranks = sorted(s + i * shape.stride for s in group_starts(job, key, 64)
                       for i in range(shape.size))
        assert ranks == list(range(64)), key
    assert len(group_starts(job, "pp", 64)) == 32  # every rank of stage 0 to stage 1


def test_workload_heat_choice_parses_classes_and_rejects_others():
    assert parse_workload("all_to_all:1G") is None
    assert parse_workload("workload") == ("TP", "CP", "EP", "PP", "DP")
    assert parse_workload("workload:dp,tp") == ("DP", "TP")
    with pytest.raises(ValueError, match="tp, cp, ep, pp, dp"):
        parse_workload("workload:xp")


def test_a_bad_job_file_names_its_line():
    with pytest.raises(ValueError, match=r"job.yaml:3: tp must be a whole number"):
        parse_job("model: llama3-8b\ngbs: 64\ntp: eight\n", "job.yaml")
    with pytest.raises(ValueError, match=r"job.yaml:2: unknown key 'tpp'; did you mean 'tp'"):
        parse_job("model: llama3-8b\ntpp: 8\ngbs: 64\n", "job.yaml")
    with pytest.raises(ValueError, match=r"job.yaml:1: missing 'gbs'"):
        parse_job("model: llama3-8b\n", "job.yaml")
    pasted = parse_job("workload: {model: llama3-8b, tp: 8, gbs: 64, gpus: 16}\n")
    assert pasted.job.tp == 8 and pasted.gpus == 16


@pytest.mark.slow
def test_cli_renders_and_lists_the_job_loads(tmp_path, capsys, tor):
    design = tmp_path / "tor.yaml"
    design.write_text(dump_layout_text(tor))
    job = tmp_path / "job.yaml"
    job.write_text("model: llama3-8b\ntp: 8\ngbs: 64\n")
    out = tmp_path / "heat.svg"
    assert main(["render", str(design), "--heat", "workload", "--job", str(job),
                 "-o", str(out)]) == 0
    assert "busiest exchange per link" in out.read_text()
    capsys.readouterr()
    assert main(["simulate", str(design), "--link-loads", "--job", str(job), "--json"]) == 0
    loads = json.loads(capsys.readouterr().out)["link_loads"]
    assert {x["class"] for x in loads["exchanges"]} == {"TP", "DP"}
    assert loads["links"][0]["utilisation"] >= loads["links"][-1]["utilisation"]
    assert "while an exchange runs" in loads["utilisation"]
    assert main(["render", str(design), "--heat", "workload", "-o", str(out)]) == 2
    assert "--heat workload needs --job FILE" in capsys.readouterr().err
    job.write_text("model: llama3-8b\ntp: 3\ngbs: 64\n")
    assert main(["simulate", str(design), "--link-loads", "--job", str(job)]) == 2
    err = capsys.readouterr().err
    assert "cannot run on" in err and "3 does not divide the 32 GPUs" in err
    assert "run it on 30 of them (set gpus to 30)" in err  # the job file's key, its nearest size


def test_a_job_file_is_read_only_when_regular_and_finds_its_model_file_beside_it(tmp_path):
    import os

    from workload_designs import SMALL_MODEL

    from rackdesigner.workload.jobfile import load_job

    fifo = tmp_path / "job.fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="is a FIFO"):
        load_job(fifo)  # refused at once, never waited on
    (tmp_path / "small.yaml").write_text(SMALL_MODEL)
    job = tmp_path / "job.yaml"
    job.write_text("model: small.yaml\ngbs: 8\n")
    assert load_job(job).model == str(tmp_path / "small.yaml")
