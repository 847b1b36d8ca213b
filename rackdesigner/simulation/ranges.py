"""Figures with honest ranges: the spread a fitted figure's class shows on published runs.

A collective figure rests on a model with fitted parts (per-NIC shares, fills, floors), checked
on published nccl-tests runs nothing was fitted on (the validation set of
`benchmarks/published/nccl_tests.yaml`). Each headline figure gets the spread its *class* shows
there: for every validation run of the class, published / simulated; the range of a new figure
is the figure times the smallest and largest of those ratios ("321 GB/s; published clusters of
this class: 300-390"). A class with fewer than `MIN_RUNS` validation runs gives no range: the
tool does not claim a spread it has not seen.

Classes follow what moves the error (docs/simulation.md section 9): the message-size region
(latency-bound, mid sizes, large), then for large messages the algorithm NCCL runs and whether it
crosses the network between NVLink domains. The ratios are derived by
`python3 benchmarks/published_vs_model.py --ranges` and shipped in
`resources/simulation/ranges.yaml`; a test checks they are what the table gives.

The JSON form is `{"range": [lo, hi], "class": name}`, the same for every figure that carries
one (training figures use it too); `range_tie` says whether a winner lies inside another
figure's range.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rackdesigner._resources import resources_root
from rackdesigner.catalog.filecache import parsed_file
from rackdesigner.yamlfile import resource_parser

#: fewer validation runs than this in a class: no range
MIN_RUNS = 3
MIB = 1 << 20
#: the message-size regions (bytes): below the first the latency region, below the second
#: the mid sizes where protocol and channel choices move the curve
LATENCY_REGION = 1 * MIB
MID_SIZES = 128 * MIB
#: class of a large-message figure across NVLink domains, by the algorithm NCCL runs
ACROSS = {"ring": "ring-across-domains", "tree": "tree-across-domains",
          "nvls_tree": "nvls-tree-across-domains", "collnet_direct": "in-network-reduction",
          "nvls": "in-network-reduction", "p2p": "point-to-point-across-domains"}
#: transports whose figures across domains form classes of their own (collective_class)
OWN_CLASS = frozenset({"efa"})
LABELS = {
    "efa-mid-sizes": "EFA across nodes, messages of 1-128 MiB",
    "efa-across-domains": "EFA across nodes, messages of 128 MiB and more",
    "latency-region": "messages under 1 MiB",
    "mid-sizes": "messages of 1-128 MiB",
    "one-domain": "one NVLink domain",
    "ring-across-domains": "rings across NVLink domains",
    "tree-across-domains": "trees across NVLink domains",
    "nvls-tree-across-domains": "NVLS-trees across NVLink domains",
    "in-network-reduction": "in-network reduction (SHARP)",
    "point-to-point-across-domains": "point-to-point across NVLink domains",
}


@dataclass(frozen=True, slots=True)
class ClassSpread:
    """published / simulated over a class's validation runs."""

    name: str
    lo: float
    hi: float
    runs: int

    @property
    def label(self) -> str:
        return LABELS.get(self.name, self.name)


@dataclass(frozen=True, slots=True)
class FigureRange:
    """The range a figure's class gives it, in the figure's own unit."""

    cls: str
    lo: float
    hi: float
    runs: int

    @property
    def label(self) -> str:
        return LABELS.get(self.cls, self.cls)

    def contains(self, value: float) -> bool:
        return self.lo <= value <= self.hi

    def to_dict(self) -> dict[str, Any]:
        return {"range": [round(self.lo, 3), round(self.hi, 3)], "class": self.cls}

    def text(self, fmt: Any = lambda v: f"{v:,.0f}") -> str:
        """"published clusters of this class (rings across NVLink domains, 11 runs): 300-390"."""
        return (f"published clusters of this class ({self.label}, {self.runs} runs): "
                f"{fmt(self.lo)}–{fmt(self.hi)}")


def collective_class(algorithm: str, domains: int, size: int,
                     transport: str | None = None) -> str:
    """The class of a collective figure: its size region, then for large messages the
    algorithm and whether it crosses the network between NVLink domains. A figure across
    domains over a transport of its own (EFA: its net plugin and the plugin's tuner choose
    differently from NCCL over InfiniBand) is a class of its own, by size region."""
    if size < LATENCY_REGION:
        return "latency-region"
    if transport in OWN_CLASS and domains > 1:
        return f"{transport}-{'mid-sizes' if size < MID_SIZES else 'across-domains'}"
    if size < MID_SIZES:
        return "mid-sizes"
    if domains <= 1:
        return "one-domain"
    return ACROSS.get(algorithm, f"{algorithm}-across-domains")


@functools.lru_cache(maxsize=1)
def spreads() -> dict[str, ClassSpread]:
    """The shipped class spreads (resources/simulation/ranges.yaml)."""
    path = resources_root() / "simulation" / "ranges.yaml"
    data = parsed_file(path, resource_parser(path), "simulation")
    out = {}
    for name, row in (data.get("classes") or {}).items():
        out[name] = ClassSpread(name, float(row["lo"]), float(row["hi"]), int(row["runs"]))
    return out



def bandwidth_range(value: float, algorithm: str, domains: int, size: int,
                    transport: str | None = None) -> FigureRange | None:
    """The range of a bandwidth figure (busbw, algbw): value x [lo, hi] of its class."""
    spread = spreads().get(collective_class(algorithm, domains, size, transport))
    if spread is None or spread.runs < MIN_RUNS or not value > 0:
        return None
    return FigureRange(spread.name, value * spread.lo, value * spread.hi, spread.runs)


def time_range(value: float, algorithm: str, domains: int, size: int,
               transport: str | None = None) -> FigureRange | None:
    """The range of a time figure: a faster published run is a higher ratio, so value / hi to
    value / lo."""
    spread = spreads().get(collective_class(algorithm, domains, size, transport))
    if spread is None or spread.runs < MIN_RUNS or not value > 0:
        return None
    return FigureRange(spread.name, value / spread.hi, value / spread.lo, spread.runs)


def derive_spreads(rows: Sequence[tuple[str, float]]) -> dict[str, ClassSpread]:
    """Class spreads from (class, published / simulated) pairs of the validation runs."""
    by: dict[str, list[float]] = {}
    for cls, ratio in rows:
        by.setdefault(cls, []).append(ratio)
    return {cls: ClassSpread(cls, min(r), max(r), len(r)) for cls, r in sorted(by.items())}


def range_tie(values: Sequence[float | None], ranges: Sequence[FigureRange | None],
              winner: int) -> bool:
    """True when the winner's value lies inside another figure's range: the difference is
    within what published clusters of that class spread over, so it is not a win."""
    best = values[winner]
    if best is None:
        return False
    return any(i != winner and r is not None and r.contains(best)
               for i, r in enumerate(ranges))
