"""The ways NCCL could run a collective on one scope: per algorithm and protocol, the
latency and the bandwidth the algorithm's traffic pattern can push through *this* layout's links
(`collectives.py` picks the fastest at each size, as NCCL does):

- ring: inside an island, the island ring rate (`scope.py`); across islands, each ring leaves an
  island through one NIC, so busBw = min(NICs x slowest NIC x F, k/(k-1) x island ring rate);
- tree (AllReduce): min(island ring rate, NICs x slowest NIC x F), NCCL's .92 and its
  per-channel tree limit (perChMaxTreeBw x one tree channel per GPU of a domain), algbw =
  busBw / 2;
- NVLS (NVLink SHARP): the architecture's measured busbw per GB/s of the slowest GPU's NVLink
  (constants.NVLS_BUSBW_PER_NVLINK), x the NVLink-bound algbw share of the domain's GPU count
  (`nvls_gpu_share`); across islands NVLS needs in-network reduction (SHARP) and is bounded by
  NICs x slowest NIC;
- NVLS-tree: NVLS inside islands, a tree across them (2 islands: one exchange per NIC, more: a
  double binary tree, half the rate);
- CollNet Direct (SHARP): reduce-scatter + all-gather over NVLink (algbw B x k/(2(k-1))) and one
  pass of S/k per NIC through the switches, x .85 on Hopper and later;
- all_to_all and send/recv (NCCL runs them as point-to-point): NVLink share (k-1)/n and
  network share (n-k)/n of the data at the GPU's NVLink and NIC rates.

Every network rate takes the per-NIC share of the fabric's transport family under the cluster's
fabric tuning (transport.py), except in-network reduction, whose traffic ends at the first
switch and does not take NCCL's net_ib settings; an older NCCL (`nccl_release.py`) runs without
the algorithms it lacks.

The NVLS channel and busbw figures are `collective_nvls.NvlsFigures`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar

from rackdesigner import vocabulary
from rackdesigner.simulation import constants as C
from rackdesigner.simulation import transport as T
from rackdesigner.simulation.collective_nvls import NvlsFigures
from rackdesigner.simulation.collective_parts import (
    _channel_share,
    _fill,
    _ring_net,
    _tree_net,
    nvls_chunk_bytes,
    nvls_domain_fill_waves,
    nvls_tree_chunk_bytes,
    tree_levels,
    tree_network_share,
)
from rackdesigner.simulation.nccl_release import NcclRelease, parse_version
from rackdesigner.simulation.scope import INF, ScopeModel, log2i

#: NCCL's protocols, in its index order
_P = {"LL": 0, "LL128": 1, "Simple": 2}

@dataclass(frozen=True, slots=True)
class Candidate:
    """One way to run a collective: NCCL's cost-model figures and what it leaves out."""

    algorithm: str
    protocol: str
    latency_us: float
    algbw: float  # GB/s
    adjust: Callable[[int, float, float], tuple[float, float]] | None = None
    #: time (µs) the algorithm takes beyond NCCL's cost model at a size, given its algbw: the
    #: measured pipeline fill; not part of NCCL's choice, which uses its own model only
    fill: Callable[[int, float], float] | None = None
    #: share of the channels (and so of the bandwidth) NCCL runs this size on, after its choice
    share: Callable[[int], float] | None = None


class CandidateModel(NvlsFigures):
    """One scope's figures NCCL's cost model reads, and its candidates per algorithm."""

    def __init__(self, scope: ScopeModel, latency_inter_us: float, cpu_vendor: str,
                 p2p_eff_GBps: float, p2p_same_island: bool, algorithm: str = "auto",
                 tuning: str = vocabulary.DEFAULT_FABRIC_TUNING,
                 release: NcclRelease | None = None) -> None:
        self.s = scope
        self.tuning = tuning
        self.release = release or parse_version(None)
        self.nvls_arity = self.release.nvls_arity(C.NVLS_MAX_ARITY)
        self.lat_inter = latency_inter_us
        self.cpu_vendor = cpu_vendor
        self.p2p_eff = p2p_eff_GBps
        self.p2p_same_island = p2p_same_island
        self.algorithm = algorithm
        self.messages: list[str] = []
        n_nodes = scope.n_islands
        self.index2 = 0 if n_nodes <= 1 else 1 if n_nodes == 2 else 2
        ai = scope.arch_index
        self.ll_max = C.LL_MAX_BW[ai if n_nodes <= 1 else (1 if cpu_vendor == "amd" else 0)][
            self.index2]
        # NCCL's absolute LL caps are for GPUs with all their NVLinks (one channel per link):
        # a GPU that lost links runs fewer LL channels, so its cap falls in proportion
        if scope.nominal_channels > scope.channels:
            self.ll_max *= scope.channels / scope.nominal_channels
        self.intra_hw = "pcie" if any(i.intra_hw == "pcie" for i in scope.islands) else "nvlink"
        self.b_intra = min((i.intra_eff for i in scope.islands), default=INF)
        # the share of NCCL's per-NIC rate the transport family keeps across this many domains
        # (transport.py, derived from published runs); in-network reduction keeps the base share
        self.family = T.family(scope.transport, tuning)
        self.node_eff = self.family.nic_efficiency(n_nodes)
        self.base_eff = self.family.base_efficiency() if n_nodes > 1 else 1.0
        self.net_raw = min((i.net_eff for i in scope.islands), default=0.0)
        self.net = self.net_raw * self.node_eff
        self.tree_net = min((_tree_net(i) for i in scope.islands), default=0.0)

    # ---- latency helpers -------------------------------------------------------------------
    def _inter_lat(self, algo: str, p: int, intra: float) -> float:
        if self.s.n_islands <= 1:
            return intra
        lat = C.HW_LATENCY_US["net"][algo][p] + self.lat_inter
        if p == 2:
            lat += self.lat_inter  # NCCL adds the flush latency for Simple
        return lat

    def _ring_busbw(self) -> float:
        s = self.s
        if s.n_islands <= 1:
            return self.b_intra
        best = INF
        for isl in s.islands:
            # each ring channel leaves the domain through one NIC: at most `channels` NICs
            net = _ring_net(isl, s.channels) * s.fabric_factor * self.node_eff
            intra = isl.k / (isl.k - 1) * isl.intra_eff if isl.k > 1 else INF
            best = min(best, net, intra)
        return best

    def _ring(self, ring: vocabulary.Ring) -> list[Candidate]:
        s, n, nodes = self.s, self.s.n, self.s.n_islands
        nsteps = ring.steps(n)
        ch = s.channels
        base_bw = self._ring_busbw()
        out = []
        for proto, p in _P.items():
            if proto == "LL128" and self.intra_hw != "nvlink":
                continue
            bus = base_bw
            if proto == "LL":
                bus = min(self.ll_max, bus * C.RING_LL_FACTOR)
            elif proto == "LL128":
                bus = min(bus * C.RING_LL128_FACTOR,
                          ch * C.PER_CH_MAX_RING_LL128_BW[s.arch_index][self.index2])
            lat = C.BASE_LATENCY_US["ring"][p]
            intra = C.HW_LATENCY_US[self.intra_hw]["ring"][p]
            inter = self._inter_lat("ring", p, intra)
            if not ring.passes:  # a chain from or to a root: one step per rank
                step = intra if p != 2 else C.HW_LATENCY_US[self.intra_hw]["tree"][p]
                lat += nsteps * step
            else:
                if nodes > 1:
                    overhead = C.NET_OVERHEAD_US.get(self.cpu_vendor, 1.0) * (3 if p == 2 else 1)
                    intra = max(intra, overhead)
                n_inter = 0 if nodes <= 1 else ring.passes * (nodes - 1)
                lat += (nsteps - n_inter) * intra + n_inter * inter
            adjust = None
            if ring.plateau and proto == "Simple" and nodes > 1:
                threshold = 64 * ch * n

                def adjust(size: int, lat: float, bw: float, t=threshold) -> tuple[float, float]:
                    return (lat * C.RING_PLATEAU_FACTOR if size >= t else lat), bw
            threshold = C.THREAD_THRESHOLD[p] * (n if p == 0 else 1)
            out.append(Candidate("ring", proto, lat, bus * n / nsteps, adjust,
                                  fill=self._net_fill(ch, p),
                                  share=_channel_share(ch, p, threshold)))
        return out

    def _tree_channels(self) -> int:
        """Channels of NCCL's tree graph: inside one domain the ring's; across domains one per
        GPU of the domain, at most the ring's channels (model assumption: each tree channel
        chains the domain's GPUs and leaves through one NIC, NICs shared where a domain has
        fewer than GPUs; so the per-channel limit binds on nodes with a NIC per GPU and the
        NICs bind on nodes with half as many, where published trees beat rings)."""
        s = self.s
        if s.n_islands <= 1:
            return s.channels
        gpus = min((i.k for i in s.islands), default=1)
        return max(1, min(s.channels, gpus))

    def _tree(self, ring: vocabulary.Ring) -> list[Candidate]:
        s, n, nodes = self.s, self.s.n, self.s.n_islands
        # NCCL's tree busBw is the rate of one domain's NICs (its algbw is half: a double
        # binary tree moves each byte up and down, tuning.cc), capped per channel: a tree
        # channel's SM receives, reduces and forwards for a parent and two children, and
        # NCCL's perChMaxTreeBw (24 GB/s per channel on Blackwell beyond two nodes) is that
        # limit; eight channels x 24 = 192 is the 190-196 GB/s published B200 trees hold from
        # 4 to 64 nodes on two clusters whose rings differ by a quarter (docs/simulation.md).
        # Where the NICs bind, the busiest domain of the double binary tree sets the rate:
        # busBw = 2 x algbw = 2 x tree_network_share x the NICs' rate (2x on two domains, 4/3
        # on three, 1x from four on: collective_parts.tree_busiest_links), so on nodes with
        # half as many NICs as GPUs a three-domain tree beats the ring (issue 33, C1)
        net = self.tree_net * s.tree_factor * self.node_eff
        share = tree_network_share(nodes)
        ch, ai, i2 = s.channels, s.arch_index, self.index2
        tree_ch = self._tree_channels()
        if any(i.k > C.HOST_MAX_GPUS and i.has_nvswitch for i in s.islands):
            # a multi-node NVLink domain: how many tree channels NCCL builds there is not
            # known; its network share (MNNVL_TREE_NET_NICS) is derived with the double tree
            # moving each byte twice beyond two domains (the 4-domain share of the double
            # tree), so it takes the share alone (docs: residuals)
            share /= 2.0
            tree_ch = ch
        net *= 2.0 * share
        base = self.b_intra if nodes <= 1 else min(self.b_intra, net)
        out = []
        for proto, p in _P.items():
            if proto == "LL128" and self.intra_hw != "nvlink":
                continue
            bus = min(base * C.TREE_FACTOR, tree_ch * C.PER_CH_MAX_TREE_BW[ai][i2])
            if proto == "LL":
                bus = min(bus * C.TREE_LL_FACTOR, self.ll_max)
            elif proto == "LL128":
                f = C.TREE_LL128_FACTOR_1NODE if nodes <= 1 else C.TREE_LL128_FACTOR_MULTI
                bus = min(bus * f, tree_ch * C.PER_CH_MAX_TREE_LL128_BW[ai][i2])
            intra = C.HW_LATENCY_US[self.intra_hw]["tree"][p]
            inter = self._inter_lat("tree", p, intra)
            per_node = n // max(1, nodes)
            lat = C.BASE_LATENCY_US["tree"][p] + 2 * ((per_node - 1) * intra
                                                      + log2i(nodes) * inter)

            def adjust(size: int, lat: float, bw: float, p=p) -> tuple[float, float]:
                log_size = log2i(size >> 6) if size >= 64 else -1
                if 0 <= log_size < 23:
                    bw *= C.TREE_CORRECTION[p][log_size]
                return lat, bw
            out.append(Candidate("tree", proto, lat, bus * 0.5, adjust,
                                  fill=self._net_fill(ch, p),
                                  share=_channel_share(ch, p, C.THREAD_THRESHOLD[p])))
        return out

    def _nvls(self, ring: vocabulary.Ring) -> list[Candidate]:
        s = self.s
        _, bus = self._nvls_busbw(ring.passes)
        if bus <= 0:
            return []
        n = s.n
        if ring.passes == 2:  # the whole reduction in the switch: across nodes with SHARP
            algbw = bus * n / (2 * (n - 1))
            if s.n_islands > 1:
                if not s.sharp:
                    return []
                algbw = min(algbw, self.net)
        else:
            if s.n_islands > 1 or s.k > self.nvls_arity:
                return []
            algbw = bus * n / (n - 1)
        intra = C.HW_LATENCY_US["nvlink"]["nvls"][2]
        lat = intra + (self._inter_lat("nvls", 2, intra) if s.n_islands > 1 else 0.0)
        heads, _ = self._nvls_busbw(ring.passes)
        max_chunk = C.NVLS_CHUNK_BYTES
        if s.n_islands > 1:
            n_ch = min(C.NVLS_EXEC_CHANNELS_MULTINODE.get(s.arch, 16), s.channels)
            if algbw * 2 * (n - 1) / n < C.NVLS_SLOW_MULTINODE_BW:  # NCCL's NVLS busBw
                max_chunk = C.NVLS_SLOW_MULTINODE_CHUNK
        else:
            n_ch = C.NVLS_EXEC_CHANNELS.get(s.arch, 16)
        ops = n_ch * heads
        domain = min(i.k for i in s.islands)  # the GPUs each in-switch reduction waits for
        fill = _fill(lambda size: nvls_chunk_bytes(size, ops, max_chunk), ops,
                     lambda: nvls_domain_fill_waves(domain))
        return [Candidate("nvls", "Simple", lat, algbw, fill=fill)]

    def _nvls_tree(self, ring: vocabulary.Ring) -> list[Candidate]:
        s = self.s
        n_ch, bus = self._nvls_busbw(ring.passes)
        if bus <= 0 or s.n_islands <= 1:
            return []
        n = s.n
        # NVLS-tree pushes its NICs at full rate (one NVLS head per NIC): the per-NIC share of
        # the transport family across this many domains applies, and the busiest domain of
        # the double binary tree across the domains (the same trees as `_tree`) sets the share
        net = (self.tree_net * self.node_eff * s.tree_factor
               * tree_network_share(s.n_islands))
        cap = C.PER_CH_MAX_NVLS_TREE_BW[s.arch_index][self.index2] * n_ch
        algbw = min(bus, cap) * n / (2 * (n - 1))
        algbw = min(algbw, net)
        intra = C.HW_LATENCY_US["nvlink"]["nvls_tree"][2]
        lat = intra + 2 * log2i(s.n_islands) * self._inter_lat("nvls_tree", 2, intra)
        ops = C.NVLS_EXEC_CHANNELS_MULTINODE.get(s.arch, 16) * n_ch
        max_chunk = (C.NVLS_TREE_MAX_CHUNK_4NODES if s.n_islands >= 4
                     else C.NVLS_CHUNK_BYTES)
        levels = tree_levels(s.n_islands)
        # the in-domain part at the reference domain's size: the multi-rack NVL72 curves do not
        # show the domain term single-domain NVLS does (with it their per-level fits disagree
        # tenfold, 0.19 vs 1.81 waves; without it 1.5 vs 2.1: docs/simulation.md, C3)
        fill = _fill(lambda size: nvls_tree_chunk_bytes(size, ops, max_chunk), ops,
                     lambda: nvls_domain_fill_waves(C.NVLS_REFERENCE_GPUS)
                     + C.PIPELINE_FILL_WAVES_PER_LEVEL * levels)
        return [Candidate("nvls_tree", "Simple", lat, algbw, fill=fill)]

    def _net_fill(self, channels: int, p: int) -> Callable[[int, float], float] | None:
        """Pipeline fill of a ring or tree across domains: `PIPELINE_FILL_WAVES_PER_LEVEL` waves
        of the protocol's step x channels per level of the domain tree (constants.py; model
        assumption for rings and trees, derived on NVLS-tree); None inside one domain."""
        levels = tree_levels(self.s.n_islands)
        if levels == 0:
            return None
        chunk = C.NET_PIPELINE_CHUNK_BYTES[p]
        # the wave of the GPU model's channels: a GPU that lost NVLinks keeps its pipeline
        # depth per chunk, it does not fill faster
        channels = max(channels, self.s.nominal_channels)
        return _fill(lambda size: chunk, channels,
                     lambda: C.PIPELINE_FILL_WAVES_PER_LEVEL * levels)

    def _collnet(self, ring: vocabulary.Ring) -> list[Candidate]:
        s = self.s
        if (s.n_islands <= 1 or not s.sharp or s.k > C.COLLNET_MAX_LOCAL_RANKS
                or not all(i.has_nvswitch or i.k == 1 for i in s.islands)):
            return []
        k = s.k
        intra_algbw = self.b_intra * k / (2 * (k - 1)) if k > 1 else INF
        # traffic ends at the first switch: the two-domain share at any scale; and the share
        # of NCCL's default settings whatever the fabric tuning: the queue-pair and adaptive-
        # routing settings are the net_ib transport's (NCCL src/transport/net_ib), which
        # CollNet's traffic does not take (it runs through the SHARP plugin's own trees)
        base = (T.family(self.s.transport, "typical-defaults").base_efficiency()
                if self.s.n_islands > 1 else 1.0)
        algbw = min(intra_algbw, self.net_raw * base)
        if s.sm >= 90:
            algbw *= C.COLLNET_EFFICIENCY_SM90
        intra = C.HW_LATENCY_US[self.intra_hw]["collnet_direct"][2]
        lat = (2 * (min(1, k - 1) * intra + (k - 1) * C.COLLNET_ARITY_US)
               + self._inter_lat("collnet_direct", 2, intra))
        return [Candidate("collnet_direct", "Simple", lat, algbw)]

    def _p2p_lat(self, p: int, remote: bool) -> float:
        intra = C.HW_LATENCY_US[self.intra_hw]["ring"][p]
        lat = C.BASE_LATENCY_US["ring"][p] + intra
        if remote:
            lat += C.HW_LATENCY_US["net"]["ring"][p] + self.lat_inter
        return lat

    def _all_to_all(self) -> list[Candidate]:
        s = self.s
        n = s.n
        worst = INF
        for isl in s.islands:
            local = (isl.k - 1) / n
            remote = (n - isl.k) / n
            b_local = isl.nvlink_eff_min if isl.intra_hw == "nvlink" else isl.intra_eff
            per_gpu_net = isl.net_eff / isl.k * s.a2a_factor * self.node_eff
            t = 0.0
            if local > 0:
                t = max(t, local / b_local if b_local > 0 else INF)
            if remote > 0:
                t = max(t, remote / per_gpu_net if per_gpu_net > 0 else INF)
            worst = min(worst, 1.0 / t if t > 0 else INF)
        if worst in (0.0, INF):
            return []
        return [Candidate("p2p", "LL", self._a2a_lat(0),
                           min(worst * C.RING_LL_FACTOR, self.ll_max)),
                Candidate("p2p", "Simple", self._a2a_lat(2), worst)]

    def _a2a_lat(self, p: int) -> float:
        """All-to-all latency: n - 1 point-to-point exchanges, `P2P_PEERS_IN_FLIGHT` at a time,
        each at NCCL's per-step latency of its link class (NVLink peers first, then network)."""
        s = self.s
        k = min((i.k for i in s.islands), default=1)
        local, remote = k - 1, s.n - k
        per = C.P2P_PEERS_IN_FLIGHT
        lat = C.BASE_LATENCY_US["ring"][p]
        lat += -(-local // per) * C.HW_LATENCY_US[self.intra_hw]["ring"][p]
        if remote > 0:
            lat += -(-remote // per) * (C.HW_LATENCY_US["net"]["ring"][p] + self.lat_inter)
        return lat


    def _send_recv(self) -> list[Candidate]:
        if self.p2p_eff <= 0:
            return []
        remote = not self.p2p_same_island
        # one pair crosses the network between two domains: the two-domain share
        bw = self.p2p_eff * (self.family.nic_efficiency(2) if remote else 1.0)
        return [Candidate("p2p", "LL", self._p2p_lat(0, remote),
                           min(bw * C.RING_LL_FACTOR, self.ll_max)),
                Candidate("p2p", "Simple", self._p2p_lat(2, remote), bw)]

    #: the candidates of each NCCL algorithm a collective may list (vocabulary/collectives.py)
    ALGORITHMS: ClassVar[MappingProxyType[
        str, Callable[[CandidateModel, vocabulary.Ring], list[Candidate]]]] = MappingProxyType({
            "ring": _ring, "tree": _tree, "nvls_tree": _nvls_tree, "collnet_direct": _collnet,
            "nvls": _nvls})
    #: the candidates of a point-to-point exchange, by what crosses the network
    P2P: ClassVar[MappingProxyType[str, Callable[[CandidateModel], list[Candidate]]]] = \
        MappingProxyType({"all_to_all": _all_to_all, "p2p": _send_recv})
