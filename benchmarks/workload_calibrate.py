"""Fit the one fitted constant of the workload estimator on the calibration runs.

    python3 benchmarks/workload_calibrate.py [--grid 0.60:0.95:0.01]

`hardware.GEMM_SUSTAINED` (the share of a GPU's measured maximum achievable matmul throughput
a training step's GEMMs sustain) is the only constant of the step-time model chosen against
published runs. This script scans it over a grid and prints, for every value, the mean absolute
error on the dense runs of the calibration set (benchmarks/workload_runs.yaml, `set:
calibration`; mixture-of-experts runs are left out of the fit because the model is known to
leave MoE work out — router, token sorting, dropless synchronisation — and a GEMM constant must
not absorb it) — the value with the least is the one the code uses — and, for information
only, the whole calibration set's and the validation set's.
Nothing else is fitted: every other figure is a datasheet, a measurement or an efficiency
profile's stated assumption.
"""

from __future__ import annotations

import argparse
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from workload_validation import evaluate, load_runs, summary

from rackdesigner.workload import compute
from rackdesigner.workload import hardware as H


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", default="0.60:0.95:0.01", help="start:stop:step")
    args = parser.parse_args(argv)
    lo, hi, step = (float(x) for x in args.grid.split(":"))
    runs = load_runs()
    designs: dict = {}
    best = None
    print("| GEMM_SUSTAINED | calibration dense: mean abs. | signed | all calibration | "
          "validation mean abs. | signed |")
    print("|---|---|---|---|---|---|")
    value = lo
    while value <= hi + 1e-9:
        H.GEMM_SUSTAINED = value
        compute.layer_times.cache_clear()
        results = evaluate(runs, designs)
        fit = summary([r for r in results if r.run.set == "calibration"
                       and r.run.kind != "moe"])
        cal = summary([r for r in results if r.run.set == "calibration"])
        val = summary([r for r in results if r.run.set == "validation"])
        print(f"| {value:.2f} | {fit['mean_abs']:.1%} | {fit['mean_signed']:+.1%} | "
              f"{cal['mean_abs']:.1%} | {val['mean_abs']:.1%} | {val['mean_signed']:+.1%} |")
        cal = fit
        if best is None or cal["mean_abs"] < best[1]:
            best = (value, cal["mean_abs"])
        value += step
    print(f"\nleast error on the calibration set's dense runs at GEMM_SUSTAINED = {best[0]:.2f} "
          f"({best[1]:.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
