"""NVLS on part of a node (issue 33, C2): the NVLink-bound quantity is algbw, so busbw falls
with fewer GPUs (2(n-1)/(n+1) of the link), and on 4 GPUs a ring is as fast, which is what
NCCL runs there."""

from __future__ import annotations

import itertools

import pytest

from rackdesigner.generators import generate
from rackdesigner.simulation import simulate
from rackdesigner.simulation.collectives import nvls_gpu_share

GiB = 2**30


def _point(layout, gpus: int, algorithm: str = "auto"):
    scope = [f"dgx-1.gpu{i}" for i in range(gpus)]
    return simulate(layout, scope, algorithm=algorithm, loads_for=None).point_at(
        "all_reduce", 8 * GiB)


def test_the_share_follows_the_link_bound_algbw_and_stops_at_eight():
    assert nvls_gpu_share(8) == pytest.approx(1.0)
    assert nvls_gpu_share(72) == pytest.approx(1.0)  # NVL72 measures the 8-GPU ratio
    assert nvls_gpu_share(4) == pytest.approx((2 * 3 / 5) / (2 * 7 / 9))
    shares = [nvls_gpu_share(n) for n in range(3, 9)]
    assert shares == sorted(shares)


@pytest.mark.parametrize("system", ["dgx-h100", "dgx-b200"])
def test_nvls_busbw_rises_with_the_gpus_of_a_node_and_four_gpus_run_a_ring(system):
    layout = generate(system)
    figures = {k: _point(layout, k) for k in range(4, 9)}
    values = [figures[k].busbw_GBps for k in range(4, 9)]
    # never lower with more GPUs (a ring's longer latency may cost it 0.1 %)
    assert all(b >= 0.999 * a for a, b in itertools.pairwise(values)), values
    assert figures[4].algorithm == "ring"  # NVLS no faster than a ring on 4 GPUs
    assert figures[8].algorithm == "nvls"
    # on 5 GPUs the NVLS figure is at most 2(n-1)/(n+1) of the link: below 0.9 of 8 GPUs'
    nvls5 = _point(layout, 5, "nvls").busbw_GBps
    assert nvls5 < 0.9 * figures[8].busbw_GBps
