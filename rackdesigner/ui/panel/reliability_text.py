"""The Reliability tab's text (`reliability_tab.py`): the summary of the assessment and the line
of the Workload tab's job with failures — rich text whose inserted names are escaped."""

from __future__ import annotations

import math
from html import escape
from typing import Any


def job_html(a: Any, cost: Any = None) -> str:
    """The Workload tab's job with failures: effective tokens/s, days and dollars to train."""
    from rackdesigner.cost.compare import effective_cost_to_train

    j = a.job
    lines = [f"Workload tab's job: {escape(j.label)}"]
    if j.tokens_per_s:
        lines.append(f"{j.tokens_per_s:,.0f} tokens/s &rarr; <b>{a.effective_tokens_per_s:,.0f}"
                     f"</b> effective tokens/s")
    days = a.effective_days()
    if days is not None and j.tokens_per_s and math.isfinite(days):
        plain_days = j.tokens / j.tokens_per_s / 86400
        lines.append(f"{plain_days:,.1f} &rarr; <b>{days:,.1f} days</b> to train "
                     f"{j.tokens / 1e12:,.3g}T tokens with failures")
    elif not j.tokens:
        lines.append("set the tokens to train in the Workload tab for days and dollars")
    dollars = effective_cost_to_train(cost, a) if cost is not None and days else None
    plain_cost = cost.cost_to_train() if cost is not None else None
    if dollars is not None and plain_cost is not None:
        symbol = escape(cost.book.symbol)
        lines.append(f"{symbol}{plain_cost:,.0f} &rarr; <b>{symbol}{dollars:,.0f}</b> to train "
                     "with the work failures lose")
    elif days:
        lines.append("dollars: once the Cost tab has priced the design")
    return "<br>".join(lines)


def summary_html(a: Any) -> str:
    mtbf = f"{a.mtbf_hours:,.1f} h" if math.isfinite(a.mtbf_hours) else "—"
    cp = a.checkpoint
    how = "given" if cp.chosen else "optimum"
    lines = [
        f"<b>{a.interruptions_per_day:,.2f}</b> interruptions per day "
        f"(MTBF <b>{mtbf}</b>) for a job on {a.scope_gpus:,} GPUs",
        f"One fault stops up to <b>{a.blast_radius_gpus:,}</b> GPUs "
        f"(largest NVLink domain {a.structure.nvlink_domain_max:,})",
        f"Checkpoint every <b>{cp.interval_s / 60:,.1f} min</b> ({how}), written in "
        f"{cp.write_s:,.1f} s; restart {a.restart_s / 60:,.0f} min",
        f"ETTR <b>{a.ettr:.1%}</b>; time that trains <b>{a.goodput:.1%}</b>"
        + (f" with {a.spares:,} spares ({a.spares_for_99:,} for 99 %)" if a.spares is not None
           else f" (spares assumed; {a.spares_for_99:,} for 99 %)"),
    ]
    return "<br>".join(lines)


__all__ = ["job_html", "summary_html"]
