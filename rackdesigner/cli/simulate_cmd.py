"""`rackdesigner simulate FILE`: predicted bandwidth, collectives, latency and power of a layout.

Without `--json`: key figures, any messages, then an nccl-tests-like table (all_reduce unless
`--collective` names another). With `--json`: the `rackdesigner.simulation/1` document.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from rackdesigner import vocabulary
from rackdesigner.cli import UsageError, keep_until_exit, load_job_arg, load_layout_arg
from rackdesigner.vocabulary.wording import counted

if TYPE_CHECKING:
    from rackdesigner.simulation import SimulationResult

_COLLECTIVES = vocabulary.COLLECTIVE_NAMES
_ALGORITHMS = vocabulary.ALGORITHM_CHOICES
PLACEMENTS = vocabulary.PLACEMENT_NAMES
#: the message size of the headline figure the text report gives a range (the panel's default)
HEADLINE_SIZE = 2**30


def _size(text: str) -> int:
    """`--size` in the one size grammar (`units.parse_size`)."""
    from rackdesigner.units import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise UsageError(f"--size: {exc}") from None


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "simulate",
        help="predict bandwidth, NCCL collectives, latency and power of a layout",
        description="Predict what a layout delivers: per-GPU bandwidth, bisection, NCCL "
        "collective times for 8 B to 16 GiB (like nccl-tests -b 8 -e 16G -f 2), GPU-to-GPU "
        "latency and power. Exit status 0, or 2 when the file or an option is not usable.",
    )
    parser.add_argument("file", metavar="FILE", help="layout YAML file")
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--group", metavar="NAME", help="simulate one group (id or name)")
    scope.add_argument("--gpus", metavar="ID[,ID...]", help="simulate these GPUs only")
    parser.add_argument("--algorithm", choices=_ALGORITHMS, default="auto",
                        help="force an NCCL algorithm where it applies (default: fastest)")
    parser.add_argument("--collective", choices=_COLLECTIVES, default="all_reduce",
                        help="collective for the table (default: all_reduce; --json has all)")
    parser.add_argument("--pue", type=float, metavar="X",
                        help="power usage effectiveness for facility power (default: "
                        "the site's PUE, else the design's cooling mix's: 1.3 air-cooled, "
                        "lower with liquid)")
    parser.add_argument("--p2p", nargs=2, metavar=("GPU_A", "GPU_B"),
                        help="GPUs for the point-to-point figures (default: first and last)")
    parser.add_argument("--sharp", choices=("on", "off"),
                        help="allow in-network reduction (NVLS across nodes, CollNet/SHARP); "
                        "default: the design's own setting, which is off unless turned on")
    parser.add_argument("--fabric-tuning", choices=vocabulary.FABRIC_TUNING_NAMES,
                        default=vocabulary.DEFAULT_FABRIC_TUNING,
                        help="the NCCL network settings the cluster runs: vendor-tuned (default: "
                        "several queue pairs per connection and adaptive routing for every "
                        "message, as the vendor's reference architectures) or typical-defaults "
                        "(NCCL's defaults, one queue pair per connection)")
    parser.add_argument("--nccl-version", metavar="2.MINOR[.PATCH]",
                        help="the NCCL the cluster runs (default: the version of the engine's "
                        "constants, 2.30): NVLS needs 2.17, NVLS-tree 2.18, NVLS over more "
                        "than 8 GPUs per domain 2.21")
    parser.add_argument("--placement", choices=PLACEMENTS, default="contiguous",
                        help="rank placement over the nodes (default contiguous, as NCCL with "
                        "Slurm's block distribution)")
    parser.add_argument("--link-loads", action="store_true",
                        help="list every loaded network link ({link, load_GBps, "
                        "capacity_GBps, utilisation}) for --collective at --size")
    parser.add_argument("--job", metavar="FILE",
                        help="with --link-loads: the loads of a training job's traffic instead "
                        "of --collective's (a YAML file of estimate options: model, tp, pp, "
                        "gbs, ...), NVLink links included; see docs/simulation.md")
    parser.add_argument("--classes", metavar="CLASS[,CLASS]",
                        help="with --job: only these traffic classes (tp, cp, ep, pp, dp)")
    parser.add_argument("--size", metavar="BYTES", default="1G",
                        help="message size for --link-loads (e.g. 1G, 64M, 8; default 1G)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rackdesigner.io.jsonout import json_text
    from rackdesigner.simulation import SimulationInputError, simulate

    layout = load_layout_arg(args.file)
    keep_until_exit(layout)  # freed by the process's end, not object by object
    scope = args.group
    if args.gpus is not None:
        scope = [g.strip() for g in args.gpus.split(",") if g.strip()]
        if not scope:
            raise UsageError("--gpus needs at least one GPU id")
    size = _size(args.size)
    if (args.job is not None or args.classes is not None) and not args.link_loads:
        raise UsageError("--job and --classes go with --link-loads (the job's link loads)")
    if args.classes is not None and args.job is None:
        raise UsageError("--classes needs --job FILE")
    spec = load_job_arg(args.job) if args.job is not None else None
    try:
        result = simulate(layout, scope, algorithm=args.algorithm, pue=args.pue,
                          p2p=tuple(args.p2p) if args.p2p else None,
                          sharp=None if args.sharp is None else args.sharp == "on",
                          placement=args.placement, loads_for=(args.collective, size),
                          fabric_tuning=args.fabric_tuning, nccl_version=args.nccl_version)
    except SimulationInputError as exc:  # the CLI names the settings its own way: --sharp
        raise UsageError(exc.for_cli()) from None
    job_loads = None
    if spec is not None:
        from rackdesigner.analysis.jobheat import JobHeatError, heat_doc, parse_workload
        from rackdesigner.analysis.jobheat import workload_heat as job_heat

        try:
            classes = parse_workload(f"workload:{args.classes}" if args.classes else "workload")
            heat, estimate = job_heat(layout, spec, classes)
        except ValueError as exc:  # JobHeatError too
            text = str(exc).replace("--heat: expected workload or workload:CLASS[,CLASS] with",
                                    "--classes: expected")
            prefix = f"{args.job}: the job cannot run on {args.file}: " if isinstance(
                exc, JobHeatError) else ""
            raise UsageError(prefix + text) from None
        job_loads = (heat, estimate)
    if args.json:
        doc = result.to_dict(link_loads=args.link_loads and job_loads is None)
        if job_loads is not None:
            doc["link_loads"] = heat_doc(*job_loads)
        sys.stdout.write(json_text(doc, newline=True))
        return 0
    sys.stdout.write(report(result, args.collective, args.file))
    if job_loads is not None:
        sys.stdout.write(job_loads_report(*job_loads))
    elif args.link_loads:
        sys.stdout.write(loads_report(result))
    return 0


def job_loads_report(heat, estimate) -> str:
    """A training job's link loads: its exchanges, then every loaded link, busiest first."""
    from rackdesigner.analysis.jobheat import ASSUMPTION

    lines = ["", f"Link loads of {estimate.model.name} {estimate.job.label()} on "
             f"{estimate.gpus:,} GPUs (step {estimate.step_time_s or 0:.3f} s); {ASSUMPTION}"]
    lines += [f"  note: {n}" for n in heat.notes[1:]]
    lines.append(f"  {'exchange':<26} {'class':<5} {'collective':<15} {'groups':>6} "
                 f"{'size':>6} {'bytes':>14} {'busbw GB/s':>10} {'peak':>6}  busiest link")
    for x in heat.exchanges:
        lines.append(f"  {x.name:<26} {x.cls:<5} {x.collective:<15} {x.groups:>6} "
                     f"{x.group_size:>6} {x.bytes:>14,} {x.busbw_GBps:>10.1f} "
                     f"{x.peak * 100:>5.0f}%  {x.peak_link or '-'}")
    lines.append(f"  {'link':<24} {'a':<20} {'b':<20} {'class':<5} {'load GB/s':>10} "
                 f"{'cap GB/s':>9} {'util':>6}")
    for e in heat.hottest(len(heat.loads)):
        lines.append(f"  {e.link:<24} {e.a:<20} {e.b:<20} {heat.link_class.get(e.link, ''):<5} "
                     f"{e.load_GBps:>10.1f} {e.capacity_GBps:>9.1f} {e.utilisation * 100:>5.0f}%")
    return "\n".join(lines) + "\n"


def loads_report(result) -> str:
    """The per-link loads as a table, busiest first."""
    info = result.link_loads
    lines = [""]
    if info is None or not info.entries:
        lines.append("Link loads: no routed network traffic for this collective here "
                     "(one NVLink island, or in-network reduction)")
        return "\n".join(lines) + "\n"
    lines.append(f"Link loads: {info.collective} at {info.bytes:,} B ({info.algorithm}, "
                 f"{info.pattern} traffic); busiest switch link "
                 f"{info.max_fabric_utilisation * 100:.0f}% ({info.bottleneck or 'none'})")
    lines.append(f"  {'link':<24} {'a':<20} {'b':<20} {'load GB/s':>10} {'cap GB/s':>9} "
                 f"{'util':>6}")
    for e in sorted(info.entries, key=lambda e: -e.utilisation):
        lines.append(f"  {e.link:<24} {e.a:<20} {e.b:<20} {e.load_GBps:>10.1f} "
                     f"{e.capacity_GBps:>9.1f} {e.utilisation * 100:>5.0f}%")
    return "\n".join(lines) + "\n"


def _num(value: float | None, unit: str = "", digits: int = 1) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}{unit}"


#: what the command line adds to a result's message (the result speaks of the design)
_CLI_HINTS = {"sharp_off": " (--sharp on)"}


def report(result: SimulationResult, collective: str = "all_reduce", label: str = "") -> str:
    """The human-readable report (key figures, messages, then the nccl-tests-like table), read
    from the typed result; figures take the rounding of the JSON form (`rounded`) first, so the
    text and `--json` always show the same value."""
    from rackdesigner.simulation.result import rounded as r

    s, b, lat, p = result.scope, result.bandwidth, result.latency, result.power
    from rackdesigner.io.sanitize import shown

    lines = [f"{shown(label) if label else 'layout'}: {counted(s.gpus, 'GPU')} in "
             f"{counted(s.nodes, 'node')}, "
             f"{counted(s.nvlink_domains, 'NVLink domain')} (largest {s.largest_nvlink_domain}); "
             f"ranks {result.placement}, SHARP {'on' if result.sharp else 'off'}"
             + (f", fabric {result.fabric_tuning}" if s.islands > 1 else "")]
    over = ", ".join(f"{tier} {r(ratio, 4):g}:1" for tier, ratio in b.oversubscription.items())
    scale_out = r(b.per_gpu_scale_out_GBps)

    def p2p(key: str) -> Any:
        value = b.p2p.get(key)
        return r(value) if isinstance(value, float) else value

    lines += [
        "",
        "Bandwidth (hardware, per direction)",
        f"  scale-up per GPU      {_num(r(b.per_gpu_scale_up_GBps), ' GB/s')}",
        f"  scale-out per GPU     {_num(scale_out, ' GB/s')}"
        + ("  (slowest GPU: no NIC of its own is cabled to a switch)"
           if not scale_out else "  (slowest GPU's own NIC share)"),
        f"  bisection             {_num(r(b.bisection_GBps), ' GB/s')}"
        + (f"  (bottleneck: {b.bisection_bottleneck})" if b.bisection_bottleneck else ""),
        f"  oversubscription      {over or 'none (no switch tiers in scope)'}",
        f"  P2P {p2p('a')} -> {p2p('b')}: {_num(p2p('GBps'), ' GB/s')} "
        "(one pair, NCCL send/recv); PXN/multi-NIC max flow "
        f"{_num(p2p('max_flow_GBps'), ' GB/s')}" if p2p("a")
        else "  P2P                   n/a",
        "",
        "Latency (GPU to GPU, physical path)",
        f"  min / mean / max      {_num(r(lat.min_us, 4), ' us', 3)} / "
        f"{_num(r(lat.mean_us, 4), ' us', 3)} / "
        f"{_num(r(lat.max_us, 4), ' us', 3)}; max hops {lat.max_hops}",
    ]
    for c in lat.histogram:
        if c.source == "model":
            partial = " (NCCL model figure: no published device latency)"
        elif c.complete or c.latency_us is None:
            partial = ""
        else:
            partial = " (partial data)"
        latency = None if c.latency_us is None else round(c.latency_us, 4)
        lines.append(f"    {c.name:<14} {_num(latency, ' us', 3):>12}  "
                     f"{c.pairs:,} pairs, {c.hops} hops{partial}")
    small = ", ".join(f"{k} {r(v):g} us" for k, v in lat.collective_small_us.items())
    if small:
        lines.append(f"  8-byte collectives    {small}")
    total_max, total_typ = round(p.total_max_w, 1), round(p.total_typical_w, 1)
    per_gpu = None if p.per_gpu_w is None else round(p.per_gpu_w, 1)
    lines += [
        "",
        f"Power (PUE {p.pue:.3g})",
        f"  design total (max)    {p.headline or _num(total_max / 1000, ' kW')}",
        f"  IT typical / max      {_num(total_typ / 1000, ' kW')} / "
        f"{_num(total_max / 1000, ' kW')}"
        + ("" if p.complete else "  (lower bounds: "
           + ", ".join(p.without_power) + " have no figure)"),
        f"  facility (max x PUE)  {_num(round(p.facility_w, 1) / 1000, ' kW')}",
        f"  per GPU               {_num(per_gpu, ' W', 0)}",
    ]
    kinds = ", ".join(f"{k} {round(v, 1) / 1000:,.1f} kW" for k, v in p.by_kind.items()
                      if round(v, 1))
    if kinds:
        lines.append(f"  by kind               {kinds}")
    for rack, row in p.by_rack.items():
        budget = row.budget_w
        source = {"rack": "set on the rack", "model": "model default"}.get(row.budget_source, "")
        use = (f"{(row.utilisation or 0.0) * 100:.0f}% of {budget / 1000:,.1f} kW"
               + (f", {source}" if source else "") if budget else "no budget")
        flag = "  OVER BUDGET" if row.over_budget else ""
        lines.append(f"  rack {rack:<16} {row.max_w / 1000:,.1f} kW max ({use}){flag}")
    diagnostics = result.classified()
    for severity, title in (("warning", "Warnings"), ("note", "Notes")):
        texts = [m.text + _CLI_HINTS.get(m.code, "") for m in diagnostics
                 if m.severity == severity]
        if texts:
            lines += ["", title] + [f"  - {shown(t)}" for t in texts]  # one message, one line
    rows = result.collective(collective)
    lines += ["", f"{collective} ({s.reachable_gpus} ranks, algorithm {result.algorithm})"]
    if not rows and s.unreachable_gpus:
        lines.append(f"  unavailable: {s.unreachable_gpus} of {s.gpus} GPUs cannot reach "
                     "the others")
    elif not rows and s.reachable_gpus >= 2:  # reachable, yet no bandwidth: the warnings say why
        lines.append(f"  unavailable: no usable bandwidth joins the {s.reachable_gpus} GPUs "
                     "(see the warnings)")
    elif not rows:
        lines.append("  not applicable (fewer than two reachable GPUs)")
    else:
        ref = result.point_at(collective, HEADLINE_SIZE)
        busbw_range = result.ranges(ref)[0] if ref is not None else None
        if ref is not None:
            lines.append(f"  busbw at 1 GiB: {r(ref.busbw_GBps):,.1f} GB/s ({ref.algorithm}); "
                         + (busbw_range.text(lambda v: f"{v:,.0f}") + " GB/s"
                            if busbw_range is not None else
                            "no published runs of its class to give it a range"))
        lines.append(f"#{'size':>12} {'time(us)':>12} {'algbw(GB/s)':>12} {'busbw(GB/s)':>12}"
                     f"  {'algorithm':<14} protocol")
        for pt in rows:
            lines.append(f"{pt.bytes:>13} {round(pt.time_us, 3):>12.2f} "
                         f"{round(pt.algbw_GBps, 3):>12.2f} {round(pt.busbw_GBps, 3):>12.2f}  "
                         f"{pt.algorithm:<14} {pt.protocol}")
    return "\n".join(lines) + "\n"
