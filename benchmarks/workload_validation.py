"""Compare the workload estimator with published, measured training runs.

    python3 benchmarks/workload_validation.py [--set calibration|validation|all] [--markdown]
                                              [--json FILE] [--write-spread]

The runs, their sources and the split into a calibration set (what the model's constants were
chosen against) and a validation set (runs added afterwards, that only check them) are in
`benchmarks/workload_runs.yaml`. Each run is rebuilt as a design with RackDesigner's own
generators (the systems and fabrics the publications name), estimated with the published
parallel layout, batch, precision and the efficiency profile of the software that ran it, and
the predicted throughput compared with the measured one. Error = predicted / measured - 1
(positive: the model is optimistic). No figure of the model is tuned per run; the same
constants and five named profiles serve all. The tables in docs/workload.md are this script's
output.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from rackdesigner._resources import resources_root  # noqa: E402
from rackdesigner.generators import generate  # noqa: E402
from rackdesigner.io.atomic import write_text  # noqa: E402
from rackdesigner.vocabulary import FABRIC_TUNINGS  # noqa: E402
from rackdesigner.workload import estimate, resolve_model  # noqa: E402
from rackdesigner.workload.spread import PERCENTILES, spread_of, training_class  # noqa: E402

MODELS = HERE / "workload_models"
RUNS_FILE = HERE / "workload_runs.yaml"
UNITS = {"s": "s/step", "tok": "tok/s/GPU", "tf_eq3": "TFLOP/s/GPU"}


@dataclass(frozen=True)
class Run:
    name: str
    set: str  # calibration | validation
    gpu: str
    stack: str  # efficiency profile
    cluster: str
    model: str  # bundled id or file
    job: dict
    measured: float
    unit: str
    source: str  # the full citation
    kind: str = "dense"
    tuning: str = "vendor-tuned"  # the fabric tuning its cluster ran (vocabulary.FABRIC_TUNINGS)


@dataclass(frozen=True)
class Result:
    run: Run
    predicted: float
    error: float
    estimate: object


def load_runs(path: Path = RUNS_FILE) -> list[Run]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    sources = data["sources"]
    out = []
    for i, r in enumerate(data["runs"]):
        if r.get("tuning") not in FABRIC_TUNINGS:
            raise ValueError(f"{path.name}: runs[{i}] ({r.get('name')!r}): tuning must be one "
                             f"of {', '.join(FABRIC_TUNINGS)}, got {r.get('tuning')!r}")
        model = r["model"]
        if (MODELS / f"{model}.yaml").exists():
            model = str(MODELS / f"{model}.yaml")
        value, unit = r["measured"]
        out.append(Run(r["name"], r["set"], r["gpu"], r["stack"], r["cluster"], model,
                       dict(r["job"]), float(value), unit, sources[r["source"]],
                       r.get("kind", "dense"), r["tuning"]))
    return out


def narayanan_flops(batch: int, layers: int, hidden: int, seq: int = 2048,
                    vocab: int = 51200) -> float:
    """FLOPs per step by Narayanan et al. 2021, Eq. (3) (full recomputation counted): the
    convention of their teraFLOP/s figures, so a measured figure converts back to a step time."""
    return 96 * batch * seq * layers * hidden ** 2 * (1 + seq / (6 * hidden)
                                                      + vocab / (16 * layers * hidden))


def cluster_design(cluster: str, gpus: int) -> tuple[str, dict]:
    """The generator call that builds `cluster` with at least `gpus` GPUs."""
    nodes = max(1, math.ceil(gpus / 8))
    if cluster == "selene":
        return "superpod", {"system": "dgx-a100", "nodes": nodes}
    if cluster == "dgx-h100":
        return (("dgx-h100", {}) if gpus <= 8 else
                ("rail-optimized", {"system": "dgx-h100", "nodes": nodes, "switch": "qm9700"}))
    if cluster == "dgx-b200":
        return ("dgx-b200", {}) if gpus <= 8 else ("superpod", {"system": "dgx-b200",
                                                                 "nodes": nodes})
    if cluster in ("nvl72", "nvl72-gb300"):
        system = "gb300-nvl72" if cluster == "nvl72-gb300" else "gb200-nvl72"
        racks = max(1, math.ceil(gpus / 72))
        if racks == 1:
            return "nvl72", ({"system": system} if cluster == "nvl72-gb300" else {})
        return "superpod", {"system": system, "racks": racks}
    raise ValueError(f"unknown cluster {cluster!r}")


def evaluate(runs: list[Run], designs: dict | None = None) -> list[Result]:
    designs = {} if designs is None else designs
    out = []
    for run in runs:
        key = cluster_design(run.cluster, run.job["gpus"])
        design_key = (key[0], tuple(sorted(key[1].items())))
        if design_key not in designs:
            designs[design_key] = generate(key[0], **key[1])
        e = estimate(designs[design_key], run.model, profile=run.stack, time_if_too_big=True,
                     fabric_tuning=run.tuning, **run.job)
        if run.unit == "s":
            predicted = e.step_time_s
            error = run.measured / predicted - 1  # as a throughput error
        elif run.unit == "tf_eq3":
            m = resolve_model(run.model)
            flops = narayanan_flops(run.job["gbs"], m.layers, m.hidden, e.job.seq, m.vocab)
            predicted = flops / e.step_time_s / e.gpus / 1e12
            error = predicted / run.measured - 1
        else:
            predicted = e.tokens_per_s / e.gpus
            error = predicted / run.measured - 1
        out.append(Result(run, predicted, error, e))
    return out


def summary(results: list[Result]) -> dict:
    if not results:
        return {"runs": 0}
    errs = [abs(r.error) for r in results]
    worst = max(results, key=lambda r: abs(r.error))
    return {"runs": len(results), "mean_abs": sum(errs) / len(errs),
            "mean_signed": sum(r.error for r in results) / len(results),
            "worst": worst.error, "worst_run": worst.run.name,
            "within_15": sum(e <= 0.15 for e in errs),
            "refused": sum(not r.estimate.fits for r in results)}


def run_table(results: list[Result]) -> str:
    out = ["| run | set | stack | layout | measured | estimated | error | MFU est. | "
           "memory GB est. |", "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        e, run = r.estimate, r.run
        fmt = "{:,.2f}" if run.unit == "s" else "{:,.0f}"
        mfu = f"{e.mfu:.0%}" if e.mfu else "-"
        mem = f"{e.memory.total_GB:.0f}" + ("" if e.fits else " (does not fit)")
        out.append(f"| {run.name} | {run.set} | {run.stack} | {e.job.label()} | "
                   f"{fmt.format(run.measured)} {UNITS[run.unit]} | {fmt.format(r.predicted)} | "
                   f"{r.error:+.0%} | {mfu} | {mem} |")
    return "\n".join(out)


def group_table(results: list[Result], key, title: str) -> str:
    out = [f"| {title} | runs | mean abs. error | mean signed | worst |", "|---|---|---|---|---|"]
    for value in dict.fromkeys(key(r) for r in results):
        s = summary([r for r in results if key(r) == value])
        out.append(f"| {value} | {s['runs']} | {s['mean_abs']:.1%} | {s['mean_signed']:+.1%} | "
                   f"{s['worst']:+.0%} ({s['worst_run']}) |")
    return "\n".join(out)


def tp_domain_table(results: list[Result]) -> str:
    """Slowdown of each TP-across-NVLink-domains run against the TP-8 run of the same figure,
    measured vs estimated: the figure the scale-up question turns on, free of the absolute
    level."""
    out = ["| TP across NVLink domains | measured slowdown vs TP 8 in the node | estimated | "
           "estimated / measured |", "|---|---|---|---|"]
    for r in results:
        if r.run.kind != "tp-across":
            continue
        base = next(b for b in results if b.run.source == r.run.source
                    and b.run.model == r.run.model and b.run.kind == "tp-inside")
        measured = base.run.measured / r.run.measured
        estimated = base.predicted / r.predicted
        out.append(f"| {r.run.name} | {measured:.2f}x | {estimated:.2f}x | "
                   f"{estimated / measured:.2f} |")
    return "\n".join(out)


def series_ratios(results) -> list[tuple[str, float, float]]:
    """(run, measured, estimated) throughput of every run of a weak-scaling series (`kind:
    fsdp-scaling`) relative to the series' first run (same source and model, fewest GPUs):
    the shape of the series, free of what costs every GPU the same at every scale."""
    out = []
    for r in results:
        if r.run.kind != "fsdp-scaling":
            continue
        base = min((b for b in results if b.run.kind == "fsdp-scaling"
                    and b.run.source == r.run.source and b.run.model == r.run.model),
                   key=lambda b: b.run.job["gpus"])
        if base is r:
            continue
        measured = (1 + r.error) / (1 + base.error) * (r.predicted / base.predicted)
        out.append((r.run.name, measured, r.predicted / base.predicted))
    return out


def fsdp_scaling_table(results: list[Result]) -> str:
    """Each run of an FSDP weak-scaling series against the series' first run, measured vs
    estimated: the shape `OVERLAP_STRETCH` is fitted on (workload_calibrate.py)."""
    out = ["| FSDP weak scaling | measured step time (or throughput) / the series' first run's "
           "| estimated | estimated / measured |", "|---|---|---|---|"]
    for name, measured, estimated in series_ratios(results):
        out.append(f"| {name} | {measured:.3f} | {estimated:.3f} | {estimated / measured:.3f} |")
    return "\n".join(out)


def run_class(result: Result) -> str:
    """The spread class of a run (rackdesigner/workload/spread.py)."""
    return training_class(result.run.kind == "moe")


def throughput_ratio(result: Result) -> float:
    """Measured / predicted throughput (every unit's error is a throughput error)."""
    return 1.0 / (1.0 + result.error)


def spread_yaml(results: list[Result]) -> str:
    """resources/workload/spread.yaml: each class's band from the validation runs only."""
    lines = ["# How far published training runs fall from the estimator, per class",
             "# (rackdesigner/workload/spread.py). Written by",
             "#   python3 benchmarks/workload_validation.py --write-spread",
             "# from the validation set of benchmarks/workload_runs.yaml: the "
             f"{PERCENTILES[0]:.0%} and {PERCENTILES[1]:.0%}",
             "# percentiles of measured / predicted throughput. Do not edit by hand.",
             "schema_version: 1", "classes:"]
    val = [r for r in results if r.run.set == "validation"]
    for cls in sorted({run_class(r) for r in val}):
        ratios = [throughput_ratio(r) for r in val if run_class(r) == cls]
        lo, hi = spread_of(ratios)
        lines.append(f"  {cls}: {{ratio: [{lo:.3f}, {hi:.3f}], runs: {len(ratios)}}}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("calibration", "validation", "all"), default="all")
    parser.add_argument("--markdown", action="store_true", help="print the docs tables")
    parser.add_argument("--json", metavar="FILE", help="write every run's figures as JSON")
    parser.add_argument("--write-spread", action="store_true",
                        help="write resources/workload/spread.yaml from the validation runs")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    runs = [r for r in load_runs() if args.set in ("all", r.set)]
    results = evaluate(runs)
    sets = {s: summary([r for r in results if r.run.set == s])
            for s in ("calibration", "validation")}
    if args.markdown:
        print(run_table(results))
        print()
    else:
        for r in results:
            e = r.estimate
            status = f"{r.predicted:,.2f} vs {r.run.measured:,.2f} {UNITS[r.run.unit]} " \
                     f"({r.error:+.1%})" + ("" if e.fits else "; "
                                            + e.memory.refusal())
            top = ", ".join(f"{k.removesuffix('_s')} {v:.2f}" for k, v in e.breakdown.items()
                            if v > 0)
            print(f"[{r.run.set[:3]}] {r.run.name:<40} {status}\n      {e.job.label()} "
                  f"({r.run.stack}); {top}")
    print(group_table(results, lambda r: r.run.set, "set"))
    print()
    print(group_table(results, lambda r: f"{r.run.set}, "
                      + ("MoE" if r.run.kind == "moe" else "dense"), "set, kind"))
    print()
    print(group_table([r for r in results if r.run.set == "validation" and r.run.gpu in
                       ("A100", "H100") and r.run.stack in ("megatron-2021", "nemo-2024",
                                                             "pytorch-fsdp",
                                                             "llm-foundry-2023")],
                      lambda r: "validation, 2021-24 stacks on A100/H100", "subset"))
    print()
    print(group_table(results, lambda r: r.run.stack, "stack"))
    print()
    print(group_table(results, lambda r: r.run.gpu, "GPU"))
    print()
    print(group_table(results, lambda r: r.run.tuning, "fabric tuning"))
    print()
    print(tp_domain_table(results))
    print()
    print(fsdp_scaling_table(results))
    for name, s in sets.items():
        if s["runs"]:
            print(f"\n{name}: mean |error| {s['mean_abs']:.1%}, worst {s['worst']:+.1%} "
                  f"({s['worst_run']}), {s['within_15']}/{s['runs']} within 15 %, "
                  f"{s['refused']} do not fit")
    print(f"({time.perf_counter() - start:.0f} s)")
    if args.write_spread:
        if args.set != "all":
            parser.error("--write-spread needs --set all (the validation runs)")
        path = resources_root() / "workload" / "spread.yaml"
        write_text(path, spread_yaml(results))
        print(f"wrote {path}")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "sets": sets, "runs": [{"name": r.run.name, "set": r.run.set,
                                    "stack": r.run.stack, "measured": r.run.measured,
                                    "unit": r.run.unit, "predicted": r.predicted,
                                    "error": r.error, "fits": r.estimate.fits}
                                   for r in results]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
