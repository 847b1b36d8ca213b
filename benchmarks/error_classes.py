"""The error classes below 128 MiB, and the candidate mechanisms tried on them (issue 22).

    python3 benchmarks/error_classes.py [--powers 1.5,2,3,4,8] [--table FILE]

The published rows below 128 MiB (benchmarks/published/nccl_tests.yaml, both sets) fall in three
classes: small-message time (8 B - 64 KiB, compared as time), mid sizes where NCCL switches
protocol and algorithm (1 - 64 MiB), and the single-node all_gather. For each row the script
prints the shipped model, then two experiments, each restoring the shipped constants after:

1. NCCL's cost model alone (`SMALL_MESSAGE_FLOOR_US` = 0): what NCCL's latency and bandwidth
   constants predict as the time of a call;
2. the 2-node NVLS-tree 8-byte row with the NET NVLSTree latency of the NCCL the run used
   (2.21.5: 14 us, `src/graph/tuning.cc` at tag v2.21.5-1 line 77) instead of today's 20.9;
3. NCCL's per-call base latency (`BASE_LATENCY_US`, tuning.cc `baseLat`) taken as part of the
   per-call floor rather than added to it (set to 0, the floor refitted on the calibration rows);
4. the NVLS and NVLS-tree steps taken as NCCL's tree Simple steps over the same links (NVLink
   4.0 us, network 14 us: tuning.cc at commit 5067397 lines 159 and 171) instead of NCCL's
   25 / 18 / 20.9 us, with the two pipeline fills refitted on their calibration curves
   (`size_curve.py`'s derivations, fill first) and the floor refitted; the size curves too;

and then, for each overlap power p of the per-call floor (`SMALL_MESSAGE_OVERLAP_POWER`, a
model assumption), the floor refitted on the calibration rows exactly as `published_vs_model.py
--derive` does, with the calibration and validation mean |error|, the validation rows beyond
15 % and the error of every row below 128 MiB. docs/simulation.md section 9 quotes the output.

Nothing here changes a shipped constant: it is how the alternatives were measured.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:  # run from a source checkout without installing
        sys.path.insert(0, str(path))

import published_vs_model as pvm  # noqa: E402
import size_curve  # noqa: E402

from rackdesigner.simulation import constants as C  # noqa: E402

#: the rows the classes hold: below this size (bytes)
CLASS_LIMIT = 128 << 20
#: NET NVLSTree latency (Simple, us) of NCCL 2.21.5, src/graph/tuning.cc at v2.21.5-1 line 77
NVLS_TREE_NET_LATENCY_2_21_US = 14.0


@contextmanager
def _constants(**values: Any) -> Iterator[None]:
    """Set constants.<NAME> for the block; the shipped values come back after it."""
    saved = {name: getattr(C, name) for name in values}
    try:
        for name, value in values.items():
            setattr(C, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(C, name, value)


def class_rows(runs: list[pvm.Run]) -> list[pvm.Run]:
    return [r for r in runs if r.data["size_bytes"] < CLASS_LIMIT]


def errors(runs: list[pvm.Run]) -> dict[str, float]:
    """Error (%) of each run, by id."""
    return {row.run.id: round(row.error_pct, 1) for row in pvm.compare_runs(runs)
            if row.error_pct is not None}


def without_floor(runs: list[pvm.Run]) -> dict[str, float]:
    """Errors with NCCL's cost model alone (no per-call floor)."""
    with _constants(SMALL_MESSAGE_FLOOR_US=0.0):
        return errors(class_rows(runs))


def nvls_tree_with_nccl_2_21(runs: list[pvm.Run]) -> dict[str, float]:
    """Errors of the NVLS-tree time rows with NCCL 2.21.5's NET NVLSTree latency."""
    net = dict(C.HW_LATENCY_US["net"])
    patched = dict(C.HW_LATENCY_US, net={**net, "nvls_tree": (0.0, 0.0,
                                                               NVLS_TREE_NET_LATENCY_2_21_US)})
    rows = [r for r in runs if r.compare == "time_us" and "nvls_tree" in r.id]
    with _constants(HW_LATENCY_US=patched):
        return errors(rows)


def base_latency_in_floor(runs: list[pvm.Run]) -> dict[str, Any]:
    """Both sets' figures with NCCL's base latencies at 0 and the floor refitted on them."""
    zeros = {name: (0.0, 0.0, 0.0) for name in C.BASE_LATENCY_US}
    with _constants(BASE_LATENCY_US=zeros):
        floor = pvm.derive(runs)["small_message_floor_us"]
        with _constants(SMALL_MESSAGE_FLOOR_US=floor):
            rows = pvm.compare_runs(runs)
    return _scan_entry(rows, floor)


def nvls_steps_as_tree_simple(runs: list[pvm.Run],
                              curves: list[dict[str, Any]]) -> dict[str, Any]:
    """Both sets and the curves with NVLS/NVLS-tree steps at NCCL's tree Simple step of the
    same link class, the fills and the floor refitted."""
    hw = {cls: dict(algos) for cls, algos in C.HW_LATENCY_US.items()}
    for cls in ("nvlink", "net"):
        step = C.HW_LATENCY_US[cls]["tree"][2]
        hw[cls]["nvls"] = hw[cls]["nvls_tree"] = (0.0, 0.0, step)
    with _constants(HW_LATENCY_US=hw):
        fill, _ = size_curve.derive_fill(curves)
        with _constants(NVLS_PIPELINE_FILL_WAVES=fill):
            level, _ = size_curve.derive_level_fill(curves)
            with _constants(PIPELINE_FILL_WAVES_PER_LEVEL=level):
                floor = pvm.derive(runs)["small_message_floor_us"]
                with _constants(SMALL_MESSAGE_FLOOR_US=floor):
                    rows = pvm.compare_runs(runs)
                    bands = size_curve.band_summary(size_curve.compare(curves))
    entry = _scan_entry(rows, floor)
    entry.update(fill_waves=round(fill, 2), fill_waves_per_level=round(level, 2), curves=bands,
                 beyond_15=sorted(r.run.id for r in rows if r.run.data["set"] == "validation"
                                  and r.error_pct is not None and abs(r.error_pct) > 15.0))
    return entry


def _scan_entry(rows: list[pvm.Row], floor: float) -> dict[str, Any]:
    totals = pvm.summary(rows)
    beyond = sum(1 for r in rows if r.run.data["set"] == "validation"
                 and r.error_pct is not None and abs(r.error_pct) > 15.0)
    return {"floor_us": round(floor, 1),
            "calibration_mean_pct": totals["calibration"]["mean_abs_error_pct"],
            "validation_mean_pct": totals["validation"]["mean_abs_error_pct"],
            "validation_beyond_15": beyond,
            "rows": {r.run.id: round(r.error_pct, 1) for r in rows
                     if r.run.data["size_bytes"] < CLASS_LIMIT and r.error_pct is not None}}


def overlap_scan(runs: list[pvm.Run], powers: list[float]) -> list[dict[str, Any]]:
    """Per overlap power: the floor refitted on the calibration rows, both sets' figures."""
    out = []
    for p in powers:
        with _constants(SMALL_MESSAGE_OVERLAP_POWER=p):
            floor = pvm.derive(runs)["small_message_floor_us"]
            with _constants(SMALL_MESSAGE_FLOOR_US=floor):
                rows = pvm.compare_runs(runs)
        out.append({"power": p, **_scan_entry(rows, floor)})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", type=Path, default=pvm.TABLE, help="published table (YAML)")
    parser.add_argument("--powers", default="1.5,2,3,4,8",
                        help="overlap powers to try, comma separated (default 1.5,2,3,4,8)")
    args = parser.parse_args(argv)
    try:
        runs = pvm.load_table(args.table)
        curves = size_curve.load_curves(size_curve.CURVES)
        powers = [float(p) for p in args.powers.split(",")]
    except (pvm.TableError, size_curve.CurvesError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValueError:
        print(f"error: --powers: expected numbers separated by commas, got {args.powers!r}",
              file=sys.stderr)
        return 2
    shipped = {row.run.id: row for row in pvm.compare_runs(class_rows(runs))}
    bare = without_floor(runs)
    print(f"{'run':40s} {'set':4s} {'published':>10s} {'model':>9s} {'error':>8s} "
          f"{'no floor':>9s}  engine")
    for rid, row in shipped.items():
        if row.error_pct is None:
            continue
        print(f"{rid:40s} {row.run.data['set'][:3]:4s} {row.run.published:10.2f} "
              f"{row.simulated:9.2f} {row.error_pct:+7.1f}% {bare[rid]:+8.1f}%  {row.algorithm}")
    for rid, err in nvls_tree_with_nccl_2_21(runs).items():
        print(f"\n{rid} with NCCL 2.21.5's NET NVLSTree latency "
              f"({NVLS_TREE_NET_LATENCY_2_21_US:g} us): {err:+.1f} %")
    print("\nNCCL's base latency inside the per-call floor (0, floor refitted):")
    _print_scan(base_latency_in_floor(runs))
    shipped_bands = size_curve.band_summary(size_curve.compare(curves))
    print("\nshipped size curves: " + "; ".join(shipped_bands))
    nvls = nvls_steps_as_tree_simple(runs, curves)
    print(f"\nNVLS/NVLS-tree steps as NCCL's tree Simple steps (fill {nvls['fill_waves']} waves, "
          f"{nvls['fill_waves_per_level']} per level):")
    _print_scan(nvls)
    print("    validation beyond 15 %: " + ", ".join(nvls["beyond_15"]))
    print("    size curves: " + "; ".join(nvls["curves"]))
    print("\noverlap power p of the per-call floor, floor refitted on the calibration rows:")
    for scan in overlap_scan(runs, powers):
        _print_scan(scan, f"p={scan['power']:g}: ")
    return 0


def _print_scan(scan: dict[str, Any], head: str = "") -> None:
    print(f"{head}floor {scan['floor_us']} us, calibration {scan['calibration_mean_pct']} %, "
          f"validation {scan['validation_mean_pct']} %, validation beyond 15 %: "
          f"{scan['validation_beyond_15']}")
    print("    " + ", ".join(f"{rid} {err:+.1f}" for rid, err in scan["rows"].items()))


if __name__ == "__main__":
    sys.exit(main())
