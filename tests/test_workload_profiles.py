"""Efficiency profiles, the memory model that admits what teams run, `--time-anyway`, and the
scale-up question for an expert-parallel MoE (one NVL72 rack vs eight DGX B200)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.workload import EstimateError, estimate, resolve_model
from rackdesigner.workload.costs import activation_bytes_per_layer
from rackdesigner.workload.job import Job
from rackdesigner.workload.jobfile import JobFileError, parse_job
from rackdesigner.workload.profile import (
    DEFAULT_PROFILE,
    ProfileError,
    bundled_profile_ids,
    load_profile_file,
    resolve_profile,
)

MODELS = Path(__file__).resolve().parent.parent / "benchmarks" / "workload_models"


@pytest.fixture(scope="module")
def dgx_h100():
    return generate("dgx-h100")


# ---- profiles ----------------------------------------------------------------------------------
def test_bundled_profiles_name_their_stack_and_sources():
    ids = bundled_profile_ids()
    assert DEFAULT_PROFILE in ids and {"megatron-2021", "nemo-2024", "pytorch-fsdp"} <= set(ids)
    for pid in ids:
        p = resolve_profile(pid)
        assert p.name and p.sources and p.attention in ("flash", "unfused")
        assert 0 < p.attention_fwd <= 1 and p.op("norm").bytes_fwd > 0
    assert not resolve_profile("megatron-2021").flash
    assert resolve_profile("nemo-2025").tp_overlap
    assert not resolve_profile("megatron-2021").tp_overlap


def test_a_user_profile_inherits_from_a_bundled_one_and_changes_what_it_says(tmp_path,
                                                                              dgx_h100):
    path = tmp_path / "my-stack.yaml"
    path.write_text("schema_version: 1\nname: my stack\nbase: nemo-2025\n"
                    "overlap: {tp: false}\nops:\n  norm: {bytes: [40, 60]}\n")
    p = load_profile_file(path)
    base = resolve_profile("nemo-2025")
    assert p.id == "my-stack" and not p.tp_overlap and p.dp_overlap == base.dp_overlap
    assert p.op("norm").bytes_fwd == 40 and p.op("norm").kernels_fwd == base.op("norm").kernels_fwd
    kw = dict(tp=8, gbs=8)
    slower = estimate(dgx_h100, "llama3-8b", profile=str(path), **kw)
    today = estimate(dgx_h100, "llama3-8b", **kw)
    assert slower.step_time_s > today.step_time_s
    assert slower.breakdown["tp_exposed_s"] > today.breakdown["tp_exposed_s"]
    assert slower.to_dict()["profile"]["id"] == "my-stack"


@pytest.mark.parametrize(("text", "line", "words"), [
    ("schema_version: 1\nname: x\nbase: nemo-2025\novrelap: {tp: false}\n", 4,
     "unknown key 'ovrelap'"),
    ("schema_version: 1\nname: x\nbase: nemo-2025\nattention: magic\n", 4,
     "attention must be one of flash, unfused"),
    ("schema_version: 1\nname: x\nbase: nemo-2025\nops:\n  norm: {bytes: [4]}\n", 5,
     "ops.norm.bytes must be [forward, backward]"),
    ("schema_version: 1\nname: x\nbase: nemo-2099\n", 3, "base 'nemo-2099'"),
    ("schema_version: 1\nname: x\nattention: flash\n", 1, "missing required keys"),
])
def test_bad_profile_files_get_a_located_error(tmp_path, text, line, words):
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(ProfileError) as info:
        load_profile_file(path)
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert words in str(info.value)


def test_an_unknown_profile_is_a_clear_error(dgx_h100):
    with pytest.raises(EstimateError, match=r"did you mean nemo-202[56]"):
        estimate(dgx_h100, "llama3-8b", gbs=8, profile="nemo-2042")


# ---- memory ------------------------------------------------------------------------------------
def test_activations_reproduce_korthikantis_formula():
    """Korthikanti et al. 2022 (arXiv:2205.05198) eq. 1-4 for their GPT layer (GELU, MHA,
    dropout): s·b·h·(34 + 5·a·s/h) bytes without parallelism; with TP t and no sequence
    parallelism s·b·h·(10 + 24/t + 5·a·s/(h·t)); with sequence parallelism everything / t;
    selective recomputation drops the 5·a·s/h term. FlashAttention never stores it."""
    m = resolve_model(str(MODELS / "gpt-22b.yaml"))
    s, b, h, a = 2048, 1, m.hidden, m.heads
    sbh = s * b * h
    plain = Job(mbs=b, seq=s, recompute="none")
    assert activation_bytes_per_layer(m, plain, flash=False) == pytest.approx(
        sbh * (34 + 5 * a * s / h))
    t = 8
    no_sp = Job(tp=t, mbs=b, seq=s, recompute="none", sequence_parallel=False)
    assert activation_bytes_per_layer(m, no_sp, flash=False) == pytest.approx(
        sbh * (10 + 24 / t + 5 * a * s / (h * t)))
    sp = Job(tp=t, mbs=b, seq=s, recompute="selective")
    assert activation_bytes_per_layer(m, sp, flash=False) == pytest.approx(sbh * 34 / t)
    assert activation_bytes_per_layer(m, Job(tp=t, mbs=b, seq=s, recompute="none")) == \
        pytest.approx(sbh * 34 / t)


def test_a_7b_fsdp_run_without_recomputation_fits_on_8_h100(dgx_h100):
    """MosaicML llm-foundry's MPT-7B on 8 H100, FSDP, micro-batch 6, no activation
    checkpointing (10,643 tokens/s/GPU): FlashAttention stores no scores, so it fits."""
    e = estimate(dgx_h100, str(MODELS / "mpt-7b.yaml"), gbs=48, mbs=6, recompute="none",
                 sharding="full", profile="pytorch-fsdp")
    assert e.fits and e.memory.total_GB < e.memory.usable_GB
    assert e.memory.activations_GB < 70
    # the usable line: the driver's 81,559 MiB less the stated reserve, not a round 90 %
    assert e.memory.hbm_GB == pytest.approx(81559 * 2**20 / 1e9)
    assert e.memory.hbm_GB - 10 < e.memory.usable_GB < e.memory.hbm_GB - 3


@pytest.mark.slow
def test_nemos_405b_layout_on_1024_h100_fits():
    pod = generate("rail-optimized", system="dgx-h100", nodes=128, switch="qm9700")
    e = estimate(pod, "llama3.1-405b", tp=8, pp=8, cp=2, vp=8, gbs=512, precision="fp8")
    assert e.fits, e.memory.refusal()
    fp32 = estimate(pod, "llama3.1-405b", tp=8, pp=8, cp=2, vp=8, gbs=512, precision="fp8",
                    grad_dtype="fp32")
    assert fp32.memory.gradients_GB == pytest.approx(2 * e.memory.gradients_GB)


# ---- --time-anyway -----------------------------------------------------------------------------
def test_time_anyway_times_a_layout_that_does_not_fit_and_marks_it(tmp_path, dgx_h100, capsys):
    path = tmp_path / "node.yaml"
    save_layout(dgx_h100, path)
    args = ["estimate", str(path), "--model", "llama3-70b", "--gbs", "8", "--sharding", "none"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "refused" in out and "--time-anyway" in out and "step time" not in out
    assert main([*args, "--time-anyway"]) == 1
    out = capsys.readouterr().out
    assert "DOES NOT FIT: timed anyway" in out
    assert main([*args, "--time-anyway", "--json"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert d["fits"] is False and d["timed_anyway"] is True and d["step_time_s"] > 0


def test_cli_profile_option_and_profile_listing(tmp_path, dgx_h100, capsys):
    path = tmp_path / "node.yaml"
    save_layout(dgx_h100, path)
    base = ["estimate", str(path), "--model", "llama3-8b", "--tp", "8", "--gbs", "8", "--json"]
    assert main(base) == 0
    today = json.loads(capsys.readouterr().out)
    assert main([*base, "--profile", "megatron-2021"]) == 0
    old = json.loads(capsys.readouterr().out)
    assert today["profile"]["id"] == "nemo-2025" and old["profile"]["id"] == "megatron-2021"
    assert old["step_time_s"] > today["step_time_s"]
    assert main([*base, "--profile", "nemo-2042"]) == 2
    assert "nemo-2042" in capsys.readouterr().err
    assert main(["models", "--profiles", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {p["id"] for p in listed} == set(bundled_profile_ids())
    assert [p["id"] for p in listed if p["default"]] == [DEFAULT_PROFILE]


def test_job_files_take_the_profile_and_gradient_precision(tmp_path):
    spec = parse_job("model: llama3-8b\ngbs: 8\nprofile: megatron-2021\ngrad_dtype: fp32\n"
                     "dp_overlap: false\n")
    assert spec.job.profile == "megatron-2021" and spec.job.grad_dtype == "fp32"
    assert spec.job.dp_overlap is False
    with pytest.raises(JobFileError, match=r"<job>:3: profile: .*did you mean"):
        parse_job("model: llama3-8b\ngbs: 8\nprofile: nemo-2052\n")


# ---- the scale-up question -----------------------------------------------------------------------
GPT_OSS = dict(gpus=64, ep=64, gbs=1280, mbs=4)


@pytest.fixture(scope="module")
def gpt_oss_estimates():
    rack = estimate(generate("nvl72"), "gpt-oss-120b", **GPT_OSS)
    b200 = generate("superpod", system="dgx-b200", nodes=8)
    nodes = estimate(b200, "gpt-oss-120b", **GPT_OSS)
    exposed = estimate(b200, "gpt-oss-120b", profile="nemo-2024", **GPT_OSS)  # no EP overlap
    return rack, nodes, exposed


def test_overlapping_the_expert_all_to_all_narrows_the_nvl72_vs_dgx_b200_gap(gpt_oss_estimates):
    """gpt-oss-120b, EP 64, on 64 GPUs of an NVL72 rack vs 8 DGX B200: the all-to-all crosses
    InfiniBand on the nodes and stays on NVLink in the rack; hiding it behind the other
    micro-batch's compute (NeMo 2025) shrinks the rack's advantage."""
    rack, nodes, exposed = gpt_oss_estimates
    assert nodes.breakdown["ep_exposed_s"] > 5 * rack.breakdown["ep_exposed_s"]
    assert exposed.breakdown["ep_exposed_s"] > nodes.breakdown["ep_exposed_s"]
    overlapped = rack.tokens_per_s / nodes.tokens_per_s
    assert 1.4 <= overlapped < rack.tokens_per_s / exposed.tokens_per_s


def test_gpt_oss_on_an_nvl72_rack_vs_eight_dgx_b200_lands_near_the_published_ratio(
        gpt_oss_estimates):
    """NVIDIA's NeMo 26.02 performance summary: gpt-oss-120b, 64 GPUs, EP 64, micro-batch 4,
    global batch 1,280: 15,784 tokens/s/GPU on GB200 NVL72 vs 8,047 on DGX B200 (1.96x; part
    of it the GB200's higher clock). The issue asks for 1.4-2.6x. What the MoE layer costs
    both systems alike (the host's dropless dispatch, the router, the per-expert GEMMs) is
    what brings the ratio from 2.7x (all-to-all alone) into that window."""
    rack, nodes, _ = gpt_oss_estimates
    assert 1.4 <= rack.tokens_per_s / nodes.tokens_per_s <= 2.6
    for e in (rack, nodes):
        assert e.breakdown["moe_dispatch_s"] > 0
