"""The systems issue #33 adds: GB300 NVL72 (racks and SuperPODs), HGX H800 and HGX H20 — in the
catalog, in the generators, and in the workload estimator with their own compute figures."""

from __future__ import annotations

from collections import Counter

import pytest

from rackdesigner.generators import GeneratorError, generate
from rackdesigner.model.rules import check_layout
from rackdesigner.workload import estimate
from rackdesigner.workload import hardware as H


@pytest.mark.parametrize("template,options", [
    ("nvl72", {"system": "gb300-nvl72"}),
    ("superpod", {"system": "gb300-nvl72", "racks": 2}),
    ("hgx-h800", {}),
    ("hgx-h20", {}),
    ("rail-optimized", {"system": "hgx-h800", "nodes": 4, "switch": "qm9700"}),
])
def test_the_new_systems_generate_designs_that_pass_the_rules(template, options):
    layout = generate(template, **options)
    findings = check_layout(layout)
    # a liquid rack without its CDU is a finding from the start (issue 36): the only one
    assert [f for f in findings if f.code != "rack-no-cdu"] == []
    if any(f.code == "rack-no-cdu" for f in findings) and template == "nvl72":
        assert check_layout(generate(template, cdus=1, **options)) == []


def test_a_gb300_rack_is_72_blackwell_ultra_gpus_with_a_connectx8_each():
    layout = generate("nvl72", system="gb300-nvl72")
    models = Counter(d.model for d in layout.devices())
    assert models["gb300-gpu"] == 72 and models["gb200-gpu"] == 0
    assert models["connectx-8"] == 72 and models["grace"] == 36


def test_a_gb300_superpod_runs_its_800g_nics_on_xdr_leaves():
    """The DGX SuperPOD GB300 fabric is Quantum-X800: the default leaves are Q3400, so the
    ConnectX-8 run at their 800 Gb/s (a GB200 SuperPOD keeps QM9700 for its ConnectX-7)."""
    gb300 = Counter(d.model for d in generate("superpod", system="gb300-nvl72",
                                              racks=1).devices())
    gb200 = Counter(d.model for d in generate("superpod", system="gb200-nvl72",
                                              racks=1).devices())
    assert gb300["q3400"] > 0 and gb300["qm9700"] == 0
    assert gb200["qm9700"] > 0 and gb200["q3400"] == 0


def test_an_unknown_nvl72_system_is_a_clear_error():
    with pytest.raises(GeneratorError, match="gb300-nvl72"):
        generate("nvl72", system="gb100-nvl72")


def test_every_new_gpu_has_compute_figures_with_a_source():
    for gpu in ("gb300-gpu", "h800-sxm5", "h20"):
        g = H.gpu_compute(gpu)
        assert g is not None and g.source and g.bf16_tflops > 0 and g.fp8_tflops
        assert g.fp8_tflops == pytest.approx(2 * g.bf16_tflops, abs=1)


def test_h800s_narrow_nvlink_exposes_more_tensor_parallel_time_than_h100s():
    """Same GPU compute, NVLink 400 vs 900 GB/s: TP 8 inside the node costs more."""
    job = dict(gpus=8, tp=8, gbs=8, mbs=1, precision="fp8", time_if_too_big=True)
    h800 = estimate(generate("hgx-h800"), "llama3-70b", **job)
    h100 = estimate(generate("dgx-h100"), "llama3-70b", **job)
    assert h800.breakdown["compute_s"] == pytest.approx(h100.breakdown["compute_s"])
    assert h800.breakdown["tp_exposed_s"] > 2 * h100.breakdown["tp_exposed_s"]
    assert h800.step_time_s > h100.step_time_s


def test_h20_trains_slower_than_h100_and_holds_more():
    job = dict(gpus=8, gbs=16, mbs=1, sharding="full")
    h20 = estimate(generate("hgx-h20"), "llama3-8b", **job)
    h100 = estimate(generate("dgx-h100"), "llama3-8b", **job)
    assert h20.step_time_s > 3 * h100.step_time_s
    assert h20.memory.usable_GB > h100.memory.usable_GB


def test_gb300_holds_a_layout_gb200_must_refuse():
    """279 GB of HBM per GPU against 186: Llama 3 70B in FP8 on two trays, TP 4 and DP 2, fits
    only the larger memory (the job's figure is the same on both)."""
    job = dict(gpus=8, tp=4, gbs=8, mbs=1, precision="fp8")
    gb300 = estimate(generate("nvl72", system="gb300-nvl72"), "llama3-70b", **job)
    gb200 = estimate(generate("nvl72"), "llama3-70b", **job)
    assert gb300.memory.total_GB == pytest.approx(gb200.memory.total_GB)
    assert gb300.fits and not gb200.fits
