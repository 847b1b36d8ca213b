"""The NVLS figures of a scope: the channels of NCCL's NVLS graph and the NVLS busbw inside
the NVLink domains, which the NVLS and NVLS-tree candidates read. A part of `CandidateModel`
(`collective_candidates.py`, whose module docstring states the model and its sources)."""

from __future__ import annotations

from rackdesigner.simulation import constants as C
from rackdesigner.simulation.collective_parts import nvls_gpu_share
from rackdesigner.simulation.scope import ScopeModel


class NvlsFigures:
    """The NVLS figures part of `CandidateModel`."""

    s: ScopeModel
    nvls_arity: int

    def _nvls_channels(self) -> int:
        """Channels of NCCL's NVLS graph: one per head GPU, min(NVLS_MAX_ARITY, local GPUs);
        0 when NVLS cannot run (no NVLS switch, pre-Hopper GPUs, 2 GPUs or fewer)."""
        s = self.s
        if not s.islands or not all(i.nvls for i in s.islands):
            return 0
        local = min(i.k for i in s.islands)
        if local <= 2:
            return 0  # transport/nvls.cc ncclNvlsInit: no NVLS for 2 GPUs or fewer
        return min(self.nvls_arity, local)

    def _nvls_busbw(self, passes: int) -> tuple[int, float]:
        """(channels, NVLS busBw inside the islands): the slowest GPU's NVLink rate (hardware,
        per direction) x the architecture's measured NVLS busbw per GB/s of NVLink
        (constants.NVLS_BUSBW_PER_NVLINK, from published AllReduce runs: both passes);
        proportional to the links a GPU actually has. One pass (AllGather/ReduceScatter):
        half, x (ppn - 1) / ppn, as nvls.cc."""
        n_ch = self._nvls_channels()
        ratio = C.NVLS_BUSBW_PER_NVLINK.get(self.s.arch, 0.0)
        if n_ch == 0 or ratio <= 0:
            return 0, 0.0
        bus = ratio * min(i.nvlink_raw_min for i in self.s.islands)
        ppn = min(i.k for i in self.s.islands)
        if passes == 2:
            return n_ch, bus * nvls_gpu_share(ppn)
        return n_ch, bus / 2.0 * (ppn - 1) / ppn
