"""Issue 27's speed targets 1, 2, 5 and 6 in one run, each against its goal.

    python benchmarks/speed_targets.py [--astra PATH] [--out DIR [--reuse]] [--only NAMES]
                                       [--json FILE]

About 4 minutes on a quiet 2-core machine (most of it generating and saving the 100k design
twice; `--out DIR --reuse` keeps the files for the next run and skips that). Sections, each in
fresh processes so none inherits another's imports or memory:

- `cli` (target 1): `rackdesigner --version` and `rackdesigner simulate SUPERPOD-1K --json`
  as whole processes (benchmarks/cli_speed.py: medians of 7 after a warm-up), and with
  ASTRA-sim (`--astra PATH` or $ASTRA_SIM) its one all_reduce on the same 1,024 NPUs, timed in
  the same run, and the ratio;
- `100k` (target 2): load, validate and simulate of the 102,400-GPU rail-optimized design
  (`rail-optimized --system dgx-b200 --nodes 12800 --switch q3400`), plain and compact form,
  and the process's peak memory (benchmarks/scale.py's child);
- `estimate` (target 5): one estimate of a 16,384-GPU job (2,048 DGX H100 in a SuperPOD, Llama
  3 70B, TP8 PP4 VP5, batch 2,048) in a fresh process, design generated first and not timed
  (median of 3 processes), and `--search` over 1,024 GPUs (128 DGX H100, rail-optimized,
  Llama 3 70B, batch 512; median of 3 in one process, the design cache cleared each time);
- `pspeed` (target 6): `python -m rackdesigner.bench` (in-process simulate at 1k, 4k, 16k);
- `published` (target 6): benchmarks/published_vs_model.py's errors, with a digest of every
  row so two runs can be compared at a glance.

The in-process children run as `rackdesigner VERB` runs: the garbage collector held off, NumPy's
BLAS on one thread (`cli.main`). Every figure is given as wall seconds and as CPU seconds
(user + system) with the load average before and after its section: on a shared machine the
CPU figure is the steadier one. A goal is met when the wall figure is under it; "met on CPU"
says the work itself fits.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SECTIONS = ("cli", "100k", "estimate", "pspeed", "published")
JOB_16K = {"tp": 8, "pp": 4, "vp": 5, "gbs": 2048}


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


#: the children's environment: NumPy's BLAS kept to one thread, as `rackdesigner VERB` keeps it
#: (`cli.main`), unless the caller set it
ENV = {"OPENBLAS_NUM_THREADS": "1", **os.environ}


def _child(name: str, *args: str, timeout: float = 900) -> object:
    """Run this script's `--child name` in a fresh process; its last line is JSON."""
    done = subprocess.run([sys.executable, __file__, "--child", name, *args],
                          capture_output=True, text=True, timeout=timeout, env=ENV)
    if done.returncode != 0:
        raise RuntimeError(f"{name}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---- children (each prints one JSON line) ---------------------------------------------------
def _estimate_16k() -> dict:
    sys.path.insert(0, str(ROOT))
    from rackdesigner.generators import generate
    from rackdesigner.model.gcpause import gc_paused
    from rackdesigner.workload import Estimator, Job

    layout = generate("superpod", system="dgx-h100", nodes=2048)
    with gc_paused():
        wall, cpu = time.perf_counter(), time.process_time()
        found = Estimator(layout, "llama3-70b").estimate(Job(**JOB_16K))
        return {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
                "gpus": found.gpus, "job": found.job.label()}


def _search_1k() -> dict:
    sys.path.insert(0, str(ROOT))
    from rackdesigner.generators import generate
    from rackdesigner.model.gcpause import gc_paused
    from rackdesigner.workload import Estimator, Job, designcache
    from rackdesigner.workload.search import search

    layout = generate("rail-optimized", system="dgx-h100", nodes=128, switch="qm9700")
    walls, cpus = [], []
    for _ in range(3):
        designcache.clear()
        design = layout.copy()  # holds nothing derived: the engine topology is built again
        with gc_paused():
            wall, cpu = time.perf_counter(), time.process_time()
            found = search(Estimator(design, "llama3-70b"), Job(gbs=512), top=5)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        del design
    return {"wall_s": statistics.median(walls), "cpu_s": statistics.median(cpus),
            "first_wall_s": walls[0], "first_cpu_s": cpus[0], "layouts": found.considered}


def _pspeed() -> list:
    sys.path.insert(0, str(ROOT))
    from rackdesigner.bench import run
    from rackdesigner.model.gcpause import gc_paused

    with gc_paused():
        return run([1024, 4096, 16384], repeat=3)


CHILDREN = {"estimate-16k": _estimate_16k, "search-1k": _search_1k, "pspeed": _pspeed}


# ---- sections --------------------------------------------------------------------------------
def _row(target: str, what: str, wall: float, cpu: float, goal: float | None, **extra) -> dict:
    return {"target": target, "what": what, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
            "goal_s": goal, **extra}


def section_cli(args: argparse.Namespace) -> list[dict]:
    command = [sys.executable, str(HERE / "cli_speed.py"), "--json"]
    if args.astra:
        command += ["--astra", args.astra]
    out = json.loads(subprocess.run(command, capture_output=True, text=True, check=True,
                                    timeout=900).stdout)
    version, sim = out["version"], out["simulate_1k"]
    rows = [_row("1", "rackdesigner --version (median of 7)", version["median_s"],
                 version["cpu_s"], 0.1),
            _row("1", "rackdesigner simulate SUPERPOD-1K --json (median of 7)",
                 sim["median_s"], sim["cpu_s"], 0.3)]
    astra = out["astra"]
    if isinstance(astra, dict):
        rows.append(_row("1", "ASTRA-sim, one all_reduce of 1 GiB, same 1,024 NPUs",
                         astra["wall_s"], astra["cpu_s"], None,
                         note=f"ASTRA-sim / simulate: {astra['astra_over_simulate']}x wall, "
                              f"{astra['astra_over_simulate_cpu']}x CPU (goal 10x)"))
    else:
        rows.append({"target": "1", "what": "ASTRA-sim side by side", "note": astra})
    return rows


def section_100k(args: argparse.Namespace) -> list[dict]:
    rows = []
    for form in ("plain", "compact"):
        command = [sys.executable, str(HERE / "scale.py"), "--child", "100k-rail", form,
                   args.out]
        if args.reuse:
            command.append("--reuse")
        done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=900,
                              env=ENV)
        stages = json.loads(done.stdout.strip().splitlines()[-1])
        goals = {"load": 5.0, "validate": 10.0, "simulate": 10.0}
        for stage in stages:
            rows.append(_row("2", f"100k-rail {form}: {stage['stage']}", stage["wall_s"],
                             stage["cpu_s"], goals.get(stage["stage"]),
                             peak_mb=stage["peak_mb"]))
        rows.append({"target": "2", "what": f"100k-rail {form}: peak memory",
                     "peak_mb": max(s["peak_mb"] for s in stages), "goal_mb": 3072})
    return rows


def section_estimate(args: argparse.Namespace) -> list[dict]:
    runs = [_child("estimate-16k") for _ in range(3)]
    wall = statistics.median(r["wall_s"] for r in runs)
    cpu = statistics.median(r["cpu_s"] for r in runs)
    found = _child("search-1k")
    return [_row("5", f"estimate, 16,384 GPUs ({runs[0]['job']}), fresh process (median of 3)",
                 wall, cpu, 1.0),
            _row("5", f"--search, 1,024 GPUs ({found['layouts']:,} layouts; median of 3, "
                      f"first {found['first_wall_s']:.2f} s)", found["wall_s"], found["cpu_s"],
                 1.0)]


def section_pspeed(args: argparse.Namespace) -> list[dict]:
    goals = {1024: 0.2, 4096: 1.0, 16384: 3.0}
    rows = []
    for r in _child("pspeed"):
        goal = goals[min(goals, key=lambda size: abs(size - r["gpus"]))]
        rows.append(_row("6", f"P-speed: simulate in-process, {r['gpus']:,} GPUs (best of 3)",
                         r["simulate_s"], r["simulate_cpu_s"], goal,
                         note=f"first run (builds the engine topology): "
                              f"{r['first_simulate_s']:.3f} s wall, "
                              f"{r['first_simulate_cpu_s']:.3f} s CPU"))
    return rows


def section_published(args: argparse.Namespace) -> list[dict]:
    done = subprocess.run([sys.executable, str(HERE / "published_vs_model.py"), "--json"],
                          capture_output=True, text=True, check=True, timeout=900)
    out = json.loads(done.stdout)
    digest = hashlib.sha256(json.dumps(out["rows"], sort_keys=True).encode()).hexdigest()[:16]
    rows = []
    for name in ("calibration", "validation", "all"):
        s = out["summary"][name]
        rows.append({"target": "6", "what": f"published comparison, {name}",
                     "note": f"{s['runs']} runs, mean |error| {s['mean_abs_error_pct']} %, "
                             f"worst {s['worst_error_pct']:+} % ({s['worst_id']})"})
    rows.append({"target": "6", "what": "published comparison, rows digest", "note": digest})
    return rows


RUN = {"cli": section_cli, "100k": section_100k, "estimate": section_estimate,
       "pspeed": section_pspeed, "published": section_published}


def _print(row: dict) -> None:
    print(f"[{row['target']}] {row['what']}")
    if "wall_s" in row:
        goal = row.get("goal_s")
        verdict = ""
        if goal is not None:
            verdict = ("met" if row["wall_s"] < goal else
                       "met on CPU" if row["cpu_s"] < goal else "NOT met") + f" (< {goal} s)"
        print(f"    {row['wall_s']:8.3f} s wall {row['cpu_s']:8.3f} s CPU  {verdict}")
    elif "peak_mb" in row:
        verdict = "met" if row["peak_mb"] < row["goal_mb"] else "NOT met"
        print(f"    {row['peak_mb']:8.0f} MB peak  {verdict} (< {row['goal_mb']} MB)")
    if row.get("note"):
        print(f"    {row['note']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--astra", default=os.environ.get("ASTRA_SIM"),
                        help="ASTRA-sim's analytical binary (default: $ASTRA_SIM)")
    parser.add_argument("--out", help="folder for the 100k design files (default: temporary)")
    parser.add_argument("--reuse", action="store_true",
                        help="load the 100k files already in --out (no generate, no save)")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"sections, comma-separated (default: {','.join(SECTIONS)})")
    parser.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(CHILDREN[args.child]()))
        return 0
    chosen = [s for s in args.only.split(",") if s]
    unknown = [s for s in chosen if s not in RUN]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)} (expected {', '.join(SECTIONS)})")
    scratch = None
    if args.out is None:
        scratch = args.out = tempfile.mkdtemp(prefix="rd-speed-targets-")
    os.makedirs(args.out, exist_ok=True)
    started = time.perf_counter()
    report: dict = {"sections": {}}
    try:
        for name in chosen:
            before = _load()
            wall = time.perf_counter()
            rows = RUN[name](args)
            after = _load()
            report["sections"][name] = {"load_before": before, "load_after": after,
                                        "seconds": round(time.perf_counter() - wall, 1),
                                        "rows": rows}
            print(f"-- {name}: load average {before} -> {after}, "
                  f"{time.perf_counter() - wall:.0f} s", flush=True)
            for row in rows:
                _print(row)
            sys.stdout.flush()
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    report["total_s"] = round(time.perf_counter() - started, 1)
    print(f"-- all sections: {report['total_s']:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
