"""ASTRA-sim inputs for the analytical network backend: network.yml, system.json,
remote_memory.json and a README.txt.

Format: astra-network-analytical's `NetworkParser` reads `topology` (a list of `Ring`,
`FullyConnected` or `Switch`, one per dimension), `npus_count` (ints > 1), `bandwidth` (GB/s
per link and direction, > 0) and `latency` (ns, >= 0), all of one length; the system file is
the JSON of ASTRA-sim's examples (`scheduling-policy`, `all-reduce-implementation` per
dimension...). See docs/interop.md.

The design maps to at most two dimensions, from RackDesigner's own simulation so the two tools
start from the same figures:

1. scale-up: the NVLink domain (all domains must have one size). `Switch` when NVSwitches join
   the GPUs, else `Ring` when each GPU has two GPU neighbours, else `FullyConnected`. Bandwidth
   is the slowest GPU's NVLink rate per direction (split over the peers for FullyConnected);
   latency the design's NVLink pair latency.
2. scale-out: the domains joined by the InfiniBand/Ethernet fabric as one `Switch`, bandwidth
   the slowest GPU's NIC share, latency the pair-weighted mean of the fabric latency classes.
   ASTRA-sim's Switch is non-blocking: an oversubscribed fabric is reported, not modelled.

`local-mem-bw` (GB/s) is the GPU's HBM bandwidth from its datasheet (resources/workload/
gpu_compute.yaml): ASTRA-sim charges every chunk's local reduction and copy to it, so the
tutorial's 50 GB/s made a collective 9-16x slower than the network alone allows (issue 26).
The other system knobs are not design facts: they are ASTRA-sim's example values (astra-sim
tutorials, `Ring_Ring_sys.json`), written as a model assumption in README.txt.
`remote_memory.json` is the "no memory expansion" configuration ASTRA-sim requires on its
command line. Its Chakra workload traces must give every collective an `involved_dim` with
one boolean per dimension of network.yml (without it ASTRA-sim before commit 8be99b6, 3 November
2024, assumes one dimension and, on a two-dimension network, runs nothing and exits 0; later
builds take every dimension): README.txt says so, with an example.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from rackdesigner import __version__
from rackdesigner.interop.base import ExportError, ExportReport, write_atomic
from rackdesigner.interop.sanitize import one_line
from rackdesigner.io.jsonout import json_text
from rackdesigner.model import Layout, nvlink_domains

SYSTEM_DEFAULTS = {
    "scheduling-policy": "LIFO",
    "endpoint-delay": 10,
    "active-chunks-per-dimension": 1,
    "preferred-dataset-splits": 1,
    "collective-optimization": "localBWAware",
    "boost-mode": 0,
}
#: ASTRA-sim's remote memory input (examples/network_analytical/remote_memory.json)
REMOTE_MEMORY = {"memory-type": "NO_MEMORY_EXPANSION"}
SYSTEM_SOURCE = ("ASTRA-sim's example system input github.com/astra-sim/tutorials "
                 "micro2024/astra-sim-demo/demo3/inputs/Ring_Ring_sys.json")


def local_memory_GBps(layout: Layout) -> tuple[float, str]:
    """ASTRA-sim's `local-mem-bw`: the slowest GPU's HBM bandwidth (GB/s) and its source."""
    from rackdesigner.workload.hardware import gpu_compute

    models = sorted({d.model for d in layout.devices()
                     if layout.index().device_traits(d.id).computes})
    known = [(c.hbm_TBps * 1000, c.model) for m in models if (c := gpu_compute(m)) is not None]
    if not known:
        raise ExportError("no HBM bandwidth is known for the design's GPUs "
                          f"({', '.join(models) or 'none'}); ASTRA-sim's local-mem-bw needs it "
                          "(resources/workload/gpu_compute.yaml)")
    bandwidth, model = min(known)
    return bandwidth, f"{model} HBM {bandwidth:g} GB/s (datasheet)"


def dimensions(layout: Layout) -> tuple[list[dict], list[str]]:
    """[{topology, npus, bandwidth_GBps, latency_ns, what}], notes."""
    from rackdesigner.simulation import simulate

    result = simulate(layout)
    scope = result.scope
    if scope.gpus < 2:
        raise ExportError("ASTRA-sim needs at least 2 GPUs; the design has "
                          f"{scope.gpus}")
    if scope.reachable_gpus < scope.gpus:
        raise ExportError(f"only {scope.reachable_gpus} of {scope.gpus} GPUs reach each other; "
                          "ASTRA-sim models one connected system")
    domains = [d for d in nvlink_domains(layout) if d]
    sizes = sorted({len(d) for d in domains})
    if len(sizes) > 1:
        raise ExportError(f"NVLink domains of {', '.join(map(str, sizes))} GPUs; ASTRA-sim's "
                          "dimensions need domains of one size")
    notes: list[str] = []
    dims: list[dict] = []
    classes = result.latency.histogram
    up = sizes[0] if sizes else 1
    if up > 1:
        topology = _scale_up_topology(layout, domains[0])
        bandwidth = result.bandwidth.per_gpu_scale_up_GBps
        if topology == "FullyConnected":
            bandwidth /= up - 1
        nv = [c.latency_us for c in classes
              if c.link_class == "nvlink" and c.latency_us is not None]
        latency = 1000 * (nv[0] if nv else 0.0)
        dims.append({"topology": topology, "npus": up, "bandwidth_GBps": bandwidth,
                     "latency_ns": latency, "what": "scale-up: NVLink domain"})
    out = scope.gpus // up
    if out > 1:
        net = [(c.latency_us, c.pairs) for c in classes
               if c.link_class == "net" and c.latency_us is not None]
        pairs = sum(n for _, n in net)
        latency = 1000 * sum(us * n for us, n in net) / pairs if pairs else 0.0
        bandwidth = result.bandwidth.per_gpu_scale_out_GBps
        if bandwidth <= 0:
            raise ExportError("the NVLink domains are not joined by a network")
        dims.append({"topology": "Switch", "npus": out, "bandwidth_GBps": bandwidth,
                     "latency_ns": latency, "what": "scale-out: the InfiniBand/Ethernet fabric"})
        worst = max(result.bandwidth.oversubscription.values(), default=1.0)
        if worst > 1.0001:
            notes.append(f"the fabric is {worst:.2f}:1 oversubscribed; ASTRA-sim's Switch is "
                         "non-blocking, so its scale-out figures are optimistic")
    if any(c.source == "model" for c in classes):
        notes.append("some latencies are NCCL's per-step model figures (the catalog lacks a "
                     "published latency for a device on the path)")
    return dims, notes


def _scale_up_topology(layout: Layout, domain: set[str]) -> str:
    gpu = next(iter(domain))
    neighbours = set()
    for link in layout.links_of(gpu):
        other = link.other(gpu).device
        spec = layout.spec(other)
        if spec is not None and spec.traits.nvlink_switch:
            return "Switch"
        if other in domain:
            neighbours.add(other)
    return "Ring" if len(neighbours) == 2 and len(domain) > 3 else "FullyConnected"


def write(layout: Layout, path: Path) -> ExportReport:
    dims, notes = dimensions(layout)
    hbm, hbm_source = local_memory_GBps(layout)
    path.mkdir(parents=True, exist_ok=True)
    network = {"topology": [d["topology"] for d in dims],
               "npus_count": [d["npus"] for d in dims],
               "bandwidth": [round(d["bandwidth_GBps"], 3) for d in dims],
               "latency": [round(d["latency_ns"], 1) for d in dims]}
    head = [f"# ASTRA-sim analytical network for: "
            f"{one_line(layout.meta.name or 'RackDesigner design')}",
            f"# Written by RackDesigner {__version__} from its simulation (see README.txt).",
            *[one_line(f"# dim {i + 1}: {d['what']}, {d['npus']} NPUs, {d['topology']}", 400)
              for i, d in enumerate(dims)],
            "# bandwidth: GB/s per link and direction; latency: ns"]
    body = yaml.safe_dump(network, default_flow_style=None, sort_keys=False)
    write_atomic(path / "network.yml", "\n".join(head) + "\n" + body)
    algo = ["direct" if d["topology"] == "FullyConnected" else "ring" for d in dims]
    system = {**SYSTEM_DEFAULTS, "local-mem-bw": round(hbm, 3),
              "all-reduce-implementation": algo, "all-gather-implementation": algo,
              "reduce-scatter-implementation": algo, "all-to-all-implementation": algo}
    write_atomic(path / "system.json", json_text(system, indent=4, newline=True))
    write_atomic(path / "remote_memory.json", json_text(REMOTE_MEMORY, indent=4, newline=True))
    write_atomic(path / "README.txt", "\n".join(_readme(layout, dims, notes, hbm_source))
                 + "\n")
    files = [path / name for name in ("network.yml", "system.json", "remote_memory.json",
                                      "README.txt")]
    shape = " x ".join(str(d["npus"]) for d in dims)
    return ExportReport(files, notes, f"{path}/: ASTRA-sim network {shape} NPUs "
                        f"({', '.join(d['topology'] for d in dims)})")


def _readme(layout: Layout, dims: list[dict], notes: list[str], hbm_source: str) -> list[str]:
    flags = ", ".join("true" for _ in dims)
    return [
        f"ASTRA-sim inputs for {one_line(layout.meta.name or 'a RackDesigner design')}",
        "",
        "Run ASTRA-sim's analytical backend on them, in this folder:",
        "",
        "  AstraSim_Analytical_Congestion_Unaware --network-configuration=network.yml \\",
        "      --system-configuration=system.json \\",
        "      --remote-memory-configuration=remote_memory.json \\",
        "      --workload-configuration=<trace prefix, e.g. workload/all_reduce>",
        "",
        "The workload is a set of Chakra execution traces, one per NPU (<prefix>.0.et ...",
        f"<prefix>.{max(1, _npus(dims)) - 1}.et). IMPORTANT: every collective node of the traces "
        f"needs an attribute involved_dim, a bool_list with one value per dimension of "
        f"network.yml ({len(dims)} here: [{flags}] for a collective over all GPUs). Without it "
        "ASTRA-sim before commit 8be99b6 (3 November 2024) assumes a one-dimension network; on "
        "this network it then runs nothing, prints no 'sys[N] finished' line and still exits "
        "0 (later builds run such a collective on every dimension).",
        "",
        "RackDesigner writes such a trace and compares ASTRA-sim's time with its own simulate "
        "(benchmarks/astrasim_vs_simulate.py in its source).",
        "",
        "network.yml comes from RackDesigner's simulation of the design:",
        *[f"  dim {i + 1}: {d['what']}: {d['topology']}, {d['npus']} NPUs, "
          f"{d['bandwidth_GBps']:g} GB/s, {d['latency_ns']:g} ns" for i, d in enumerate(dims)],
        "",
        f"system.json: local-mem-bw is the GPU's HBM bandwidth ({hbm_source}); ASTRA-sim "
        "charges each chunk's local reduction to it. The other knobs are NOT derived from the "
        f"design (model assumption): {SYSTEM_SOURCE}; collectives use ring (direct on "
        "FullyConnected).",
        "remote_memory.json: ASTRA-sim's 'no memory expansion' input (required by its command "
        "line; the design has no disaggregated memory).",
        *([""] + [f"Note: {n}" for n in notes] if notes else []),
    ]


def _npus(dims: list[dict]) -> int:
    total = 1
    for d in dims:
        total *= d["npus"]
    return total
