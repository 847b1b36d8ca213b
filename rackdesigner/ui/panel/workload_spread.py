"""The Workload tab's line of ranges: where published runs of the estimate's class fall around
its figures (rackdesigner/workload/spread.py; Estimate.ranges)."""

from __future__ import annotations

from collections.abc import Callable

from rackdesigner.workload import Estimate

#: (label, Estimate.ranges key, format; None: the tab's own seconds format)
_FIGURES = (("step", "step_time_s", None), ("tokens/s", "tokens_per_s", "{:,.0f}"),
            ("MFU", "mfu", "{:.1%}"), ("days", "time_to_train_days", "{:,.1f}"))


def spread_line(est: Estimate, seconds: Callable[[float], str]) -> str:
    """'Published runs of this class (…): step 3.8 s–5.2 s, tokens/s …', or '' without a
    range (not timed, or no spread on file for the class)."""
    ranges = est.ranges()
    parts = []
    for label, key, fmt in _FIGURES:
        r = ranges.get(key)
        if r is None:
            continue
        lo, hi = r["range"]
        text = (f"{seconds(lo)}–{seconds(hi)}" if fmt is None
                else f"{fmt.format(lo)}–{fmt.format(hi)}")
        parts.append(f"{label} {text}")
    if not parts:
        return ""
    return (f"Published runs of this class ({est.spread_class}, 5–95 % of the validation set): "
            + ", ".join(parts))


__all__ = ["spread_line"]
