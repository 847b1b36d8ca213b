"""Issue 27 §3-4 in one run: what-if and edits in the designer at 32k GPUs.

    QT_QPA_PLATFORM=offscreen python benchmarks/scale_targets.py
    QT_QPA_PLATFORM=offscreen python benchmarks/scale_targets.py --file sp128.yaml

Generates the 128-SU DGX H100 SuperPOD (32,760 GPUs; or reads `--file`), then runs, each in
its own process:

1. `whatif_scale.py --each spine`: Fail / Restore / Undo of an SU, a spine and a rack until
   the panel's figures (wall and process CPU), the longest GUI freeze meanwhile, Quit while
   the workers run, and `rackdesigner whatif FILE --each spine` (wall and CPU);
2. `designer_scale.py --repeat 1`: open to a usable canvas and to the figures, Problems after
   an edit (delete a cable, a Racks-tab mount, a move, a Fail, and their undo), the Racks-tab
   mount's GUI-thread time.

About 3-4 minutes on a quiet 2-core machine (6 under a load of 4). The load average is printed
with every figure: on a busy machine wall time is up to 2-3x the CPU time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", help="the 32k design (default: generated into a temp dir)")
    parser.add_argument("--sus", type=int, default=128, help="SuperPOD SUs when no --file")
    args = parser.parse_args()
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    start = time.perf_counter()
    print(f"load average before: {_load()}", flush=True)
    path = args.file
    if path is None:
        path = os.path.join(tempfile.mkdtemp(prefix="scale-targets-"), "sp.yaml")
        subprocess.run([sys.executable, "-m", "rackdesigner", "generate", "superpod", "--system",
                        "dgx-h100", "--sus", str(args.sus), "-o", path], check=True, env=env)
    runs = [("what-if (issue 27 §3)", ["whatif_scale.py", "--file", path, "--each", "spine"]),
            ("designer (issue 27 §4)", ["designer_scale.py", "--file", path, "--repeat", "1"])]
    status = 0
    for title, argv in runs:
        print(f"\n== {title}: {' '.join(argv)}", flush=True)
        proc = subprocess.run([sys.executable, os.path.join(HERE, argv[0]), *argv[1:]], env=env,
                              timeout=1200)
        status = status or proc.returncode
    print(f"\nall of it: {time.perf_counter() - start:.0f} s (load {_load()})")
    return status


if __name__ == "__main__":
    sys.exit(main())
