"""`rackdesigner compare A.yaml B.yaml [C.yaml...]`: designs side by side — GPUs, NVLink
domain, busbw, all_to_all, bisection, power, heat, capex, TCO, $/GPU-hour and, with a job,
tokens/s, days and dollars to train — with the winner of each row marked."""

from __future__ import annotations

import argparse

from rackdesigner.cli import UsageError, load_layout_arg
from rackdesigner.cli.cost_cmd import add_cost_options


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "compare",
        help="designs side by side: bandwidth, power, heat, cost, and time and cost to train",
        description="Compare two or more designs in one table (one column per design) with "
        "the winner of each row marked: GPUs, largest NVLink domain, all_reduce and all_to_all "
        "busbw at --size, bisection, IT power, heat to liquid and to air, capex, TCO, $ per "
        "GPU-hour and, with --job, tokens/s, days and dollars to train. Each design is priced "
        "from the book in effect for it (see 'rackdesigner cost'). Exit status 0, or 2 when a "
        "file or option is not usable.",
    )
    parser.add_argument("files", metavar="FILE", nargs="+", help="layout YAML files (two or more)")
    add_cost_options(parser)
    parser.add_argument("--job", metavar="JOB.yaml", help="a training job file: adds tokens/s, "
                        "days and dollars to train")
    parser.add_argument("--tokens", metavar="T", help="tokens to train with --job (e.g. 15T)")
    parser.add_argument("--serve", metavar="JOB.yaml", help="a serving job file (model, "
                        "precision, isl, osl, interactivity...): adds tokens/s per GPU at its "
                        "target, $ per million tokens and tokens/s per MW (docs/serving.md)")
    parser.add_argument("--size", metavar="BYTES", default="1G",
                        help="message size of the busbw rows (default 1G = 1 GiB; K, M, G)")
    parser.add_argument("--failures", metavar="FILE", help="your own failure rates for the "
                        "reliability rows (as 'reliability --failures')")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="rackdesigner.compare/1 JSON")
    out.add_argument("--csv", action="store_true", help="one row per figure, as CSV")
    parser.set_defaults(run=run)


def parse_size(text: str) -> int:
    """`--size` in the one size grammar, a size of the busbw tables (`units.table_size`)."""
    from rackdesigner.units import table_size

    try:
        return table_size(text)
    except ValueError as exc:
        raise UsageError(f"--size: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from rackdesigner.cli.cost_cmd import assumptions_from, job_and_tokens, price_book_for
    from rackdesigner.cost.compare import compare, figures
    from rackdesigner.io.jsonout import json_text
    from rackdesigner.serving import ServeError
    from rackdesigner.workload.api import EstimateError

    if len(args.files) < 2:
        raise UsageError("compare needs two or more design files")
    size = parse_size(args.size)
    assumptions = assumptions_from(args)
    job, tokens = job_and_tokens(args, "compare")
    serve_job = _serve_job(args.serve) if args.serve else None
    labels = _labels(args.files)
    from rackdesigner.cli.reliability_cmd import library_arg

    failures = library_arg(getattr(args, "failures", None))
    designs = []
    for path, label in zip(args.files, labels, strict=True):
        layout = load_layout_arg(path)
        book = price_book_for(layout, args.prices)
        try:
            designs.append(figures(label, layout, book, assumptions, job=job, tokens=tokens,
                                   size=size, serve_job=serve_job, failures=failures))
        except ServeError as exc:  # the serving job file's keys name its settings
            raise UsageError(f"{path}: --serve: {exc.worded(str)}") from None
        except EstimateError as exc:
            # the job file's keys name its settings (`gbs`, `tp`)
            raise UsageError(f"{path}: --job: {exc.worded(str)}") from None
        except ValueError as exc:
            raise UsageError(f"{path}: {exc}") from None
    table = compare(designs, size)
    if args.json:
        print(json_text(table.to_json()))
    elif args.csv:
        print(table.to_csv(), end="")
    else:
        print(table.format_table(), end="")
    return 0


def _serve_job(path: str):
    from rackdesigner.serving.jobfile import ServeJobError, load_serve_job

    try:
        return load_serve_job(path)
    except ServeJobError as exc:
        raise UsageError(f"--serve: {exc}") from None


def _labels(files: list[str]) -> list[str]:
    """Each design's column title: its file name without .yaml (the path when names repeat)."""
    from pathlib import Path

    stems = [Path(f).stem for f in files]
    return stems if len(set(stems)) == len(stems) else list(files)
