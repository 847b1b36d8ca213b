"""Collective timings following NCCL's public cost model, with bandwidths from link loads.

For every collective, algorithm and protocol NCCL predicts `time = latency + bytes / (1000 *
algbw)` (µs, GB/s) and runs the fastest; we do the same for each nccl-tests size. Latencies and
protocol/algorithm refinements are NCCL's (`constants.py`); the bandwidth each algorithm starts
from is what the algorithm's traffic pattern can push through *this* layout's links
(`collective_candidates.py` says how, per algorithm).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rackdesigner import vocabulary
from rackdesigner.simulation import constants as C
from rackdesigner.simulation import plugin_tuner
from rackdesigner.simulation.collective_candidates import Candidate, CandidateModel
from rackdesigner.simulation.collective_parts import (
    busbw_factor,
    nvls_chunk_bytes,
    nvls_gpu_share,
    nvls_tree_chunk_bytes,
    small_size_channels,
    tree_levels,
    with_floor,
)

COLLECTIVES = vocabulary.GROUP_COLLECTIVES
ALGORITHM_CHOICES = vocabulary.ALGORITHM_CHOICES
#: the parts' public names, read through this module by older callers and tests
__all__ = ["ALGORITHM_CHOICES", "COLLECTIVES", "CollectiveModel", "Point", "busbw_factor",
           "nvls_chunk_bytes", "nvls_gpu_share", "nvls_tree_chunk_bytes", "point_at",
           "small_size_channels", "tree_levels", "with_floor"]


@dataclass(frozen=True, slots=True)
class Point:
    """One row of an nccl-tests-like table."""

    bytes: int
    time_us: float
    algbw_GBps: float
    busbw_GBps: float
    algorithm: str
    protocol: str

    def to_dict(self) -> dict:
        return {"bytes": self.bytes, "time_us": round(self.time_us, 3),
                "algbw_GBps": round(self.algbw_GBps, 3), "busbw_GBps": round(self.busbw_GBps, 3),
                "algorithm": self.algorithm, "protocol": self.protocol}


def point_at(points: Sequence[Point], size: float) -> Point | None:
    """The row of a size curve for a message of `size` bytes: the row of that size, else the
    first larger one (nccl-tests rounds a size between sweep steps up), else the largest row;
    None for an empty curve. The one rule every reader of "busbw at size S" uses."""
    for point in points:
        if point.bytes >= size:
            return point
    return points[-1] if points else None


class CollectiveModel(CandidateModel):
    """Predicted times for one scope; `sweep(collective)` gives the nccl-tests table."""

    # ---- candidates per algorithm ----------------------------------------------------------
    def candidates(self, coll: str) -> list[Candidate]:
        """Every way NCCL could run `coll` here (the algorithms its vocabulary entry lists;
        a point-to-point exchange by what crosses the network)."""
        entry = vocabulary.collective(coll)
        if self.s.n <= 1:
            return []
        if entry.traffic:
            return self.P2P[entry.traffic](self)
        ring = vocabulary.RINGS[entry.ring]
        out: list[Candidate] = []
        for algorithm in entry.algorithms:
            if self.release.missing(algorithm) is None:  # the cluster's NCCL has it
                out += self.ALGORITHMS[algorithm](self, ring)
        return [c for c in out if c.algbw > 0]
    def unavailable(self, algorithm: str, collective: str | None = None) -> str | None:
        """Why `collective` (default: the first collective `algorithm` can run, AllReduce for
        every NCCL algorithm) cannot run `algorithm` on this scope (None when it can)."""
        name = vocabulary.ALGORITHMS[algorithm].nccl
        coll = collective or vocabulary.first_running(name)
        if coll is None or name not in vocabulary.collective(coll).algorithms:
            return None  # auto, or an algorithm this collective never runs: the fastest runs
        if any(c.algorithm == name for c in self.candidates(coll)):
            return None
        s = self.s
        if s.n <= 1:
            return "fewer than two GPUs"
        missing = self.release.missing(name)
        if missing is not None:
            return missing
        if name in ("nvls", "nvls_tree") and self._nvls_channels() == 0:
            return ("NVLS needs Hopper or later GPUs of more than 2 per island, all NVLinks to "
                    "NVSwitches that support NVLink SHARP (nvls); this design has none")
        if name == "nvls_tree" and s.n_islands <= 1:
            return "NVLS-tree runs across islands (nodes); all GPUs here share one NVLink island"
        if name in ("nvls", "collnet_direct") and s.n_islands > 1:
            if not s.sharp_capable:
                missing = ", ".join(s.sharp_missing) or "no scale-out switch"
                return (f"in-network reduction across nodes needs SHARP on every switch in "
                        f"scope ({missing} cannot)")
            if not s.sharp:
                return ("in-network reduction (SHARP) is off for this design: set {sharp} "
                        "to on only if the cluster runs NCCL's SHARP plugin with an "
                        "aggregation manager")
        if name == "collnet_direct":
            if s.n_islands <= 1:
                return "CollNet reduces across nodes; all GPUs here share one NVLink island"
            if s.k > C.COLLNET_MAX_LOCAL_RANKS:
                return f"CollNet Direct takes at most {C.COLLNET_MAX_LOCAL_RANKS} GPUs per node"
            return "CollNet needs NVSwitch islands (or one GPU per node)"
        return f"{algorithm} does not apply to this design"

    # ---- sweep ----------------------------------------------------------------------------------
    def sweep(self, coll: str, sizes: tuple[int, ...] = C.SIZES) -> list[Point]:
        cands = self.candidates(coll)
        if not cands:
            return []
        forced = self.algorithm
        entry = vocabulary.collective(coll)
        if forced != "auto":
            name = vocabulary.ALGORITHMS[forced].nccl
            chosen = [c for c in cands if c.algorithm == name]
            if chosen:
                cands = chosen
            elif not entry.traffic:  # point-to-point exchanges have no algorithm to choose
                self.messages.append(f"{coll}: algorithm {forced} is not available here; "
                                     f"using the fastest available")
        factor = entry.busbw_factor(self.s.n if entry.group else 2)
        # a transport whose NCCL tuner plugin picks the algorithm (aws-ofi-nccl on EFA): its
        # region for the size, when it has one for this shape (uniform ranks per node)
        s = self.s
        k = s.k  # a property over every island: once, not once per island (4,095 at 32k)
        plugin = (forced == "auto" and s.n_islands > 1
                  and all(i.k == k for i in s.islands))
        pairs = {(c.algorithm, c.protocol) for c in cands}
        out = []
        for size in sizes:
            pick = (plugin_tuner.choice(s.transport, coll, k, s.n, size, pairs)
                    if plugin else None)
            pool = [c for c in cands if (c.algorithm, c.protocol) == pick] if pick else cands
            # each candidate's time as published runs show it: NCCL's cost model (latency +
            # size / algbw), on the channels NCCL keeps at this size, plus the pipeline fill and
            # the per-call floor that model leaves out; the fastest is reported. (Choosing on
            # NCCL's model alone, then adding the rest, made a 3-node broadcast faster than a
            # 2-node one: a tuner that ignores what it leaves out is not what the curves show.)
            best: tuple[float, Candidate] | None = None
            for c in pool:
                lat, bw = c.latency_us, c.algbw
                if c.adjust is not None:
                    lat, bw = c.adjust(size, lat, bw)
                share = c.share(size) if c.share is not None else 1.0
                t = lat + size / (1000.0 * bw * share)
                if c.fill is not None:
                    t += c.fill(size, bw)
                t = with_floor(t)
                if best is None or t < best[0]:
                    best = (t, c)
            assert best is not None
            t, c = best
            algbw = size / (t * 1000.0)
            out.append(Point(size, t, algbw, algbw * factor, c.algorithm, c.protocol))
        return out
