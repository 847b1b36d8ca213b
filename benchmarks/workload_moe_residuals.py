"""What the published MoE runs leave once the modelled GPU work and communication are taken out:
the evidence behind issue 33's W3 (docs/workload.md, "Issue 33: the classes, by mechanism").

    python3 benchmarks/workload_moe_residuals.py [--stack nemo-2025] [--markdown]

Every MoE run of `benchmarks/workload_runs.yaml` is estimated with its profile's host dispatch
wait set to zero (`moe.dispatch_host_us: 0`, nothing else changed); the measured step time less
that estimate, divided by the MoE layers one micro-batch crosses on the busiest pipeline stage
(its fill and drain included), is what a mechanism would have to explain per MoE layer and
micro-batch. The runs are printed with what a candidate mechanism would scale with: the local
experts (experts / EP: the grouped GEMM's per-expert launches and casts, one by one on the
host), the tokens of a micro-batch, the precision and the stack's release. Negative: the model
is already slower than the run without any host wait (another term is too large, e.g. a
cross-node all-to-all).

Nothing here is fitted; the calibration fit of the wait is `benchmarks/workload_calibrate.py
--only moe`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload_validation import Run, evaluate, load_runs

from rackdesigner.workload import resolve_model
from rackdesigner.workload.costs import moe_share


def without_host_wait(runs: list[Run], folder: Path) -> list[Run]:
    """The runs with their profile's host dispatch wait at zero (a profile based on theirs)."""
    mapping = {}
    for stack in sorted({r.stack for r in runs}):
        path = folder / f"{stack}-no-host-wait.yaml"
        path.write_text(f"schema_version: 1\nbase: {stack}\nmoe: {{dispatch_host_us: 0}}\n",
                        encoding="utf-8")
        mapping[stack] = str(path)
    return [replace(r, stack=mapping[r.stack]) for r in runs]


def layer_passes(run: Run, estimate) -> float:
    """MoE layers one micro-batch crosses on the busiest stage, times the micro-batches, with
    the pipeline's fill and drain counted as (PP - 1) / VP more micro-batches."""
    model = resolve_model(run.model)
    job = estimate.job
    layers = -(-model.layers // job.pp) * moe_share(model)
    m = job.microbatches
    fill = (job.pp - 1) / job.vp if job.pp > 1 else 0.0
    return layers * (m + fill)


def rows(stack: str | None) -> list[dict]:
    runs = [r for r in load_runs() if r.kind == "moe" and (stack is None or r.stack == stack)]
    with tempfile.TemporaryDirectory() as tmp:
        results = evaluate(without_host_wait(runs, Path(tmp)))
    out = []
    for run, res in zip(runs, results, strict=True):
        e = res.estimate
        model = resolve_model(run.model)
        tokens = run.job["gbs"] * e.job.seq
        measured = run.measured if run.unit == "s" else tokens / (run.measured * e.gpus)
        residual = measured - e.step_time_s
        out.append({"run": run.name, "set": run.set, "stack": run.stack,
                    "local_experts": model.moe.experts // e.job.ep,
                    "tokens_per_mb": e.job.mbs * e.job.seq, "precision": e.job.precision,
                    "measured_s": measured, "estimated_s": e.step_time_s,
                    "ms_per_layer_mb": 1e3 * residual / layer_passes(run, e)})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stack", help="only the runs of this efficiency profile")
    parser.add_argument("--markdown", action="store_true", help="a markdown table")
    args = parser.parse_args(argv)
    table = sorted(rows(args.stack), key=lambda r: (r["stack"], r["local_experts"], r["run"]))
    if args.markdown:
        print("| run | set | stack | local experts | tokens / micro-batch | measured s | "
              "estimated s, no host wait | residual ms per MoE layer and micro-batch |")
        print("|---|---|---|---|---|---|---|---|")
    for r in table:
        if args.markdown:
            print(f"| {r['run']} | {r['set']} | {r['stack']} | {r['local_experts']} | "
                  f"{r['tokens_per_mb']:,} | {r['measured_s']:.2f} | {r['estimated_s']:.2f} | "
                  f"{r['ms_per_layer_mb']:+.1f} |")
        else:
            print(f"{r['set'][:3]} {r['stack']:10s} {r['run'][:48]:48s}"
                  f" local {r['local_experts']:3d}"
                  f"  tokens/mb {r['tokens_per_mb']:6d} {r['precision']:4s}"
                  f"  measured {r['measured_s']:6.2f} s  estimated {r['estimated_s']:6.2f} s"
                  f"  residual {r['ms_per_layer_mb']:+6.1f} ms per MoE layer and micro-batch")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
