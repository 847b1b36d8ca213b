"""`rackdesigner estimate FILE --model ID|FILE ...`: a training step on the design's GPUs.

Without `--search` one layout is estimated (DP defaults to what the GPU count leaves); with
`--search` every valid layout is tried and the best few are shown with why they win. `--json`
prints the `rackdesigner.estimate/1` document (with `--search`: a list of them under `ranked`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (estimate's and serve's counts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


def _modules(text: str) -> tuple[str, ...]:
    from rackdesigner.workload.job import RECOMPUTE_MODULES

    names = tuple(dict.fromkeys(n.strip() for n in text.split(",")))
    for name in names:
        if name not in RECOMPUTE_MODULES:
            raise argparse.ArgumentTypeError(
                f"unknown module {name[:40]!r} (Megatron-Core's recompute_modules the "
                f"estimator models: {', '.join(RECOMPUTE_MODULES)})")
    return names


def _tokens(text: str) -> float:
    units = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
    t = text.strip().lower()
    scale = units.get(t[-1:], 1.0)
    try:
        value = float(t[:-1] if t[-1:] in units else t) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a token count such as 15T or 2e12, "
                                         f"got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("the token count must be positive")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    from rackdesigner.vocabulary import FABRIC_TUNING_NAMES

    p = subparsers.add_parser(
        "estimate", help="estimate LLM training step time, MFU, memory and energy on a design",
        description="Estimate one training iteration of a transformer model on the GPUs of a "
        "layout: compute from FLOPs and the GPU's peak, communication from the simulation "
        "engine on the drawn fabric, memory per GPU (a layout that does not fit is refused, or "
        "timed and marked with --time-anyway), under the software stack's efficiency profile. "
        "See docs/workload.md. Exit status 0, 1 when the layout does not fit, 2 on bad input.")
    p.add_argument("file", metavar="FILE", help="layout YAML file")
    p.add_argument("--model", required=True, metavar="ID|FILE",
                   help="a bundled model id (see `rackdesigner models`) or a model file")
    p.add_argument("--gpus", type=positive_int, metavar="N",
                   help="use the first N GPUs (of the group, with --group)")
    p.add_argument("--group", metavar="NAME", help="use the GPUs of one group (id or name)")
    for name, what in (("tp", "tensor"), ("pp", "pipeline"), ("cp", "context"),
                       ("ep", "expert")):
        p.add_argument(f"--{name}", type=positive_int, default=1, metavar=name[0].upper(),
                       help=f"{what}-parallel degree (default 1)")
    p.add_argument("--etp", type=positive_int, metavar="E",
                   help="expert tensor-parallel degree of MoE layers (default: TP; NeMo's MoE "
                   "recipes use 1: experts whole, EP folded over TP x CP x DP)")
    p.add_argument("--vp", type=positive_int, default=1, metavar="V",
                   help="virtual pipeline stages per GPU (interleaved 1F1B; default 1)")
    p.add_argument("--dp", type=positive_int, metavar="D",
                   help="data-parallel degree (default: the GPUs TP x PP x CP leave)")
    p.add_argument("--gbs", type=positive_int, metavar="B", help="global batch (sequences)")
    p.add_argument("--mbs", type=positive_int, default=1, metavar="M",
                   help="micro-batch (default 1)")
    p.add_argument("--seq", type=positive_int, metavar="S",
                   help="sequence length (default: the model's)")
    p.add_argument("--precision", choices=("bf16", "fp8", "fp4"), default="bf16",
                   help="GEMM precision (fp8: Hopper and later; fp4: NVFP4, Blackwell)")
    p.add_argument("--recompute", choices=("none", "selective", "full"), default="selective")
    p.add_argument("--recompute-modules", type=_modules, metavar="M,M",
                   help="what selective recomputation recomputes, by Megatron-Core's "
                   "recompute_modules: core_attn, layernorm (the MoE pre-MLP norm), moe_act "
                   "(the experts' activation); default: the profile's")
    p.add_argument("--sharding", choices=("none", "optimizer", "full"), default="optimizer",
                   help="none: plain DP; optimizer: ZeRO-1/distributed optimizer (default); "
                   "full: FSDP/ZeRO-3")
    p.add_argument("--profile", metavar="ID|FILE",
                   help="efficiency profile of the software stack: nemo-2025 (default), "
                   "nemo-2024, megatron-2021, pytorch-fsdp or a profile file (`rackdesigner "
                   "models --profiles`; docs/workload.md)")
    p.add_argument("--grad-dtype", choices=("fp32", "bf16"),
                   help="gradient buffer precision (default: the profile's)")
    p.add_argument("--no-dp-overlap", dest="dp_overlap", action="store_const", const=False,
                   help="do not overlap the data-parallel reduction with the backward pass "
                   "(Megatron's 'local' DDP)")
    p.add_argument("--time-anyway", action="store_true",
                   help="time a layout that does not fit in memory too (marked as such)")
    p.add_argument("--tokens", type=_tokens, metavar="T",
                   help="tokens to train (e.g. 15T) for time to train and energy")
    p.add_argument("--pue", type=float, metavar="X", help="PUE for facility energy (default: "
                   "the site's PUE, else the design's cooling mix's: 1.3 air-cooled, "
                   "lower with liquid)")
    p.add_argument("--fabric-tuning", choices=FABRIC_TUNING_NAMES, default=None,
                   help="the NCCL network settings the cluster runs, as in `simulate`: "
                   "vendor-tuned (default: the level NVIDIA publishes for its reference "
                   "architectures) or typical-defaults (NCCL's defaults)")
    p.add_argument("--search", action="store_true",
                   help="try every valid layout (TP, PP, CP, EP, VP, micro-batch, "
                   "recomputation) and rank them")
    p.add_argument("--top", type=positive_int, default=5, help="layouts shown by --search")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rackdesigner.cli import UsageError, keep_until_exit, load_layout_arg
    from rackdesigner.io.jsonout import json_text
    from rackdesigner.workload import EstimateError, Estimator, Job, ModelFileError

    if args.gbs is None:
        raise UsageError("--gbs (global batch in sequences) is required")
    layout = load_layout_arg(args.file)
    keep_until_exit(layout)  # freed by the process's end, not object by object
    job = Job(tp=args.tp, pp=args.pp, cp=args.cp, ep=args.ep, vp=args.vp, dp=args.dp,
              gbs=args.gbs, mbs=args.mbs, seq=args.seq, precision=args.precision,
              recompute=args.recompute, sharding=args.sharding, profile=args.profile,
              grad_dtype=args.grad_dtype, dp_overlap=args.dp_overlap, etp=args.etp,
              recompute_modules=args.recompute_modules)
    try:
        est = Estimator(layout, args.model, gpus=args.gpus, group=args.group, pue=args.pue,
                        fabric_tuning=args.fabric_tuning)
        keep_until_exit(est)
        if args.search:
            from rackdesigner.workload.search import search

            def progress(done: int, total: int) -> None:
                if sys.stderr.isatty():
                    sys.stderr.write(f"\rsearching layouts: {done:,}/{total:,}")
                    sys.stderr.flush()
            found = search(est, job, top=args.top, tokens=args.tokens, progress=progress)
            if sys.stderr.isatty():
                sys.stderr.write("\n")
        else:
            est.profile_of(job)  # an unknown profile is a usage error before any work
            result = est.estimate(job, args.tokens, time_if_too_big=args.time_anyway)
    except EstimateError as exc:  # the CLI names the settings its own way: `--gbs`
        raise UsageError(exc.for_cli()) from None
    except (ModelFileError, OSError) as exc:
        raise UsageError(str(exc)) from None
    if args.search:
        if args.json:
            doc: dict[str, Any] = {
                "schema": "rackdesigner.estimate-search/1", "considered": found.considered,
                "refused_memory": found.refused, "simulations": found.simulations,
                "ranked": [dict(r.estimate.to_dict(), why=r.why) for r in found.ranked]}
            sys.stdout.write(json_text(doc, newline=True))
            return 0
        sys.stdout.write(search_report(found, est))
        return 0
    failures = _with_failures(layout, result) if args.tokens and result.tokens_per_s else None
    if args.json:
        doc = result.to_dict()
        if failures is not None:
            doc["with_failures"] = failures
        sys.stdout.write(json_text(doc, newline=True))
    else:
        sys.stdout.write(report(result))
        if failures is not None and failures["time_to_train_days"] is not None:
            sys.stdout.write(f"with failures:  {failures['time_to_train_days']:,.1f} days "
                             f"({failures['interruptions_per_day']:.3g} interruptions/day, "
                             f"time that trains {failures['goodput']:.1%}; "
                             "rackdesigner reliability)\n")
    return 0 if result.fits else 1  # 1: the job does not fit this design (refused or marked)


def _with_failures(layout, e) -> dict[str, Any]:
    """Days to train with the work failures lose (bundled failure library, the optimum
    checkpoint interval; docs/reliability.md)."""
    import math

    from rackdesigner.reliability import Job, assess, load_library

    a = assess(layout, load_library(), job=Job(e.gpus, e.tokens_per_s,
                                                float(e.model.params), e.tokens))
    days = a.effective_days()
    return {"interruptions_per_day": round(a.interruptions_per_day, 4),
            "ettr": round(a.ettr, 4), "goodput": round(a.goodput, 4),
            "time_to_train_days": round(days, 3) if days is not None and math.isfinite(days)
            else None}


def _s(v: float | None) -> str:
    if v is None:
        return "n/a"
    return f"{v * 1000:,.1f} ms" if v < 1 else f"{v:,.2f} s"


def report(e) -> str:
    d = e.to_dict()
    job = e.job
    lines = [f"{e.model.name} on {d['scope']['label']}: {e.gpus:,} x {e.gpu.model}, "
             f"{job.label()}, batch {job.gbs} x {job.seq} tokens, {job.precision}"]
    if e.profile is not None:
        lines.append(f"software stack: {e.profile.name} (profile {e.profile.id})")
    if e.fabric_tuning:
        lines.append(f"fabric tuning:  {e.fabric_tuning} (the engine's network figures; "
                     "--fabric-tuning)")
    for m in d["messages"]:
        lines.append(f"  ! {m}")
    mem = e.memory
    lines.append(f"memory per GPU: {mem.total_GB:,.1f} GB of {mem.usable_GB:,.1f} usable "
                 f"({mem.hbm_GB:,.1f} GB HBM; weights {mem.weights_GB:,.1f}, gradients "
                 f"{mem.gradients_GB:,.1f}, optimizer {mem.optimizer_GB:,.1f}, activations "
                 f"{mem.activations_GB:,.1f})")
    if not e.fits and e.step_time_s is None:
        lines.append("refused: the layout does not fit in memory (not timed; --time-anyway "
                     "times it)")
        return "\n".join(lines) + "\n"
    mark = " (DOES NOT FIT: timed anyway)" if e.timed_anyway else ""
    ceiling = e.gpu.gemm_efficiency(job.precision)
    lines += [
        f"step time:      {_s(e.step_time_s)}{mark}",
        f"tokens/s:       {d['tokens_per_s']:,.0f} ({d['tokens_per_s_per_gpu']:,.0f} per GPU)",
        *_range_lines(d["ranges"]),
        f"model TFLOP/s:  {d['model_tflops_per_gpu']:,.0f} per GPU, MFU {e.mfu:.1%} of "
        f"{e.peak_tflops:g} TFLOPS {job.precision}",
        f"GEMMs:          {e.hardware.get('gemm_efficiency', 0.0):.0%} of peak on average "
        f"(ceiling {ceiling:.0%}: partial tiles and waves, HBM-bound shapes)",
        f"non-GEMM work:  attention {_s(e.hardware.get('attention_s', 0.0))}, memory-bound "
        f"kernels {_s(e.hardware.get('memory_bound_s', 0.0))}, launch gaps "
        f"{_s(e.hardware.get('launch_gaps_s', 0.0))} per step",
        *_gemm_lines(d["gemms"], e.gpu.sms, -(-e.model.layers // job.pp)),
        f"energy:         {d['energy_kWh_per_step']:,.3f} kWh per step "
        f"({e.power_w[1] / 1000:,.0f} kW facility)",
    ]
    if "time_to_train_days" in d:
        lines.append(f"{d['tokens']:,.3g} tokens: {d['time_to_train_days']:,.1f} days, "
                     f"{d['energy_MWh']:,.0f} MWh")
    lines.append("breakdown:")
    for k, v in e.breakdown.items():
        if v > 0 or k == "compute_s":
            lines.append(f"  {k.removesuffix('_s'):<14} {_s(v):>12}  {v / e.step_time_s:6.1%}")
    if e.comm:
        lines.append("communication (engine figures on the drawn fabric):")
        for name, c in e.comm.items():
            lines.append(f"  {name:<26} {c['collective']:<15} {c['group_size']:>5} GPUs "
                         f"{c['bytes'] / 2**20:>10,.1f} MiB {c['time_us'] / 1000:>9,.2f} ms "
                         f"busbw {c['busbw_GBps']:,.0f} GB/s")
            if "contention" in c:
                k = c["contention"]
                lines.append(f"  {'':<26} x {k['factor']:.2f}: its concurrent groups need "
                             f"{k['factor']:.2f} times what {k['link']} carries")
    return "\n".join(lines) + "\n"


def _range_lines(ranges: dict) -> list[str]:
    """Where published runs of the estimate's class fall around its figures (spread.py)."""
    step, tps = ranges.get("step_time_s"), ranges.get("tokens_per_s_per_gpu")
    if step is None or tps is None:
        return []
    return [f"  published runs of this class ({step['class']}, 5-95 % of the validation "
            f"set): step {_s(step['range'][0])} to {_s(step['range'][1])}, "
            f"{tps['range'][0]:,.0f} to {tps['range'][1]:,.0f} tokens/s per GPU"]


def _gemm_lines(gemms: list[dict], sms: int, layers: int, top: int = 3) -> list[str]:
    """The GEMMs furthest below the ceiling among those with a visible share of a stage's GEMM
    time (`layers` per stage), with why: a partly filled last wave or HBM traffic."""
    def stage_us(g: dict) -> float:
        return g["time_us"] * (layers if g.get("per") == "layer" else 1)

    total = sum(stage_us(g) for g in gemms) or 1.0
    slow = sorted((g for g in gemms if stage_us(g) >= 0.03 * total and g["of_ceiling"] < 0.945),
                  key=lambda g: g["of_ceiling"])
    out = []
    for g in slow[:top]:
        shape = f"{g['m']:,}x{g['n']:,}x{g['k']:,}" + (f" x{g['groups']}" if g["groups"] > 1
                                                       else "")
        why = ("bound by HBM traffic" if g["bound"] == "hbm" else
               f"{g['tiles']:,} tiles on {sms} SMs = {g['tiles'] / sms:.2f} waves, run as "
               f"{g['waves']}")
        out.append(f"  {g['gemm']:<18} {shape:<24} {g['of_ceiling']:4.0%} of ceiling ({why})")
    if not out:
        return []
    return ["  furthest below it (M x N x K on one GPU, per layer and micro-batch):", *out]


def search_report(found, est) -> str:
    lines = [f"{found.considered:,} valid layouts of {est.gpus:,} GPUs, {found.refused:,} do not "
             f"fit in memory; {found.simulations} engine runs"]
    if not found.ranked:
        lines.append("no layout fits in memory: more GPUs, FSDP (--sharding full) or a smaller "
                     "micro-batch may help")
    for i, r in enumerate(found.ranked, 1):
        e = r.estimate
        lines.append(f"{i}. {e.job.label()}: {_s(e.step_time_s)} per step, "
                     f"{e.tokens_per_s / e.gpus:,.0f} tokens/s/GPU, MFU {e.mfu:.1%}")
        lines.append(f"   {r.why}")
    return "\n".join(lines) + "\n"
