"""FP4 (NVFP4) in the GPU table and in training's `--precision`: Blackwell has it, Hopper not."""

from __future__ import annotations

import pytest

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.workload import EstimateError, estimate
from rackdesigner.workload import hardware as H


def test_fp4_peaks_are_the_datasheets_dense_figures():
    table = H.gpu_table()
    # dense = the datasheets' FP4 "with sparsity" figure per GPU, halved
    assert table["b200"].peak_tflops("fp4") == 144_000 / 8 / 2
    assert table["gb200-gpu"].peak_tflops("fp4") == 1_440_000 / 72 / 2
    for gpu in table.values():
        fp4, fp8 = gpu.peak_tflops("fp4"), gpu.peak_tflops("fp8")
        if fp4 is not None:  # FP4 at least doubles FP8 (Blackwell Ultra: 15 against 5)
            assert fp8 is not None and fp4 >= 2 * fp8 * 0.999
            assert 0 < gpu.gemm_efficiency("fp4") <= gpu.gemm_efficiency("bf16") * 1.2
    assert table["h100-sxm5"].peak_tflops("fp4") is None
    assert H.precision_error(table["h100-sxm5"], "fp4") is not None
    assert H.precision_error(table["b200"], "fp4") is None


def test_fp4_training_is_faster_than_fp8_on_blackwell():
    layout = generate("dgx-b200")
    fp8 = estimate(layout, "llama3-8b", tp=8, gbs=32, seq=2048, precision="fp8")
    fp4 = estimate(layout, "llama3-8b", tp=8, gbs=32, seq=2048, precision="fp4")
    assert fp4.step_time_s < fp8.step_time_s
    # but not twice as fast: attention, memory-bound kernels and communication do not shrink
    assert fp4.step_time_s > fp8.step_time_s / 2


def test_fp4_on_hopper_is_a_located_error(tmp_path, capsys):
    with pytest.raises(EstimateError, match="FP4"):
        estimate(generate("dgx-h100"), "llama3-8b", tp=8, gbs=32, precision="fp4")
    path = tmp_path / "h100.yaml"
    save_layout(generate("dgx-h100"), path)
    code = main(["estimate", str(path), "--model", "llama3-8b", "--gbs", "32",
                 "--precision", "fp4"])
    err = capsys.readouterr().err
    assert code == 2 and "no FP4 tensor cores" in err and "--precision" in err
    assert "Traceback" not in err


def test_fp4_gemms_sustain_what_a_halved_k_loop_leaves():
    """The per-tile work that does not shrink with the K loop (first loads, scaling epilogue)
    is the mechanism behind the lower FP8 share: applied to the BF16 share it lands on the FP8
    share fitted apart (within 1 %), and applied again it gives NVFP4's, which nothing is
    fitted on. Each step down in precision sustains less of its ceiling, and still runs a GEMM
    faster than the precision above."""
    assert H.halved_k_loop_share(H.GEMM_SUSTAINED) == pytest.approx(H.GEMM_SUSTAINED_FP8,
                                                                     rel=0.01)
    assert H.halved_k_loop_share(H.GEMM_SUSTAINED_FP8) == H.GEMM_SUSTAINED_FP4
    gpu = H.gpu_table()["gb200-gpu"]
    shares = [gpu.gemm_efficiency(p) / gpu.gemm_ceiling(p) for p in ("bf16", "fp8", "fp4")]
    assert shares[0] > shares[1] > shares[2]
    rates = [gpu.peak_tflops(p) * gpu.gemm_efficiency(p) for p in ("bf16", "fp8", "fp4")]
    assert rates[0] < rates[1] < rates[2] < 2 * rates[1]
