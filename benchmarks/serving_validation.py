"""Compare the serving estimator with published serving measurements.

    python3 benchmarks/serving_validation.py [--set calibration|validation|all] [--json FILE]

The rows, their sources and the split into calibration (what the stack's fitted constants were
chosen against) and validation (rows that only check them) are in `benchmarks/serving_runs.yaml`.
Each row is rebuilt as a design with RackDesigner's generators (the system the source names),
served with the published parallel layout pinned (or, for a row without one, the tool's own
layout search, as a dashboard's Pareto curve is), and the predicted tokens/s per GPU at the
published point — maximum load, or a tokens/s-per-user point on the interpolated curve — compared
with the measured one. Error = predicted / measured - 1 (positive: the
model is optimistic). Prints one line per row, then per class (source, point, GPU, model, ISL/OSL
regime).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from rackdesigner.generators import generate  # noqa: E402
from rackdesigner.serving import serve  # noqa: E402
from rackdesigner.serving.api import speed_at  # noqa: E402
from rackdesigner.serving.frontier import throughput_at  # noqa: E402

RUNS_FILE = HERE / "serving_runs.yaml"
#: The kinds of published point the CI gate covers (tests/test_serving_validation.py):
#: saturation throughput and the speed of one sequence; curve points are reported only.
GATED = ("max_load", "min_latency")
SYSTEMS = {"dgx-h100": ("dgx-h100", {}), "dgx-h200": ("dgx-h200", {}),
           "dgx-b200": ("dgx-b200", {}), "nvl72": ("nvl72", {}),
           # nine DGX B200 on one Spectrum-X SN5600 leaf (ConnectX-7, RoCEv2): 72 GPUs
           "dgx-b200-x9-roce": ("superpod", {"system": "dgx-b200", "nodes": 9,
                                             "switch": "sn5600"})}


@dataclass(frozen=True)
class Row:
    name: str
    set: str
    system: str
    model: str
    precision: str
    engine: str
    gpus: int
    config: dict
    isl: int
    osl: int
    measured: float  # tokens/s of the instance (of one GPU with `per_gpu`)
    source: str
    point: str = "max_load"  # or "interactivity": at `interactivity` tokens/s per user; or
    #                          "min_latency": tokens/s per user of one sequence (batch 1); or
    #                          "speed": tokens/s per user of the pinned layout at `batch`
    interactivity: float | None = None
    mode: str = "aggregated"
    mtp: int = 0
    per_gpu: bool = False
    batch: int = 0  # sequences per decode instance of a "speed" point
    #: "output" tokens/s, or "total" (input + output over every GPU of the deployment, prefill
    #: and decode: InferenceX's tput_per_gpu, utils/process_result.py)
    tokens: str = "output"
    #: a per-point ("speed") row's deployment: decode instances, prefill GPUs, and its published
    #: tok/s/GPU (total tokens over every GPU of the deployment): the recipe curve below
    instances: int = 0
    prefill_gpus: int = 0
    tput: float = 0.0

    @property
    def measured_per_gpu(self) -> float:
        """The published figure as the model gives it: tokens/s per GPU, or for a
        `min_latency` row tokens/s per user."""
        return self.measured if self.per_gpu else self.measured / self.gpus

    @property
    def regime(self) -> str:
        if self.isl >= 4 * self.osl:
            return "prefill-heavy"
        if self.osl >= 4 * self.isl:
            return "decode-heavy"
        return "balanced"


def load_rows(path: Path = RUNS_FILE) -> list[Row]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    keys = Row.__dataclass_fields__
    return [Row(**{k: v for k, v in r.items() if k in keys}) for r in data["runs"]]


def load_sources(path: Path = RUNS_FILE) -> dict[str, str]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["sources"]


def load_ratios(path: Path = RUNS_FILE) -> list[dict]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["ratios"]


@cache
def design(system: str):
    template, options = SYSTEMS[system]
    return generate(template, **options)


@cache
def _serve(system: str, model: str, precision: str, isl: int, osl: int, gpus: int, mode: str,
           engine: str, pin: tuple, mtp: int):
    """One curve per deployment (several rows read points off the same curve)."""
    return serve(design(system), model, precision=precision, isl=isl, osl=osl, gpus=gpus,
                 mode=mode, stack=engine, pin=dict(pin) or None, mtp=mtp)


#: a stack profile every row is run on instead of its published engine (`--stack`): to report
#: how another profile of the same engine (resources/serving/stacks.yaml) compares
STACK_OVERRIDE: dict[str, str] = {}


def predict(row: Row) -> float:
    engine = STACK_OVERRIDE.get(row.engine, row.engine)
    row = replace(row, engine=engine) if engine != row.engine else row
    if row.point == "speed":  # tokens/s per user of one layout at one batch and draft depth
        return speed_at(design(row.system), row.model, row.config, row.batch,
                        precision=row.precision, isl=row.isl, osl=row.osl, gpus=row.gpus,
                        mtp=row.mtp, stack=row.engine)
    r = _serve(row.system, row.model, row.precision, row.isl, row.osl, row.gpus, row.mode,
               row.engine, tuple(sorted((row.config or {}).items())), row.mtp)
    # every point of the model carries input and output tokens in the ratio of the shape
    scale = (row.isl + row.osl) / row.osl if row.tokens == "total" else 1.0
    if row.point == "interactivity":
        assert row.interactivity is not None, row.name
        return scale * (throughput_at(list(r.pareto), row.interactivity) or 0.0)
    if row.point == "min_latency":
        single = [p for p in r.pareto if p.concurrency == 1]
        return max((p.per_user for p in single), default=0.0)
    return 0.0 if r.max_load is None else scale * r.max_load.output_per_gpu


def compare(rows: list[Row]) -> list[tuple[Row, float, float]]:
    out = []
    for row in rows:
        pred = predict(row)
        out.append((row, pred, pred / row.measured_per_gpu - 1.0))
    return out


def summary(results: list[tuple[Row, float, float]]) -> dict:
    errs = [abs(e) for _, _, e in results]
    return {"rows": len(errs), "mean_abs_error": statistics.fmean(errs) if errs else 0.0,
            "within_25": sum(e <= 0.25 for e in errs) / len(errs) if errs else 0.0,
            "mean_signed_error": statistics.fmean(e for _, _, e in results) if errs else 0.0}


def monotone_at(points: list[tuple[float, float]], x: float) -> float | None:
    """y at `x` on the monotone cubic (Fritsch-Carlson) interpolant through `points` (x, y) —
    InferenceX's dashboard reads its iso-interactivity figures off its Pareto points so ("the
    dashboard's monotone-cubic-Hermite Pareto interpolation", the blog's FAQ); None outside."""
    xs, ys = zip(*sorted(points), strict=True) if points else ((), ())
    if len(xs) < 2 or not xs[0] <= x <= xs[-1]:
        return None
    d = [(ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]) for i in range(len(xs) - 1)]
    m = [d[0]] + [0.0 if d[i - 1] * d[i] <= 0 else 2.0 / (1.0 / d[i - 1] + 1.0 / d[i])
                  for i in range(1, len(d))] + [d[-1]]
    i = max(k for k in range(len(xs) - 1) if xs[k] <= x)
    h = xs[i + 1] - xs[i]
    t = (x - xs[i]) / h
    return ((2 * t ** 3 - 3 * t ** 2 + 1) * ys[i] + (t ** 3 - 2 * t ** 2 + t) * h * m[i]
            + (-2 * t ** 3 + 3 * t ** 2) * ys[i + 1] + (t ** 3 - t ** 2) * h * m[i + 1])


def recipe_points(results: list[tuple[Row, float, float]], system: str, modelled: bool
                  ) -> list[tuple[float, float]]:
    """(tok/s/user, total tok/s/GPU) of each deployment InferenceX ran on `system` (its
    per-point rows): the decode slots (instances x sequences per instance) each at the point's
    speed — published, or the model's at that layout, batch and depth — over its prefill and
    decode GPUs, reduced to the Pareto points (none beaten on both)."""
    pts = []
    for row, pred, _ in results:
        if row.point == "speed" and row.system == system and row.instances:
            speed = pred if modelled else row.measured
            gpus = row.instances * int(row.config["gpus"]) + row.prefill_gpus
            pts.append((speed, row.instances * row.batch * speed * (row.isl + row.osl)
                        / row.osl / gpus))
    return [p for p in pts if not any(q[0] >= p[0] and q[1] > p[1] for q in pts)]


def recipe_curve(results: list[tuple[Row, float, float]]) -> list[tuple[Row, float | None,
                                                                        float | None]]:
    """Each iso-interactivity row read off InferenceX's own recipe points, interpolated as its
    dashboard does: (row, from the published points, from the model's speeds at those points)."""
    out = []
    for row, _, _ in results:
        if row.point == "interactivity" and row.interactivity is not None:
            x = row.interactivity
            out.append((row, monotone_at(recipe_points(results, row.system, False), x),
                        monotone_at(recipe_points(results, row.system, True), x)))
    return out


def _print_recipe_curve(results: list[tuple[Row, float, float]]) -> None:
    print("\nrecipe curve: the iso-interactivity rows on InferenceX's own deployments (per-point "
          "rows), monotone cubic as its dashboard; the free search above is the model's own "
          "envelope")
    print(f"{'row':48} {'published':>10} {'pub. pts':>9} {'model pts':>10} {'error':>7}")
    errs = []
    for row, pub, mod in recipe_curve(results):
        err = None if mod is None else mod / row.measured_per_gpu - 1.0
        errs.append(abs(err) if err is not None else 1.0)
        print(f"{row.name:48} {row.measured_per_gpu:10,.0f} "
              + (f"{pub:9,.0f}" if pub is not None else f"{'-':>9}")
              + (f" {mod:10,.0f} {err:+7.1%}" if mod is not None and err is not None
                 else f" {'-':>10} {'-':>7}"))
    for row, pred, _ in results:
        if row.point == "speed" and row.tput:
            gpus = row.instances * int(row.config["gpus"]) + row.prefill_gpus
            mod = row.instances * row.batch * pred * (row.isl + row.osl) / row.osl / gpus
            print(f"  deployment {row.name[12:46]:34} tok/s/GPU published {row.tput:8,.0f} "
                  f"model {mod:8,.0f} {mod / row.tput - 1.0:+7.1%}")
    if errs:
        print(f"recipe curve: {len(errs)} rows, mean |error| {statistics.fmean(errs):.1%}, "
              f"within 25 %: {sum(e <= 0.25 for e in errs) / len(errs):.0%}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=("calibration", "validation", "all"), default="all")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--stack", metavar="ID", help="run the trtllm rows on this stack profile "
                    "instead (e.g. vllm: its memory and batch limits, all-to-all across nodes)")
    args = ap.parse_args(argv)
    STACK_OVERRIDE.clear()
    if args.stack:
        STACK_OVERRIDE["trtllm"] = args.stack
    rows = [r for r in load_rows() if args.set in ("all", r.set)]
    t0 = time.perf_counter()
    results = compare(rows)
    print(f"{'row':48} {'set':11} {'published':>10} {'model':>10} {'error':>7}")
    for row, pred, err in results:
        print(f"{row.name:48} {row.set:11} {row.measured_per_gpu:10,.0f} {pred:10,.0f} "
              f"{err:+7.1%}")
    print()
    for key in ("set", "source", "point", "gpu", "model", "regime"):
        groups: dict[str, list] = {}
        # by GPU, model and regime: the gated kinds of point only (the curve points of one
        # source, reported above by source and point, would swamp each class they fall in)
        for res in (results if key in ("set", "source", "point")
                    else [x for x in results if x[0].point in GATED]):
            row = res[0]
            k = {"set": row.set, "source": row.source, "point": row.point,
                 "gpu": row.name.split()[-3], "model": row.model, "regime": row.regime}[key]
            groups.setdefault(k, []).append(res)
        for k, group in sorted(groups.items()):
            s = summary(group)
            print(f"{key:7} {k:18} rows {s['rows']:3}  mean |error| {s['mean_abs_error']:6.1%}  "
                  f"within 25 % {s['within_25']:6.1%}  mean signed {s['mean_signed_error']:+6.1%}")
    gated = summary([x for x in results if x[0].set == "validation" and x[0].point in GATED])
    print(f"gated   {'validation':18} rows {gated['rows']:3}  mean |error| "
          f"{gated['mean_abs_error']:6.1%}  within 25 % {gated['within_25']:6.1%}  mean signed "
          f"{gated['mean_signed_error']:+6.1%}  (max load and batch 1: the CI gate)")
    _print_recipe_curve(results)
    total = summary(results)
    print(f"\nall: {total['rows']} rows, mean |error| {total['mean_abs_error']:.1%}, within 25 %: "
          f"{total['within_25']:.0%} ({time.perf_counter() - t0:.1f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"rows": [{"name": r.name, "set": r.set, "published": r.measured_per_gpu,
                       "model": p, "error": e} for r, p, e in results], "summary": total},
            indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
