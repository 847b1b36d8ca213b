"""`rackdesigner whatif FILE`: what the design loses when parts fail.

`--fail ID[,ID...]` compares one scenario with the intact design; `--each KIND` fails every
object of a kind in turn (one simulation per symmetry class) and lists the rows worst first.
`--json` prints the `rackdesigner.whatif/1` documents described in docs/simulation.md.
"""

from __future__ import annotations

import argparse
import sys

from rackdesigner.cli import UsageError, keep_until_exit, load_job_arg, load_layout_arg
from rackdesigner.cli.simulate_cmd import _size

_PLURAL = {"switch": "switches", "leaf": "leaves", "spine": "spines", "nvswitch": "NVSwitches",
           "tray": "trays", "node": "nodes", "rack": "racks", "link": "links"}


def register(sub: argparse._SubParsersAction) -> None:
    from rackdesigner.analysis.whatif import TARGETS

    parser = sub.add_parser(
        "whatif",
        help="what a layout loses when parts fail (one scenario or every single failure)",
        description="Compare the figures of a layout with some parts failed against the intact "
        "layout: GPUs stranded and degraded, largest NVLink domain, per-GPU bandwidth, "
        "bisection, all_reduce/all_to_all busbw and power. Failures marked in the file "
        "(status: failed) are ignored: the intact design is the reference. Exit status 0, "
        "or 2 when the file or an option is not usable.")
    parser.add_argument("file", metavar="FILE", help="layout YAML file")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--fail", metavar="ID[,ID...]",
                      help="devices, links or groups (racks, nodes, trays, SUs) that fail "
                      "together; a group fails what it contains, a rack what is mounted in it")
    what.add_argument("--each", metavar="KIND", choices=TARGETS,
                      help=f"fail every object of one kind in turn: {', '.join(TARGETS)}")
    parser.add_argument("--top", metavar="K", type=int,
                        help="with --each: only the K worst rows")
    parser.add_argument("--size", metavar="BYTES", default="1G",
                        help="message size of the busbw figures (e.g. 1G, 64M; default 1G)")
    parser.add_argument("--job", metavar="FILE",
                        help="also compare a training job's step time, tokens/s and energy per "
                        "token (a YAML file of estimate options: model, tp, pp, gbs, ...)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rackdesigner.analysis.whatif import WhatIf, WhatIfError, each_doc, scenario_doc

    if args.top is not None and (args.each is None or args.top < 1):
        raise UsageError("--top needs --each and a whole number >= 1")
    size = _size(args.size)
    job = load_job_arg(args.job) if args.job is not None else None
    layout = load_layout_arg(args.file)
    keep_until_exit(layout)  # freed by the process's end, not object by object
    if args.fail is not None and job is None:
        from rackdesigner.simulation.two_cores import wanted

        if wanted(layout):
            return _fail_in_two(args, layout, size)
    try:
        whatif = WhatIf(layout, size=size, job=job)
    except WhatIfError as exc:
        raise UsageError(f"{args.job}: {exc}") from None
    if args.fail is not None:
        ids = _fail_ids(args)
        try:
            impact = whatif.scenario(ids)
        except WhatIfError as exc:
            raise UsageError(f"--fail: {exc}") from None
        if args.json:
            _dump(scenario_doc(impact, whatif.intact_result))
        else:
            sys.stdout.write(scenario_report(impact, args.file))
        return 0
    if not whatif.candidates(args.each):
        raise UsageError(f"--each {args.each}: {args.file} has no {_PLURAL[args.each]}")
    rows = whatif.each(args.each, progress=_progress())
    shown = rows[:args.top] if args.top else rows
    if args.json:
        _dump(each_doc(args.each, shown))
    else:
        sys.stdout.write(each_report(args.each, rows, args.file, len(shown)))
    return 0


def _fail_ids(args: argparse.Namespace) -> list[str]:
    ids = [i.strip() for i in args.fail.split(",") if i.strip()]
    if not ids:
        raise UsageError("--fail needs at least one id")
    return ids


def _fail_in_two(args: argparse.Namespace, layout, size: int) -> int:
    """`--fail` with the degraded design simulated in a forked worker (two cores: see
    analysis/whatif_parallel.py); the output is the serial path's."""
    from rackdesigner.analysis.whatif import WhatIfError, scenario_doc_of
    from rackdesigner.analysis.whatif_parallel import scenario_in_two

    ids = _fail_ids(args)
    try:
        impact, intact, after = scenario_in_two(layout, ids, size, want_doc=args.json)
    except WhatIfError as exc:
        raise UsageError(f"--fail: {exc}") from None
    if args.json:
        assert intact is not None and after is not None
        _dump(scenario_doc_of(impact, intact, after))
    else:
        sys.stdout.write(scenario_report(impact, args.file))
    return 0


def _dump(doc: dict) -> None:
    from rackdesigner.io.jsonout import json_text

    sys.stdout.write(json_text(doc, newline=True))


def _progress():
    """A one-line progress counter on a terminal's stderr (nothing when redirected)."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        sys.stderr.write(f"\rsimulating failure classes: {done}/{total}{end}")
        sys.stderr.flush()

    return show


def _pct(value: float | None) -> str:
    if value is None:
        return "n/a"
    if abs(value) < 5e-5:
        return "0%"
    return f"{value * 100:+.1f}%".replace("-", "\u2212")


def _fig(value: float | None) -> str:
    return "unavailable" if value is None else f"{value:,.1f}"


def scenario_report(impact, label: str) -> str:
    from rackdesigner.analysis.whatif import FIGURE_LABELS, FIGURES

    lines = [f"{label}: failed {', '.join(impact.failed)}"]
    state = "PARTITIONED: some GPUs cannot reach the others" if impact.partitioned else \
        "connected"
    lines.append(f"  {state}; GPUs failed {impact.failed_gpus}, stranded "
                 f"{impact.stranded_gpus}, degraded {impact.degraded_gpus}")
    lines.append(f"  {'figure':<24} {'intact':>14} {'degraded':>14} {'change':>9}")
    for key in FIGURES:
        lines.append(f"  {FIGURE_LABELS[key]:<24} {_fig(impact.intact.get(key)):>14} "
                     f"{_fig(impact.after.get(key)):>14} {_pct(impact.delta.get(key)):>9}")
    if impact.job_intact is not None and impact.job_after is not None:
        from rackdesigner.analysis.whatif_job import WORKLOAD_LABELS

        lines.append(f"  training job: {impact.job_intact.label}")
        if impact.job_after.error:
            lines.append(f"  the job cannot run on the degraded design: {impact.job_after.error}")
        for key, label in WORKLOAD_LABELS.items():
            a, b = impact.job_intact.figures.get(key), impact.job_after.figures.get(key)
            lines.append(f"  {label:<24} {_num(a):>14} {_num(b):>14} "
                         f"{_pct((impact.job_delta or {}).get(key)):>9}")
    return "\n".join(lines) + "\n"


def _num(value: float | None) -> str:
    if value is None:
        return "unavailable"
    return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"


def each_report(kind: str, rows, label: str, shown: int | None = None) -> str:
    from rackdesigner.analysis.whatif import FIGURE_LABELS

    total = sum(r.count for r in rows)
    objects = f"{total} object{'s' if total != 1 else ''}"
    n_classes = f"{len(rows)} class{'es' if len(rows) != 1 else ''}"
    lines = [f"{label}: every single {kind} failure ({objects}, {n_classes}, "
             "each class simulated on its first and last member), worst first"
             + ("" if shown is None or shown >= len(rows) else f"; the {shown} worst shown")]
    for r in rows[:shown]:
        i = r.impact
        who = r.members[0] if r.count == 1 else (
            f"any of the {r.count} {_PLURAL[kind]} {_span(r.members)}")
        parts = [f"{FIGURE_LABELS[k]} {_pct(v)}" for k, v in i.delta.items()
                 if v is not None and abs(v) >= 5e-5 and k != "power_max_w"]
        if i.job_after is not None and i.job_after.error:
            parts.append(f"the job cannot run ({i.job_after.error})")
        elif i.job_delta is not None:
            v = i.job_delta.get("tokens_per_s")
            parts.append(f"job tokens/s {_pct(v)}" if v is not None and abs(v) >= 5e-5
                         else "job unchanged")
        head = "PARTITIONS the design; " if i.partitioned else ""
        lost = f"GPUs failed {i.failed_gpus}, " if i.failed_gpus else ""
        lines.append(f"  {who}: {head}{lost}stranded {i.stranded_gpus}, degraded "
                     f"{i.degraded_gpus}" + (f"; {', '.join(parts)}" if parts else
                                             "; no figure drops"))
    return "\n".join(lines) + "\n"


def _span(members: tuple[str, ...]) -> str:
    if len(members) <= 3:
        return "(" + ", ".join(members) + ")"
    return f"({members[0]}, {members[1]} \u2026 {members[-1]})"
