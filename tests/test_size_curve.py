"""The size curve between 1 MiB and 1 GiB: NVLS pipeline fill and channels at small sizes.

NCCL's cost model reaches NVLS's plateau almost at once; published 8 x H100 runs reach half of
it only at 16 MiB. These tests hold the engine to the published curves
(benchmarks/published/nccl_tests_curves.yaml) and to the mechanisms taken from NCCL's source.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from rackdesigner.generators import generate
from rackdesigner.simulation import constants as C
from rackdesigner.simulation import simulate
from rackdesigner.simulation.collectives import nvls_chunk_bytes, small_size_channels

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "benchmarks" / "size_curve.py"
MiB, GiB = 2**20, 2**30


@pytest.fixture(scope="module")
def curve_script():
    spec = importlib.util.spec_from_file_location("size_curve", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


@pytest.fixture(scope="module")
def dgx_h100():
    return generate("dgx-h100")


def _by_size(result, collective="all_reduce"):
    return {p.bytes: p for p in result.collective(collective)}


def test_nvls_ramps_up_over_mid_sizes_like_published_runs(dgx_h100):
    rows = _by_size(simulate(dgx_h100, algorithm="nvls"))
    plateau = rows[16 * GiB].busbw_GBps
    # published 8 x H100: 234 of 479 GB/s at 16 MiB (0.49), 400 at 128 MiB (0.84);
    # NCCL's own model gave 340 (0.71) and 456 (0.95)
    assert 0.4 < rows[16 * MiB].busbw_GBps / plateau < 0.6
    assert 0.75 < rows[128 * MiB].busbw_GBps / plateau < 0.9
    assert rows[8 * GiB].busbw_GBps / plateau > 0.99  # the plateau itself is unchanged


def test_auto_still_picks_what_nccls_tuner_picks(dgx_h100):
    # the fill is measured behaviour NCCL's tuner does not know: at 16 MiB it still runs NVLS
    rows = _by_size(simulate(dgx_h100))
    assert rows[16 * MiB].algorithm == "nvls"
    assert rows[16 * GiB].algorithm == "nvls"


def test_nvls_chunk_shrinks_for_smaller_messages_as_nccls_chunking():
    ops = 16 * 8  # 16 NVLS channels x 8 heads (one 8-GPU H100 node)
    chunks = [nvls_chunk_bytes(s, ops) for s in (1 * MiB, 16 * MiB, 256 * MiB, 4 * GiB)]
    assert chunks == sorted(chunks) and chunks[0] < chunks[-1]
    assert chunks[-1] == 128 * 1024  # NCCL_NVLS_CHUNKSIZE default


def test_small_ring_messages_run_on_fewer_channels(dgx_h100):
    assert small_size_channels(8, 18, 512, 64) == 1
    assert small_size_channels(64 * MiB, 18, 512, 64) == 18
    rows = _by_size(simulate(dgx_h100, algorithm="ring"))
    # below NCCL's channel threshold the message runs on proportionally fewer channels: the
    # time hardly grows while the size doubles (published: flat up to 256 KiB)
    assert rows[64 * 1024].time_us == pytest.approx(rows[32 * 1024].time_us, rel=0.02)
    times = [p.time_us for p in rows.values()]
    assert times == sorted(times)


def test_h100_nvls_curves_within_twenty_percent_from_2_mib(curve_script):
    curves = [c for c in curve_script.load_curves(curve_script.CURVES)
              if c["id"].startswith("h100x8-nvls")]
    assert len(curves) == 2
    rows = curve_script.compare(curves)
    for cid, size, published, simulated, _ in rows:
        if size >= 2 * MiB:
            assert abs(simulated - published) / published < 0.20, (cid, size)
        if size >= GiB:
            assert abs(simulated - published) / published < 0.03, (cid, size)


def test_curves_file_errors_name_the_line(curve_script, tmp_path):
    bad = tmp_path / "curves.yaml"
    bad.write_text("schema: rackdesigner.published-nccl-curves/1\ncurves:\n"
                   "  - id: x\n    set: calibration\n    gpus: 8\n"
                   "    collective: all_reduce\n    algorithm: nvls\n"
                   "    design: {template: dgx-h100}\n    source: {url: u}\n"
                   "    points: {1048576: -3}\n", encoding="utf-8")
    with pytest.raises(curve_script.CurvesError, match=r"curves.yaml:3: points"):
        curve_script.load_curves(bad)
    assert curve_script.main(["--curves", str(bad)]) == 2



@pytest.mark.slow
def test_the_fill_constants_are_what_the_calibration_curves_give(curve_script):
    """`size_curve.py --derive` refits both pipeline-fill constants from the calibration
    curves alone; the shipped values must be those, so nobody tunes them by hand."""
    curves = curve_script.load_curves(curve_script.CURVES)
    waves, _ = curve_script.derive_fill(curves)
    assert pytest.approx(waves, abs=0.05) == C.NVLS_PIPELINE_FILL_WAVES
    per_level, by_curve = curve_script.derive_level_fill(curves)
    assert set(by_curve) == {"gb200nvl72x2-coreweave", "gb200nvl72x20-coreweave"}
    assert pytest.approx(per_level, abs=0.05) == C.PIPELINE_FILL_WAVES_PER_LEVEL


@pytest.mark.slow
def test_multi_rack_nvl72_curves_follow_the_published_ones(curve_script):
    curves = [c for c in curve_script.load_curves(curve_script.CURVES)
              if c["id"].startswith("gb200nvl72x")]
    for cid, size, published, simulated, picked in curve_script.compare(curves):
        assert abs(simulated - published) / published < 0.15, (cid, size)
        assert picked.startswith("nvls_tree"), (cid, size, picked)


def test_multi_node_h100_curves_hold_from_512_mib(curve_script):
    """A published 10-node H100 run (validation: nothing is fitted on it) across sizes: every
    collective within 15 % from 512 MiB up, all_to_all at every size (the per-NIC share of the
    rings, no efficiency of its own), and the all_reduce's mid sizes within 15 % too: the fill
    per level of the domain tree, derived on NVL72 racks, holds on 8-GPU nodes. The cluster
    states no NCCL network settings, so it runs as typical-defaults: its rings sit at that
    level (0.85 of NCCL's per-NIC rate), but its NVLS-tree reaches the vendor-tuned level
    (1.04) between 128 MiB and 1 GiB, which one fabric tuning cannot give both of: there the
    bound is 20 % (docs/simulation.md, residuals)."""
    curves = [c for c in curve_script.load_curves(curve_script.CURVES)
              if c["id"].startswith("h100x80-")]
    assert len(curves) == 4 and {c["set"] for c in curves} == {"validation"}
    for cid, size, published, simulated, picked in curve_script.compare(curves):
        err = abs(simulated - published) / published
        if size >= 512 * MiB or "all_to_all" in cid or "all_reduce" in cid:
            mixed = picked.startswith("nvls_tree") and 128 * MiB <= size <= 1024 * MiB
            assert err < (0.20 if mixed else 0.15), (cid, size, published, simulated)
