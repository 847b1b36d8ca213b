"""What a GPU computes and stores (`resources/workload/gpu_compute.yaml`) and the efficiency
figures of the step-time model, each with its source or labelled a model assumption.

Peaks are the datasheets' dense tensor-core figures. No figure here is fitted to the published
training runs the estimates are compared with (docs/workload.md); none varies per run or device.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rackdesigner._resources import resources_root
from rackdesigner.catalog.filecache import parsed_file
from rackdesigner.yamlfile import resource_parser


@dataclass(frozen=True, slots=True)
class GpuCompute:
    model: str
    bf16_tflops: float
    fp8_tflops: float | None
    hbm_GB: float
    hbm_TBps: float
    sms: int  # streaming multiprocessors: the width of a wave of GEMM tiles
    source: str
    arch: str = ""  # ampere | hopper | blackwell (what efficiency profiles may tell apart)
    gemm_bf16: float = 0.0  # measured GEMM ceiling (MAMF / peak); 0: not measured
    gemm_fp8: float = 0.0
    hbm_MiB: int = 0  # what the driver reports; 0: not known (the datasheet figure is used)
    fp4_tflops: float | None = None  # dense NVFP4 (Blackwell); None: no FP4 tensor cores

    def peak_tflops(self, precision: str) -> float | None:
        """The dense tensor-core peak at `precision` (bf16, fp8, fp4); None: the GPU has no
        tensor cores for it."""
        if precision == "fp4":
            return self.fp4_tflops
        return self.bf16_tflops if precision == "bf16" else self.fp8_tflops

    def gemm_ceiling(self, precision: str) -> float:
        """The measured maximum achievable matmul throughput as a share of the dense peak
        (MAMF), else `GEMM_EFFICIENCY`. FP4 has no public MAMF measurement: it takes the GPU's
        FP8 ceiling (`FP4_GEMM_SOURCE`)."""
        low = precision in ("fp8", "fp4") and bool(self.peak_tflops(precision))
        return (self.gemm_fp8 if low else self.gemm_bf16) or GEMM_EFFICIENCY

    def gemm_efficiency(self, precision: str) -> float:
        """Share of the dense peak a training step's GEMM of whole waves of whole tiles
        sustains: `gemm_ceiling` times the share fitted for its precision (FP4's derived from
        FP8's by its halved K loop, `GEMM_SUSTAINED_FP4`)."""
        if precision == "fp4" and self.peak_tflops("fp4"):
            return self.gemm_ceiling(precision) * GEMM_SUSTAINED_FP4
        low = precision == "fp8" and bool(self.peak_tflops(precision))
        return self.gemm_ceiling(precision) * (GEMM_SUSTAINED_FP8 if low else GEMM_SUSTAINED)

    @property
    def capacity_GB(self) -> float:
        """HBM a process can allocate from, in GB (10^9 bytes): the driver's total."""
        return self.hbm_MiB * 2**20 / 1e9 if self.hbm_MiB else self.hbm_GB


@lru_cache(maxsize=1)
def gpu_table() -> dict[str, GpuCompute]:
    path = resources_root() / "workload" / "gpu_compute.yaml"
    data = parsed_file(path, resource_parser(path), "workload")  # kept parsed between runs
    out = {}
    for model, d in data["gpus"].items():
        eff = d.get("gemm_efficiency") or {}
        out[model] = GpuCompute(model, float(d["bf16_tflops"]),
                                None if d.get("fp8_tflops") is None else float(d["fp8_tflops"]),
                                float(d["hbm_GB"]), float(d["hbm_TBps"]), int(d["sms"]),
                                d["source"], str(d.get("arch", "")), float(eff.get("bf16") or 0.0),
                                float(eff.get("fp8") or 0.0), int(d.get("hbm_MiB") or 0),
                                None if d.get("fp4_tflops") is None else float(d["fp4_tflops"]))
    return out


def gpu_compute(model: str) -> GpuCompute | None:
    return gpu_table().get(model)


#: Precisions a GEMM may run in; fp8 and fp4 are the low ones (quantized GEMM inputs, a cast
#: per tensor, FP8-sized stored activations in training: `is_low`).
PRECISIONS = ("bf16", "fp8", "fp4")
#: Bytes per GEMM input element at each precision: NVFP4 is 4-bit values with one FP8 (E4M3)
#: scale per 16-element block (NVIDIA technical blog "Introducing NVFP4 for Efficient and
#: Accurate Low-Precision Inference", 2025: 16-value micro-blocks, E4M3 scale), 0.5 + 1/16.
INPUT_BYTES = {"bf16": 2.0, "fp8": 1.0, "fp4": 0.5 + 1.0 / 16.0}
FP4_GEMM_SOURCE = ("FP4 GEMMs: no public maximum-achievable-matmul measurement; model "
                   "assumption: the GPU's measured FP8 share of peak (B200 0.76, GB200 0.72) "
                   "applied to the dense NVFP4 peak")


def is_low(precision: str) -> bool:
    """FP8 or FP4: GEMM inputs quantized (a cast per tensor); otherwise bf16."""
    return precision in ("fp8", "fp4")


def precision_error(gpu: GpuCompute, precision: str) -> str | None:
    """Why `gpu` cannot run `precision` (None: it can)."""
    if precision not in PRECISIONS:
        return f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}"
    if gpu.peak_tflops(precision) is None:
        return (f"{gpu.model} has no {precision.upper()} tensor cores (" + ", ".join(
            p for p in PRECISIONS if gpu.peak_tflops(p) is not None) + " only)")
    return None


# ---- efficiencies ------------------------------------------------------------------------------
#: Ceiling share of the tensor-core peak a large matrix multiply sustains where the GPU has no
#: measured figure (`gemm_efficiency` in gpu_compute.yaml: the maximum achievable matmul FLOPS
#: measured per GPU and precision, 0.71-0.87). Dao (FlashAttention-2, arXiv:2307.08691, section
#: 1): optimized GEMMs reach 80-90 % of the theoretical maximum; we take the lower end. It
#: applies to GEMMs whose tiles fill whole waves of the SMs; smaller and ragged GEMMs lose their
#: partial tiles and waves and may be bound by HBM (`workload/gemm.py`).
GEMM_EFFICIENCY = 0.80
#: Share of that ceiling a training step's GEMMs sustain: the MAMF is the best shape of a
#: brute-force search, run alone on one GPU; in a training step the GEMMs have the model's
#: shapes, epilogues (bias, FP8 scaling, gradient accumulation) and share the node's power with
#: HBM- and NVLink-heavy kernels. No public measurement isolates it: it is FITTED, for BF16
#: GEMMs, on the calibration set of published runs (benchmarks/workload_runs.yaml, `set:
#: calibration`; `python3 benchmarks/workload_calibrate.py` reproduces the fit), and checked on
#: the validation set.
GEMM_SUSTAINED = 0.82
#: The same share for FP8 GEMMs, fitted apart (on the calibration set's FP8 runs): a step's FP8
#: GEMMs lose more of their MAMF than its BF16 ones. What an FP8 GEMM of a training step does
#: that the MAMF benchmark (one GEMM alone, at most one scale per tensor, the best of a sweep)
#: does not: its K loop takes half the time of the BF16 one at the same shape, so what each tile
#: costs besides it (loading the first K blocks, the epilogue that scales the accumulator and
#: writes the BF16 output) weighs twice as much; Blackwell's MXFP8 GEMMs also stream one E8M0
#: scale per 32 elements of each operand (Transformer Engine MXFP8 recipe;
#: NVIDIA Transformer Engine user guide, "Using FP8 with Transformer Engine": MXFP8 blocks of
#: 32 elements, each with its own E8M0 scale). One figure for every GPU: no public
#: measurement isolates the loss, so it is FITTED (benchmarks/workload_calibrate.py) and checked
#: on the validation set's FP8 runs. The FP8 casts themselves are memory-bound kernels priced
#: by their bytes (profile `ops.fp8_cast`), and the output layer stays BF16 (compute.py).
GEMM_SUSTAINED_FP8 = 0.70


def halved_k_loop_share(share: float) -> float:
    """The share a GEMM sustains when its K loop takes half as long at the same shape (the
    next lower precision's tensor cores, twice the peak) and what each tile costs besides the
    loop (the first K blocks' loads, the epilogue that scales and writes the output) does not
    change: with the loop L and the rest R, share = L / (L + R), so R / L = (1 - share) / share
    and the halved loop sustains (L/2) / (L/2 + R). The mechanism behind the FP8 share (above):
    from the BF16 share it gives 0.695, the FP8 share fitted apart on the calibration runs is
    0.70."""
    return 0.5 * share / (0.5 * share + 1.0 - share)


#: The same share for NVFP4 GEMMs (Blackwell FP4 tensor cores, twice the FP8 peak): DERIVED,
#: not fitted — FP8's fitted share with the K loop halved again (`halved_k_loop_share`): 0.54.
#: NVFP4 adds to that an FP8 (E4M3) scale per 16 elements and a second-level fp32 scale per
#: tensor (NVIDIA, "Pretraining Large Language Models with NVFP4", arXiv:2509.25149), whose
#: loads and scaling belong to the per-tile work that does not shrink. Checked on NeMo 26.02's
#: NVFP4 rows (validation; issue 33, NVFP4 training).
GEMM_SUSTAINED_FP4 = halved_k_loop_share(GEMM_SUSTAINED_FP8)
GEMM_SOURCE = ("GEMM ceiling: the GPU's measured maximum achievable matmul throughput per "
               "precision (stas00/ml-engineering MAMF table: A100 0.87, H100 0.80 BF16 / 0.71 FP8, "
               "B200 0.78 / 0.76, GB200 0.73 / 0.72 of peak; 0.80 where none is measured) x the "
               "share a training step sustains (GEMM_SUSTAINED 0.82 for BF16, "
               "GEMM_SUSTAINED_FP8 0.70 for FP8, each fitted on the calibration runs of its "
               "precision; NVFP4 0.54, derived from FP8's with its K loop halved again; the "
               "output layer stays BF16), "
               "reached by GEMMs whose 256x128 output tiles fill whole waves of the GPU's SMs; "
               "partial tiles and waves cost whole ones (NVIDIA Matrix Multiplication Background "
               "User's Guide; the tile shape is a model assumption) and no GEMM runs faster than "
               "its operands' HBM traffic")
ATTENTION_SOURCE = ("fused attention (flash profiles): the causal work it does (blocks above "
                    "the diagonal skipped) at the profile's share of the BF16 peak, forward "
                    "0.55 and backward 0.45 (2.5 x the forward FLOPs) by default "
                    "(FlashAttention-2/3 figures), times the share of the SMs' wave its thread "
                    "blocks (128 query rows x heads x sequences) fill; unfused attention "
                    "(megatron-2021): QK^T and AV as batched GEMMs by their shapes and the "
                    "softmax and dropout by their bytes over the scores")
#: Share of the HBM datasheet bandwidth memory-bound kernels sustain (model assumption; STREAM-
#: like copies on H100 measure about 90 % of 3.35 TB/s).
HBM_EFFICIENCY = 0.90
#: Megatron-Core's DDP bucket (`ddp_bucket_size` default: max(40,000,000, 1,000,000 x DP)
#: parameters, megatron/core/distributed/distributed_data_parallel.py): the last bucket's
#: reduction cannot overlap the backward pass.
#: How much longer a collective takes while it overlaps compute than alone (issue 33, W4). Its
#: kernels run one thread block per channel and are scheduled only on SMs the concurrent GEMM
#: waves leave free, and they share HBM and L2 with them: NCCL's standalone (nccl-tests) time is
#: its time on an idle GPU (the contention for SMs: NVIDIA developer forum, "Compute-
#: Communication Overlap Causes Severe GEMM Performance Degradation because of Tail Effect",
#: 2025; communication kernels starved of on-chip resources by resident compute kernels:
#: arXiv:2606.09200 §1). Overlap then hides less than the standalone time suggests, and a
#: collective whose standalone time fits behind its compute with a margin of less than this
#: factor is partly exposed (FSDP's per-layer gathers on hundreds of GPUs). **Fitted** on the
#: shape of the calibration set's FSDP weak-scaling series (each run's throughput relative to the
#: series' first: benchmarks/workload_calibrate.py --only overlap); the level of those runs,
#: which carries a CPU offloading the estimator does not model, is not fitted on.
OVERLAP_STRETCH = 1.2
DDP_BUCKET_PARAMS = 40_000_000
#: Bytes per parameter: bf16 weights, fp32 gradients (Megatron accumulates and reduces
#: gradients in fp32 with --bf16), fp32 master weights + Adam moments (Korthikanti et al.
#: 2022 / Rajbhandari et al. 2020 mixed-precision Adam: 2 + 4 + 12).
WEIGHT_BYTES = 2
GRAD_BYTES = 4
OPTIMIZER_BYTES = 12
#: What a job cannot fill of the HBM the driver reports: a fixed runtime reserve (CUDA context
#: about 0.5 GB, NCCL's buffers for the job's several communicators about 2 GB, cuBLAS and
#: Transformer Engine workspaces about 0.5 GB) plus the caching allocator's fragmentation, a
#: share of the capacity (model assumptions, stated in every estimate). The share is 2 %: the
#: tightest published layout, NeMo 24.07's Nemotron-4 340B on 128 H100 (TP 8, PP 8, VP 12,
#: FP8), needs 80.4 GB by this model and ran, so the line cannot be lower than that on an H100
#: (85.5 GB: 2 % and 3 GB leave 80.8); large-run stacks use PyTorch's expandable-segments
#: allocator, which keeps fragmentation that low.
RUNTIME_RESERVE_GB = 3.0
FRAGMENTATION = 0.02
USABLE_SOURCE = ("usable HBM = the capacity the driver reports (nvidia-smi total: H100 81,559 MiB "
                 "= 85.5 GB) less a 3 GB runtime reserve (CUDA context, NCCL buffers, "
                 "workspaces) and 2 % for allocator fragmentation (model assumptions; no "
                 "published layout needs more than that leaves)")
#: Activations and the TP/SP/CP/EP/PP messages travel in bf16 (2 bytes) in both precisions.
ACT_BYTES = 2

def fp8_weight_bytes(gpu: GpuCompute) -> float:
    """Bytes per parameter of FP8 weights: one, plus a transposed FP8 copy where FP8 GEMMs read
    only the TN layout (Hopper; Transformer Engine `is_non_tn_fp8_gemm_supported()` is true from
    compute capability 10.0, Blackwell, which reads any layout and keeps no transpose)."""
    return 2.0 if gpu.arch == "hopper" else 1.0


def usable_GB(capacity_GB: float) -> float:
    """HBM a job may fill: the capacity less the runtime reserve and fragmentation."""
    return max(0.0, capacity_GB * (1.0 - FRAGMENTATION) - RUNTIME_RESERVE_GB)


ASSUMPTIONS = (
    GEMM_SOURCE,
    FP4_GEMM_SOURCE,
    ATTENTION_SOURCE,
    "GEMM HBM traffic: inputs and output once; weight gradients accumulate into fp32 main "
    "gradients (read and written: Megatron's gradient-accumulation fusion; model assumption)",
    "memory-bound kernels (norms, residual adds, dropout, activations, RoPE, FP8 casts, "
    "softmax, cross-entropy, MoE permutation) by the HBM bytes the efficiency profile gives "
    "per element, at 90 % of HBM bandwidth, plus the profile's gap per kernel launch",
    "overlap as the efficiency profile says: TP/SP collectives pipelined with their GEMMs, DP "
    "reduction behind the backward except the last 40M-parameter bucket, FSDP gathers one "
    "layer ahead, EP all-to-all behind another micro-batch's compute; an overlapped collective "
    "takes the profile's SMs from the compute it hides behind and runs "
    f"{OVERLAP_STRETCH:g} times its standalone time (fitted on an FSDP weak-scaling series); "
    "CP ring exchange overlaps the "
    "attention core; 1F1B pipeline sends block (model assumptions)",
    USABLE_SOURCE,
    "MoE tokens are balanced across experts (no dropping, no imbalance: NVIDIA's benchmarks "
    "force-balance them); local experts run as the profile says (nemo-2025: one GEMM each on "
    "Transformer Engine's 4 streams); dropless dispatch waits on the host for the profile's "
    "moe.dispatch_host_us per MoE layer and micro-batch (nemo-2025: 7 ms, fitted on the "
    "calibration set's MoE runs; nemo-2026: none, the 26.x recipes' sync-free dispatch)",
    "energy: the design's devices at their maximum power for the whole step, times PUE "
    "(model assumption)",
)

__all__ = ["ASSUMPTIONS", "INPUT_BYTES", "PRECISIONS", "GpuCompute", "fp8_weight_bytes",
           "gpu_compute", "gpu_table", "is_low", "precision_error", "usable_GB"]
