"""The command line's speed (issue 27 item 1), beside ASTRA-sim's when it is present.

    python3 benchmarks/cli_speed.py [--runs 7] [--astra PATH] [--json]

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


def timed(command: list[str], runs: int, **kwargs) -> dict[str, float]:
    """Median, min and max wall seconds of `runs` runs of `command` after one warm-up, and the
    median CPU seconds (user + system: what a busy machine disturbs less)."""
    times, cpus = [], []
    for i in range(runs + 1):
        start, cpu = time.perf_counter(), _cpu()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=ENV, **kwargs)
        if i:
            times.append(time.perf_counter() - start)
            cpus.append(_cpu() - cpu)
    return {"median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3),
            "max_s": round(max(times), 3), "cpu_s": round(statistics.median(cpus), 3),
            "runs": runs}


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
    parser.add_argument("--runs", type=int, default=7, help="timed runs per figure (default 7)")
    parser.add_argument("--astra", default=os.environ.get("ASTRA_SIM"),
                        help="ASTRA-sim's analytical binary (default: $ASTRA_SIM)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
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
