"""`rackdesigner reliability FILE`: how often the design stops a training job, what each fault
takes down, and the share of time the job trains (schema `rackdesigner.reliability/1` with
--json; the model is docs/reliability.md)."""

from __future__ import annotations

import argparse
import math

from rackdesigner.cli import UsageError, load_job_arg, load_layout_arg


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "reliability",
        help="failures, blast radius, checkpointing and goodput of a design (ETTR)",
        description="Expected interruptions per day of a job spanning the design and their "
        "causes by part, the MTBF, what one fault stops (a GPU: its node or its whole NVLink "
        "domain; a leaf: its nodes; a spine: bandwidth only), the checkpoint write time over "
        "the drawn storage path, the optimum checkpoint interval, the effective training time "
        "ratio (ETTR) and, with --job, the effective tokens/s and days to train. Rates come "
        "from the bundled failure library of published field data or --failures FILE. Exit "
        "status 0, or 2 when the design, library, job or an option is not usable.")
    parser.add_argument("file", metavar="FILE", help="layout YAML file")
    parser.add_argument("--job", metavar="JOB.yaml",
                        help="a training job file (as 'estimate --job'): its GPUs, tokens/s "
                        "and checkpoint size")
    parser.add_argument("--group", metavar="NAME",
                        help="a job spanning this group's GPUs (a pod, an SU, a rack) instead "
                        "of the whole design (without --job)")
    parser.add_argument("--checkpoint-interval", metavar="MIN", type=float,
                        help="minutes of training between checkpoints (default: Daly's "
                        "optimum for the design's MTBF and checkpoint write time)")
    parser.add_argument("--spares", metavar="N", type=int,
                        help="hot-spare GPUs at hand beside the job's: without --job the job "
                        "is the design less N; with one, spares beyond the design's GPUs are "
                        "noted (default: the GPUs the job leaves free, or a spare assumed at "
                        "hand for every fault when it takes them all)")
    parser.add_argument("--failures", metavar="FILE",
                        help="your own failure rates over the bundled library (format: "
                        "docs/reliability.md)")
    parser.add_argument("--json", action="store_true",
                        help="machine-readable output (schema rackdesigner.reliability/1)")
    parser.set_defaults(run=run)


def library_arg(path: str | None):
    """The failure library in effect; a bad one is a UsageError naming the file and line."""
    from rackdesigner.reliability.library import LibraryError, load_library

    try:
        return load_library(path)
    except LibraryError as exc:
        raise UsageError(str(exc)) from None


def job_figures(layout, spec, pue: float | None = None):
    """A job file's `reliability.Job`: its GPUs, tokens/s and parameters (the estimate's)."""
    from rackdesigner.workload.api import EstimateError
    from rackdesigner.workload.reliability_job import job_figures as figures

    try:
        return figures(layout, spec, pue)
    except EstimateError as exc:
        raise UsageError(f"--job: {exc.worded(str)}") from None


def run(args: argparse.Namespace) -> int:
    from rackdesigner.reliability.report import ReliabilityError, assess

    interval = None
    if args.checkpoint_interval is not None:
        if not (args.checkpoint_interval > 0 and math.isfinite(args.checkpoint_interval)):
            raise UsageError(f"--checkpoint-interval: minutes greater than 0, got "
                             f"{args.checkpoint_interval:g}")
        interval = args.checkpoint_interval * 60
    if args.spares is not None and args.spares < 0:
        raise UsageError(f"--spares: a number of GPUs, 0 or more, got {args.spares}")
    library = library_arg(args.failures)
    if args.group is not None and args.job:
        raise UsageError("--group goes without --job (a job file names its own 'group')")
    spec = load_job_arg(args.job) if args.job else None
    layout = load_layout_arg(args.file)
    job = job_figures(layout, spec) if spec is not None else None
    try:
        result = assess(layout, library, job=job, interval_s=interval, spares=args.spares,
                        group=args.group)
    except ReliabilityError as exc:
        raise UsageError(str(exc)) from None
    from rackdesigner.io.jsonout import json_text

    if args.json:
        print(json_text(result.to_json()))
    else:
        from rackdesigner.reliability.text import format_assessment

        print(format_assessment(result), end="")
    return 0
