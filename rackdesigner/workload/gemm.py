"""Time of one matrix multiply on one GPU from its shape: tile and wave quantization over the
GPU's SMs, bounded below by the HBM traffic of its operands (a roofline).

NVIDIA's *Matrix Multiplication Background User's Guide* (docs.nvidia.com/deeplearning/
performance/dl-performance-matrix-multiplication, sections "GPU Implementation" and "Dimension
Quantization Effects") describes how a GEMM C[M x N] = A[M x K] . B[K x N] runs: the output is cut
into tiles, one thread block computes one tile, the SMs run one wave of tiles at a time; a
partial tile costs a whole tile (tile quantization) and a partial wave costs a whole wave (wave
quantization). Its worked example is the 256 x 128 tile, one per SM, on the 108 SMs of an A100.
Here every GEMM uses that tile, in whichever orientation (256 x 128 or 128 x 256) leaves fewer
tiles; a tile runs at the SM's share of the ceiling efficiency (`hardware.GEMM_EFFICIENCY`),
so a GEMM whose M and N are multiples of the tile and whose tiles fill whole waves runs at the
ceiling, and smaller or ragged GEMMs run slower per FLOP. The tile shape is a model assumption
(libraries choose among several; smaller tiles and split-K help GEMMs of less than one wave,
which the model therefore prices on the slow side).

The same wave model gives the fused attention core: FlashAttention-2 (Dao, arXiv:2307.08691,
section 3.2) runs one thread block per block of 128 query rows, per head and sequence.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

#: The output tile one thread block computes: the 256 x 128 tile of the Matrix Multiplication
#: Background User's Guide's wave-quantization example, in either orientation (model
#: assumption: one tile shape for every GEMM, GPU generation and precision).
TILE = (256, 128)
#: Query rows per FlashAttention-2 thread block (the paper's block sizes are 64 or 128; model
#: assumption: 128).
ATTENTION_BLOCK = 128


@dataclass(frozen=True, slots=True)
class Gemm:
    """One GEMM of a layer on one GPU: C[m x n] = A[m x k] . B[k x n], `groups` alike ones run
    as one grouped kernel (the local experts of an MoE layer), `count` times per layer."""

    name: str
    m: float
    n: float
    k: float
    groups: int = 1
    count: float = 1.0
    streams: int = 0  # 0: the groups run as one grouped kernel; else one GEMM per group, this
    #                   many at a time (Transformer Engine's GroupedLinear: 4 streams)

    @property
    def kernels(self) -> float:
        """Kernel launches of all its instances."""
        return self.count * (self.groups if self.streams else 1)

    @property
    def flops(self) -> float:
        return 2.0 * self.m * self.n * self.k * self.groups * self.count

    def dgrad(self) -> Gemm:
        """Backward, gradient of the input: dA[m x k] = dC[m x n] . B^T."""
        return Gemm(self.name + ".dgrad", self.m, self.k, self.n, self.groups, self.count,
                    self.streams)

    def wgrad(self) -> Gemm:
        """Backward, gradient of the weight: dB[k x n] = A^T . dC (inner dimension m)."""
        return Gemm(self.name + ".wgrad", self.k, self.n, self.m, self.groups, self.count,
                    self.streams)


@dataclass(frozen=True, slots=True)
class Device:
    """What the GEMM time needs of a GPU at a precision."""

    sms: int
    flops_per_s: float  # the ceiling: peak x GEMM efficiency
    bytes_per_s: float  # HBM bandwidth x HBM efficiency
    in_bytes: float  # bytes per input element (2 bf16, 1 fp8)
    out_bytes: float = 2.0  # bytes per output element (bf16)


def tiles(m: float, n: float) -> int:
    """Output tiles of an m x n result in the orientation that leaves fewer of them."""
    a, b = TILE
    return min(math.ceil(m / a) * math.ceil(n / b), math.ceil(m / b) * math.ceil(n / a))


def waves(m: float, n: float, sms: int, groups: int = 1, streams: int = 0) -> int:
    """Waves of tiles: all groups' tiles packed together (one grouped kernel), or, with
    `streams`, rounds of that many GEMMs sharing the SMs, each round a whole number of waves."""
    if streams and groups > streams:
        return math.ceil(groups / streams) * math.ceil(streams * tiles(m, n) / sms)
    return math.ceil(groups * tiles(m, n) / sms)


def compute_time_s(g: Gemm, dev: Device) -> float:
    """Wave-quantized math time of one instance of `g` (all its groups), no memory bound."""
    if g.m <= 0 or g.n <= 0 or g.k <= 0:
        return 0.0
    tile_flops = 2.0 * TILE[0] * TILE[1] * g.k
    return (waves(g.m, g.n, dev.sms, g.groups, g.streams) * tile_flops
            / (dev.flops_per_s / dev.sms))


def memory_time_s(g: Gemm, dev: Device, out_bytes: float | None = None) -> float:
    """HBM time of one instance: read A and B, write C, once each (every group)."""
    ob = dev.out_bytes if out_bytes is None else out_bytes
    per = (g.m * g.k + g.k * g.n) * dev.in_bytes + g.m * g.n * ob
    return g.groups * per / dev.bytes_per_s


def gemm_time_s(g: Gemm, dev: Device, out_bytes: float | None = None) -> float:
    """Time of `g` (all `count` instances): the slower of its wave-quantized math and its HBM
    traffic."""
    return g.count * max(compute_time_s(g, dev), memory_time_s(g, dev, out_bytes))


#: Bytes per element a weight-gradient GEMM writes: it accumulates into the fp32 main gradient
#: (Megatron's gradient-accumulation fusion), so it reads and writes 4 bytes.
WGRAD_OUT_BYTES = 8.0


def forward_s(gemms: Iterable[Gemm], dev: Device) -> float:
    return sum(gemm_time_s(g, dev) for g in gemms)


def backward_s(gemms: Iterable[Gemm], dev: Device) -> float:
    """Input-gradient and weight-gradient GEMMs of every forward GEMM."""
    return sum(gemm_time_s(g.dgrad(), dev) + gemm_time_s(g.wgrad(), dev, WGRAD_OUT_BYTES)
               for g in gemms)


def profile(g: Gemm, dev: Device, out_bytes: float | None = None) -> dict[str, object]:
    """What one GEMM costs and why, for reports: its shape, tiles and waves, what bounds it and
    the share of the ceiling it reaches."""
    math_s, hbm_s = compute_time_s(g, dev), memory_time_s(g, dev, out_bytes)
    t = max(math_s, hbm_s)
    ideal = 2.0 * g.m * g.n * g.k * g.groups / dev.flops_per_s
    return {"gemm": g.name, "m": round(g.m), "n": round(g.n), "k": round(g.k),
            "groups": g.groups, "tiles": g.groups * tiles(g.m, g.n),
            "waves": waves(g.m, g.n, dev.sms, g.groups, g.streams),
            "bound": "hbm" if hbm_s > math_s else "math",
            "time_us": round(g.count * t * 1e6, 2),
            "of_ceiling": round(ideal / t, 3) if t else 0.0}


def profiles(gemms: Iterable[Gemm], dev: Device) -> list[dict[str, object]]:
    """`profile` of every GEMM and of its two backward GEMMs."""
    out = []
    for g in gemms:
        out += [profile(g, dev), profile(g.dgrad(), dev),
                profile(g.wgrad(), dev, WGRAD_OUT_BYTES)]
    return out


def attention_wave_efficiency(batch: int, heads: float, q_rows: float, sms: int) -> float:
    """Share of the SMs' wave slots the FlashAttention thread blocks fill: one block per 128
    query rows per head per sequence (1.0 when they fill whole waves)."""
    blocks = batch * max(1, math.ceil(heads)) * math.ceil(q_rows / ATTENTION_BLOCK)
    if blocks <= 0:
        return 1.0
    return blocks / (math.ceil(blocks / sms) * sms)


__all__ = ["ATTENTION_BLOCK", "TILE", "WGRAD_OUT_BYTES", "Device", "Gemm",
           "attention_wave_efficiency", "backward_s", "compute_time_s", "forward_s",
           "gemm_time_s", "memory_time_s", "profile", "profiles", "tiles", "waves"]
