"""`rackdesigner serve FILE --model ID --precision P --isl N --osl N`: LLM serving on a design.

Prints the throughput-interactivity curve (output tokens/s per GPU against tokens/s per user),
the point at a target, the saturation throughput, the KV capacity, $ per million tokens (the
cost model's $/GPU-hour), tokens/s per MW and joules per token. `--json` prints the
`rackdesigner.serve/1` document. Exit 0; 1 when the model fits in no layout (said with the
numbers, never timed); 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys

from rackdesigner.cli.estimate_cmd import positive_int
from rackdesigner.vocabulary.wording import counted


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "serve", help="LLM serving on a design: tokens/s per GPU against tokens/s per user, "
        "$/M tokens",
        description="Estimate serving a model on the GPUs of a layout: prefill and decode "
        "per GPU, KV capacity, every TP/PP/EP/attention-DP layout aggregated and "
        "disaggregated (xPyD), with the collectives timed on the drawn links. Prints the "
        "Pareto curve of output tokens/s per GPU against tokens/s per user. See "
        "docs/serving.md. Exit status 0, 1 when the model fits in no layout, 2 on bad input.")
    p.add_argument("file", metavar="FILE", help="layout YAML file")
    p.add_argument("--model", required=True, metavar="ID|FILE",
                   help="a bundled model id (`rackdesigner models`), an alias (deepseek-r1, "
                   "llama3.3-70b, llama3.1-8b) or a model file")
    p.add_argument("--precision", choices=("bf16", "fp8", "fp4"), required=True,
                   help="weights and GEMMs (fp4: NVFP4, Blackwell)")
    p.add_argument("--isl", type=positive_int, required=True, metavar="N",
                   help="input (prompt) tokens per request")
    p.add_argument("--osl", type=positive_int, required=True, metavar="N",
                   help="output tokens per request")
    p.add_argument("--gpus", type=positive_int, metavar="N",
                   help="use the first N GPUs (of the group, with --group)")
    p.add_argument("--group", metavar="NAME", help="use the GPUs of one group (id or name)")
    p.add_argument("--mode", choices=("aggregated", "disaggregated", "best"), default="best",
                   help="prefill and decode on the same instances, on separate pools (xPyD), "
                   "or whichever is better at each point (default)")
    p.add_argument("--interactivity", type=_positive, metavar="X",
                   help="target tokens/s per user: report the best point giving at least X")
    p.add_argument("--ttft", type=_positive, metavar="S",
                   help="keep only points whose time to first token is at most S seconds")
    p.add_argument("--mtp", type=int, default=0, choices=range(4), metavar="N",
                   help="speculative draft tokens per decode step, up to 0-3 (MTP / "
                   "EAGLE-style one-layer draft head; each configuration takes the best depth "
                   "from 1 to N; 1.92, 2.58, 2.82 tokens per step for 1, 2, 3: DeepSeek-R1's "
                   "published MTP acceptance; default 0)")
    p.add_argument("--stack", metavar="ID",
                   help="serving software stack profile: trtllm (default), vllm, sglang")
    p.add_argument("--prices", metavar="FILE",
                   help="price book for $/GPU-hour (default: as `rackdesigner cost`)")
    p.add_argument("--pue", type=float, metavar="X", help="PUE (default: "
                   "the site's PUE, else the design's cooling mix's: 1.3 air-cooled, "
                   "lower with liquid)")
    p.add_argument("--points", type=positive_int, default=12, metavar="N",
                   help="curve points shown in the text report (default 12)")
    p.add_argument("--json", action="store_true", help="print rackdesigner.serve/1 JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rackdesigner.cli import UsageError, load_layout_arg
    from rackdesigner.serving import ServeError, serve

    layout = load_layout_arg(args.file)
    usd, unpriced = _usd_per_gpu_hour(layout, args.prices, args.pue)
    try:
        result = serve(layout, args.model, precision=args.precision, isl=args.isl,
                       osl=args.osl, gpus=args.gpus, group=args.group, mode=args.mode,
                       interactivity=args.interactivity, ttft=args.ttft, stack=args.stack,
                       pue=args.pue, usd_per_gpu_hour=usd, mtp=args.mtp)
    except ServeError as exc:
        raise UsageError(exc.for_cli()) from None
    except OSError as exc:
        raise UsageError(str(exc)) from None
    if unpriced and result.usd_per_million_tokens is not None:
        from dataclasses import replace

        result = replace(result, notes=(*result.notes, (
            f"$ per million tokens is a lower bound: the $/GPU-hour leaves "
            f"{counted(unpriced, 'item')} without a price out (rackdesigner cost --lines)")))
    from rackdesigner.io.jsonout import json_text

    if args.json:
        sys.stdout.write(json_text(result.to_dict()))
        sys.stdout.write("\n")
    else:
        sys.stdout.write(report(result, args.points))
    return 0 if result.pareto else 1


def _usd_per_gpu_hour(layout, prices: str | None, pue: float | None
                      ) -> tuple[float | None, int]:
    """The design's $/GPU-hour from the cost model (None when nothing is priced) and the
    number of items it leaves without a price."""
    from rackdesigner.cli import UsageError
    from rackdesigner.cli.cost_cmd import price_book_for
    from rackdesigner.cost import Assumptions, design_cost

    book = price_book_for(layout, prices)
    try:
        assumptions = Assumptions() if pue is None else Assumptions(pue=pue)
        cost = design_cost(layout, book, assumptions)
        return cost.usd_per_gpu_hour, 0 if cost.complete else cost.capex.unpriced_items
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def report(r, points: int = 12) -> str:
    d = r.to_dict()
    lines = [f"{r.title} on {r.gpus:,} x {r.gpu_model}, {r.precision}, ISL {r.isl:,} / "
             f"OSL {r.osl:,}, {r.mode} (stack {r.stack.id})"]
    if not r.pareto:
        lines += [f"  ! {n}" for n in r.notes]
        return "\n".join(lines) + "\n"
    lines.append(f"{'tok/s/user':>10} {'out tok/s/GPU':>14} {'TTFT':>8} {'TPOT':>8} "
                 f"{'conc.':>7}  mode / configuration")
    front = list(r.pareto)
    step = max(1, -(-len(front) // points))
    shown = front[::step] + ([front[-1]] if (len(front) - 1) % step else [])
    for p in shown:
        lines.append(_point(p))
    if r.at is not None:
        lines.append("at target:\n" + _point(r.at))
    if r.max_load is not None:
        lines.append("max load:\n" + _point(r.max_load))
    kv = d["kv_capacity"]
    if kv:
        lines.append(f"KV capacity: {kv['requests_per_gpu']:,.1f} requests per GPU at "
                     f"{kv['context_tokens']:,} tokens ({kv['config']}, weights "
                     f"{kv['weights_GB_per_gpu']:,.1f} GB per GPU)")
    basis = "at target" if r.at is not None else "at max load"
    money = d["usd_per_million_tokens"]
    lines.append(f"cost {basis}: " + (f"${money:,.3f} per million output tokens"
                                     if money is not None else "n/a (nothing priced)")
                 + (f", {d['tokens_per_s_per_mw']:,.0f} tokens/s per MW, "
                    f"{d['joules_per_output_token']:,.3f} J per output token"
                    if d["tokens_per_s_per_mw"] is not None else ""))
    lines += [f"  ! {n}" for n in r.notes]
    return "\n".join(lines) + "\n"


def _point(p) -> str:
    c = p.config
    where = c["label"]
    if p.mode == "disaggregated":
        where += f" (prefill {c['prefill']['label']}, decode {c['decode']['label']})"
    return (f"{p.per_user:10,.1f} {p.output_per_gpu:14,.0f} {p.ttft_s * 1000:6,.0f}ms "
            f"{p.tpot_s * 1000:6,.1f}ms {p.concurrency:7,}  {p.mode} {where} batch {c['batch']:,}")
