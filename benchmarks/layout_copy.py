"""How long `Layout.copy()` (the snapshot worker threads run on) takes, at 1k, 4k and 16k GPUs.

    python benchmarks/layout_copy.py [--sus 4 16 64] [--repeat 5]

For DGX H100 SuperPODs of the given scalable units (4 → 1,016 GPUs, 16 → 4,088, 64 → 16,376),
prints the median and best time of `layout.copy()` next to `nx.MultiGraph.copy()` of the same
graph (what `copy()` did before the graph was copied from its internal dicts, which was nearly
all of its cost), with the garbage collector on as in the app, and the same with the document
frozen out of the collector (what the designer does when it opens a big design: `settle_heap`).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time


def timed(fn, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, min(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="dgx-h100")
    parser.add_argument("--sus", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from rackdesigner.generators import generate

    print(f"{'GPUs':>6} {'devices':>8} {'links':>7}   {'Layout.copy()':>20}   "
          f"{'nx.MultiGraph.copy()':>20}   {'copy(), heap frozen':>20}")
    print(f"{'':>24}   {'median / best ms':>20}   {'median / best ms':>20}   "
          f"{'median / best ms':>20}")
    for sus in args.sus:
        layout = generate("superpod", system=args.system, sus=sus)
        gpus = sum(1 for d in layout.devices() if (s := layout.spec(d.id)) and s.kind == "gpu")
        gc.collect()
        new = timed(layout.copy, args.repeat)
        old = timed(layout._graph.copy, args.repeat)
        gc.freeze()
        frozen = timed(layout.copy, args.repeat)
        gc.unfreeze()
        print(f"{gpus:>6} {layout.device_count():>8} {layout.link_count():>7}   "
              f"{new[0]:>10.1f} / {new[1]:>7.1f}   {old[0]:>10.1f} / {old[1]:>7.1f}   "
              f"{frozen[0]:>10.1f} / {frozen[1]:>7.1f}")
        del layout
    return 0


if __name__ == "__main__":
    sys.exit(main())
