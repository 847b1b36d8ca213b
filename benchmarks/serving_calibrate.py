"""Fit the serving stack's free constants on the calibration rows only.

    python3 benchmarks/serving_calibrate.py [--stack trtllm]

Grid search over the constants `resources/serving/stacks.yaml` marks FITTED
(decode_hbm_share, step_overhead_us, seq_overhead_us, gemm_share, fp4_gemm_share,
expert_gemm_share, routed_pair_ns; `--scan kernel_floor_us=8,9,9.5,10,11` searches named keys
alone), minimising
the mean absolute log error of tokens/s per GPU on the rows of `benchmarks/serving_runs.yaml`
with `set: calibration`. The validation rows are never read. Prints the best values and their
calibration error; copying them into stacks.yaml is a deliberate, reviewed edit.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import serving_validation as V  # noqa: E402

from rackdesigner.serving import stacks as S  # noqa: E402

GRID = {"decode_hbm_share": (0.85, 0.9, 0.95),
        "step_overhead_us": (0.0, 250.0),
        "seq_overhead_us": (1.25, 2.5, 5.0, 10.0, 15.0),
        "gemm_share": (0.88, 1.0),
        "fp4_gemm_share": (0.6, 0.7, 0.8),
        "expert_gemm_share": (0.3, 0.4, 0.5, 0.65, 0.8, 1.0),
        "routed_pair_ns": (0.0, 10.0, 22.5)}


def error(rows: list, stack_id: str, values: dict) -> float:
    base = S.stacks()
    patched = dict(base)
    patched[stack_id] = replace(base[stack_id], **values)
    S.stacks.cache_clear()
    original = S.stacks
    S.stacks = lambda: patched  # type: ignore[assignment]
    V._serve.cache_clear()  # its curves were served with the previous constants
    try:
        errs = [abs(math.log(max(1e-9, V.predict(r)) / r.measured_per_gpu)) for r in rows]
    finally:
        S.stacks = original  # type: ignore[assignment]
        V._serve.cache_clear()
    return sum(errs) / len(errs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stack", default="trtllm")
    ap.add_argument("--rows-of", metavar="ENGINE", help="fit a profile on another engine's "
                    "calibration rows (a profile of the same engine on its rows)")
    ap.add_argument("--scan", metavar="KEY=V1,V2", action="append", default=[],
                    help="search only these keys over these values, the other constants as "
                    "in stacks.yaml (e.g. kernel_floor_us=8,9,9.5,10,11); repeatable")
    args = ap.parse_args(argv)
    engine = args.rows_of or args.stack
    rows = [r for r in V.load_rows() if r.set == "calibration" and r.engine == engine]
    if engine != args.stack:
        V.STACK_OVERRIDE[engine] = args.stack
    grid = GRID
    if args.scan:
        grid = {}
        for item in args.scan:
            key, _, values = item.partition("=")
            grid[key] = tuple(float(v) for v in values.split(","))
    best = None
    for combo in itertools.product(*grid.values()):
        values = dict(zip(grid, combo, strict=True))
        e = error(rows, args.stack, values)
        if args.scan:
            print(f"  {values}: mean |log error| {e:.4f}")
        if best is None or e < best[0]:
            best = (e, values)
    assert best is not None
    print(f"calibration rows: {len(rows)}; mean |log error| {best[0]:.3f}")
    for k, v in best[1].items():
        print(f"  {k}: {v:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
