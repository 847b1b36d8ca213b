"""A decode layer as the kernels an engine launches: how many, which take a floor, and which
all-reduce kernel a tensor-parallel group gets (the per-kernel latency model of a decode step).

At small batches a decode step is kernel latency, not bytes: every kernel of the CUDA graph
takes at least `kernel_floor_us` (launch, grid start, drain) whatever it moves. The kernels of a
DeepSeek-V3/R1 MoE layer are TensorRT-LLM's (tech blog 1, "Everything in One Diagram": Fuse_A
GEMM, the grouped q/kv RMSNorm, UQ_QR GEMM, UK batched GEMM, KV-cache concat with RoPE, the MLA
generation kernel, UV batched GEMM, WO GEMM, the fused one-shot all-reduce + Add_RMSNorm
(+ NVFP4 quantisation), router GEMM, top-k, the routed experts' grouped GEMMs (FC1 with its
activation fused, FC2), the final fused local-reduction + one-shot all-reduce + Add_RMSNorm; the
shared expert runs on an auxiliary stream beside the routed ones). Other models take the same
inventory with their own attention projections (QKV and O for grouped-query attention).

Which all-reduce a tensor-parallel layer gets is the host's (TensorRT-LLM
tensorrt_llm/_torch/distributed/ops.py `AllReduce`, models/modeling_deepseekv3.py):
- a TP group inside one host (the 8 GPUs of an HGX/DGX B200 baseboard) runs the custom one-shot
  kernels over CUDA IPC memory, with the residual add and RMSNorm fused in, and, for the MoE
  layer, the experts' local reduction too (`MoEAllReduce`, when `is_p2p_supported`);
- a TP group spanning hosts joined by NVLink (a GB200 NVL72's 4-GPU compute trays) runs the
  MNNVL all-reduce on fabric memory (`MNNVLAllReduce.is_mnnvl`: `mapping.is_multi_node()`),
  which fuses the residual add and RMSNorm but not the experts' reduction: the MoE layer keeps a
  separate finalize kernel (`do_finalize = mapping.is_multi_node() or ...`);
- a TP group across NICs goes through NCCL (the engine's collective model on the drawn links).
The one-shot kernels are one kernel: each GPU reads its peers' shares over NVLink — the floor,
one NVLink hop (NCCL's NVLink LL step latency, `HW_LATENCY_US`) and the bytes at the drawn
NVLink bandwidth; above 512 KiB of data over the group they run two-shot (a reduce-scatter and
an all-gather phase: two hops, each GPU moving twice its share; MNNVLAllReduce's
`get_required_workspace_size`, "should match the heuristic in allreduceOp.cpp").
"""

from __future__ import annotations

import math

from rackdesigner.simulation import constants as C

#: one-shot below this many bytes over the whole group (tokens x hidden x ranks x 2 bytes),
#: two-shot above (MNNVLAllReduce.get_required_workspace_size, TensorRT-LLM ops.py)
ONE_SHOT_MAX_BYTES = 64 * 1024 * 8
#: one NVLink hop of a custom all-reduce kernel: NCCL's NVLink LL step latency (tuning.cc)
NVLINK_HOP_US = C.HW_LATENCY_US["nvlink"]["ring"][0]
#: kernels of the attention projections: MLA (Fuse_A, UQ_QR, UK, UV, WO; blog 1) or Q/K/V + O
ATTN_GEMM_KERNELS = {True: 5, False: 2}
#: memory-bound kernels of every layer besides the all-reduce's fused norm: MLA's grouped
#: q/kv RMSNorm and the KV-cache concat with RoPE (blog 1, modules 2 and 5); one QKV-RoPE
#: kernel for grouped-query attention
ATTN_ELEMENTWISE_KERNELS = {True: 2, False: 1}
#: kernels of an MoE layer's routing: router GEMM and top-k (blog 1, module 10)
ROUTER_KERNELS = 2
#: the routed experts' grouped GEMMs: FC1 with its activation fused, FC2 (blog 1, kernel fusion)
EXPERT_KERNELS = 2


def floored(seconds: float, kernels: float, floor_s: float) -> float:
    """Seconds of `kernels` kernels doing `seconds` of work, none shorter than the floor."""
    return max(seconds, kernels * floor_s)


def custom_all_reduce_s(size: float, ranks: int, nvlink_Bps: float, floor_s: float) -> float:
    """Seconds of a custom (IPC or MNNVL) all-reduce kernel of `size` bytes per rank over
    `ranks` GPUs of one NVLink domain: one-shot (each GPU reads every peer's whole buffer) up to
    ONE_SHOT_MAX_BYTES over the group, two-shot (each GPU reduces its share, then gathers the
    others': two hops) above."""
    if ranks <= 1 or size <= 0:
        return 0.0
    hop = NVLINK_HOP_US * 1e-6
    if size * ranks <= ONE_SHOT_MAX_BYTES:
        return floor_s + hop + size * (ranks - 1) / nvlink_Bps
    return floor_s + 2 * hop + 2.0 * size * (ranks - 1) / ranks / nvlink_Bps


#: where the stack's `expert_imbalance` was measured: DeepSeek-R1 on 32 GB200, EP 32 with 288
#: expert slots (9 per rank) placed by the EP load balancer (TensorRT-LLM tech blog 4, Table 1:
#: imbalance ratio (max - mean) / mean by rank 0.109, averaged over layers and iterations; 1.564
#: without the balancer, 8 slots per rank)
IMBALANCE_EP, IMBALANCE_SLOTS = 32, 9.0


def hot_rank(imbalance: float, ep: int, experts_per_rank: float) -> float:
    """Routed tokens on the hottest of `ep` expert-parallel ranks over the mean: 1 + the
    measured `imbalance` carried to this EP size as the maximum of independent loads would
    (model assumption): the spread of a rank's load shrinks as the square root of the experts
    it holds, the maximum over `ep` ranks grows as sqrt(2 ln ep) standard deviations."""
    if ep <= 1 or imbalance <= 0:
        return 1.0
    spread = math.sqrt(IMBALANCE_SLOTS / max(experts_per_rank, 1.0))
    return 1.0 + imbalance * spread * math.sqrt(math.log(ep) / math.log(IMBALANCE_EP))


__all__ = ["ATTN_ELEMENTWISE_KERNELS", "ATTN_GEMM_KERNELS", "EXPERT_KERNELS",
           "IMBALANCE_EP", "IMBALANCE_SLOTS", "NVLINK_HOP_US", "ONE_SHOT_MAX_BYTES",
           "ROUTER_KERNELS", "custom_all_reduce_s", "floored", "hot_rank"]
