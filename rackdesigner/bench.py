"""`python -m rackdesigner.bench`: time loading, graph building and `simulate` at 1k-16k GPUs.

Layouts are DGX H100 SuperPOD-style clusters: 32 nodes per scalable unit, one NDR leaf per rail
per unit (rail-optimized), QM9700 everywhere; up to 1,024 GPUs a two-tier fat tree (a pod of 32
leaves and 32 spines), above that pods joined by a core tier (k = 64 three-tier fat tree).
`build_cluster` is also used by the tests (small sizes, optional leaf oversubscription).

Layouts come from `rackdesigner.generators` (`superpod`, DGX H100) when available, else from
`build_cluster`. For each size the benchmark reports: build (generating the layout), save and
load (YAML through `rackdesigner.io`), graph build (`stages.build_anew`, the structure `simulate`
derives; it is also part of the simulate time), the full `simulate` (all collectives x 32 sizes,
fabric, latency, power, and the per-link loads of all_reduce at 1 GiB; best of `--repeat`, as
wall-clock and as this process's CPU time, which a busy shared machine disturbs less; and the
first run's wall time, which also builds the engine topology the later runs of the same design
state share), the
peak memory `simulate` allocates (tracemalloc,
in a separate run so tracing does not slow the timed ones) and the process's peak RSS.
Timings are wall-clock, single-threaded.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import tempfile
import time
import tracemalloc

from rackdesigner.catalog import Catalog, default_catalog
from rackdesigner.model import Device, Group, Layout, Link, PortRef, instantiate

NODES_PER_SU = 32
RAILS = 8
SU_PER_POD = 4
SWITCH = "qm9700"
SWITCH_PORTS = 64


def build_cluster(nodes: int, *, catalog: Catalog | None = None, system: str = "dgx-h100",
                  uplinks_per_leaf: int | None = None, cable: str | None = "fiber-mm-ndr",
                  racks: bool = True) -> Layout:
    """A rail-optimized fat tree of `nodes` systems (see the module docstring).

    `uplinks_per_leaf` below the leaf's downlink count (32) makes the leaves oversubscribed.
    """
    catalog = catalog or default_catalog()
    layout = Layout(catalog=catalog)
    groups: list[Group] = []
    devices: list[Device] = []
    links: list[Link] = []
    n_su = max(1, -(-nodes // NODES_PER_SU))
    n_pods = max(1, -(-n_su // SU_PER_POD))
    down = SWITCH_PORTS // 2
    up = down if uplinks_per_leaf is None else uplinks_per_leaf
    rack_ids: list[str] = []
    per_rack = 4
    if racks:
        for r in range(-(-nodes // per_rack)):
            rack_ids.append(f"rack-{r + 1}")
            devices.append(Device(f"rack-{r + 1}", "rack-42u"))
    fabric = Group("fabric", "compute fabric", "fabric")
    groups.append(fabric)
    link_no = 0

    def link(a: PortRef, b: PortRef, count: int = 1, length: float | None = None) -> None:
        nonlocal link_no
        link_no += 1
        links.append(Link(f"f{link_no}", a, b, count, cable, length))

    leaves_in_pod = SU_PER_POD * RAILS if n_pods > 1 else min(n_su, SU_PER_POD) * RAILS
    spines_in_pod = leaves_in_pod if n_pods > 1 else max(1, leaves_in_pod * up // SWITCH_PORTS)
    for p in range(n_pods):
        for s in range(spines_in_pod):
            devices.append(Device(f"spine-{p}-{s}", SWITCH, group="fabric"))
    for su in range(n_su):
        for r in range(RAILS):
            devices.append(Device(f"leaf-{su}-{r}", SWITCH, group="fabric"))
    for n in range(nodes):
        prefix = f"node-{n + 1}"
        rack = rack_ids[n // per_rack] if racks else None
        parts = instantiate(catalog, system, prefix, rack=rack,
                            u=1 + 8 * (n % per_rack) if racks else None)
        groups.extend(parts.groups)
        devices.extend(parts.devices)
        links.extend(parts.links)
        su = n // NODES_PER_SU
        for r in range(RAILS):
            link(PortRef(f"{prefix}.nic{r}", "ib"), PortRef(f"leaf-{su}-{r}", "ib"), 1, 10.0)
    # leaf -> spine, inside each pod: spread the uplinks evenly over the pod's spines
    for su in range(n_su):
        pod = su // SU_PER_POD
        for r in range(RAILS):
            per_spine, extra = divmod(up, spines_in_pod)
            for s in range(spines_in_pod):
                count = per_spine + (1 if s < extra else 0)
                if count:
                    link(PortRef(f"leaf-{su}-{r}", "ib"), PortRef(f"spine-{pod}-{s}", "ib"),
                         count, 30.0)
    if n_pods > 1:
        group_size = max(1, n_pods * down // SWITCH_PORTS)
        for s in range(spines_in_pod):
            for c in range(group_size):
                devices.append(Device(f"core-{s}-{c}", SWITCH, group="fabric"))
        for p in range(n_pods):
            for s in range(spines_in_pod):
                per_core = down // group_size
                for c in range(group_size):
                    link(PortRef(f"spine-{p}-{s}", "ib"), PortRef(f"core-{s}-{c}", "ib"),
                         per_core, 50.0)
    layout.add_all(groups, devices, links)
    return layout


def _time(fn):
    gc.collect()
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def _timed(fn):
    """`fn()`, its wall and its CPU seconds (after a collection that neither counts)."""
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - t0, time.process_time() - c0


def make_layout(gpus: int, catalog: Catalog, source: str = "auto") -> tuple[Layout, str]:
    """A DGX H100 SuperPOD-style layout of about `gpus` GPUs (generators when available)."""
    nodes = max(1, gpus // RAILS)
    if source in ("auto", "generators"):
        try:
            from rackdesigner.generators import generate
        except ImportError:
            if source == "generators":
                raise
        else:
            return generate("superpod", catalog, system="dgx-h100", nodes=nodes), "generators"
    return build_cluster(nodes, catalog=catalog), "bench builder"


def run(sizes: list[int], repeat: int = 3, source: str = "auto") -> list[dict]:
    """Time every stage for each size; memory is measured in a separate traced run."""
    import resource

    from rackdesigner.simulation import simulate
    from rackdesigner.simulation.stages import build_anew

    rows = []
    catalog = default_catalog()
    for gpus in sizes:
        (layout, origin), t_build = _time(lambda g=gpus: make_layout(g, catalog, source))
        t_save = t_load = None
        try:
            from rackdesigner.io import load_layout, save_layout
        except ImportError:
            pass
        else:
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "cluster.yaml")
                _, t_save = _time(lambda p=path, lay=layout: save_layout(lay, p))
                layout, t_load = _time(lambda p=path: load_layout(p, catalog))
        _, t_graph = _time(lambda lay=layout: build_anew(lay))
        times, cpu_times = [], []
        result = None

        def full(lay=layout):
            res = simulate(lay)  # all collectives x 32 sizes, fabric, latency, power
            len(res.link_loads.entries)  # and every link's load for all_reduce at 1 GiB
            return res

        for _ in range(max(1, repeat)):  # the first builds the state's engine topology
            result, t_sim, cpu = _timed(full)
            cpu_times.append(cpu)
            times.append(t_sim)
        assert result is not None
        gc.collect()
        tracemalloc.start()
        simulate(layout)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
        rows.append({"gpus": result.scope.gpus, "devices": layout.device_count(),
                     "links": layout.link_count(), "origin": origin, "build_s": t_build,
                     "save_s": t_save, "load_s": t_load, "graph_s": t_graph,
                     "simulate_s": min(times), "simulate_cpu_s": min(cpu_times),
                     "first_simulate_s": times[0], "first_simulate_cpu_s": cpu_times[0],
                     "simulate_peak_mb": peak / 1e6,
                     "process_rss_mb": rss,
                     "all_reduce_busbw": result.collective("all_reduce")[-1].busbw_GBps})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rackdesigner.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1024,4096,16384",
                        help="GPU counts, comma-separated (default: 1024,4096,16384)")
    parser.add_argument("--repeat", type=int, default=3, help="simulate runs per size (best kept)")
    parser.add_argument("--source", choices=("auto", "generators", "builder"), default="auto",
                        help="layouts from rackdesigner.generators (auto: when available) or "
                        "from this module's builder")
    parser.add_argument("--gc", choices=("held", "on"), default="held",
                        help="the garbage collector held off for the run, as the CLI does "
                        "(default), or left on")
    args = parser.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    print(f"{'GPUs':>6} {'devices':>8} {'links':>7} {'build s':>8} {'save s':>7} "
          f"{'load s':>7} {'graph s':>8} {'simulate s':>10} {'sim CPU s':>9} {'1st sim s':>9} "
          f"{'sim MB':>7} "
          f"{'RSS MB':>7} "
          f"{'AR busbw':>9}  layouts from")

    def f(v, w, d=3):
        return f"{'-':>{w}}" if v is None else f"{v:>{w}.{d}f}"

    from rackdesigner.model.gcpause import gc_paused

    # measured as the CLI runs a verb: the collector held off (model/gcpause.py); `--gc on`
    # leaves it on, as a script that embeds the library without opting in
    pause = gc_paused() if args.gc == "held" else contextlib.nullcontext()
    with pause:
        rows = run(sizes, args.repeat, args.source)
    for row in rows:
        print(f"{row['gpus']:>6} {row['devices']:>8} {row['links']:>7} {f(row['build_s'], 8)} "
              f"{f(row['save_s'], 7)} {f(row['load_s'], 7)} {f(row['graph_s'], 8)} "
              f"{f(row['simulate_s'], 10)} {f(row['simulate_cpu_s'], 9)} "
              f"{f(row['first_simulate_s'], 9)} "
              f"{f(row['simulate_peak_mb'], 7, 1)} "
              f"{f(row['process_rss_mb'], 7, 0)} {f(row['all_reduce_busbw'], 9, 1)}  "
              f"{row['origin']}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
