"""The command line's speed (issue 27 item 1; at scale, issue 38 item 19), beside ASTRA-sim's.

    python3 benchmarks/cli_speed.py [--runs 7] [--astra PATH] [--json]
    python3 benchmarks/cli_speed.py --scale [--runs 1] [--out DIR [--reuse]] [--json]

`--scale` times the commands a user types on large designs, each a whole process as the shell
runs it (issue 38 item 19), against its goal: `validate` and `simulate --json` of the
102,400-GPU rail-optimized design, `validate` and `whatif --fail su-23 --json` of the
32,760-GPU DGX H100 SuperPOD, the designer opening it to a usable canvas, and one `estimate`
on a 16,384-GPU SuperPOD (the command, and the estimate itself in a fresh process as issue 27
measured it). The designs are generated into a temporary folder first (or `--out DIR`, kept;
`--reuse` takes the files already there), not timed. A shared machine's speed drifts by up to
2x within an hour at the same load average, so the same run times a fixed, allocation-heavy
reference snippet (`REFERENCE`: the kind of work a design load does) before and after the
commands, and every figure is also given as a ratio to it; the load average is printed with
each figure. About 2 minutes on a quiet 2-core machine (generating the designs: 40 s more).

1. `rackdesigner --version`: the cost of starting the program (target < 0.1 s);
2. `rackdesigner simulate FILE --json` of a 1,024-GPU DGX H100 SuperPOD (`generate superpod
   --system dgx-h100 --nodes 128`): load, the full report (7 collectives x 32 sizes, fabric,
   latency, power) and its JSON, as a user runs it (target < 0.3 s);
3. with ASTRA-sim's analytical backend (`--astra PATH` or `$ASTRA_SIM`; not a dependency, build
   it yourself, see `benchmarks/astrasim_vs_simulate.py`): the same design exported with
   `rackdesigner export -f astra-sim`, one all_reduce of 1 GiB over its 1,024 NPUs, timed as a
   whole process in the same run, and the ratio (target: ASTRA-sim's one collective >= 10x the
   whole `simulate`). Without ASTRA-sim, 1 and 2 only.

Each figure is the median wall time of `--runs` processes after one warm-up (with the min and
max), measured from here with `time.perf_counter` around `subprocess.run`; the machine's load
average is printed with them, since a shared machine's figures move with it. The processes run
without `PYTHONDONTWRITEBYTECODE`, so the warm-up leaves compiled modules as an installed
package has them (with it set, every module changed since its last compile is compiled again
in every run: +0.05 s for a few changed engine modules).
"""

from __future__ import annotations

import argparse
import importlib.util
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
DESIGN = ["superpod", "--system", "dgx-h100", "--nodes", "128"]
ASTRA_BYTES = 1 << 30


def _cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


#: the children's environment: bytecode written, as an installed package has it (see above)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str], runs: int, warmup: bool = True, **kwargs) -> dict[str, float]:
    """Median, min and max wall seconds of `runs` runs of `command` after one warm-up (unless
    `warmup` is false), and the median CPU seconds (user + system: what a busy machine disturbs
    less)."""
    times, cpus = [], []
    for i in range(0 if warmup else 1, runs + 1):
        start, cpu = time.perf_counter(), _cpu()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=ENV, **kwargs)
        if i:
            times.append(time.perf_counter() - start)
            cpus.append(_cpu() - cpu)
    return {"median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3),
            "max_s": round(max(times), 3), "cpu_s": round(statistics.median(cpus), 3),
            "runs": runs}


#: the reference: a fixed, allocation-heavy snippet (a million small objects, then freed; about
#: 0.5 s of CPU on the 2-core development machine), timed as a whole process like the commands;
#: the figures' ratio to it is the steadier measure on a machine whose speed drifts
REFERENCE = ("d = {}\n"
             "for i in range(250_000):\n"
             "    d[str(i)] = (i, [i], {'k': i})\n"
             "del d\n")

#: the designs of `--scale`: name -> `rackdesigner generate` arguments
SCALE_DESIGNS = {
    "100k": ["rail-optimized", "--system", "dgx-b200", "--nodes", "12800", "--switch", "q3400"],
    "32k": ["superpod", "--system", "dgx-h100", "--sus", "128"],
    "16k": ["superpod", "--system", "dgx-h100", "--nodes", "2048"],
}
#: the 16k estimate: Llama 3 70B, TP8 PP4 VP5, batch 2,048 (benchmarks/speed_targets.py)
ESTIMATE = ["--model", "llama3-70b", "--tp", "8", "--pp", "4", "--vp", "5", "--gbs", "2048"]


def _scale_commands(files: dict[str, str]) -> list[tuple[str, list[str], float]]:
    """(label, the command after `rackdesigner` or a child of this script, goal in seconds)"""
    return [
        ("validate, 102,400 GPUs", ["validate", files["100k"]], 10.0),
        ("simulate --json, 102,400 GPUs", ["simulate", files["100k"], "--json"], 15.0),
        ("validate, 32,760 GPUs", ["validate", files["32k"]], 3.0),
        ("whatif --fail su-23 --json, 32,760 GPUs",
         ["whatif", files["32k"], "--fail", "su-23", "--json"], 6.0),
        ("estimate (command), 16,384 GPUs", ["estimate", files["16k"], *ESTIMATE], 0.7),
        ("estimate (in-process, fresh), 16,384 GPUs", ["@estimate", files["16k"]], 0.7),
        ("designer: open to a usable canvas, 32,760 GPUs", ["@designer", files["32k"]], 3.0),
    ]


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _reference(runs: int) -> dict[str, float]:
    return timed([sys.executable, "-c", REFERENCE], runs)


def _child_figure(command: list[str]) -> dict[str, float]:
    """Run one of this script's children (`@designer`, `@estimate`); its last line is JSON."""
    done = subprocess.run([sys.executable, __file__, "--child", *command], env=ENV, check=True,
                          capture_output=True, text=True, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def scale(args: argparse.Namespace) -> dict[str, object]:
    """The `--scale` figures: each command's wall and CPU, its ratio to the reference."""
    rd = [sys.executable, "-m", "rackdesigner"]
    folder = Path(args.out or tempfile.mkdtemp(prefix="rd-cli-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    files = {name: str(folder / f"{name}.yaml") for name in SCALE_DESIGNS}
    for name, gen in SCALE_DESIGNS.items():
        if not (args.reuse and Path(files[name]).exists()):
            subprocess.run([*rd, "generate", *gen, "-o", files[name]], check=True,
                           capture_output=True, env=ENV, timeout=600)
    before = _reference(3)
    rows = []
    for label, command, goal in _scale_commands(files):
        load = _load()
        if command[0].startswith("@"):
            figures = [_child_figure(command) for _ in range(args.runs)]
            row = {"median_s": round(statistics.median(f["wall_s"] for f in figures), 3),
                   "cpu_s": round(statistics.median(f["cpu_s"] for f in figures), 3),
                   "runs": args.runs}
        else:
            row = timed([*rd, *command], args.runs, warmup=False)
        rows.append({"what": label, "goal_s": goal, "load_average": load, **row})
    after = _reference(3)
    ref = statistics.mean([before["median_s"], after["median_s"]])
    ref_cpu = statistics.mean([before["cpu_s"], after["cpu_s"]])
    for row in rows:
        row["ratio_to_reference"] = round(row["median_s"] / ref, 2)
        row["cpu_ratio_to_reference"] = round(row["cpu_s"] / ref_cpu, 2)
    if not args.out:
        shutil.rmtree(folder, ignore_errors=True)
    return {"reference": {"before": before, "after": after, "snippet": REFERENCE},
            "load_average_after": _load(), "commands": rows}


def _child(name: str, path: str) -> dict[str, float]:
    """`--child designer FILE`: the main window opens FILE as File ▸ Open does, until the canvas
    is painted (the window shown first, not timed; designer_scale.py's "canvas usable").
    `--child estimate FILE`: the 16k estimate in-process after loading FILE (not timed), the
    collector held off as `rackdesigner VERB` holds it."""
    sys.path.insert(0, str(HERE.parent))
    if name == "estimate":
        from rackdesigner.io import load_layout
        from rackdesigner.model.gcpause import gc_paused
        from rackdesigner.workload import Estimator, Job

        with gc_paused():
            layout = load_layout(path)
            wall, cpu = time.perf_counter(), time.process_time()
            Estimator(layout, "llama3-70b").estimate(Job(tp=8, pp=4, vp=5, gbs=2048))
            return {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from rackdesigner.ui import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    settings = QSettings(str(Path(tempfile.mkdtemp(prefix="rd-cli-scale-ui-")) / "s.ini"),
                         QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    wall, cpu = time.perf_counter(), time.process_time()
    assert window.open_file(path, ask=False), window.last_error
    window.view.viewport().repaint()
    return {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}


def _print_scale(out: dict) -> None:
    ref = out["reference"]
    print("reference snippet (whole process, median of 3), wall / CPU: "
          f"{ref['before']['median_s']:.3f} / {ref['before']['cpu_s']:.3f} s before the "
          f"commands, {ref['after']['median_s']:.3f} / {ref['after']['cpu_s']:.3f} s after")
    print(f"{'command':48} {'wall s':>7} {'CPU s':>6} {'goal s':>6} {'x ref':>6} "
          f"{'CPU x ref':>9}  load average")
    for row in out["commands"]:
        verdict = "met" if row["median_s"] < row["goal_s"] else "NOT met"
        print(f"{row['what']:48} {row['median_s']:7.2f} {row['cpu_s']:6.2f} "
              f"{row['goal_s']:6.1f} {row['ratio_to_reference']:6.2f} "
              f"{row['cpu_ratio_to_reference']:9.2f}  {' '.join(map(str, row['load_average']))}"
              f"  {verdict}")
    print(f"load average after: {' '.join(map(str, out['load_average_after']))}")


def _astra_helper():
    """benchmarks/astrasim_vs_simulate.py (trace writer, runner), or None if not there."""
    path = HERE / "astrasim_vs_simulate.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("astrasim_vs_simulate", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, help="timed runs per figure (default 7; 1 with "
                        "--scale)")
    parser.add_argument("--astra", default=os.environ.get("ASTRA_SIM"),
                        help="ASTRA-sim's analytical binary (default: $ASTRA_SIM)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--scale", action="store_true",
                        help="the user's commands on 16k-100k GPU designs (issue 38 item 19)")
    parser.add_argument("--out", help="with --scale: keep the generated designs in this folder")
    parser.add_argument("--reuse", action="store_true",
                        help="with --scale --out: take the designs already in the folder")
    parser.add_argument("--child", nargs=2, metavar=("NAME", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child[0].lstrip("@"), args.child[1])))
        return 0
    if args.scale:  # the designs were generated by this Python: modules already compiled
        args.runs = args.runs or 1
        found = scale(args)
        print(json.dumps(found, indent=1)) if args.json else _print_scale(found)
        return 0
    args.runs = args.runs or 7
    rd = [sys.executable, "-m", "rackdesigner"]
    out: dict[str, object] = {"load_average": [round(x, 2) for x in os.getloadavg()]}
    with tempfile.TemporaryDirectory(prefix="rd-cli-speed-") as tmp:
        design = Path(tmp) / "superpod-1k.yaml"
        subprocess.run([*rd, "generate", *DESIGN, "-o", str(design)], check=True,
                       capture_output=True)
        out["version"] = timed([*rd, "--version"], args.runs)
        out["simulate_1k"] = timed([*rd, "simulate", str(design), "--json"], args.runs)
        if args.astra:
            helper = _astra_helper()
            if helper is None:
                out["astra"] = "benchmarks/astrasim_vs_simulate.py is missing"
            else:
                folder = Path(tmp) / "export"
                subprocess.run([*rd, "export", str(design), "-f", "astra-sim", "-o",
                                str(folder)], check=True, capture_output=True)
                start, cpu = time.perf_counter(), _cpu()
                astra_us = helper.run_astra(Path(args.astra), folder, "all_reduce", ASTRA_BYTES,
                                            timeout=600)
                wall, cpu = time.perf_counter() - start, _cpu() - cpu
                sim = out["simulate_1k"]
                out["astra"] = {"all_reduce_bytes": ASTRA_BYTES, "wall_s": round(wall, 3),
                                "cpu_s": round(cpu, 3),
                                "collective_time_us": round(astra_us, 1),
                                "astra_over_simulate": round(wall / sim["median_s"], 1),  # type: ignore[index]
                                "astra_over_simulate_cpu": round(cpu / sim["cpu_s"], 1)}  # type: ignore[index]
        else:
            out["astra"] = "not run (give --astra PATH or set ASTRA_SIM)"
        out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"load average {out['load_average']} -> {out['load_average_after']}")
    for key, label in (("version", "rackdesigner --version"),
                       ("simulate_1k", "rackdesigner simulate (1,024 GPUs) --json")):
        row = out[key]
        print(f"{label:44} median {row['median_s']:.3f} s  (min {row['min_s']:.3f}, "  # type: ignore[index]
              f"max {row['max_s']:.3f}, {row['runs']} runs), CPU {row['cpu_s']:.3f} s")  # type: ignore[index]
    astra = out["astra"]
    if isinstance(astra, dict):
        print(f"{'ASTRA-sim, one all_reduce of 1 GiB, 1,024 NPUs':44} {astra['wall_s']:.3f} s "
              f"wall, CPU {astra['cpu_s']:.3f} s: {astra['astra_over_simulate']}x the whole "
              f"simulate's wall, {astra['astra_over_simulate_cpu']}x its CPU")
    else:
        print(f"ASTRA-sim: {astra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
