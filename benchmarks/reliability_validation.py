"""Compare the failure model with published field data of large training fleets.

    python3 benchmarks/reliability_validation.py [--set calibration|validation|all] [--json FILE]

The figures, their sources and the split into a calibration set (what the bundled rates were
derived from) and a validation set (other fleets, that only check the model) are in
`benchmarks/reliability_runs.yaml`. Each run's cluster is rebuilt with RackDesigner's own
generators (a DGX SuperPOD of the run's system, whole scalable units), assessed with the
bundled failure library, and the model's figure scaled to the run's GPU count and compared
with the published one. Error = model / published - 1. Nothing is tuned per run.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from rackdesigner.generators import generate  # noqa: E402
from rackdesigner.io.atomic import write_text  # noqa: E402
from rackdesigner.reliability import assess, load_library  # noqa: E402
from rackdesigner.reliability.goodput import ettr, optimum_interval  # noqa: E402

RUNS_FILE = HERE / "reliability_runs.yaml"
METRICS = ("interruptions_per_day", "share", "faults_per_day", "mtbf_hours", "ettr_at_least",
           "ettr", "restart_minutes")
#: the system of each cluster name, and its GPUs per node
SYSTEMS = {"dgx-h100": "dgx-h100", "dgx-b200": "dgx-b200", "dgx-a100": "dgx-a100"}


@dataclass(frozen=True)
class Run:
    name: str
    set: str
    cluster: str
    gpus: int
    metric: str
    published: float
    source: str
    causes: tuple[str, ...] = ()
    switch: str | None = None  # the fabric switch, when not the reference architecture's
    verified: bool = True
    note: str = ""


@dataclass(frozen=True)
class Result:
    run: Run
    model: float
    error: float  # model / published - 1 (for a lower bound: 0 when met)


def load_runs(path: Path = RUNS_FILE) -> tuple[list[Run], dict[str, str]]:
    data = yaml.safe_load(path.read_text())
    runs = []
    for r in data["runs"]:
        if r["metric"] not in METRICS:
            raise ValueError(f"{r['name']}: unknown metric {r['metric']!r}")
        if r["source"] not in data["sources"]:
            raise ValueError(f"{r['name']}: source {r['source']!r} not in sources")
        runs.append(Run(r["name"], r["set"], r["cluster"], int(r["gpus"]), r["metric"],
                        float(r["published"]), r["source"], tuple(r.get("causes", ())),
                        r.get("switch"), bool(r.get("verified", True)), r.get("note", "")))
    return runs, data["sources"]


@cache
def _layout(cluster: str, gpus: int, switch: str | None = None):
    nodes = max(1, math.ceil(gpus / 8))
    return generate("superpod", system=SYSTEMS[cluster], nodes=nodes, switch=switch)


@cache
def _assessment(cluster: str, gpus: int, switch: str | None = None,
                failures: str | None = None):
    """The run's cluster assessed with the bundled rates or those of the file `failures`."""
    return assess(_layout(cluster, gpus, switch), load_library(failures))


def model_figure(run: Run, failures: str | None = None) -> float:
    a = _assessment(run.cluster, run.gpus, run.switch, failures)
    scale = run.gpus / a.gpus  # the run's GPUs, where the SU rounding built more
    if run.metric == "interruptions_per_day":
        return a.interruptions_per_day * scale
    if run.metric == "mtbf_hours":
        return a.mtbf_hours / scale
    if run.metric == "share":
        return a.share(*run.causes)
    if run.metric == "faults_per_day":
        return sum(c.interruptions_per_day for c in a.causes if c.name in run.causes) * scale
    if run.metric == "ettr_at_least":
        return a.ettr
    if run.metric == "ettr":  # at the run's GPUs: its MTBF, the optimum interval
        mtbf_s = a.mtbf_hours * 3600 / scale
        write_s = a.checkpoint.write_s
        return ettr(optimum_interval(write_s, mtbf_s), write_s, a.restart_s, mtbf_s)
    if run.metric == "restart_minutes":
        return a.restart_s / 60
    raise ValueError(run.metric)


def evaluate(runs: list[Run], failures: str | None = None) -> list[Result]:
    """Model vs published for each run (`failures`: a failure-library file over the bundled
    one, as `reliability --failures`)."""
    out = []
    for run in runs:
        value = model_figure(run, failures)
        if run.metric == "ettr_at_least":
            error = 0.0 if value >= run.published else value / run.published - 1
        else:
            error = value / run.published - 1
        out.append(Result(run, value, error))
    return out


@dataclass(frozen=True)
class Summary:
    """Mean and worst |error| of a set of rows."""

    set: str
    rows: int
    mean: float
    worst: float
    worst_run: str


def summarize(results: list[Result], which: str, *, gated_only: bool = True) -> Summary:
    """|error| over the rows of set `which` (`gated_only`: verified rows only, as the CI gate
    counts them)."""
    rows = [r for r in results if r.run.set == which and (r.run.verified or not gated_only)]
    if not rows:
        return Summary(which, 0, 0.0, 0.0, "")
    worst = max(rows, key=lambda r: abs(r.error))
    return Summary(which, len(rows), sum(abs(r.error) for r in rows) / len(rows),
                   abs(worst.error), worst.run.name)


def summary_lines(results: list[Result]) -> str:
    lines = []
    for which, gated in (("calibration", True), ("validation", True), ("validation", False)):
        s = summarize(results, which, gated_only=gated)
        if s.rows:
            what = f"{which} ({'verified' if gated else 'all'}, {s.rows} rows)"
            lines.append(f"{what:34} |error| mean {s.mean:6.1%}, worst {s.worst:6.1%} "
                         f"({s.worst_run})")
    return "\n".join(lines) + "\n"


def table(results: list[Result]) -> str:
    width = max(len(r.run.name) for r in results)
    lines = [f"{'run'.ljust(width)}  {'set':11}  {'published':>10}  {'model':>10}  {'error':>7}"]
    for r in results:
        mark = "" if r.run.verified else "  (unverified figure)"
        bound = ">= " if r.run.metric == "ettr_at_least" else ""
        lines.append(f"{r.run.name.ljust(width)}  {r.run.set:11}  "
                     f"{bound + format(r.run.published, '.4g'):>10}  {r.model:>10.4g}  "
                     f"{r.error:>+7.1%}{mark}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=("calibration", "validation", "all"), default="all")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    runs, sources = load_runs()
    chosen = [r for r in runs if args.set == "all" or r.set == args.set]
    results = evaluate(chosen)
    sys.stdout.write(table(results))
    sys.stdout.write("\n" + summary_lines(results) + "\n")
    for name, text in sources.items():
        sys.stdout.write(f"[{name}] {text}\n")
    if args.json:
        write_text(args.json, json.dumps(
            [{"run": r.run.name, "set": r.run.set, "published": r.run.published,
              "model": r.model, "error": r.error, "verified": r.run.verified}
             for r in results], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
