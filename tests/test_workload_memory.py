"""The memory model's pipeline bookkeeping and FP8 weights: what Megatron-Core holds on each
pipeline rank, the embedding-and-loss split NeMo's 405B recipes use, and a published layout that
must fit (Llama 3.1 405B on 256 GB200, NeMo 26.02)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackdesigner.workload import hardware as H
from rackdesigner.workload import resolve_model
from rackdesigner.workload.job import Job, JobError
from rackdesigner.workload.memory import memory_per_gpu, weight_bytes
from rackdesigner.workload.profile import resolve_profile
from rackdesigner.workload.stages import accounted, candidates, inflight_layers, stages

MODELS = Path(__file__).resolve().parent.parent / "benchmarks" / "workload_models"


def _job(model, gpus, **kw) -> Job:
    return Job(**kw).resolved(gpus, model)


@pytest.mark.parametrize(("pp", "vp"), [(4, 1), (8, 5), (4, 5), (8, 2), (16, 5)])
def test_the_first_rank_holds_what_korthikanti_counts_for_an_even_split(pp, vp):
    """Megatron's interleaved schedule runs 2 (PP - 1) + (VP - 1) PP warm-up forwards on rank 0:
    PP (1 + (PP - 1) / (PP VP)) stages' worth of activations (Korthikanti et al. 2022)."""
    model = resolve_model("llama3-70b")  # 80 layers
    job = Job(pp=pp, vp=vp, gbs=pp * 8).resolved(pp, model)
    assert not accounted(model, job)
    first = stages(model, job)[0]
    held = inflight_layers(job, first)
    ls = model.layers / pp
    interleaved = 1 + (pp - 1) / (pp * vp) if vp > 1 else 1.0  # 1F1B: PP micro-batches
    assert held == pytest.approx(pp * interleaved * ls)
    # later ranks hold less, the last the least
    later = [inflight_layers(job, s) for s in stages(model, job)[1:]]
    assert all(h <= held for h in later)


def test_405b_on_pp16_vp4_accounts_the_embedding_and_the_loss_as_nemo_does():
    """126 layers do not divide PP x VP = 64, 128 do: two layer slots per model chunk, the first
    chunk of rank 0 and the last of rank 15 one layer short (Megatron-Bridge's 405B recipe)."""
    model = resolve_model("llama3.1-405b")
    job = _job(model, 256, tp=4, pp=16, vp=4, gbs=1536, precision="fp8")
    assert accounted(model, job)
    first, second, last = stages(model, job)
    assert first.chunks == (1, 2, 2, 2) and second.chunks == (2, 2, 2, 2)
    assert last.chunks == (2, 2, 2, 1) and last.output and first.embedding
    # rank 0: 79 chunk forwards in flight, the first and the fifth 16 of them one layer each
    assert inflight_layers(job, first) == 16 * 1 + 3 * 16 * 2 + 15 * 1
    assert inflight_layers(job, second) == 64 * 2 + 13 * 2
    # the pace is a middle stage's 8 layers or the last stage's 7 plus the output layer
    assert set(candidates(model, job)) == {(8.0, False), (7.0, True)}
    even = _job(resolve_model("llama3-70b"), 64, tp=4, pp=8, vp=5, gbs=256)
    assert not accounted(resolve_model("llama3-70b"), even)


def test_one_layer_per_chunk_with_the_embedding_and_the_loss_in_chunks_of_their_own():
    """NeMo 26.02's NVFP4 405B on 256 GB200 runs PP 16 x VP 8 = 128 model chunks for 126
    layers: the embedding and the loss take the two extra, every other chunk one layer. Beyond
    layers + 2 there is no such split, and the job is refused."""
    model = resolve_model("llama3.1-405b")
    job = _job(model, 256, tp=4, pp=16, vp=8, gbs=1536, precision="fp8")
    assert accounted(model, job)
    first, _, last = stages(model, job)
    assert first.chunks == (0,) + (1,) * 7 and last.chunks == (1,) * 7 + (0,)
    assert set(candidates(model, job)) == {(8.0, False), (7.0, True)}
    with pytest.raises(JobError, match="exceeds the model's 126 layers"):
        _job(model, 512, tp=2, pp=32, vp=8, gbs=1536)


def test_the_published_405b_gb200_layout_fits():
    """NeMo 26.02 ran Llama 3.1 405B on 256 GB200 with TP 4, PP 16, VP 4, FP8, micro-batch 1,
    no recomputation beyond the default and no offloading: the memory model admits it."""
    model = resolve_model("llama3.1-405b")
    gpu = H.gpu_compute("gb200-gpu")
    job = _job(model, 256, tp=4, pp=16, vp=4, gbs=1536, precision="fp8")
    mem = memory_per_gpu(model, job, gpu, resolve_profile("nemo-2025"))
    assert mem.fits, mem.refusal()
    assert mem.total_GB > 0.85 * mem.usable_GB  # a tight fit, as the recipe needs all of it


def test_fp8_weights_are_one_byte_on_blackwell_and_two_on_hopper():
    """fp8_param_gather keeps FP8 weights; Hopper's TN-only FP8 GEMMs need a transposed copy."""
    nemo = resolve_profile("nemo-2025")
    fp8 = Job(precision="fp8")
    assert weight_bytes(fp8, H.gpu_compute("gb200-gpu"), nemo) == 1.0
    assert weight_bytes(fp8, H.gpu_compute("h100-sxm5"), nemo) == 2.0
    assert weight_bytes(Job(), H.gpu_compute("gb200-gpu"), nemo) == 2.0
    assert weight_bytes(fp8, H.gpu_compute("gb200-gpu"), resolve_profile("nemo-2024")) == 2.0


def test_torchtitan_op_level_checkpointing_admits_batch_1_and_refuses_batch_2():
    """torchtitan docs/performance.md: Llama 2 70B on 64 A100 80 GB with FSDP2 and 'selective op'
    activation checkpointing ran at local batch 1 (355 WPS); local batch 2 ran out of memory (its
    footnote). Under the pytorch-fsdp profile `selective` is that op-level policy (every second
    matmul recomputed), which keeps less than Megatron's selective recomputation."""
    model = resolve_model(str(MODELS / "llama2-70b.yaml"))
    gpu = H.gpu_compute("a100-sxm4")
    fsdp = resolve_profile("pytorch-fsdp")
    assert fsdp.selective_recompute == "ops"

    def mem(mbs: int, profile=fsdp):
        job = Job(gbs=64 * mbs, mbs=mbs, recompute="selective", sharding="full").resolved(
            64, model)
        return memory_per_gpu(model, job, gpu, profile)

    assert mem(1).fits, mem(1).refusal()
    assert not mem(2).fits
    megatron_style = mem(1, resolve_profile("nemo-2025"))  # attention core only: keeps more
    assert megatron_style.activations_GB > 1.8 * mem(1).activations_GB
