"""The pure parts of the collective model (`collectives.py`): NCCL's chunking and channel
rules at a size, the pipeline fill, NVLS's GPU-count share, a domain's ring/tree network rate,
the per-call floor and nccl-tests' busbw factor. Functions of numbers (and an island), no state:
`CollectiveModel` composes them per algorithm."""

from __future__ import annotations

import math
from collections.abc import Callable

from rackdesigner import vocabulary
from rackdesigner.simulation import constants as C
from rackdesigner.simulation.scope import Island


def nvls_chunk_bytes(size: int, concurrent_ops: int, max_chunk: int = C.NVLS_CHUNK_BYTES) -> int:
    """The chunk NCCL's NVLS kernels work in for a message of `size` bytes (enqueue.cc
    `calcCollChunking`, NVLS branch): 64, 32 or 16 KiB when the message is smaller than 64, 8 or
    2 waves of `concurrent_ops` (channels x heads) chunks."""
    chunk = max_chunk
    if size < 64 * concurrent_ops * chunk and chunk > 65536:
        chunk = 65536
    if size < 8 * concurrent_ops * chunk and chunk > 32768:
        chunk = 32768
    if size < 2 * concurrent_ops * chunk and chunk > 16384:
        chunk = 16384
    return chunk


def nvls_tree_chunk_bytes(size: int, concurrent_ops: int, max_chunk: int) -> int:
    """The chunk of NVLS-tree (enqueue.cc `calcCollChunking`, NVLS_TREE branch)."""
    chunk = max_chunk
    for waves, smaller in ((32, 262144), (16, 131072), (4, 65536), (1, 32768)):
        if size < waves * concurrent_ops * chunk and chunk > smaller:
            chunk = smaller
    return chunk


def small_size_channels(size: int, channels: int, threads: int, threshold: int) -> int:
    """Channels NCCL runs a ring or tree on at `size` bytes (enqueue.cc `topoGetAlgoInfo`):
    one fewer while size < channels x threads x threshold, at least one."""
    return max(1, min(channels, size // (threads * threshold)))


def _channel_share(channels: int, p: int, threshold: int) -> Callable[[int], float]:
    """Share of the cost model's channels a ring/tree message of a size runs on: its bandwidth
    term scales with the channels actually used."""
    threads = C.MAX_THREADS_PER_CHANNEL[p]

    def share(size: int) -> float:
        return small_size_channels(size, channels, threads, threshold) / channels
    return share


def _fill(chunking: Callable[[int], int], concurrent_ops: int,
          waves: Callable[[], float] | None = None) -> Callable[[int, float], float]:
    """Pipeline fill (µs): `waves()` waves (default: one NVLink domain of 8 GPUs,
    `nvls_domain_fill_waves(8)`, read when the time is computed) of chunk x concurrent
    operations at the algorithm's plateau rate (constants.py); a message smaller than one wave
    gives each operation less than a chunk, so a wave is the message."""
    def fill(size: int, algbw: float) -> float:
        wave = min(chunking(size) * concurrent_ops, size)
        count = nvls_domain_fill_waves(C.NVLS_REFERENCE_GPUS) if waves is None else waves()
        return count * wave / (1000.0 * algbw)
    return fill


def nvls_domain_fill_waves(gpus: int) -> float:
    """Waves of NVLS pipeline fill inside one NVLink domain of `gpus` GPUs (issue 33, C3).

    Every chunk of an NVLS collective is reduced in the switch from all `gpus` GPUs' copies
    (multimem ld_reduce) and multicast back: a chunk completes when the last of its `gpus`
    contributions arrives, and the expected latest of `gpus` like delays grows with the
    logarithm of their number (the maximum of n exponential delays has mean H_n ~ ln n). So the
    fill grows with log2(gpus): `NVLS_PIPELINE_FILL_WAVES` waves per doubling (derived,
    constants.py), 3 doublings on an 8-GPU board, 6.2 on a 72-GPU NVL72 rack. The
    logarithmic form is a model assumption; its constant is fitted on the calibration curves
    (8 and 72 GPUs)."""
    return C.NVLS_PIPELINE_FILL_WAVES * math.log2(max(2, gpus))


def nvls_gpu_share(gpus: int) -> float:
    """NVLS AllReduce busbw on `gpus` GPUs of a domain relative to the published 8-GPU runs.

    The link-bound quantity is algbw: each GPU sends and receives S (n+1)/n over its NVLink
    (its reduce-scatter share out, the multicast result in), so algbw = B n/(n+1) and busbw =
    algbw 2(n-1)/n = B 2(n-1)/(n+1), which falls below 8 GPUs (4 GPUs: 0.77 of 8). Above 8
    it stops rising: a 72-GPU NVL72 rack measures the busbw per NVLink GB/s of an 8-GPU node
    (constants.NVLS_BUSBW_PER_NVLINK), so the switch side caps it there (model assumption
    from those two published points)."""
    def link_bound(n: int) -> float:
        return 2.0 * (n - 1) / (n + 1)

    return min(1.0, link_bound(gpus) / link_bound(C.NVLS_REFERENCE_GPUS))


def tree_busiest_links(domains: int) -> int:
    """Tree edges at the busiest domain of NCCL's double binary tree over `domains` domains
    (issue 33, C1): the number of NICs' worth of S/2 its network carries in each direction.

    NCCL builds two binary trees over the nodes (trees.cc `ncclGetDtree`: the second mirrors
    the first for an even count, shifts it by one for an odd one); half the tree channels run
    each (connect.cc `connectTrees`, channels c and c + nChannels), so each tree moves S/2 and
    every edge carries S/2 each way (the reduce up, the broadcast down). A domain's network
    load is its parent and children over both trees. Enumerating NCCL's construction gives 2
    for two domains (one edge each way in both trees), 3 for three (the root of one tree is a
    leaf of the other) and 4 from four on (the busiest domain is inside one tree and a leaf
    of the other; never inside both): min(domains, 4). The ring moves 2 S (n-1)/n per domain
    whatever the count, so where the NICs bind a tree's busbw is 4/busiest of the ring's: 2x
    on two domains, 4/3 on three, equal from four on (tests/test_collective_tree.py holds
    the closed form to the enumeration)."""
    return 0 if domains <= 1 else min(domains, 4)


def tree_network_share(domains: int) -> float:
    """The algbw share of a domain's network rate a tree (or NVLS-tree) reaches where its
    NICs bind: 2 / `tree_busiest_links` (1 on two domains, 2/3 on three, 1/2 from four on;
    the halving beyond two domains this replaces was the four-domain case of it)."""
    links = tree_busiest_links(domains)
    return 2.0 / links if links else 1.0


def tree_levels(domains: int) -> int:
    """Levels of NCCL's (double binary) tree over `domains` NVLink domains: ceil(log2 N)."""
    return max(0, (domains - 1).bit_length()) if domains > 1 else 0


def _ring_net(island: Island, channels: int) -> float:
    """Network rate of a domain for rings: each ring channel leaves through one NIC, so at most
    `channels` of its network devices carry rings (a 72-NIC NVL72 rack uses about one per
    NVLink); a device is one NIC, or the NICs a multi-rail net plugin merges (EFA on p5: 4)."""
    nics = float(min(len(island.nics), max(1, channels) * island.rails_per_device))
    if island.k > C.HOST_MAX_GPUS and island.has_nvswitch:
        nics = min(nics, C.MNNVL_TREE_NET_NICS)  # multi-node NVLink domain (see _tree_net)
    return min(nics * island.nic_min_eff, island.host_eff)


def _tree_nics(island: Island) -> float:
    """NICs a domain's trees leave through: all of its NICs, but a multi-node NVLink domain
    (more GPUs than one host carries) reaches only `MNNVL_TREE_NET_NICS` NICs' worth
    (constants.py: a named model assumption derived from published multi-rack runs)."""
    nics = float(len(island.nics))
    if island.k > C.HOST_MAX_GPUS and island.has_nvswitch:
        nics = min(nics, C.MNNVL_TREE_NET_NICS)
    return nics


def _tree_net(island: Island) -> float:
    """Network rate of a domain for NCCL's trees: its tree NICs (`_tree_nics`) at the slowest
    NIC's rate, capped by the host's links."""
    return min(_tree_nics(island) * island.nic_min_eff, island.host_eff)


def with_floor(time_us: float) -> float:
    """A call's time as nccl-tests measures it: the host's per-call floor and the GPUs' time
    overlap only in part, `(floor^p + t^p)^(1/p)` with `SMALL_MESSAGE_FLOOR_US` and
    `SMALL_MESSAGE_OVERLAP_POWER` (constants.py: the floor derived from published small-size
    runs, the power a model assumption)."""
    floor, p = C.SMALL_MESSAGE_FLOOR_US, C.SMALL_MESSAGE_OVERLAP_POWER
    if floor <= 0:
        return time_us
    return (floor ** p + time_us ** p) ** (1.0 / p)


def busbw_factor(collective: str, n: int) -> float:
    """nccl-tests' busbw / algbw factor (the collective's `busbw` in the vocabulary)."""
    return vocabulary.collective(collective).busbw_factor(n)
