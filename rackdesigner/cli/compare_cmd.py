"""`rackdesigner compare A.yaml B.yaml [C.yaml...]`: designs side by side — GPUs, NVLink
domain, busbw, all_to_all, bisection, power, heat, capex, TCO, $/GPU-hour and, with a job,
tokens/s, days and dollars to train — with the winner of each row marked."""

from __future__ import annotations

import argparse
import json

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
    parser.add_argument("--size", metavar="BYTES", default="1G",
                        help="message size of the busbw rows (default 1G = 1 GiB; K, M, G)")
    parser.add_argument("--failures", metavar="FILE", help="your own failure rates for the "
                        "reliability rows (as 'reliability --failures')")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="rackdesigner.compare/1 JSON")
    out.add_argument("--csv", action="store_true", help="one row per figure, as CSV")
    parser.set_defaults(run=run)


def parse_size(text: str) -> int:
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = t[-1:] if t[-1:] in "KMG" else ""
    try:
        value = int(t[:-1] if unit else t) * units[unit]
    except ValueError:
        raise UsageError(f"--size: expected bytes such as 1G, 256M or 8192, got {text!r}") \
            from None
    if value < 8 or value & (value - 1):
        raise UsageError(f"--size: the busbw table has powers of two from 8 B to 16 GiB, "
                         f"got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    from rackdesigner.cli.cost_cmd import assumptions_from, job_and_tokens, price_book_for
    from rackdesigner.cost.compare import compare, figures
    from rackdesigner.workload.api import EstimateError

    if len(args.files) < 2:
        raise UsageError("compare needs two or more design files")
    size = parse_size(args.size)
    assumptions = assumptions_from(args)
    job, tokens = job_and_tokens(args, "compare")
    labels = _labels(args.files)
    from rackdesigner.cli.reliability_cmd import library_arg

    failures = library_arg(getattr(args, "failures", None))
    designs = []
    for path, label in zip(args.files, labels, strict=True):
        layout = load_layout_arg(path)
        book = price_book_for(layout, args.prices)
        try:
            designs.append(figures(label, layout, book, assumptions, job=job, tokens=tokens,
                                   size=size, failures=failures))
        except EstimateError as exc:
            # the job file's keys name its settings (`gbs`, `tp`)
            raise UsageError(f"{path}: --job: {exc.worded(str)}") from None
        except ValueError as exc:
            raise UsageError(f"{path}: {exc}") from None
    table = compare(designs, size)
    if args.json:
        print(json.dumps(table.to_json(), indent=2))
    elif args.csv:
        print(table.to_csv(), end="")
    else:
        print(table.format_table(), end="")
    return 0


def _labels(files: list[str]) -> list[str]:
    """Each design's column title: its file name without .yaml (the path when names repeat)."""
    from pathlib import Path

    stems = [Path(f).stem for f in files]
    return stems if len(set(stems)) == len(stems) else list(files)
