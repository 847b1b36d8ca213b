"""How fast the workload estimator answers, pinned to one CPU core.

    python3 benchmarks/workload_speed.py [--repeat 3]

- one estimate on a 4-SU DGX H100 SuperPOD (1,016 GPUs; Llama 3 70B, TP8 PP4 VP5 on the first
  992 GPUs): cold (fresh estimator: every engine run it needs) and warm (same design, another
  batch: the engine's figures are reused) — goal < 1 s;
- `--search` over every valid layout of 1,024 GPUs (128 DGX H100 on a rail-optimized fabric,
  Llama 3 70B, global batch 512) — goal < 1 s (issue 27);
- one estimate of a 16,384-GPU job (2,048 DGX H100 in a SuperPOD; Llama 3 70B, TP8 PP4 VP5,
  batch 2,048) — goal < 1 s (issue 27): cold (the design's engine topology built first, as a
  command-line `estimate` does) and on a design already estimated (another job — TP8 PP8 VP5,
  batch 4,096 — on the same design state: the Workload tab after an edit of the job, a sweep
  point's next job; the topology, power and wiring signatures are kept per design state,
  workload/designcache.py).
Design generation and file loading are reported separately; they are not part of the goals.
The library's work runs with the garbage collector paused, as the CLI and the designer run it
(model/gcpause.py).
Wall time and the process's CPU time are both printed: on a shared machine (load above the core
count) the CPU time is the figure that says what the work costs on one core.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rackdesigner.generators import generate
from rackdesigner.model.gcpause import gc_paused
from rackdesigner.workload import Estimator, Job, designcache
from rackdesigner.workload.search import search


def _pin_one_core() -> str:
    try:
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    except (AttributeError, OSError):
        return "not pinned (no sched_setaffinity here)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(_pin_one_core())
    t = time.perf_counter()
    pod = generate("superpod", system="dgx-h100", sus=4)
    print(f"generate superpod 4 SUs: {time.perf_counter() - t:.2f} s")
    job = Job(tp=8, pp=4, vp=5, gbs=496)
    cold, cold_cpu, warm = [], [], []
    for _ in range(args.repeat):
        designcache.clear()
        design = pod.copy()  # holds nothing derived yet: the topology is built again
        t, c = time.perf_counter(), time.process_time()
        with gc_paused():
            est = Estimator(design, "llama3-70b", gpus=992)
            e = est.estimate(job)
        cold.append(time.perf_counter() - t)
        cold_cpu.append(time.process_time() - c)
        t = time.perf_counter()
        est.estimate(Job(tp=8, pp=4, vp=5, gbs=992))
        warm.append(time.perf_counter() - t)
        runs = est.comm.simulations
        del est, design  # and with them the state's topology (`Topology.of` keeps it weakly)
    print(f"one estimate, 4-SU SuperPOD ({e.gpus} GPUs, {runs} engine runs): "
          f"cold median {statistics.median(cold):.3f} s wall (max {max(cold):.3f}), "
          f"{statistics.median(cold_cpu):.3f} s CPU; "
          f"warm median {statistics.median(warm) * 1000:.1f} ms")
    t = time.perf_counter()
    rail = generate("rail-optimized", system="dgx-h100", nodes=128, switch="qm9700")
    print(f"generate 1,024-GPU rail-optimized: {time.perf_counter() - t:.2f} s")
    times, cpu = [], []
    for _ in range(max(1, args.repeat - 1)):
        designcache.clear()
        design = rail.copy()
        t, c = time.perf_counter(), time.process_time()
        with gc_paused():
            found = search(Estimator(design, "llama3-70b"), Job(gbs=512), top=5)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        del design
    best = found.ranked[0].estimate
    print(f"--search, 1,024 GPUs: {found.considered:,} layouts, {found.refused:,} refused, "
          f"{found.simulations} engine runs: median {statistics.median(times):.2f} s wall "
          f"(max {max(times):.2f}), {statistics.median(cpu):.2f} s CPU; "
          f"best {best.job.label()} {best.step_time_s:.2f} s/step")
    t = time.perf_counter()
    big = generate("superpod", system="dgx-h100", nodes=2048)
    print(f"generate 16,384-GPU SuperPOD: {time.perf_counter() - t:.2f} s")
    times, cpu, known, known_cpu = [], [], [], []
    for _ in range(max(1, args.repeat - 1)):
        designcache.clear()
        design = big.copy()
        with gc_paused():
            t, c = time.perf_counter(), time.process_time()
            e = Estimator(design, "llama3-70b").estimate(Job(tp=8, pp=4, vp=5, gbs=2048))
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
            t, c = time.perf_counter(), time.process_time()
            e2 = Estimator(design, "llama3-70b").estimate(Job(tp=8, pp=8, vp=5, gbs=4096))
            known.append(time.perf_counter() - t)
            known_cpu.append(time.process_time() - c)
        del design
    print(f"one estimate, 16,384 GPUs ({e.job.label()}), cold: median "
          f"{statistics.median(times):.2f} s wall (max {max(times):.2f}), "
          f"{statistics.median(cpu):.2f} s CPU")
    print(f"one estimate, 16,384 GPUs ({e2.job.label()}), design known: median "
          f"{statistics.median(known):.2f} s wall (max {max(known):.2f}), "
          f"{statistics.median(known_cpu):.2f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
