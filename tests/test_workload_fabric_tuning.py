"""The fabric tuning a cluster runs (vendor-tuned or NCCL's typical defaults) is an input of the
training estimate, as it is of `simulate` (issue 33): the engine's network figures follow it,
the estimate says which it assumed, and every published training run states its own."""

from __future__ import annotations

import json

import pytest
from script_module import script_module

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.vocabulary import DEFAULT_FABRIC_TUNING, FABRIC_TUNINGS
from rackdesigner.workload import EstimateError, estimate

# 8 nodes of DGX H100 with plain data parallelism across them: the gradient all-reduce crosses
# the fabric every step and is not hidden
JOB = dict(model="llama3-8b", tp=8, gbs=64, sharding="none", dp_overlap=False)


@pytest.fixture(scope="module")
def pod():
    return generate("rail-optimized", system="dgx-h100", nodes=8, switch="qm9700")


def test_typical_defaults_never_make_a_multi_node_step_faster(pod):
    """NCCL's defaults keep less of each NIC than the vendor's settings across nodes: the
    exposed data-parallel time grows, the step is slower, and nothing inside a node moves."""
    model = JOB["model"]
    job = {k: v for k, v in JOB.items() if k != "model"}
    tuned = estimate(pod, model, **job, fabric_tuning="vendor-tuned")
    plain = estimate(pod, model, **job, fabric_tuning="typical-defaults")
    assert plain.breakdown["dp_exposed_s"] > tuned.breakdown["dp_exposed_s"]
    assert plain.step_time_s > tuned.step_time_s
    assert plain.breakdown["compute_s"] == pytest.approx(tuned.breakdown["compute_s"])
    # the data-parallel group (one GPU per node) runs slower; TP inside the node does not
    assert (plain.comm["dp_grad_all_reduce"]["busbw_GBps"]
            < tuned.comm["dp_grad_all_reduce"]["busbw_GBps"])
    assert plain.comm["tp_all_gather"] == tuned.comm["tp_all_gather"]
    # inside one NVLink domain there is no network to tune
    inside = [estimate(pod, model, gpus=8, tp=8, gbs=8, fabric_tuning=t) for t in FABRIC_TUNINGS]
    assert inside[0].step_time_s == pytest.approx(inside[1].step_time_s)


def test_the_estimate_says_which_tuning_it_assumed(pod):
    e = estimate(pod, "llama3-8b", gpus=16, tp=8, gbs=16)
    assert e.fabric_tuning == DEFAULT_FABRIC_TUNING
    assert e.to_dict()["fabric_tuning"] == DEFAULT_FABRIC_TUNING
    e = estimate(pod, "llama3-8b", gpus=16, tp=8, gbs=16, fabric_tuning="typical-defaults")
    assert e.to_dict()["fabric_tuning"] == "typical-defaults"


def test_an_unknown_tuning_is_refused_by_name(pod):
    with pytest.raises(EstimateError, match=r"fabric tuning 'fast'.*vendor-tuned"):
        estimate(pod, "llama3-8b", gpus=16, tp=8, gbs=16, fabric_tuning="fast")


def test_cli_estimate_takes_the_fabric_tuning(pod, tmp_path, capsys):
    path = tmp_path / "pod.yaml"
    save_layout(pod, path)
    args = ["estimate", str(path), "--model", "llama3-8b", "--tp", "8", "--gbs", "64",
            "--sharding", "none", "--no-dp-overlap"]
    times = {}
    for tuning in FABRIC_TUNINGS:
        assert main([*args, "--fabric-tuning", tuning, "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["fabric_tuning"] == tuning
        times[tuning] = doc["step_time_s"]
    assert times["typical-defaults"] > times["vendor-tuned"]
    assert main([*args, "--fabric-tuning", "typical-defaults"]) == 0
    assert "fabric tuning:  typical-defaults" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main([*args, "--fabric-tuning", "fast"])
    assert exc.value.code == 2


def test_every_published_run_states_its_clusters_tuning(tmp_path):
    """benchmarks/workload_runs.yaml: each run names the tuning its cluster ran (both occur),
    and a run without one is a located error, not a silent default."""
    with script_module("workload_validation") as validation:
        runs = validation.load_runs()
        assert {r.tuning for r in runs} == set(FABRIC_TUNINGS)
        # NVIDIA's NeMo tables ran on the vendor's clusters; MosaicML's and Together AI's on
        # clusters whose reports state no NCCL network setting
        assert all(r.tuning == "vendor-tuned" for r in runs if r.source.startswith("NeMo "))
        assert all(r.tuning == "typical-defaults" for r in runs
                   if "llm-foundry" in r.source or r.source.startswith("Together AI"))
        bad = tmp_path / "runs.yaml"
        bad.write_text("schema_version: 1\nsources: {s: x}\nruns:\n"
                       "- {name: a, set: validation, gpu: A100, stack: megatron-2021, "
                       "cluster: selene, model: gpt3-175b, source: s, job: {gpus: 8, gbs: 8}, "
                       "measured: [1, s]}\n", encoding="utf-8")
        with pytest.raises(ValueError, match=r"runs\.yaml: runs\[0\] \('a'\): tuning must be"):
            validation.load_runs(bad)
