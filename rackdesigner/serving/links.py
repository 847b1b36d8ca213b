"""Collective times of a serving instance on the drawn design, from the simulation engine.

The only serving module that asks `workload.comm.CommModel` (and through it the engine's
collective model on the drawn links) for a time. Instances of `gpus` GPUs are laid on the
scope's GPUs aligned to its NVLink domains (`aligned_starts`): an instance that fits in a domain
is placed inside one — a 72-GPU rack holds four 16-GPU instances and leaves 8 GPUs to nothing
rather than start a fifth across two racks —, a larger one spans whole domains in rank order.
A group inside an instance (a TP group, an EP group, a pipeline stage) is named by its shape.
A curve of sizes is evaluated at powers of four and interpolated linearly in between (a serving
estimate asks for hundreds of message sizes; the engine is asked for a few dozen), and each time
is stretched by the contention of the other instances running the same exchange at once
(`CommModel.contention`: the busiest network link's load over its capacity).
"""

from __future__ import annotations

import math

from rackdesigner.workload.comm import CommModel, GroupShape

#: Sizes the engine is asked for: powers of 4 bytes (times in between interpolated linearly: a
#: collective's time is affine in its size between the engine's protocol and algorithm steps).
GRID = 4.0


def domain_runs(comm: CommModel) -> list[int]:
    """Sizes of the scope's NVLink domains in rank order (consecutive ranks of one domain; a
    GPU in no domain is a domain of one)."""
    domain_of = comm.groups.shape().nvlink_domain_of
    runs: list[int] = []
    last: object = object()
    for g in comm.gpus:
        d = domain_of.get(g)
        if runs and d is not None and d == last:
            runs[-1] += 1
        else:
            runs.append(1)
        last = d
    return runs


def host_runs(comm: CommModel) -> list[int]:
    """Sizes of the scope's hosts in rank order (consecutive ranks of one device group: the
    GPUs of one DGX/HGX node or one GB200 compute tray)."""
    layout = comm.layout
    runs: list[int] = []
    last: object = object()
    for g in comm.gpus:
        host = layout.device(g).group or g
        if runs and host == last:
            runs[-1] += 1
        else:
            runs.append(1)
        last = host
    return runs


def aligned_starts(runs: list[int], size: int) -> list[int]:
    """First ranks of the instances of `size` GPUs on domains of `runs` GPUs (in rank order):
    as many as fit inside each domain when one fits in the largest domain, else rank-order
    tiles (each spanning domains)."""
    if size <= max(runs, default=0):
        starts, first = [], 0
        for n in runs:
            starts += [first + k * size for k in range(n // size)]
            first += n
        return starts
    return [k * size for k in range(sum(runs) // size)]


class Links:
    """Collective times for instances of `instance_gpus` GPUs laid over the scope."""

    def __init__(self, comm: CommModel, instance_gpus: int) -> None:
        self.comm = comm
        self.instance_gpus = instance_gpus
        runs = domain_runs(comm)
        self.starts = aligned_starts(runs, instance_gpus) or [0]
        #: whether an instance fits inside one NVLink domain (else it spans several)
        self.in_domain = instance_gpus <= max(runs, default=0)
        self.instances = len(self.starts)
        #: GPUs of the largest host (a device group: a DGX/HGX baseboard, a GB200 compute tray)
        #: among the scope's GPUs: a TP group no wider stays on one host's CUDA IPC memory
        self.host_gpus = max(host_runs(comm), default=1)
        self._cache: dict[tuple, float] = {}
        self._nvlink_Bps: dict[int, float] = {}

    def nvlink_Bps(self, group: int) -> float:
        """Bytes per second one GPU of a `group`-rank instance group moves over its NVLink
        (the engine's all-gather bus bandwidth at 64 MiB on the drawn links)."""
        if group not in self._nvlink_Bps:
            bw = self.comm.busbw_GBps("all_gather", GroupShape(1, group, 0), 64 * 2 ** 20)
            self._nvlink_Bps[group] = max(bw, 1.0) * 1e9
        return self._nvlink_Bps[group]

    def _exact(self, collective: str, shape: GroupShape, size: float) -> float:
        key = (collective, shape, size)
        t = self._cache.get(key)
        if t is None:
            t = self.comm.time_s(collective, shape, size)
            if t > 0 and self.instances > 1:
                starts = [shape.start + first for first in self.starts]
                stretch, _ = self.comm.contention(collective, shape, size, [starts])
                t *= stretch
            self._cache[key] = t
        return t

    def time(self, collective: str, size: float, group: int, stride: int = 1,
             start: int = 0) -> float:
        """Seconds for `collective` of `size` bytes (nccl-tests' convention) over `group`
        ranks `stride` apart from `start` of the first instance; 0 for one rank."""
        if group <= 1 or size <= 0:
            return 0.0
        shape = GroupShape(stride, group, start)
        lo = GRID ** math.floor(math.log(max(size, 1.0), GRID))
        if lo == size:
            return self._exact(collective, shape, size)
        hi = GRID * lo
        t_lo, t_hi = self._exact(collective, shape, lo), self._exact(collective, shape, hi)
        return t_lo + (t_hi - t_lo) * (size - lo) / (hi - lo)


__all__ = ["Links", "aligned_starts", "domain_runs", "host_runs"]
