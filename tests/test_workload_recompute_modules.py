"""Megatron-Core's `recompute_modules` (output-discarding recomputation of the MoE layers'
pre-MLP norm and the experts' activation; the attention core by name): the activations those
modules produce are freed, their forward runs again, and names the estimator does not model
are refused where they are written (job file line, CLI option, API)."""

from __future__ import annotations

import pytest

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.workload import EstimateError, estimate, resolve_model
from rackdesigner.workload import hardware as H
from rackdesigner.workload.costs import activation_bytes_per_layer, recomputed_module_units
from rackdesigner.workload.job import Job, JobError
from rackdesigner.workload.jobfile import JobFileError, parse_job
from rackdesigner.workload.memory import memory_per_gpu
from rackdesigner.workload.profile import resolve_profile
from rackdesigner.workload.stages import inflight_layers, stages

MOE = ("gpt-oss-120b", "qwen3-30b-a3b", "deepseek-v3")
BOTH = ("layernorm", "moe_act")


def _job(model, gpus: int, **kw) -> Job:
    return Job(**kw).resolved(gpus, model)


@pytest.fixture(scope="module")
def node():
    return generate("dgx-h100")


@pytest.mark.parametrize("name", MOE)
@pytest.mark.parametrize("precision", ["bf16", "fp8"])
@pytest.mark.parametrize("mbs", [1, 2])
def test_each_module_frees_its_share_of_the_layer_and_no_more(name, precision, mbs):
    """The pre-MLP norm's output (the MoE block's input) and each of the top-k activation
    outputs (the fc2 inputs) are what `layernorm` and `moe_act` free, per MoE layer."""
    model = resolve_model(name)
    e = model.moe
    assert e is not None
    base = _job(model, 8, ep=8, etp=1, gbs=8 * mbs, mbs=mbs, precision=precision,
                recompute_modules=("core_attn",))
    full = activation_bytes_per_layer(model, base)
    sbh = mbs * base.seq_len * model.hidden
    g = 1.0 if precision == "fp8" else 2.0
    share = model.moe_layers / model.layers
    freed = {"layernorm": share * g,
             "moe_act": share * e.top_k * g * e.expert_ffn_hidden / model.hidden}
    for mods in (("layernorm",), ("moe_act",), BOTH):
        job = _job(model, 8, ep=8, etp=1, gbs=8 * mbs, mbs=mbs, precision=precision,
                   recompute_modules=("core_attn", *mods))
        kept = activation_bytes_per_layer(model, job)
        assert full - kept == pytest.approx(sum(freed[m] for m in mods) * sbh)
        assert 0 < kept < full
    # the default (the profile's selective recomputation) is the attention core alone
    default = _job(model, 8, ep=8, etp=1, gbs=8 * mbs, mbs=mbs, precision=precision)
    assert activation_bytes_per_layer(model, default) == full


def test_memory_per_gpu_falls_by_the_modules_share_of_every_layer_in_flight():
    model = resolve_model("gpt-oss-120b")
    gpu, profile = H.gpu_compute("h100-sxm5"), resolve_profile("nemo-2025")
    kw = {"pp": 4, "ep": 8, "etp": 1, "gbs": 512, "mbs": 2}
    plain = _job(model, 64, **kw)
    recomputed = _job(model, 64, recompute_modules=BOTH, **kw)
    a, b = memory_per_gpu(model, plain, gpu, profile), memory_per_gpu(model, recomputed, gpu,
                                                                     profile)
    held = inflight_layers(plain, stages(model, plain)[0])  # the first rank is the fullest
    sbh = 2 * plain.seq_len * model.hidden
    freed = held * recomputed_module_units(model, recomputed, BOTH) * sbh / 1e9
    assert a.activations_GB - b.activations_GB == pytest.approx(freed)
    assert (a.weights_GB, a.gradients_GB, a.optimizer_GB) == (b.weights_GB, b.gradients_GB,
                                                              b.optimizer_GB)
    assert b.total_GB < a.total_GB


def test_a_dense_model_frees_nothing():
    """Transformer Engine fuses a dense layer's norms into the next linear layer (an IdentityOp
    that Megatron-Core does not recompute) and a dense model has no experts."""
    model = resolve_model("llama3-8b")
    a = _job(model, 8, gbs=8, recompute_modules=("core_attn",))
    b = _job(model, 8, gbs=8, recompute_modules=("core_attn", *BOTH))
    assert activation_bytes_per_layer(model, a) == activation_bytes_per_layer(model, b)


@pytest.mark.parametrize("name", ["gpt-oss-120b", "qwen3-30b-a3b"])
def test_the_recomputed_forward_makes_the_step_slower(node, name):
    kw = {"ep": 8, "etp": 1, "gbs": 64, "mbs": 2, "time_if_too_big": True}
    for before in ((), ("core_attn",)):
        a = estimate(node, name, recompute_modules=before, **kw)
        b = estimate(node, name, recompute_modules=(*before, *BOTH), **kw)
        assert b.step_time_s > a.step_time_s
        assert b.hardware["recompute_s"] > a.hardware["recompute_s"]
        assert b.memory.activations_GB < a.memory.activations_GB
    # naming the attention core alone is the profile's default
    same = estimate(node, name, recompute_modules=("core_attn",), **kw)
    assert same.step_time_s == estimate(node, name, **kw).step_time_s


def test_unknown_modules_are_refused_where_they_are_written(node, tmp_path, capsys):
    text = "model: gpt-oss-120b\ngbs: 64\nrecompute_modules:\n  - layernorm\n  - moe_ack\n"
    with pytest.raises(JobFileError, match=r"job\.yaml:5: recompute_modules: unknown module "
                       r"'moe_ack'; did you mean 'moe_act'\?"):
        parse_job(text, "job.yaml")
    with pytest.raises(JobFileError, match=r"job\.yaml:3: recompute_modules: unknown module "
                       "'mlp'"):
        parse_job("model: gpt-oss-120b\ngbs: 64\nrecompute_modules: layernorm, mlp\n",
                  "job.yaml")
    spec = parse_job("model: gpt-oss-120b\ngbs: 64\nrecompute_modules: [layernorm, moe_act]\n")
    assert spec.job.recompute_modules == BOTH
    assert parse_job("model: gpt-oss-120b\ngbs: 64\nrecompute_modules: layernorm,moe_act\n"
                     ).job.recompute_modules == BOTH
    with pytest.raises(JobError, match="unknown module 'mlp'"):
        Job(gbs=8, recompute_modules=("mlp",)).resolved(8, resolve_model("gpt-oss-120b"))
    with pytest.raises(EstimateError, match=r"need .*selective"):
        estimate(node, "gpt-oss-120b", ep=8, gbs=8, recompute="full", recompute_modules=BOTH)
    with pytest.raises(EstimateError, match="Megatron-Core's"):
        estimate(node, "llama3-8b", gbs=8, profile="pytorch-fsdp", recompute_modules=BOTH)
    path = tmp_path / "node.yaml"
    save_layout(node, path)
    args = ["estimate", str(path), "--model", "gpt-oss-120b", "--ep", "8", "--etp", "1",
            "--gbs", "64"]
    with pytest.raises(SystemExit):
        main([*args, "--recompute-modules", "layernorm,moe_ack"])
    assert "unknown module 'moe_ack'" in capsys.readouterr().err
    args[3] = "qwen3-30b-a3b"  # fits on one node
    assert main([*args, "--recompute-modules", "layernorm,moe_act", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"recompute_modules": [' in out


def test_nemo_gpt_oss_on_h100_with_its_recipes_modules():
    """NeMo's gpt-oss-120b recipe for H100 (PP 4, EP 8, `recompute_modules: [layernorm,
    moe_act]`): the published 26.02 layout (micro-batch 1) fits; the 25.11 table's micro-batch
    4 falls from about 105 to 88 GB and stays refused (tests/test_workload_validation.py)."""
    model = resolve_model("gpt-oss-120b")
    gpu, profile = H.gpu_compute("h100-sxm5"), resolve_profile("nemo-2025")
    kw = {"pp": 4, "ep": 8, "etp": 1, "recompute_modules": BOTH}
    assert memory_per_gpu(model, _job(model, 64, gbs=1280, mbs=1, **kw), gpu, profile).fits
    four = memory_per_gpu(model, _job(model, 64, gbs=512, mbs=4, **kw), gpu, profile)
    plain = memory_per_gpu(model, _job(model, 64, gbs=512, mbs=4, pp=4, ep=8, etp=1), gpu,
                           profile)
    assert four.total_GB < 0.85 * plain.total_GB and not four.fits
