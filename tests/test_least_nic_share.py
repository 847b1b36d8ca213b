"""`least_nic_share` (each distinct set of NIC paths summed once) gives the per-GPU minimum of
`nic_share` exactly, on whole designs, on degraded ones (a failed NIC, a failed leaf, a failed
PCIe switch: GPUs of one node then differ) and on a broken one."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.model.failures import closure, degraded
from rackdesigner.simulation.gpu_bandwidth import least_nic_share, nic_share
from rackdesigner.simulation.topology import Topology
from tests.test_linktable import _broken


def _check(layout) -> None:
    topo = Topology.build(layout)
    gpus = list(topo.gpus)
    want = min((nic_share(topo, g)[0] for g in gpus), default=0.0)
    assert least_nic_share(topo, gpus) == want
    for part in (gpus[: len(gpus) // 3], gpus[-5:], []):
        assert least_nic_share(topo, part) == min((nic_share(topo, g)[0] for g in part),
                                                  default=0.0)


@pytest.mark.parametrize("design", ["superpod", "rail", "broken"])
def test_least_share_is_the_minimum_of_every_gpu(design, catalog):
    if design == "superpod":
        layout = generate("superpod", system="dgx-h100", nodes=64, catalog=catalog)
    elif design == "rail":
        layout = generate("rail-optimized", system="dgx-b200", nodes=16, switch="q3400",
                          catalog=catalog)
    else:
        layout = _broken(catalog, 1)
    _check(layout)


@pytest.mark.parametrize("kind", ["connectx-7", "qm9700"])
def test_a_failure_that_leaves_one_gpu_short_is_seen(kind, catalog):
    layout = generate("superpod", system="dgx-h100", nodes=16, catalog=catalog)
    victim = next(d.id for d in layout.devices() if d.model == kind)
    broken = degraded(layout, closure(layout, [victim]))
    topo = Topology.build(broken)
    shares = [nic_share(topo, g)[0] for g in topo.gpus]
    assert min(shares) < max(shares)  # the failure made some GPUs poorer than others
    _check(broken)
