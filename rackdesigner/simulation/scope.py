"""The GPUs a simulation looks at, and the per-island figures the collective model needs.

An *island* is a set of GPUs joined by NVLink or host links (NCCL's "node"; an NVL72 rack is one
island, as NCCL treats a multi-node NVLink domain as one node). For each island in scope we
compute, from link loads on the graph:

- the ring bandwidth inside the island: a ring visits the island's GPUs in id order; a hop
  i -> j can use sum over NVSwitches s of min(cap(i, s), cap(j, s)) plus direct NVLinks; NCCL
  runs rings both ways, so the island's ring rate is min(smallest GPU egress,
  smallest clockwise hop + smallest counter-clockwise hop) — a GPU with fewer NVLinks or a
  degraded hop lowers it;
- NVLS capability (every NVSwitch of the island supports NVLink SHARP, GPUs are Hopper or later,
  all NVLinks go to switches) and the NVLS per-GPU rate;
- the NICs its GPUs use and the slowest of them (network side capped by the PCIe/C2C path).

How much of a NIC's rate survives the fabric (the routed factors) comes from the later stages:
placement -> traffic -> link loads (`routing.py`).
"""

from __future__ import annotations

import functools
import itertools
from collections import defaultdict
from dataclasses import dataclass, field

from rackdesigner.simulation import constants as C
from rackdesigner.simulation import transport
from rackdesigner.simulation.topology import Topology
from rackdesigner.vocabulary import protocols_of

INF = float("inf")


@dataclass
class Island:
    gpus: list[str]
    intra_eff: float = INF  # ring busBw inside the island (NCCL-effective GB/s)
    intra_hw: str = "nvlink"
    nvlink_eff_min: float = 0.0  # smallest per-GPU NVLink egress (NCCL-effective)
    nvlink_raw_min: float = 0.0  # the same at the hardware rate
    rail_nics: list[str] = field(default_factory=list)  # NIC of local rank r's rail, in order
    nvls: bool = False
    has_nvswitch: bool = False
    nics: list[str] = field(default_factory=list)
    nic_min_eff: float = 0.0
    host_eff: float = INF  # sum of the GPUs' own PCIe/C2C links: all network traffic crosses them
    host_raw: float = INF
    nic_transport: str | None = None  # transport every NIC's catalog entry names (transport.py)
    rails_per_device: int = 1  # NICs the NCCL net plugin merges into one device (EFA: 4 on p5)

    @property
    def k(self) -> int:
        return len(self.gpus)

    @property
    def net_eff(self) -> float:
        """NCCL-effective network rate of the island: its NICs, capped by the GPUs' host links."""
        return min(len(self.nics) * self.nic_min_eff, self.host_eff)


@dataclass
class ScopeModel:
    gpus: list[str]
    islands: list[Island]
    arch: str = "hopper"
    sm: int = 90
    fabric_factor: float = 1.0
    a2a_factor: float = 1.0
    involved: dict[int, set[str]] = field(default_factory=dict)  # tier -> switches
    sharp: bool = False  # in-network reduction usable: switches can and the design allows it
    sharp_capable: bool = False  # every switch in scope supports SHARP
    sharp_missing: tuple[str, ...] = ()  # switch models in scope without SHARP
    tree_factor: float = 1.0
    p2p_factor: float = 1.0
    links_per_gpu: int = 0
    links_nominal: int = 0  # NVLink ports of the GPU model (catalog), wired or not
    transport: str | None = None  # fabric switches' protocol, or the NICs' transport (transport.py)

    @property
    def n(self) -> int:
        return len(self.gpus)

    @property
    def n_islands(self) -> int:
        return len(self.islands)

    @property
    def k(self) -> int:
        return max((isl.k for isl in self.islands), default=0)

    @property
    def arch_index(self) -> int:
        return C.ARCH_INDEX.get(self.arch, 2)

    @property
    def channels(self) -> int:
        """Ring/tree channels: about one per NVLink of a GPU (see constants.MAX_CHANNELS)."""
        return max(C.MIN_CHANNELS, min(C.MAX_CHANNELS, self.links_per_gpu))

    @property
    def nominal_channels(self) -> int:
        """The channels of the GPU model with all its NVLink ports wired (catalog count)."""
        return max(C.MIN_CHANNELS, min(C.MAX_CHANNELS, self.links_nominal))


def analyse(topo: Topology, gpus: list[str]) -> ScopeModel:
    """Per-island figures and fabric factors for the GPUs in scope (all mutually reachable)."""
    by_island: dict[str, list[str]] = defaultdict(list)
    for gpu in gpus:
        by_island[topo.island_of[gpu]].append(gpu)
    nic_raw: dict[str, float] = {}  # a NIC's network-side rate, shared by the GPUs behind it
    memo = topo.island_memo  # an island's figures depend on the topology and its GPUs only
    islands: list[Island] = []
    for members in by_island.values():
        key = tuple(members)
        island = memo.get(key)
        if island is None:
            island = memo[key] = _island(topo, members, nic_raw)
        islands.append(island)
    scope = ScopeModel(gpus=list(gpus), islands=islands)
    facts = [f for g in gpus if (f := topo.specs[g].gpu) is not None]
    archs = {f.architecture for f in facts}
    if len(facts) < len(gpus):
        archs.add("")
    order = ["volta", "ampere", "hopper", "blackwell"]
    known = [a for a in order if a in archs]
    scope.arch = known[0] if known else "hopper"
    sms = [f.sm for f in facts]
    scope.sm = min(sms) if sms else 90
    scope.links_per_gpu = int(min((topo.nvl_links.get(g, 0) for g in gpus), default=0))
    models = {topo.specs[g].id: topo.specs[g] for g in gpus}  # a few GPU models, not 16k GPUs
    scope.links_nominal = int(min((sum(p.count for p in spec.ports_of("nvlink"))
                                   for spec in models.values()), default=0))
    if len(islands) > 1:
        _fabric_factors(topo, scope)
    return scope


def _island(topo: Topology, gpus: list[str], nic_raw: dict[str, float] | None = None
            ) -> Island:
    island = Island(gpus=gpus)
    k = len(gpus)
    in_scope = set(gpus)
    egress_eff, egress_raw = [], []
    switched = True
    sw_eff, sw_raw, peer_eff, peer_raw = (topo.nvl_sw_eff, topo.nvl_sw_raw, topo.nvl_peer_eff,
                                          topo.nvl_peer_raw)
    for g in gpus:
        pe = peer_eff.get(g)
        if pe:
            switched = False
            peers_eff = sum(v for p, v in pe.items() if p in in_scope)
            peers_raw = sum(v for p, v in peer_raw.get(g, {}).items() if p in in_scope)
        else:
            peers_eff = peers_raw = 0.0
        se, sr = sw_eff.get(g), sw_raw.get(g)
        egress_eff.append((sum(se.values()) if se else 0.0) + peers_eff)
        egress_raw.append((sum(sr.values()) if sr else 0.0) + peers_raw)
    island.nvlink_eff_min = min(egress_eff, default=0.0)
    island.nvlink_raw_min = min(egress_raw, default=0.0)
    island.rail_nics = list(dict.fromkeys(topo.primary_nic[g] for g in gpus
                                          if g in topo.primary_nic))
    if k > 1:
        if island.nvlink_eff_min <= 0:
            # no NVLink: GPUs talk over their host (PCIe/C2C) links
            island.intra_hw = "pcie"
            island.intra_eff = min(topo.gpu_host_eff.get(g, 0.0) for g in gpus)
        else:
            island.intra_eff = _ring_rates(topo, gpus, egress_eff, egress_raw)[0]
    root = topo.island_of[gpus[0]]
    switches = topo.nvswitches_of.get(root, set())
    island.has_nvswitch = bool(switches)
    archs_ok = all(
        (f := topo.specs[g].gpu) is not None and f.architecture in C.NVLS_EFFICIENCY
        for g in gpus)
    island.nvls = (k > 1 and switched and bool(switches) and archs_ok
                   and all(topo.specs[s].supports_nvls for s in switches)
                   and island.nvlink_eff_min > 0)
    nics: dict[str, tuple[float, float]] = {}
    for g in gpus:
        for path in topo.gpu_nics.get(g, ()):
            net = nic_raw.get(path.nic) if nic_raw is not None else None
            if net is None:
                net = topo.nic_raw(path.nic)
                if nic_raw is not None:
                    nic_raw[path.nic] = net
            raw = min(net, path.raw)
            eff = min(net * C.NET_EFFICIENCY, path.eff)
            old = nics.get(path.nic)
            nics[path.nic] = (raw, eff) if old is None else (min(old[0], raw), min(old[1], eff))
    host = sum(topo.gpu_host_eff.get(g, 0.0) for g in gpus)
    island.host_eff = host if host > 0 else INF
    host = sum(topo.gpu_host_raw.get(g, 0.0) for g in gpus)
    island.host_raw = host if host > 0 else INF
    island.nics = sorted(nics)
    island.nic_min_eff = min((v[1] for v in nics.values()), default=0.0)
    island.nic_transport = transport.named_by_nics(topo.specs[n] for n in island.nics)
    if island.nic_transport in transport.MULTIRAIL:
        # the plugin gives each GPU its share of the NICs nearest it: NICs / GPUs sharing them
        island.rails_per_device = max(1, min((
            len(paths) // max(len(topo.nic_users.get(p.nic, ())) or 1 for p in paths)
            for g in gpus if (paths := topo.gpu_nics.get(g))), default=1))
    return island


def _ring_rates(topo: Topology, gpus: list[str], egress_eff: list[float],
                egress_raw: list[float]) -> tuple[float, float]:
    """(NCCL-effective, raw) ring rate of an island (see the module docstring); direct-NVLink
    islands of up to `RING_SEARCH_MAX` GPUs try every ring order, as NCCL's search would, and
    keep the best.

    Islands wired alike (every DGX of a SuperPOD) share one computation: the key is the
    island's wiring with switches and GPUs renamed by order of appearance (both rates are
    recorded per link together, so one key serves both)."""
    sw_eff, sw_raw = topo.nvl_sw_eff, topo.nvl_sw_raw
    peer_eff, peer_raw = topo.nvl_peer_eff, topo.nvl_peer_raw
    names: dict[str, int] = {}
    pos = {g: x for x, g in enumerate(gpus)}
    empty: dict = {}
    shape = tuple(
        (tuple((names.setdefault(s, len(names)), v, sw_raw[g][s])
               for s, v in sw_eff.get(g, empty).items()),
         tuple((pos.get(p, -1), v, peer_raw[g][p]) for p, v in peer_eff.get(g, empty).items()))
        for g in gpus)
    key = (shape, tuple(egress_eff), tuple(egress_raw))
    rates = _SHAPES.get(key)
    if rates is None:
        rates = _SHAPES[key] = (_ring_rate_uncached(sw_eff, peer_eff, gpus, egress_eff),
                                _ring_rate_uncached(sw_raw, peer_raw, gpus, egress_raw))
        if len(_SHAPES) > 4096:
            _SHAPES.clear()
    return rates


_SHAPES: dict[tuple, tuple[float, float]] = {}


def _ring_rate_uncached(sw: dict, peer: dict, gpus: list[str], egress: list[float]) -> float:
    k = len(gpus)
    has_switch = [bool(sw.get(g)) for g in gpus]
    matrix = []
    for x, i in enumerate(gpus):
        si, pi = sw.get(i, {}), peer.get(i, {})
        row = []
        for y, j in enumerate(gpus):
            if x == y:
                row.append(0.0)
                continue
            sj = sw.get(j, {})
            cap = sum(min(v, sj[s]) for s, v in si.items() if s in sj) + pi.get(j, 0.0)
            if cap <= 0 and has_switch[x] and has_switch[y]:
                # no common switch: a multi-level NVSwitch fabric, assumed non-blocking
                cap = min(egress[x], egress[y])
            row.append(cap)
        matrix.append(tuple(row))
    search = not any(has_switch) and 3 <= k <= RING_SEARCH_MAX
    rate = _best_ring(tuple(matrix), tuple(egress), search)
    if rate <= 0:
        # some hop has no link at all: NCCL relays it through a peer GPU, whose links it
        # shares; count such a hop at half the smaller egress
        relayed = tuple(tuple(c if c > 0 or x == y else min(egress[x], egress[y]) / 2
                              for y, c in enumerate(row)) for x, row in enumerate(matrix))
        rate = _best_ring(relayed, tuple(egress), False)
    return rate


RING_SEARCH_MAX = 8


@functools.lru_cache(maxsize=256)
def _best_ring(matrix: tuple, egress: tuple, search: bool) -> float:
    k = len(egress)
    cap = min(egress)
    if k == 2:
        return min(cap, matrix[0][1])

    def rate(order: tuple[int, ...]) -> float:
        cw = min(matrix[order[x]][order[(x + 1) % k]] for x in range(k))
        ccw = min(matrix[order[(x + 1) % k]][order[x]] for x in range(k))
        return min(cap, cw + ccw)

    best = rate(tuple(range(k)))
    if search:
        for rest in itertools.permutations(range(1, k)):
            best = max(best, rate((0, *rest)))
            if best >= cap:
                break
    return best


def _fabric_factors(topo: Topology, scope: ScopeModel) -> None:
    """Which switches serve the scope, and whether all of them can reduce in the network.

    How much of a NIC's rate survives the fabric is no longer a formula here: the routed
    traffic (placement -> traffic -> loads) sets `fabric_factor`, `tree_factor`, `a2a_factor`
    and `p2p_factor` (see `routing.apply_routed_factors`)."""
    leaves: set[str] = set()
    for island in scope.islands:
        for g in island.gpus:
            nic = topo.primary_nic.get(g)
            leaf = topo.leaf_of(nic) if nic else None
            if leaf is not None:
                leaves.add(leaf)
    involved: dict[int, set[str]] = {1: leaves}
    top = len(topo.domains)
    t = 1
    while t < top:
        if len({topo.domains[t - 1].get(leaf) for leaf in leaves}) <= 1:
            # every route between the scope's leaves turns at tier t (up/down routing): no
            # switch above carries its traffic (a 14-rack NVL72 SuperPOD's NIC-less leaves of
            # its partial SU sit above its spines, but nothing climbs to them)
            break
        nxt = {n for s in involved[t] for n in topo.sw_adj.get(s, ()) if topo.tier.get(n) == t + 1}
        if not nxt:
            break
        involved[t + 1] = nxt
        t += 1
    scope.involved = involved
    network = protocols_of("network")
    specs = {id(spec): spec for spec in map(topo.specs.__getitem__, leaves)}  # a few models
    protocols = {p.protocol for spec in specs.values() for p in spec.ports
                 if p.protocol in network}
    if len(protocols) == 1:  # a mixed fabric keeps NCCL's default transport
        scope.transport = protocols.pop()
        named = {i.nic_transport for i in scope.islands}
        if len(named) == 1 and None not in named:  # the NICs' own transport (EFA over Ethernet)
            scope.transport = named.pop()
    switches = set().union(*involved.values()) if involved else set()
    models = {id(spec): spec for spec in map(topo.specs.__getitem__, switches)}.values()
    scope.sharp_capable = bool(switches) and all(spec.supports_sharp for spec in models)
    scope.sharp_missing = tuple(sorted({spec.id for spec in models if not spec.supports_sharp}))


def log2i(x: float) -> int:
    """floor(log2(x)) for x >= 1, else 0 (NCCL's log2i)."""
    return int(x).bit_length() - 1 if x >= 1 else 0
