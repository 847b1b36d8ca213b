"""Scale targets of issues 18 and 27: generate, save, load, validate and simulate at 16k, 32k
and ~100k GPUs, each stage's time and the process's peak memory, in one process per design.

    python benchmarks/scale.py [--sizes 16k 32k 100k-rail] [--form plain|compact|both]
                               [--out DIR] [--reuse] [--gc held|on]

Designs (every one a generator a user can run):

- 16k:  `superpod --system dgx-b200 --sus 64` (16,384 GPUs, the B200 RA's largest, QM9700)
- 32k:  `rail-optimized --system dgx-b200 --nodes 4096 --switch q3400` (32,768 GPUs)
- 100k-rail: `rail-optimized --system dgx-b200 --nodes 12800 --switch q3400` (102,400 GPUs;
  issue 27's 100k target)
- 100k: `superpod --system dgx-b200 --sus 400 --switch q3400` (102,400 GPUs, three tiers)
- gb200-100k: `superpod --system gb200-nvl72 --racks 1389 --switch q3400` (100,008 GPUs)

Each design runs in a fresh child process (so one design's memory does not count against the
next), stages in order: generate, save, load (the file just saved), validate (the design rules,
`rackdesigner validate`), simulate (the full `rackdesigner simulate` run). Times are wall
clock *and* CPU (user+sys) seconds: on a shared machine the CPU time is the steadier figure.
Peak memory is the child's peak resident set (`ru_maxrss`) after each stage, so it only grows.
`--form compact` saves and loads the compact form (`rackdesigner.io.compact`); `both` does
each. The child keeps NumPy's BLAS to one thread and holds the garbage collector off as
`rackdesigner VERB` does (`cli.main`;
`--gc on` leaves it on, as a script embedding the library without `gc_paused` would).
`--reuse` loads a design file already in `--out` instead of generating and saving it again.
Targets: issue 18, each stage < 30 s and < 6 GB at ~100k GPUs, < 3 s at 16k; issue 27, at
100k-rail load < 5 s, validate < 10 s, simulate < 10 s, peak < 3 GB, compact at least as fast.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DESIGNS = {
    "16k": ("superpod", {"system": "dgx-b200", "sus": 64}),
    "32k": ("rail-optimized", {"system": "dgx-b200", "nodes": 4096, "switch": "q3400"}),
    "100k-rail": ("rail-optimized", {"system": "dgx-b200", "nodes": 12800, "switch": "q3400"}),
    "100k": ("superpod", {"system": "dgx-b200", "sus": 400, "switch": "q3400"}),
    "gb200-100k": ("superpod", {"system": "gb200-nvl72", "racks": 1389, "switch": "q3400"}),
}


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _stage(name: str, fn, rows: list) -> object:
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    rows.append({"stage": name, "wall_s": round(time.perf_counter() - wall, 2),
                 "cpu_s": round(time.process_time() - cpu, 2), "peak_mb": round(_peak_mb())})
    return value


def run_one(size: str, form: str, folder: str, gc_mode: str = "held",
            reuse: bool = False) -> list[dict]:
    """The child: every stage of one design, as rows."""
    sys.path.insert(0, str(ROOT))
    if gc_mode == "held":
        gc.disable()  # as `rackdesigner VERB` runs (cli.main)
    from rackdesigner.generators import generate
    from rackdesigner.io import load_layout, save_layout
    from rackdesigner.model import check_layout
    from rackdesigner.simulation import simulate

    template, options = DESIGNS[size]
    rows: list[dict] = []
    path = os.path.join(folder, f"{size}-{form}.yaml")
    if not (reuse and os.path.exists(path)):
        layout = _stage("generate", lambda: generate(template, **options), rows)
        if form == "compact":
            from rackdesigner.io.compact import save_compact

            _stage("save", lambda: save_compact(layout, path), rows)
        else:
            _stage("save", lambda: save_layout(layout, path), rows)
        layout = None  # free it: the load below is measured on its own
    loaded = _stage("load", lambda: load_layout(path), rows)
    _stage("validate", lambda: check_layout(loaded), rows)
    _stage("simulate", lambda: simulate(loaded), rows)
    gpus = sum(1 for d in loaded.devices() if (s := loaded.spec(d.id)) and s.kind == "gpu")
    for row in rows:
        row.update(size=size, form=form, gpus=gpus, file_mb=round(os.path.getsize(path) / 2**20, 1),
                   devices=loaded.device_count(), links=loaded.link_count())
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["16k", "32k", "100k-rail"],
                        choices=DESIGNS)
    parser.add_argument("--form", choices=("plain", "compact", "both"), default="both")
    parser.add_argument("--out", help="folder for the design files (default: a temporary one)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--reuse", action="store_true",
                        help="load the design files already in --out (no generate, no save)")
    parser.add_argument("--gc", choices=("held", "on"), default="held",
                        help="the garbage collector held off as the CLI does (default), or on")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(*args.child, gc_mode=args.gc, reuse=args.reuse)))
        return 0
    folder = args.out or tempfile.mkdtemp(prefix="rackdesigner-scale-")
    os.makedirs(folder, exist_ok=True)
    forms = ("plain", "compact") if args.form == "both" else (args.form,)
    rows: list[dict] = []
    print(f"{'design':>10} {'form':>8} {'GPUs':>7} {'file MB':>8} {'stage':>9} {'wall s':>7} "
          f"{'CPU s':>7} {'peak MB':>8}", flush=True)
    for size in args.sizes:
        for form in forms:
            extra = ["--gc", args.gc] + (["--reuse"] if args.reuse else [])
            done = subprocess.run([sys.executable, __file__, "--child", size, form, folder,
                                   *extra],
                                  capture_output=True, text=True,
                                  env={"OPENBLAS_NUM_THREADS": "1", **os.environ})
            if done.returncode != 0:
                print(f"{size} {form}: failed\n{done.stderr}", file=sys.stderr)
                return 1
            for row in json.loads(done.stdout.strip().splitlines()[-1]):
                rows.append(row)
                print(f"{size:>10} {form:>8} {row['gpus']:>7} {row['file_mb']:>8} "
                      f"{row['stage']:>9} {row['wall_s']:>7} {row['cpu_s']:>7} "
                      f"{row['peak_mb']:>8}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
    print(f"design files in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
