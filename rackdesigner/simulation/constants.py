"""Every efficiency figure and model constant the simulation uses, in one place, with its source.

Nothing else in `rackdesigner.simulation` holds a number that is not derived from the layout's
graph and the catalog. There are no per-device fudge factors: a constant applies to a link
class (NVLink of an SM generation, PCIe, the network) or to an NCCL algorithm/protocol.

Source of the NCCL figures: NVIDIA/nccl `src/tuning/cost_model.cc` (`ncclTunerConstantsDefaults`,
`treeCorrectionFactor`), `src/tuning/{ring,tree,nvls,collnet}.cc` at commit 1fc949c (2026, after
the tuning code moved out of `src/graph/tuning.cc`; docs/simulation.md lists how the older
`tuning.cc` differs), and `src/graph/topo.h` for the per-link bandwidths.
Units: bandwidth GB/s (10^9 B/s) per direction, latency microseconds unless the name says ns.
"""

from __future__ import annotations

# --- per-link bandwidth NCCL assumes (GB/s per direction) -------------------------------------
#: NVLink per link by GPU SM generation: topo.h SM80_NVLINK_BW 20.0, SM90_NVLINK_BW 20.6,
#: SM100_NVLINK_BW 40.1 (the raw link rates are 25, 25 and 50 GB/s per direction).
NVLINK_BW_PER_LINK_BY_SM: dict[int, float] = {80: 20.0, 86: 12.0, 90: 20.6, 100: 40.1}
#: For an SM generation not in the table: the same ratio as SM100 (40.1 / 50 = 0.802).
NVLINK_EFFICIENCY_FALLBACK = 0.802
#: PCIe: NCCL models an x16 link as width x speed / 80 -> Gen3 12, Gen4 24, Gen5 48, Gen6 96
#: GB/s, i.e. 0.75 of the raw per-direction rate (topo.cc, PCI_BW in topo.h).
PCIE_EFFICIENCY = 0.75
#: NVLink-C2C (Grace-Blackwell): NCCL treats C2C as an NVLink-class link; we apply the NVLink5
#: ratio (40.1 / 50). Assumption, no separate NCCL constant.
C2C_EFFICIENCY = 0.802
#: Network: NCCL takes the NIC's link speed as is (speed Mb/s / 8000; NDR 400G = 50 GB/s).
NET_EFFICIENCY = 1.0

# --- algorithms, protocols -------------------------------------------------------------------
PROTOCOLS = ("LL", "LL128", "Simple")

#: baseLatencies [algorithm][LL, LL128, Simple], µs (cost_model.cc).
BASE_LATENCY_US: dict[str, tuple[float, float, float]] = {
    "tree": (6.8, 14.0, 8.4),
    "ring": (6.6, 14.0, 8.4),
    "collnet_direct": (0.0, 0.0, 0.0),
    "collnet_chain": (0.0, 0.0, 0.0),
    "nvls": (0.0, 0.0, 0.0),
    "nvls_tree": (0.0, 0.0, 0.0),
}
#: hwLatencies [link class][algorithm][LL, LL128, Simple], µs (cost_model.cc).
HW_LATENCY_US: dict[str, dict[str, tuple[float, float, float]]] = {
    "nvlink": {
        "tree": (0.6, 1.25, 4.0),
        "ring": (0.6, 1.9, 3.4),
        "collnet_direct": (0.0, 0.0, 3.7),
        "collnet_chain": (0.0, 0.0, 2.8),
        "nvls": (0.0, 0.0, 25.0),
        "nvls_tree": (0.0, 0.0, 25.0),
    },
    "pcie": {
        "tree": (1.0, 1.9, 4.0),
        "ring": (1.0, 2.5, 5.7),
        "collnet_direct": (0.0, 0.0, 3.7),
        "collnet_chain": (0.0, 0.0, 2.8),
        "nvls": (0.0, 0.0, 0.0),
        "nvls_tree": (0.0, 0.0, 0.0),
    },
    "net": {
        "tree": (5.0, 8.5, 14.0),
        "ring": (2.7, 4.0, 14.0),
        "collnet_direct": (0.0, 0.0, 31.0),
        "collnet_chain": (0.0, 0.0, 30.0),
        "nvls": (0.0, 0.0, 18.0),
        "nvls_tree": (0.0, 0.0, 20.9),
    },
}
#: GPU architecture index used by the per-architecture tables below (cost_model.cc order).
ARCH_INDEX = {"volta": 0, "ampere": 1, "hopper": 2, "blackwell": 3}
#: llMaxBws [index1][N1, N2, N4+] (absolute LL caps, GB/s). Single node: index1 = GPU arch;
#: multi-node: index1 = 0 for Intel/other CPUs, 1 for AMD.
LL_MAX_BW = (
    (39.0, 39.0, 20.4),
    (87.7, 22.5, 19.0),
    (141.0, 45.0, 35.0),
    (282.0, 90.0, 70.0),
)
#: perChMaxRingLL128Bws [arch][N1, N2, N4+], per channel.
PER_CH_MAX_RING_LL128_BW = (
    (20.0, 20.0, 20.0),
    (20.0, 20.0, 20.0),
    (36.7, 36.7, 36.7),
    (40.0, 40.0, 40.0),
)
#: perChMaxTreeLL128Bws [arch][N1, N2, N4+], per channel.
PER_CH_MAX_TREE_LL128_BW = (
    (20.0, 20.0, 20.0),
    (20.0, 20.0, 20.0),
    (36.7, 36.7, 29.0),
    (55.6, 31.67, 20.0),
)
#: perChMaxTreeBws [arch][N1, N2, N4+], per channel.
PER_CH_MAX_TREE_BW = (
    (26.5, 18.5, 10.0),
    (24.0, 23.6, 17.8),
    (38.7, 41.4, 36.0),
    (70.0, 42.8, 24.0),
)
#: perChMaxNVLSTreeBws [arch][N1, N2, N4+], per channel.
PER_CH_MAX_NVLS_TREE_BW = (
    (26.5, 18.5, 10.0),
    (24.0, 23.6, 17.8),
    (0.0, 57.7, 45.5),
    (0.0, 96.0, 80.0),
)
#: treeCorrectionFactor [LL, LL128, Simple][log2(bytes / 64)] for 64 B .. 512 MiB.
TREE_CORRECTION = (
    (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0,
     1.0, 1.0),
    (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0,
     1.0, 1.0),
    (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9,
     .9),
)
#: Protocol payload efficiency: LL carries 8 B of data per 16 B line (ring.cc: busBw * .5);
#: LL128 carries 120 B per 128 B line, modelled as 0.92 (ring.cc).
RING_LL_FACTOR = 0.5
RING_LL128_FACTOR = 0.92
#: Tree refinements (tree.cc): busBw * .92, LL / 3.8, LL128 * 7/9 (one node) or 120/128.
TREE_FACTOR = 0.92
TREE_LL_FACTOR = 1.0 / 3.8
TREE_LL128_FACTOR_1NODE = 7.0 / 9.0
TREE_LL128_FACTOR_MULTI = 120.0 / 128.0
#: nvlsEfficiency (nvls.cc): Hopper 0.85, Blackwell 0.74 (Volta/Ampere have no NVLS).
NVLS_EFFICIENCY = {"hopper": 0.85, "blackwell": 0.74}
#: NCCL_MAX_NVLS_ARITY (device.h, 32 since 2.21.5, 8 before: the repository's tags): NVLS
#: AllGather/ReduceScatter only up to this many local ranks (nvls.cc disables them above it),
#: and the NVLS graph has at most this many channels (search.cc `ncclTopoCompute`:
#: maxChannels = min(NCCL_MAX_NVLS_ARITY, GPUs)).
NVLS_MAX_ARITY = 32
#: NVLS AllReduce busbw per GB/s of a GPU's NVLink (hardware rate, per direction), by GPU
#: architecture: the mean of busbw / NVLink rate over the published large-message runs of that
#: architecture (benchmarks/published/nccl_tests.yaml; docs/simulation.md section 2):
#: Hopper: 8 x H100 478.87 (Azure ND H100 v5, 8 GiB) and 8 x H200 479.98 GB/s, both / 450 ->
#: 1.0641, 1.0666; Blackwell: 8 x B200 840.8 (16 GiB) and GB200 NVL72 834.57 GB/s (72 GPUs,
#: 8 GiB), both / 900 -> 0.9342, 0.9273. An 8-GPU node and a 72-GPU rack measure the same ratio,
#: so the figure does not depend on the number of GPUs the multicast spans; NCCL's own model
#: (search-table speed per channel x nvlsEfficiency x (nCh - 1)) quantizes the per-channel speed
#: (one lost NVLink of 18 cost 25 %) and predicts NVL72 +10 % over measurements.
NVLS_BUSBW_PER_NVLINK = {"hopper": (478.87 + 479.98) / 2 / 450.0,
                         "blackwell": (840.8 + 834.57) / 2 / 900.0}
#: the GPUs per domain of the 8-GPU runs behind NVLS_BUSBW_PER_NVLINK: on fewer GPUs the
#: figure follows the NVLink-bound algbw (collective_parts.nvls_gpu_share)
NVLS_REFERENCE_GPUS = 8
#: NVLS execution (NVIDIA/nccl at commit 5067397, src/transport/nvls.cc `ncclNvlsTuning`):
#: NVLS channels (CTAs) per GPU — NVLS_NCHANNELS_SM90 16; Blackwell 24 inside one NVLink domain
#: (NVLS_NCHANNELS_SM100_NVL) and 32 across nodes (NVLS_NCHANNELS_SM100); the default chunk
#: size NCCL_NVLS_CHUNKSIZE 128 KiB; the NVLS-tree chunk cap 64 KiB from 4 nodes up
#: (`treeMaxChunkSize`, else the chunk size); 32 KiB for multi-node NVLS below 150 GB/s.
NVLS_EXEC_CHANNELS = {"hopper": 16, "blackwell": 24}
NVLS_EXEC_CHANNELS_MULTINODE = {"hopper": 16, "blackwell": 32}
NVLS_CHUNK_BYTES = 128 * 1024
NVLS_TREE_MAX_CHUNK_4NODES = 64 * 1024
NVLS_SLOW_MULTINODE_CHUNK = 32 * 1024
NVLS_SLOW_MULTINODE_BW = 150.0
#: NVLS pipeline fill, in waves of chunks per doubling of the NVLink domain's GPUs: an NVLS
#: collective runs channels x heads concurrent operations, each working through `chunk` bytes at
#: a time (enqueue.cc `calcCollChunking` shrinks the chunk to 64/32/16 KiB for smaller
#: messages); before the pipeline runs at its plateau rate it pays
#: `collective_parts.nvls_domain_fill_waves(k)` = this x log2(k) waves of (chunk x concurrent
#: operations) bytes at that rate, k the GPUs of the domain (each in-switch reduction waits for
#: the last of its k contributions; issue 33, C3). **Derived from published runs**
#: (benchmarks/size_curve.py --derive over benchmarks/published/nccl_tests_curves.yaml: 8 x H100
#: Azure ND H100 v5 and Together AI, 8 x H200 Azure ND H200 v5, GB200 NVL72 CoreWeave; least
#: squares on the relative time, each curve weighted equally; per curve 0.43, 0.40, 0.24 and
#: 0.69 per doubling — before the domain term 1.36, 1.28, 0.76 and 4.25 waves, the 72-GPU rack
#: needing three times the 8-GPU boards'). A wave is at most the message (a message smaller than
#: one wave gives each operation less than a chunk). One constant for every NVLS design: no
#: per-device or per-run factor.
NVLS_PIPELINE_FILL_WAVES = 0.42
#: NVLS pipeline fill across NVLink domains, in waves per level of the inter-domain tree
#: (NVLS-tree over N domains has ceil(log2 N) levels; the fill inside the domains is the
#: 8-GPU reference domain's, 3 x `NVLS_PIPELINE_FILL_WAVES`: the multi-rack curves do not show
#: the domain-size term). **Derived from published runs** (`benchmarks/size_curve.py
#: --derive` over the calibration curves of CoreWeave's GB200 NVL72 2 and 20 racks): the fixed
#: cost per call that their curves show (about 1.2 ms at 2 racks, 5 ms at 20) is this many
#: waves of chunk x channels x heads at the plateau rate per tree level. Applied, as a model
#: assumption, to every algorithm that pipelines chunks over a tree or ring of domains (tree:
#: channels x chunk per wave; ring: the same, with the ring's ceil(log2 N) as its depth).
PIPELINE_FILL_WAVES_PER_LEVEL = 1.94
#: Step of a ring/tree channel's pipeline across domains, per protocol [LL, LL128, Simple]:
#: the protocol's buffer / NCCL_STEPS (8), device.h: LL 8 lines x 512 threads x 8 steps x 16 B
#: = 512 KiB -> 64 KiB; LL128 120 elements x 640 threads x 8 steps x 8 B = 4.7 MiB -> 600 KiB;
#: Simple NCCL_BUFFSIZE 4 MiB -> 512 KiB. The unit the fill above counts, with the channels.
NET_PIPELINE_CHUNK_BYTES = (64 * 1024, 600 * 1024, 512 * 1024)
#: The largest NVLink domain one host (one OS instance, one NCCL "node" of PCIe topology)
#: carries: an HGX/DGX board of 8 GPUs. An NVLink island of more GPUs spans several hosts
#: (GB200 NVL72: 18 trays of 4), NCCL's multi-node NVLink (MNNVL). Model assumption.
HOST_MAX_GPUS = 8
#: NICs' worth of network rate NCCL's NVLS-tree (and tree) reaches between multi-node NVLink
#: domains, per domain: **model assumption derived from published runs** until a mechanism is
#: found in NCCL's source. CoreWeave's GB200 NVL72 all_reduce (NCCL 2.26.2, README at commit
#: 0120901) gives an asymptotic algbw of about 417 GB/s on 2 racks (each rack exchanges S with
#: the other) and 217 GB/s on 20 racks (a double binary tree: each rack moves 2 S), i.e. 417
#: and 434 GB/s of inter-rack traffic per rack in both: about 9.5 ConnectX-7 NICs' worth at
#: NCCL's 48 GB/s times the per-NIC share across that many racks (transport.yaml), not the
#: rack's 72 (`published_vs_model.py --derive`). A domain with fewer NICs keeps all of them.
MNNVL_TREE_NET_NICS = 9.95
#: Small-message floor: the per-call time of the host side (kernel launch, the proxy's first
#: post, the test's back-to-back issue) that NCCL's cost model leaves out; published 8-byte
#: calls take 35 us on one 8-GPU node where NCCL's model says 15. It overlaps the GPUs' time
#: only in part: time = (floor^p + t^p)^(1/p). **Derived from published small-size runs**
#: (`benchmarks/published_vs_model.py --derive`: the median over the calibration rows compared
#: as time of the floor each implies).
SMALL_MESSAGE_FLOOR_US = 31.6
#: ... p: 1 would add the floor to every call, infinity would make it a minimum; 2 is a model
#: assumption (checked, not fitted: the validation rows at 1-16 MiB single-node sizes).
SMALL_MESSAGE_OVERLAP_POWER = 2.0
#: CollNet Direct on Hopper and later: busBw * .85 (collnet.cc).
COLLNET_EFFICIENCY_SM90 = 0.85
#: Ring Simple AllReduce across nodes: latency * 1.4 (SM80+) once bytes / (nCh * nRanks) >= 64
#: ("plateau effect of ring", ring.cc).
RING_PLATEAU_FACTOR = 1.4
#: Network post overhead per ring step, µs (ring.cc getNetOverhead: Intel 1.0, AMD 2.0,
#: others 1.0), tripled for Simple.
NET_OVERHEAD_US = {"intel": 1.0, "amd": 2.0, "other": 1.0}
#: CollNet Direct arity serialisation, µs per local rank (collnet.cc).
COLLNET_ARITY_US = 0.4
#: Maximum ranks per node for CollNet (NCCL_MAX_DIRECT_ARITY + 1 = 8).
COLLNET_MAX_LOCAL_RANKS = 8
#: All-to-all at small sizes: point-to-point exchanges NCCL keeps in flight at once. Model
#: assumption (no single NCCL constant): p2p work is spread over up to 16 channels
#: (NCCL_MAX_P2P_NCHANNELS on an 8-GPU NVSwitch node) with 2 channels per network peer
#: (NCCL_NCHANNELS_PER_NET_PEER default 2), i.e. about 8 peers at a time; each exchange pays
#: NCCL's per-step latency of its link class. Labelled as a model value in docs/simulation.md.
P2P_PEERS_IN_FLIGHT = 8
#: Channels at small sizes (enqueue.cc `topoGetAlgoInfo`, NVIDIA/nccl at commit 5067397): after
#: choosing ring or tree, NCCL drops channels while bytes < channels x threads x threshold, so
#: a small message runs on fewer channels (and so at a smaller share of the bandwidth) than
#: the cost model assumed. Threads per channel [LL, LL128, Simple]: NCCL_LL_MAX_NTHREADS 512,
#: NCCL_LL128_MAX_NTHREADS 640, NCCL_SIMPLE_MAX_NTHREADS 512 (device.h); thresholds
#: NCCL_LL_THREAD_THRESHOLD 8 (x ranks for ring LL, tuning.cc), NCCL_LL128_THREAD_THRESHOLD 8,
#: NCCL_SIMPLE_THREAD_THRESHOLD 64 (comm.h).
MAX_THREADS_PER_CHANNEL = (512, 640, 512)
THREAD_THRESHOLD = (8, 8, 64)
#: Maximum channels NCCL uses (MAXCHANNELS is 64; rings on NVSwitch systems settle near one
#: channel per NVLink). Our channel count: NVLinks per GPU, clamped to [2, 32].
MIN_CHANNELS = 2
MAX_CHANNELS = 32

# --- sizes -------------------------------------------------------------------------------------
#: nccl-tests `-b 8 -e 16G -f 2`: 8 B .. 16 GiB doubling (32 sizes).
SIZES = tuple(2**k for k in range(3, 35))

# --- latency of the physical path ----------------------------------------------------------------
#: Signal propagation when neither the link's cable nor a default gives one: 5 ns/m
#: (LinkX: DAC 4.5 ns/m, fibre ~5 ns/m).
DEFAULT_PROPAGATION_NS_PER_M = 5.0
#: GPU-to-GPU latency of a path class when a device on it has no published latency (NVSwitch
#: chips, ConnectX-7, QM9700 at the time of writing): NCCL's per-step hardware latency for the
#: link class, hwLat[class][ring][LL] of cost_model.cc at commit 1fc949c — the smallest per-hop
#: figure NCCL's model assumes (LL has the least protocol overhead): NVLink 0.6, PCI 1.0,
#: NET 2.7 µs. It is a GPU-to-GPU step time measured by NVIDIA, not a device's port-to-port
#: latency, so it replaces the device part of the class's path as a whole (cable propagation
#: is still added); the result names the classes that used it (`source: "model"`).
MODEL_LATENCY_US: dict[str, float] = {
    "nvlink": HW_LATENCY_US["nvlink"]["ring"][0],
    "pcie": HW_LATENCY_US["pcie"]["ring"][0],
    "net": HW_LATENCY_US["net"]["ring"][0],
}

#: Port-to-port latency of a scale-out switch without a published figure: its transport family's
#: `switch_latency_ns` (resources/simulation/transport.yaml, simulation/transport.py), for each
#: switch a path crosses beyond the one NCCL's NET step already holds (a 3-tier path adds 4).

# --- power ----------------------------------------------------------------------------------
#: Power usage effectiveness when the user does not give one. 1.3 is a stated default: between
#: the Uptime Institute global survey average (about 1.5-1.6, 2023-2024) and the 1.1-1.2 that
#: new liquid-cooled AI halls report; change it with `pue=` / `--pue`.
DEFAULT_PUE = 1.3
