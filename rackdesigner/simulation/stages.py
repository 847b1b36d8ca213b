"""What the simulation hands out of a design's structure: frozen stage values.

The engine's `Topology` (`topology.py`) is the simulation's own working structure — dozens of
mutable maps filled by its build, memoised per state and shared by every run — and readers
outside `simulation/` used to read those maps directly (17 modules at one count), so any
change to how the engine stores a fact was a change to the analysis, workload, serving and UI
code too. They now read these values instead, each made once per topology and never changed:

- `FabricShape`: who is joined to whom (GPUs, islands, NVLink domains, components), switch
  tiers and the models the catalog does not know;
- `GpuCapacity`: per GPU, its NVLink and NIC capacity (what a failure lowers), derived for a
  degraded design from the intact one's when the topology was (`Topology.delta`);
- `NvlinkPorts`: per GPU, its NVLink links with their capacities (the job heat map);
- `wiring_kinds`: per GPU a number naming its wiring signature (GPUs wired alike share one).

The maps are read-only views (`types.MappingProxyType`) of the engine's: no copy, and a reader
cannot change what every later run reads. Everything else a reader needs of the engine it
asks the group figures that hold the structure (`GroupCollectives`: its `GroupReads` methods,
`group_reads.py`), so no module outside `simulation/` holds a `Topology` at all
(tests/test_stage_boundary.py: no import of it, no signature of a simulation function read
outside naming it, and no value a reader keeps reaching one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import add, attrgetter, methodcaller
from types import MappingProxyType

from rackdesigner.model import Layout
from rackdesigner.simulation.topology import Topology

_RAW, _VALUES = attrgetter("raw"), methodcaller("values")


@dataclass(frozen=True)
class FabricShape:
    """Who is joined to whom, as the engine sees a design (see the module docstring)."""

    gpus: tuple[str, ...]  # in natural order
    island_of: Mapping[str, str]  # device -> island root (NVLink and host links)
    nvlink_domain_of: Mapping[str, str]  # device -> NVLink domain root
    component_of: Mapping[str, str]  # device -> connected component
    tier: Mapping[str, int]  # fabric switch -> tier (1: leaf)
    unknown_models: frozenset[str]


def shape_of(topo: Topology) -> FabricShape:
    """The `FabricShape` of an engine topology, made once per topology."""
    shape = topo.memo.get("stage-shape")
    if shape is None:
        shape = topo.memo["stage-shape"] = FabricShape(
            tuple(topo.gpus), MappingProxyType(topo.island_of),
            MappingProxyType(topo.nvlink_domain_of), MappingProxyType(topo.component_of),
            MappingProxyType(topo.tier), frozenset(topo.unknown_models))
    return shape


def fabric_shape(layout: Layout) -> FabricShape:
    """The `FabricShape` of a design's current state (its topology built once per state)."""
    return shape_of(Topology.of(layout))


def prepare(layout: Layout) -> None:
    """Build the design's engine structure now (a worker thread, ahead of the simulations
    and what-ifs that read it; it is kept per state)."""
    Topology.of(layout)


def build_anew(layout: Layout) -> None:
    """Build the design's engine structure from nothing, keeping nothing (what the benchmark
    times as the graph stage)."""
    Topology.build(layout)


@dataclass(frozen=True)
class GpuCapacity:
    """Per GPU: (NVLink GB/s, NIC GB/s to the fabric), the figures a lost NVLink or NIC
    lowers. `source` names the topology it was read from (an opaque token, not the topology:
    it lets a failure's capacity start from this one)."""

    per_gpu: Mapping[str, tuple[float, float]]
    source: object = field(default=None, compare=False, repr=False)


def _token(topo: Topology) -> object:
    """A token naming `topo` (made once per topology, kept in its memo): what a
    `GpuCapacity` holds instead of the topology."""
    token = topo.memo.get("stage-token")
    if token is None:
        token = topo.memo["stage-token"] = object()
    return token


def gpu_capacity(layout: Layout, known: GpuCapacity | None = None) -> GpuCapacity:
    """Each GPU's capacity in `layout`. `known` is the capacity of the design `layout` was
    cut from (`model.failures.degraded`): when its topology is a failure's delta on that
    one (`Topology.delta`), the GPUs outside the islands that lost something take theirs."""
    topo = Topology.of(layout)
    out = {}
    delta = topo.delta
    if (known is not None and delta is not None and known.source is not None
            and delta[0].memo.get("stage-token") is known.source):
        redo, earlier = delta[1], known.per_gpu
        for gpu in topo.gpus:
            out[gpu] = _capacity_of(topo, gpu) if gpu in redo else earlier[gpu]
        return GpuCapacity(MappingProxyType(out), _token(topo))
    for gpu in topo.gpus:
        out[gpu] = _capacity_of(topo, gpu)
    return GpuCapacity(MappingProxyType(out), _token(topo))


def _capacity_of(topo: Topology, gpu: str) -> tuple[float, float]:
    up = sum(topo.nvl_sw_raw.get(gpu, {}).values()) + sum(
        topo.nvl_peer_raw.get(gpu, {}).values())
    net = sum(min(p.raw, sum(topo.nic_up.get(p.nic, {}).values()))
              for p in topo.gpu_nics.get(gpu, ()))
    return up, net


@dataclass(frozen=True)
class NvlinkPorts:
    """Per GPU, its NVLink links: (link id, far end, GB/s, whether the far end computes)."""

    of: Mapping[str, tuple[tuple[str, str, float, bool], ...]]


def nvlink_ports(topo: Topology) -> NvlinkPorts:
    """The `NvlinkPorts` of an engine topology, made once per topology."""
    ports = topo.memo.get("stage-nvlink-ports")
    if ports is None:
        does = topo.does
        ports = topo.memo["stage-nvlink-ports"] = NvlinkPorts(MappingProxyType({
            gpu: tuple((lid, other, cap, does(other).computes) for lid, other, cap in links)
            for gpu, links in topo.nvl_link_ids.items()}))
    return ports


def wiring_kinds(topo: Topology, gpus: Sequence[str]) -> list[int]:
    """Per GPU of `gpus`, a small number naming its wiring signature (equal numbers: wired
    alike, numbered in order of first appearance): its NIC paths with each NIC's uplink and
    leaf-uplink capacity, its NVLink capacity, its island's size (each rounded to 3 places).

    Only which GPUs share a signature matters, so the signature is read a part at a time,
    and a part every GPU shares drops out. The NIC part is where the work was (a path, a
    NIC, its uplinks and its leaf per GPU: 0.15 s of a 16k-GPU estimate): when every NIC a
    GPU of the design uses has one uplink with the same rate to leaves of the same uplink
    capacity, and every path of `gpus` has the same rate, each path of each GPU has the same
    (path, NIC, leaf) figures — a GPU's part is that triple once per path, so GPUs differ
    there by their number of paths alone, and the check reads the uplinks once per NIC and
    the leaves once per leaf. Otherwise (a NIC cabled to two switches or at another rate, a
    leaf that lost some of its uplinks, a faster PCIe path) the signatures are made GPU by
    GPU (`_kinds_by_gpu`), as ever."""
    gpus = list(gpus)
    paths_of = list(map(topo.gpu_nics.get, gpus, repeat(())))
    if not _nic_paths_alike(topo, paths_of):
        return _kinds_by_gpu(topo, gpus)
    empty: dict[str, float] = {}
    varying = [list(map(len, paths_of))]
    up = list(map(sum, map(_VALUES, map(topo.nvl_sw_raw.get, gpus, repeat(empty)))))
    peer_raw = topo.nvl_peer_raw
    if any(peer_raw.values()):  # else every GPU adds sum(()) = 0, which changes no sum
        up = list(map(add, up, map(sum, map(_VALUES, map(peer_raw.get, gpus,
                                                          repeat(empty))))))
    rounded = {v: round(v, 3) for v in set(up)}
    varying.append(list(map(rounded.__getitem__, up)) if len(rounded) > 1 else [])
    islands = topo.islands
    if list(chain.from_iterable(islands.values())) == gpus:
        # the scope is the design's GPUs island by island (the whole design, in order):
        # each GPU's island size read once per island
        sizes = list(map(len, islands.values()))
        if len(set(sizes)) > 1:
            varying.append(list(chain.from_iterable(map(repeat, sizes, sizes))))
    else:
        size_of = {root: len(members) for root, members in islands.items()}
        varying.append(list(map(size_of.get, map(topo.island_of.get, gpus, repeat("")),
                                repeat(0))))
    varying = [column for column in varying if len(set(column)) > 1]
    if not varying:
        return [0] * len(gpus)
    numbers: dict[tuple, int] = {}
    return [numbers.setdefault(sig, len(numbers)) for sig in zip(*varying, strict=True)]


def _nic_paths_alike(topo: Topology, paths_of: list) -> bool:
    """Whether every path of `paths_of` has the same rounded (path rate, NIC rate, leaf
    uplink capacity): every NIC any GPU uses (`nic_users`, a superset of these paths' NICs)
    has one uplink, all at one rate, to leaves of one uplink capacity, and the paths share
    one rate (`wiring_kinds`)."""
    ups = list(map(topo.nic_up.get, topo.nic_users, repeat({})))
    if not ups or set(map(len, ups)) != {1}:
        return not any(paths_of)  # no NIC paths at all: every part is empty, alike
    rates = set(chain.from_iterable(map(_VALUES, ups)))
    caps = set(map(topo.up_cap.get, set(chain.from_iterable(ups)), repeat(0.0)))
    raws = set(map(_RAW, chain.from_iterable(paths_of)))
    # one NIC's sum is its one rate (0 + r: `nic_raw` gives the same rounded figure)
    return all(len({round(v, 3) for v in values}) <= 1 for values in (rates, caps, raws))


def _kinds_by_gpu(topo: Topology, gpus: Sequence[str]) -> list[int]:
    """`wiring_kinds` read GPU by GPU, for any design."""
    nic_sig: dict[str, tuple] = {}

    def nic(path) -> tuple:
        v = nic_sig.get(path.nic)
        if v is None:
            v = nic_sig[path.nic] = (  # `nic_raw`: the sum routing reads again
                round(topo.nic_raw(path.nic), 3),
                round(topo.up_cap.get(topo.leaf_of(path.nic) or "", 0.0), 3))
        return (round(path.raw, 3), *v)

    numbers: dict[tuple, int] = {}
    kinds = []
    # GPUs behind one PCIe switch share their NIC paths (the same objects: one search
    # in `Topology.find_nics`), so their part of the signature is made once, and stands
    # in the signature as its number (distinct parts, distinct numbers: the same kinds)
    by_paths: dict[tuple[int, ...], int] = {}
    parts: dict[tuple, int] = {}
    gpu_nics, sw_raw, peer_raw = topo.gpu_nics, topo.nvl_sw_raw, topo.nvl_peer_raw
    islands, island_of = topo.islands, topo.island_of
    empty: dict[str, float] = {}
    for g in gpus:
        paths = gpu_nics.get(g, ())
        key = tuple(map(id, paths))
        part = by_paths.get(key)
        if part is None:
            whole = tuple(sorted(nic(p) for p in paths))
            part = by_paths[key] = parts.setdefault(whole, len(parts))
        sig = (part,
               round(sum(sw_raw.get(g, empty).values())
                     + sum(peer_raw.get(g, empty).values()), 3),
               len(islands.get(island_of.get(g, ""), ())))
        kinds.append(numbers.setdefault(sig, len(numbers)))
    return kinds
