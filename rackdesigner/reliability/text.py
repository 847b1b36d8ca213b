"""The reliability assessment as text (`rackdesigner reliability FILE`)."""

from __future__ import annotations

import io
import math

from rackdesigner.io.sanitize import shown
from rackdesigner.reliability.report import Assessment


def format_assessment(a: Assessment) -> str:
    out = io.StringIO()
    w = out.write
    scope = (f"{a.scope_gpus:,} of {a.gpus:,} GPUs" if a.scope_gpus != a.gpus
             else f"{a.gpus:,} GPUs")
    w(f"Reliability of {shown(a.design)} (a job on {scope})\n")  # one name, one line
    mtbf = f"{a.mtbf_hours:,.1f} h" if math.isfinite(a.mtbf_hours) else "no interruption"
    w(f"  interruptions     {a.interruptions_per_day:,.2f} per day (MTBF {mtbf})\n")
    if a.degradations_per_day:
        w(f"  degradations      {a.degradations_per_day:,.2f} per day (faults that cost "
          "bandwidth and stop no GPU: spines, cores)\n")
    w(f"  blast radius      {a.blast_radius_gpus:,} GPUs at most per fault "
      f"(largest NVLink domain {a.structure.nvlink_domain_max:,})\n")
    c = a.checkpoint
    how = "given" if c.chosen else "Daly optimum"
    w(f"  checkpoint        every {c.interval_s / 60:,.1f} min ({how}), "
      f"write {c.write_s:,.1f} s\n")
    w(f"                    {c.basis}\n")
    w(f"  restart           {a.restart_s / 60:,.1f} min from fault to training\n")
    w(f"  ETTR              {a.ettr:.1%}\n")
    if a.spares is not None:
        w(f"  spares            {a.spares:,} GPUs: the job has its GPUs {a.p_job_runs:.1%} of "
          f"the time ({a.gpus_out_mean:,.0f} GPUs out for repair on average; "
          f"{a.spares_for_99:,} spares for 99 %)\n")
    else:
        w(f"  spares            assumed at hand ({a.gpus_out_mean:,.0f} GPUs out for repair "
          f"on average; {a.spares_for_99:,} spares for 99 %)\n")
    w(f"  goodput           {a.goodput:.1%} of the wall-clock time trains\n")
    if a.job is not None and a.job.params is not None:  # a training job, not only a group
        j = a.job
        w(f"  job               {shown(j.label)}\n")
        eff = a.effective_tokens_per_s
        if eff is not None and j.tokens_per_s:
            w(f"  tokens/s          {j.tokens_per_s:,.0f} -> {eff:,.0f} effective\n")
        else:
            w("  tokens/s          — (the estimate has no step time: the job does not fit)\n")
        days = a.effective_days()
        if days is not None and math.isfinite(days) and j.tokens_per_s:
            plain = j.tokens / j.tokens_per_s / 86400 if j.tokens else 0.0
            w(f"  days to train     {days:,.1f} (without failures {plain:,.1f})\n")
    w("\nCauses (share of the interruptions; GPUs one fault stops):\n")
    shares = a.by_cause()
    rows = sorted((r for r in a.causes if r.interruptions_per_day > 0),
                  key=lambda r: -r.interruptions_per_day)
    labels = {r.name: shown(r.label) for r in rows}  # a user's library names its causes
    width = max((len(t) for t in labels.values()), default=10)
    for r in rows:
        w(f"  {labels[r.name].ljust(width)}  {shares[r.name]:6.1%}  "
          f"{r.interruptions_per_day:7.3f}/day"
          f"  {r.blast_max:,} GPUs\n")
    w(f"\nRates: {a.library}\n")
    for note in a.notes:
        w(f"Note: {note}\n")
    return out.getvalue()


__all__ = ["format_assessment"]
