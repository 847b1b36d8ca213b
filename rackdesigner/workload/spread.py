"""How far published runs of an estimate's class fall from the model: the range a training
figure carries (issue #33: "figures with honest ranges").

The spread is the validation set's (benchmarks/workload_runs.yaml, `set: validation`): for each
class of runs, the 5th and 95th percentiles of measured / predicted throughput, written to
`resources/workload/spread.yaml` by `python3 benchmarks/workload_validation.py --write-spread`
(calibration runs are left out: the fitted constants were chosen on them). A figure's range is
the figure scaled by those two ratios: "2,350 tokens/s/GPU; published runs of this class:
2,050-2,700". The JSON shape is the one the collective figures use: `{"range": [lo, hi],
"class": name}`.

Classes are what the residuals differ by, not runs: dense and mixture-of-experts training.
A class with no spread on file (a user's own stack or GPU is still one of the two) gives no
range rather than a made-up one.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rackdesigner._resources import resources_root
from rackdesigner.catalog.filecache import parsed_file
from rackdesigner.yamlfile import resource_parser

#: Percentiles of measured / predicted throughput that bound a range (a 90 % band).
PERCENTILES = (0.05, 0.95)
CLASSES = ("training-dense", "training-moe")


def training_class(moe: bool) -> str:
    """The class an estimate's residual is taken from: MoE or dense training."""
    return CLASSES[1] if moe else CLASSES[0]


@lru_cache(maxsize=1)
def spread_table() -> dict[str, tuple[float, float]]:
    """{class: (low, high) ratio of measured to predicted throughput}."""
    path = resources_root() / "workload" / "spread.yaml"
    if not path.exists():
        return {}
    data = parsed_file(path, resource_parser(path), "workload") or {}
    return {name: (float(c["ratio"][0]), float(c["ratio"][1]))
            for name, c in (data.get("classes") or {}).items()}


def throughput_range(value: float | None, cls: str) -> dict[str, Any] | None:
    """`{"range": [lo, hi], "class": cls}` for a throughput-like figure (tokens/s, MFU,
    TFLOP/s): the figure times the class's two ratios; None without a value or a spread."""
    ratios = spread_table().get(cls)
    if value is None or ratios is None:
        return None
    return {"range": [_round(value * ratios[0]), _round(value * ratios[1])], "class": cls}


def time_range(value: float | None, cls: str) -> dict[str, Any] | None:
    """The same for a time (step time, days to train): it moves inversely to throughput."""
    ratios = spread_table().get(cls)
    if value is None or ratios is None:
        return None
    return {"range": [_round(value / ratios[1]), _round(value / ratios[0])], "class": cls}


def quantile(values: list[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default method) of a non-empty list."""
    xs = sorted(values)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def spread_of(ratios: list[float]) -> tuple[float, float]:
    """The class's band from its runs' measured / predicted ratios."""
    return quantile(ratios, PERCENTILES[0]), quantile(ratios, PERCENTILES[1])


def _round(x: float) -> float:
    return float(f"{x:.4g}")


__all__ = ["CLASSES", "PERCENTILES", "quantile", "spread_of", "spread_table", "throughput_range",
           "time_range", "training_class"]
