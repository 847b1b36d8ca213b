"""Fit the workload estimator's fitted constants on the calibration runs.

    python3 benchmarks/workload_calibrate.py [--grid 0.60:0.95:0.01]
                                             [--moe-grid 0:12000:1000] [--overlap-grid 1.0:1.6:0.05]
                                             [--only gemm|overlap|moe]

1. `hardware.GEMM_SUSTAINED` and `GEMM_SUSTAINED_FP8` (the share of a GPU's measured maximum
   achievable matmul throughput a training step's BF16 and FP8 GEMMs sustain), each scanned over
   `--grid` against the calibration set's dense runs of its precision
   (benchmarks/workload_runs.yaml, `set: calibration`);
2. `hardware.OVERLAP_STRETCH` (how much longer a collective takes beside compute than alone) on
   the shape of the calibration set's FSDP weak-scaling series (`kind: fsdp-scaling`: each
   run's throughput relative to the series' first, so what costs every GPU alike drops out);
3. with those values, the nemo-2025 profile's `moe.dispatch_host_us` (the host time per MoE layer
   and micro-batch the GPU waits for under dropless routing), scanned over `--moe-grid` against
   the calibration set's mixture-of-experts runs. Dense runs do not depend on it, so the two
   fits do not interact.

For every value the script prints the mean absolute error it fits on and, for information only,
the validation set's; the value with the least calibration error is the one the code and the
profile use. Nothing else is fitted: every other figure is a datasheet, a measurement or an
efficiency profile's stated assumption.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload_validation import evaluate, load_runs, series_ratios, summary

from rackdesigner.workload import compute
from rackdesigner.workload import hardware as H
from rackdesigner.workload.profile import resolve_profile


def _grid(text: str) -> list[float]:
    lo, hi, step = (float(x) for x in text.split(":"))
    out, value = [], lo
    while value <= hi + 1e-9:
        out.append(round(value, 6))
        value += step
    return out


def _precision(run) -> str:
    return run.job.get("precision", "bf16")


def fit_gemm(runs, designs: dict, grid: list[float], precision: str = "bf16") -> float:
    """`hardware.GEMM_SUSTAINED` (bf16) or `GEMM_SUSTAINED_FP8` (fp8) on the dense runs of that
    precision (the other constant does not move them)."""
    name = "GEMM_SUSTAINED" if precision == "bf16" else "GEMM_SUSTAINED_FP8"
    # the FSDP series' level carries a CPU offloading the estimator does not model: its shape
    # is what fit_overlap fits on, not its level
    dense = [r for r in runs if r.kind not in ("moe", "fsdp-scaling")
             and _precision(r) == precision]
    best = None
    print(f"| {name} | calibration dense {precision}: mean abs. | signed | validation dense "
          f"{precision}: mean abs. | signed |")
    print("|---|---|---|---|---|")
    for value in grid:
        setattr(H, name, value)
        compute.layer_times.cache_clear()
        results = evaluate(dense, designs)
        cal = summary([r for r in results if r.run.set == "calibration"])
        val = summary([r for r in results if r.run.set == "validation"])
        print(f"| {value:.2f} | {cal['mean_abs']:.1%} | {cal['mean_signed']:+.1%} | "
              f"{val['mean_abs']:.1%} | {val['mean_signed']:+.1%} |")
        if best is None or cal["mean_abs"] < best[1]:
            best = (value, cal["mean_abs"])
    assert best is not None
    print(f"\nleast error on the calibration set's dense {precision} runs at {name} = "
          f"{best[0]:.2f} ({best[1]:.1%})\n")
    setattr(H, name, best[0])
    compute.layer_times.cache_clear()
    return best[0]


def fit_overlap(runs, designs: dict, grid: list[float]) -> float:
    """`hardware.OVERLAP_STRETCH` on the shape of the calibration set's FSDP weak-scaling
    series: the least mean |estimated / measured - 1| of each run's throughput relative to the
    series' first run."""
    series = [r for r in runs if r.kind == "fsdp-scaling" and r.set == "calibration"]
    best = None
    print("| OVERLAP_STRETCH | calibration FSDP series: mean abs. error of the scaling ratio |")
    print("|---|---|")
    for value in grid:
        H.OVERLAP_STRETCH = value
        compute.layer_times.cache_clear()
        ratios = series_ratios(evaluate(series, designs))
        err = sum(abs(est / meas - 1) for _, meas, est in ratios) / len(ratios)
        print(f"| {value:.2f} | {err:.1%} |")
        if best is None or err < best[1]:
            best = (value, err)
    assert best is not None
    print(f"\nleast error on the calibration FSDP series' shape at OVERLAP_STRETCH = "
          f"{best[0]:.2f} ({best[1]:.1%})\n")
    H.OVERLAP_STRETCH = best[0]
    compute.layer_times.cache_clear()
    return best[0]


def fit_moe(runs, designs: dict, grid: list[float]) -> float:
    moe = [r for r in runs if r.kind == "moe"]
    # only the stacks whose dispatch waits on the host (nemo-2025); a sync-free one (nemo-2026)
    # keeps its zero
    stacks = sorted({r.stack for r in moe if resolve_profile(r.stack).moe_dispatch_us > 0})
    best = None
    print("| moe.dispatch_host_us | calibration MoE: mean abs. | signed | worst | "
          "validation MoE: mean abs. | signed | worst |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for value in grid:
            moved = []
            for stack in stacks:  # the same profile with only the fitted value changed
                path = Path(tmp) / f"{stack}-{int(value)}.yaml"
                path.write_text(f"schema_version: 1\nbase: {stack}\n"
                                f"moe: {{dispatch_host_us: {value}}}\n", encoding="utf-8")
                moved.append((stack, str(path)))
            mapping = dict(moved)
            results = evaluate([replace(r, stack=mapping.get(r.stack, r.stack)) for r in moe],
                               designs)
            cal = summary([r for r in results if r.run.set == "calibration"])
            val = summary([r for r in results if r.run.set == "validation"])
            print(f"| {value:.0f} | {cal['mean_abs']:.1%} | {cal['mean_signed']:+.1%} | "
                  f"{cal['worst']:+.0%} | {val['mean_abs']:.1%} | {val['mean_signed']:+.1%} | "
                  f"{val['worst']:+.0%} |")
            if best is None or cal["mean_abs"] < best[1]:
                best = (value, cal["mean_abs"])
    assert best is not None
    shipped = {s: resolve_profile(s).moe_dispatch_us for s in stacks}
    print(f"\nleast error on the calibration set's MoE runs at moe.dispatch_host_us = "
          f"{best[0]:.0f} ({best[1]:.1%}); the profiles ship {shipped}")
    return best[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", default="0.60:0.95:0.01", help="GEMM_SUSTAINED start:stop:step")
    parser.add_argument("--moe-grid", default="0:12000:1000",
                        help="moe.dispatch_host_us start:stop:step")
    parser.add_argument("--overlap-grid", default="1.0:1.6:0.05",
                        help="OVERLAP_STRETCH start:stop:step")
    parser.add_argument("--only", choices=("gemm", "overlap", "moe"))
    args = parser.parse_args(argv)
    runs = load_runs()
    designs: dict = {}
    if args.only in (None, "gemm"):
        fit_gemm(runs, designs, _grid(args.grid), "bf16")
        fit_gemm(runs, designs, _grid(args.grid), "fp8")
    if args.only in (None, "overlap"):
        fit_overlap(runs, designs, _grid(args.overlap_grid))
    if args.only in (None, "moe"):
        fit_moe(runs, designs, _grid(args.moe_grid))
    return 0


if __name__ == "__main__":
    sys.exit(main())
