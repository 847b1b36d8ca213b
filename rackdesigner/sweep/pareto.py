"""The Pareto front of sweep results over two figures (each to maximise or minimise).

A point is on the front when no other point is at least as good on both figures and better on
one. Sorting once and scanning keeps it O(n log n), so a 100,000-point sweep is instant.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Figures where less is better (cost, power, size); everything else is taken as more is better.
LOWER_IS_BETTER = ("switches", "links", "cables", "transceivers", "racks", "power_max_w",
                   "power_typical_w", "step_time_s", "memory_per_gpu_GB", "energy_kWh_per_step",
                   "time_to_train_days", "energy_MWh", "design_errors", "design_warnings",
                   "capex", "unpriced_items", "tco", "usd_per_gpu_hour",
                   "interruptions_per_day", "blast_radius_gpus")


def lower_is_better(column: str) -> bool:
    return column in LOWER_IS_BETTER


def pareto_front(xs: Sequence[float | None], ys: Sequence[float | None], *,
                 maximize_x: bool = True, maximize_y: bool = True) -> list[int]:
    """Indices of the non-dominated points, by increasing x (points with a missing value never
    take part)."""
    sx = 1.0 if maximize_x else -1.0
    sy = 1.0 if maximize_y else -1.0
    valid = [(sx * float(x), sy * float(y), i) for i, (x, y) in enumerate(zip(xs, ys, strict=True))
             if x is not None and y is not None and x == x and y == y]
    # best x first; among equal x, best y first, so a tie on x is dominated by the first one
    valid.sort(key=lambda t: (-t[0], -t[1]))
    front: list[int] = []
    best_y = float("-inf")
    last: tuple[float, float] | None = None
    for x, y, i in valid:
        if y > best_y:
            front.append(i)
            best_y = y
            last = (x, y)
        elif last is not None and (x, y) == last:
            front.append(i)  # an exact duplicate of a front point is on the front too
    return sorted(front, key=lambda i: float(xs[i]))  # type: ignore[arg-type]
