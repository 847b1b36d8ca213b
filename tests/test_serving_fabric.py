"""Changing the fabric changes the serving figure the way physics says: the same GPUs on
RoCE rather than InfiniBand, a 2:1 oversubscribed leaf, an expert-parallel group split across
NVLink domains. Each compares the same model, precision and pinned layout at the same batches."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.serving import serve
from rackdesigner.workload.comm import CommModel
from tests.serving_designs import tor_nodes

KW = dict(precision="fp4", isl=1024, osl=1024, mode="aggregated")


def _by_batch(result) -> dict[int, float]:
    return {p.config["batch"]: p.output_per_gpu for p in result.pareto}


def _worse(slow: dict[int, float], fast: dict[int, float]) -> None:
    shared = sorted(set(slow) & set(fast))
    assert len(shared) >= 4
    assert all(slow[b] <= fast[b] * (1 + 1e-9) for b in shared)  # never better
    assert any(slow[b] < fast[b] * 0.99 for b in shared)  # and visibly worse somewhere


def test_roce_is_no_faster_than_infiniband_for_wide_ep():
    pin = {"gpus": 32, "attention_dp": True, "pp": 1}
    ib = generate("rail-optimized", system="dgx-b200", nodes=4, switch="qm9700")
    roce = generate("rail-optimized", system="dgx-b200", nodes=4, switch="sn5600")
    fast = _by_batch(serve(ib, "deepseek-r1", pin=pin, **KW))
    slow = _by_batch(serve(roce, "deepseek-r1", pin=pin, **KW))
    shared = sorted(set(slow) & set(fast))
    assert all(slow[b] <= fast[b] * (1 + 1e-9) for b in shared)
    assert any(slow[b] < fast[b] for b in shared)


def test_oversubscribed_leaves_slow_an_ep_group_over_several_nodes():
    pin = {"gpus": 32, "attention_dp": True, "pp": 1}
    full = _by_batch(serve(tor_nodes(4, uplinks=8), "deepseek-r1", pin=pin, **KW))
    half = _by_batch(serve(tor_nodes(4, uplinks=4), "deepseek-r1", pin=pin, **KW))
    _worse(half, full)


def test_an_ep_group_split_across_nvlink_domains_is_slower():
    two = generate("superpod", system="gb200-nvl72", racks=2)
    gpus = CommModel.layout_gpus(two)
    pin = {"gpus": 16, "attention_dp": True, "pp": 1}
    inside = _by_batch(serve(two, "deepseek-r1", gpu_ids=gpus[:16], pin=pin, **KW))
    split = _by_batch(serve(two, "deepseek-r1", gpu_ids=gpus[:8] + gpus[72:80], pin=pin, **KW))
    _worse(split, inside)
    # the cost is the network's: at the largest shared batch it is well over 10 %
    b = max(set(inside) & set(split))
    assert split[b] < 0.9 * inside[b]


@pytest.mark.parametrize("model", ["llama3.3-70b"])
def test_dense_tp_inside_a_node_does_not_see_the_fabric(model):
    pin = {"tp": 8, "pp": 1}
    ib = generate("rail-optimized", system="dgx-b200", nodes=2, switch="qm9700")
    roce = generate("rail-optimized", system="dgx-b200", nodes=2, switch="sn5600")
    a = _by_batch(serve(ib, model, pin=pin, **KW))
    b = _by_batch(serve(roce, model, pin=pin, **KW))
    assert a == pytest.approx(b)


def test_two_micro_batches_hide_wide_ep_traffic_behind_compute_and_never_cost_time():
    # DeepSeek-V3-style decode overlap: on nodes joined by RoCE a wide-EP step runs two
    # halves, one's all-to-all behind the other's compute; it is taken only when it helps
    # (SGLang's two-batch overlap over DeepEP, whose all-to-all crosses nodes; TensorRT-LLM's
    # default all-gathers there instead)
    from rackdesigner.serving.api import _Run
    from rackdesigner.serving.instance import Config
    from rackdesigner.serving.shapes import served_model
    from rackdesigner.serving.stacks import resolve_stack
    from rackdesigner.workload.api import Estimator

    roce = generate("rail-optimized", system="dgx-b200", nodes=4, switch="sn5600")
    spec = served_model("deepseek-r1")
    est = Estimator(roce, spec)
    run = _Run(est, spec, est.gpu, "fp4", 1024, 1024, resolve_stack("sglang"))
    overlapped = run.instance(Config(32, True, 1))
    serial = run.instance(Config(32, True, 1))
    serial.overlaps = lambda seqs: False  # type: ignore[method-assign]
    ctx = 1536.0
    batches = (64, 512, 2048, 8192)
    steps = {b: (overlapped.decode_step(b, ctx), serial.decode_step(b, ctx)) for b in batches}
    assert all(o <= s * (1 + 1e-12) for o, s in steps.values())  # never costs time
    # at a large batch the compute hides behind the exchange: the step is visibly under the
    # serial one, but no faster than its communication alone
    big = 8192.0
    comm = spec.layers * overlapped._layer_comm(big)
    compute = spec.layers * (overlapped.gemm_s(big) + overlapped.elementwise_s(big))
    o, s = steps[8192]
    assert o < 0.97 * s
    assert o >= 0.99 * max(comm, compute)
    # one sequence per rank cannot be split in two
    assert overlapped.overlaps(64) and not overlapped.overlaps(32)


def test_instances_are_laid_inside_nvlink_domains_when_they_fit():
    from rackdesigner.serving.links import aligned_starts

    # two 72-GPU racks: 32-GPU instances two per rack (none across the racks), 8 GPUs left in
    # each; 16-GPU instances four per rack; an instance wider than a rack spans whole racks
    assert aligned_starts([72, 72], 32) == [0, 32, 72, 104]
    assert aligned_starts([72, 72], 16) == [0, 16, 32, 48, 72, 88, 104, 120]
    assert aligned_starts([72, 72], 128) == [0]
    # 8-GPU nodes: a 16-GPU instance cannot fit in one, so it tiles the nodes in rank order
    assert aligned_starts([8] * 9, 16) == [0, 16, 32, 48]


def test_a_second_rack_serves_twice_the_users_at_the_same_speed_per_gpu():
    # the same pinned wide-EP layout on one rack and on two: every instance stays on NVLink
    # (four of 16 GPUs per rack, none across the two), so tokens/s per GPU at each batch are
    # the rack's, and the users in flight double
    pin = {"gpus": 16, "attention_dp": True, "pp": 1}
    one = serve(generate("nvl72"), "deepseek-r1", pin=pin, **KW)
    two = serve(generate("superpod", system="gb200-nvl72", racks=2), "deepseek-r1", pin=pin,
                **KW)
    a = {p.config["batch"]: p for p in one.pareto}
    b = {p.config["batch"]: p for p in two.pareto}
    shared = sorted(set(a) & set(b))
    assert len(shared) >= 4
    for batch in shared:
        assert b[batch].output_per_gpu == pytest.approx(a[batch].output_per_gpu, rel=0.02)
        assert b[batch].concurrency == 2 * a[batch].concurrency


def test_tensorrt_llm_all_gathers_wide_ep_it_cannot_all_to_all():
    # TensorRT-LLM (WideEPMoE.select_alltoall_method_type): an all-to-all only for EP wider
    # than top-k inside one NVLink domain; SGLang's DeepEP all-to-alls across nodes too
    from rackdesigner.serving.api import _Run
    from rackdesigner.serving.instance import Config
    from rackdesigner.serving.shapes import served_model
    from rackdesigner.serving.stacks import resolve_stack
    from rackdesigner.workload.api import Estimator

    spec = served_model("deepseek-r1")  # top-8 routing

    def exchange(layout, stack: str, gpus: int) -> bool:
        est = Estimator(layout, spec)
        run = _Run(est, spec, est.gpu, "fp4", 1024, 1024, resolve_stack(stack))
        return run.instance(Config(gpus, True, 1)).alltoall

    nodes = generate("rail-optimized", system="dgx-b200", nodes=4, switch="sn5600")
    rack = generate("nvl72")
    assert exchange(rack, "trtllm", 32) and exchange(rack, "trtllm", 16)
    assert not exchange(rack, "trtllm", 8)  # EP <= top-k: nothing for an all-to-all to save
    assert not exchange(nodes, "trtllm", 16) and not exchange(nodes, "trtllm", 32)
    assert exchange(nodes, "sglang", 32) and exchange(nodes, "vllm", 16)
