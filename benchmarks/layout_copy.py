"""What a snapshot for a worker thread costs, at 1k, 4k and 16k GPUs — and what an edit costs.

    PYTHONPATH=. python benchmarks/layout_copy.py [--sus 4 16 64] [--repeat 5]

For DGX H100 SuperPODs of the given scalable units (4 → 1,016 GPUs, 16 → 4,088, 64 → 16,376),
prints the median and best time of `layout.snapshot()` (a reference to the immutable design
state: what the Problems dock and the live panel take on the GUI thread), of one edit (move a
device: a new state sharing everything else), of `nx.MultiGraph.copy()` of the same graph (what
a deep snapshot would cost), and of building the networkx graph once for a new state (only
readers that ask for `layout.graph` pay it).
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

    print(f"{'GPUs':>6} {'devices':>8} {'links':>7}   {'snapshot()':>20}   "
          f"{'one edit':>20}   {'nx.MultiGraph.copy()':>20}   {'graph build':>20}")
    print(f"{'':>24}" + f"   {'median / best ms':>20}" * 4)
    for sus in args.sus:
        layout = generate("superpod", system=args.system, sus=sus)
        gpus = sum(1 for d in layout.devices() if (s := layout.spec(d.id)) and s.kind == "gpu")
        gc.collect()
        snap = timed(layout.snapshot, args.repeat)
        device = next(iter(layout.devices()))

        def edit(layout=layout, device=device) -> None:
            x, y = layout.device(device.id).pos
            layout.update_device(device.id, pos=(x + 10.0, y))

        one = timed(edit, args.repeat)
        graph = layout.graph
        deep = timed(graph.copy, args.repeat)

        def build(layout=layout) -> None:
            edit()
            _ = layout.graph

        built = timed(build, args.repeat)
        row = "".join(f"   {m:>10.3f} / {b:>7.3f}" for m, b in (snap, one, deep, built))
        print(f"{gpus:>6} {layout.device_count():>8} {layout.link_count():>7}{row}")
        del layout
    return 0


if __name__ == "__main__":
    sys.exit(main())
