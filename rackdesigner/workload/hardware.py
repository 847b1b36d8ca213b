"""What a GPU computes and stores (`resources/workload/gpu_compute.yaml`) and the efficiency
figures of the step-time model, each with its source or labelled a model assumption.

Peaks are the datasheets' dense tensor-core figures. No figure here is fitted to the published
training runs the estimates are compared with (docs/workload.md); none varies per run or device.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import yaml

from rackdesigner._resources import resources_root


@dataclass(frozen=True, slots=True)
class GpuCompute:
    model: str
    bf16_tflops: float
    fp8_tflops: float | None
    hbm_GB: float
    hbm_TBps: float
    sms: int  # streaming multiprocessors: the width of a wave of GEMM tiles
    source: str

    def peak_tflops(self, precision: str) -> float | None:
        return self.bf16_tflops if precision == "bf16" else self.fp8_tflops


@lru_cache(maxsize=1)
def gpu_table() -> dict[str, GpuCompute]:
    path = resources_root() / "workload" / "gpu_compute.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = {}
    for model, d in data["gpus"].items():
        out[model] = GpuCompute(model, float(d["bf16_tflops"]),
                                None if d.get("fp8_tflops") is None else float(d["fp8_tflops"]),
                                float(d["hbm_GB"]), float(d["hbm_TBps"]), int(d["sms"]),
                                d["source"])
    return out


def gpu_compute(model: str) -> GpuCompute | None:
    return gpu_table().get(model)


# ---- efficiencies ------------------------------------------------------------------------------
#: Ceiling share of the tensor-core peak a large matrix multiply sustains. Dao
#: (FlashAttention-2, arXiv:2307.08691, section 1): optimized GEMMs reach 80-90 % of the
#: theoretical maximum throughput; we take the lower end. One figure for every GPU generation
#: and precision. It applies to GEMMs whose tiles fill whole waves of the SMs; smaller and
#: ragged GEMMs lose their partial tiles and waves and may be bound by HBM (`workload/gemm.py`).
GEMM_EFFICIENCY = 0.80
GEMM_SOURCE = ("GEMM ceiling efficiency 0.80 of peak (lower end of the 80-90 % Dao, "
               "FlashAttention-2, arXiv:2307.08691, quotes for optimized GEMMs), reached by GEMMs "
               "whose 256x128 output tiles fill whole waves of the GPU's SMs; partial tiles and "
               "waves cost whole ones (NVIDIA Matrix Multiplication Background User's Guide; the "
               "tile shape is a model assumption) and no GEMM runs faster than its operands' HBM "
               "traffic")
#: Share of the BF16 peak the attention core (QK^T, softmax, AV; fused FlashAttention kernels,
#: forward and backward) sustains: FlashAttention-2 reaches 50-73 % on A100 (arXiv:2307.08691,
#: abstract), FlashAttention-3 up to 75 % on H100 (arXiv:2407.08608); we take the lower end
#: (backward passes run below the forward figures). Attention stays in BF16 in FP8 training
#: (Transformer Engine's default).
ATTENTION_EFFICIENCY = 0.50
ATTENTION_SOURCE = ("attention-core efficiency 0.50 of the BF16 peak: lower end of "
                    "FlashAttention-2's 50-73 % (arXiv:2307.08691), times the share of the SMs' "
                    "wave its thread blocks (128 query rows x heads x sequences) fill")
#: Share of the HBM datasheet bandwidth memory-bound kernels sustain (model assumption; STREAM-
#: like copies on H100 measure about 90 % of 3.35 TB/s).
HBM_EFFICIENCY = 0.90
#: Bytes of HBM traffic per stored activation byte in the memory-bound kernels (norms,
#: activation functions, residual adds, dropout) over forward and backward: written once in
#: the forward, read and its gradient written in the backward (model assumption).
ELEMENTWISE_PASSES = 3.0
#: Adam step per parameter of the local shard: read fp32 gradient (4), read and write fp32
#: master weight, first and second moment (3 x 8) and write the bf16 weight (2) = 30 bytes.
OPTIMIZER_BYTES_PER_PARAM = 30.0
#: Megatron-Core's DDP bucket (`ddp_bucket_size` default: max(40,000,000, 1,000,000 x DP)
#: parameters, megatron/core/distributed/distributed_data_parallel.py): the last bucket's
#: reduction cannot overlap the backward pass.
DDP_BUCKET_PARAMS = 40_000_000
#: Bytes per parameter: bf16 weights, fp32 gradients (Megatron accumulates and reduces
#: gradients in fp32 with --bf16), fp32 master weights + Adam moments (Korthikanti et al.
#: 2022 / Rajbhandari et al. 2020 mixed-precision Adam: 2 + 4 + 12).
WEIGHT_BYTES = 2
GRAD_BYTES = 4
OPTIMIZER_BYTES = 12
#: Share of HBM a job may fill: the rest goes to the CUDA context, NCCL buffers, workspaces
#: and the caching allocator's fragmentation (model assumption).
USABLE_HBM_FRACTION = 0.90
#: Activations and the TP/SP/CP/EP/PP messages travel in bf16 (2 bytes) in both precisions.
ACT_BYTES = 2

ASSUMPTIONS = (
    GEMM_SOURCE,
    ATTENTION_SOURCE,
    "GEMM HBM traffic: inputs and output once; weight gradients accumulate into fp32 main "
    "gradients (read and written: Megatron's gradient-accumulation fusion; model assumption)",
    "memory-bound kernels: 3 passes over the stored activations, and MoE dispatch/combine "
    "copies, at 90 % of HBM bandwidth (model assumption)",
    "TP/SP, EP all-to-all and 1F1B pipeline sends are not overlapped with compute; CP ring "
    "exchange overlaps the attention core; DP overlaps the last micro-batch's backward except "
    "the last 40M-parameter bucket (model assumptions, Megatron-Core defaults)",
    "a job fits when weights, gradients, optimizer states and activations fill at most 90 % "
    "of HBM (the rest: CUDA context, NCCL buffers, fragmentation; model assumption)",
    "MoE tokens are balanced across experts (no dropping, no imbalance)",
    "energy: the design's devices at their maximum power for the whole step, times PUE "
    "(model assumption)",
)

__all__ = ["ASSUMPTIONS", "GpuCompute", "gpu_compute", "gpu_table"]
