"""Published nccl-tests size curves beside RackDesigner's, and the one constant derived from them.

    python3 benchmarks/size_curve.py [--derive] [--markdown] [--curves FILE]

For every curve in `benchmarks/published/nccl_tests_curves.yaml` (published nccl-tests outputs,
each with its source) the script generates the matching design (`rackdesigner.generators`),
simulates it with the run's algorithm through the public `simulate()` API and prints, per
message size, the published busbw, RackDesigner's busbw and the error, then the mean absolute
and worst error by size band (1-16 MiB, 32-512 MiB, >= 1 GiB) over all curves.

`--derive` recomputes `constants.NVLS_PIPELINE_FILL_WAVES` from the NVLS curves: the model's
time at a size is linear in the constant (t = t0 + W x w, t0 with W = 0, w the time of one
wave), so the least-squares W over the relative time error, each curve weighted equally, has a
closed form. It prints the value per curve and over all of them (the one the engine uses), so a
reader can see that the curves of different systems agree — or by how much they do not.

Exit status 0, or 2 when the curves file is not usable (the message names file:line).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a source checkout without installing
    sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from rackdesigner.generators import generate  # noqa: E402
from rackdesigner.simulation import constants as C  # noqa: E402
from rackdesigner.simulation import simulate  # noqa: E402

CURVES = ROOT / "benchmarks" / "published" / "nccl_tests_curves.yaml"
SCHEMA = "rackdesigner.published-nccl-curves/1"
MiB, GiB = 2**20, 2**30
BANDS = (("1-16 MiB", MiB, 16 * MiB), ("32-512 MiB", 32 * MiB, 512 * MiB),
         (">= 1 GiB", GiB, 2**40))


class CurvesError(ValueError):
    """The curves file is not usable; the message names file:line."""


def load_curves(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
        data = yaml.compose(text)
        doc = yaml.safe_load(text)
    except (OSError, yaml.YAMLError) as exc:
        raise CurvesError(f"{path}: cannot read: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise CurvesError(f"{path}:1: expected schema: {SCHEMA}")
    lines = {}
    for key, value in data.value:
        if key.value == "curves":
            lines = {i: node.start_mark.line + 1 for i, node in enumerate(value.value)}
    curves = doc.get("curves")
    if not isinstance(curves, list) or not curves:
        raise CurvesError(f"{path}: expected a non-empty list under curves:")
    for i, curve in enumerate(curves):
        where = f"{path}:{lines.get(i, '?')}"
        for key in ("id", "set", "gpus", "collective", "algorithm", "design", "source",
                    "points"):
            if key not in curve:
                raise CurvesError(f"{where}: curve has no {key!r}")
        points = curve["points"]
        if not isinstance(points, dict) or not all(
                isinstance(k, int) and isinstance(v, (int, float)) and v > 0
                for k, v in points.items()):
            raise CurvesError(f"{where}: points must map message sizes (bytes) to busbw GB/s")
        if curve["set"] not in ("calibration", "validation"):
            raise CurvesError(f"{where}: set must be calibration or validation")
        if not curve["source"].get("url"):
            raise CurvesError(f"{where}: curve {curve['id']!r}: source needs a url")
    return curves


def model_times(curve: dict[str, Any], layouts: dict[str, Any]) -> dict[int, tuple[float, float,
                                                                                   str]]:
    """size -> (time µs, busbw GB/s, algorithm/protocol) of the simulated curve."""
    design = curve["design"]
    key = repr(sorted(design.items()))
    if key not in layouts:
        options = {k: v for k, v in design.items() if k not in ("template", "tuning")}
        layouts[key] = generate(design["template"], **options)
    result = simulate(layouts[key], algorithm=curve["algorithm"],
                      fabric_tuning=design.get("tuning"))
    return {p.bytes: (p.time_us, p.busbw_GBps, f"{p.algorithm}/{p.protocol}")
            for p in result.collective(curve["collective"])}


def _fit_constant(name: str, curves: list[dict[str, Any]]) -> tuple[float, dict[str, float]]:
    """Least-squares value of the constant `name` (constants.py) over `curves`, each weighted
    equally: the model's time at a size is linear in it (t = t0 + W x w, t0 with W = 0, w the
    time of one unit), so the fit over the relative time error has a closed form. Also the value
    each curve alone gives."""
    layouts: dict[str, Any] = {}
    saved = getattr(C, name)
    try:
        runs = []
        for value in (0.0, 1.0):
            setattr(C, name, value)
            runs.append([model_times(c, layouts) for c in curves])
    finally:
        setattr(C, name, saved)
    per_curve: dict[str, tuple[float, float]] = {}
    for curve, base, one in zip(curves, runs[0], runs[1], strict=True):
        num = den = 0.0
        ranks = curve["gpus"]
        factor = 2 * (ranks - 1) / ranks
        for size, bus in curve["points"].items():
            t_pub = size / (bus / factor * 1000.0)
            t0, w = base[size][0], one[size][0] - base[size][0]
            num += w * (t_pub - t0) / t_pub**2
            den += w * w / t_pub**2
        per_curve[curve["id"]] = (num / len(curve["points"]), den / len(curve["points"]))
    total = sum(v[0] for v in per_curve.values()) / sum(v[1] for v in per_curve.values())
    return total, {k: v[0] / v[1] for k, v in per_curve.items()}


def derive_fill(curves: list[dict[str, Any]]) -> tuple[float, dict[str, float]]:
    """Least-squares NVLS_PIPELINE_FILL_WAVES over the calibration NVLS curves."""
    nvls = [c for c in curves if c["algorithm"] in ("nvls", "nvls_tree")
            and c["set"] == "calibration"]
    return _fit_constant("NVLS_PIPELINE_FILL_WAVES", nvls)


def derive_level_fill(curves: list[dict[str, Any]]) -> tuple[float, dict[str, float]]:
    """Least-squares `PIPELINE_FILL_WAVES_PER_LEVEL` over the calibration curves that span
    several NVLink domains (the multi-rack NVL72 ones)."""
    multi = [c for c in curves if c["set"] == "calibration" and c["id"].startswith("gb200nvl72x")]
    return _fit_constant("PIPELINE_FILL_WAVES_PER_LEVEL", multi)


def compare(curves: list[dict[str, Any]]) -> list[tuple[str, int, float, float, str]]:
    layouts: dict[str, Any] = {}
    rows = []
    for curve in curves:
        model = model_times(curve, layouts)
        for size, bus in sorted(curve["points"].items()):
            _, sim, picked = model[size]
            rows.append((curve["id"], size, float(bus), sim, picked))
    return rows


def _size(n: int) -> str:
    return f"{n // GiB} GiB" if n >= GiB else f"{n // MiB} MiB" if n >= MiB else f"{n} B"


def band_summary(rows: list[tuple[str, int, float, float, str]]) -> list[str]:
    out = []
    for name, lo, hi in (("all sizes", 0, 2**40), *BANDS):
        errs = [(r[3] - r[2]) / r[2] * 100 for r in rows if lo <= r[1] <= hi]
        if errs:
            worst = max(errs, key=abs)
            out.append(f"{name}: {len(errs)} points, mean absolute error "
                       f"{sum(abs(e) for e in errs) / len(errs):.1f} %, worst {worst:+.1f} %")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--curves", type=Path, default=CURVES)
    parser.add_argument("--derive", action="store_true",
                        help="recompute NVLS_PIPELINE_FILL_WAVES from the NVLS curves")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    args = parser.parse_args(argv)
    try:
        curves = load_curves(args.curves)
    except CurvesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.derive:
        value, per_curve = derive_fill(curves)
        for cid, v in per_curve.items():
            print(f"{cid}: {v:.2f} waves")
        print(f"all NVLS curves, each weighted equally: {value:.3f} waves "
              f"(the engine uses {C.NVLS_PIPELINE_FILL_WAVES})")
        level, per_level = derive_level_fill(curves)
        for cid, v in per_level.items():
            print(f"{cid}: {v:.2f} waves per tree level")
        print(f"multi-domain curves, each weighted equally: {level:.3f} waves per level "
              f"(the engine uses {C.PIPELINE_FILL_WAVES_PER_LEVEL})")
        return 0
    rows = compare(curves)
    current = None
    for cid, size, pub, sim, picked in rows:
        if cid != current:
            current = cid
            if args.markdown:
                print(f"\n{cid}\n\n| size | published | RackDesigner | error | picks |\n"
                      f"|---|---|---|---|---|")
            else:
                print(f"\n{cid}")
        err = (sim - pub) / pub * 100
        if args.markdown:
            print(f"| {_size(size)} | {pub:.1f} | {sim:.1f} | {err:+.0f} % | {picked} |")
        else:
            print(f"  {_size(size):>8}  published {pub:7.1f}  model {sim:7.1f}  "
                  f"{err:+6.1f} %  {picked}")
    print()
    for line in band_summary(rows):
        print(("- " if args.markdown else "") + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
