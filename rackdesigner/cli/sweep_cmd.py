"""`rackdesigner sweep SPEC.yaml -o RESULTS.csv|.json|.parquet [--scheduler ...]`.

Runs every point of a sweep spec on Dask and writes one row per point. A progress bar goes to
stderr when it is a terminal. Exit status: 0 every point ok, 1 some point failed or has design
errors (the rest are still written), 2 the spec, the output or the scheduler is not usable.
"""

from __future__ import annotations

import argparse
import sys
import time

from rackdesigner.cli import UsageError

MAX_LISTED = 10


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "sweep",
        help="run a design-space sweep on Dask (local processes or a cluster)",
        description="Generate, validate and simulate every point of a sweep spec as Dask "
        "tasks and write one row per point (parameters, GPUs, switches, links, cables, power, "
        "bisection, busbw, status, error). The spec format is in docs/sweeps.md.",
    )
    parser.add_argument("spec", metavar="SPEC.yaml", help="sweep spec file")
    parser.add_argument("-o", "--output", metavar="RESULTS", required=True,
                        help="results file: .csv, .json or .parquet (- for CSV on stdout)")
    parser.add_argument("--scheduler", default="processes", metavar="WHERE",
                        help="processes (default), threads, synchronous, or the address of a "
                        "running dask.distributed scheduler (tcp://host:8786)")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="local worker processes or threads (default: one per core)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--prices", metavar="FILE",
                        help="price book of the cost columns (overrides the spec's "
                        "cost: {prices}); default: as 'rackdesigner cost' finds it")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rackdesigner.cli.outputs import refuse_over_input
    from rackdesigner.sweep import (
        FAILED,
        OK,
        ResultsError,
        SweepRunError,
        SweepSpecError,
        load_spec,
        run_sweep,
        write_results,
    )
    from rackdesigner.sweep.results import results_format, to_csv

    if args.output != "-":
        try:
            results_format(args.output)
        except ResultsError as exc:
            raise UsageError(str(exc)) from None
        refuse_over_input(args.output, (args.spec, args.prices), "sweep results")
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    try:
        spec = load_spec(args.spec)
    except SweepSpecError as exc:
        raise UsageError(str(exc)) from None
    if args.output != "-":  # the base layout and price book the spec names are inputs too
        refuse_over_input(args.output, (spec.base_label or None, spec.prices_label or None),
                          "sweep results")
    if args.prices is not None:
        import dataclasses

        from rackdesigner.cost import PriceBookError, read_price_book

        try:
            read_price_book(args.prices)
            with open(args.prices, encoding="utf-8") as handle:
                text = handle.read()
        except PriceBookError as exc:
            raise UsageError(str(exc)) from None
        spec = dataclasses.replace(spec, prices_text=text, prices_label=args.prices)
    bar = ProgressBar(sys.stderr) if not args.quiet and sys.stderr.isatty() else None
    try:
        result = run_sweep(spec, args.scheduler, workers=args.workers,
                           progress=bar.update if bar else None)
    except SweepRunError as exc:
        raise UsageError(str(exc)) from None
    finally:
        if bar is not None:
            bar.close()
    if args.output == "-":
        sys.stdout.write(to_csv(result))
        sys.stdout.flush()  # written (or refused: a full disk) before the summary says so
    else:
        try:
            write_results(result, args.output)
        except ResultsError as exc:
            raise UsageError(str(exc)) from None
    counts: dict[str, int] = {}
    for row in result.rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    states = ", ".join(f"{n} {s}" for s, n in sorted(counts.items(), key=lambda kv: kv[0] != OK))
    where = "standard output" if args.output == "-" else args.output
    print(f"{where}: {len(result.rows)} points ({states}) in {result.elapsed_s:.1f} s on "
          f"{result.scheduler}", file=sys.stderr if args.output == "-" else sys.stdout)
    bad = result.not_ok()
    for row in bad[:MAX_LISTED]:
        params = ", ".join(f"{k}={row[k]}" for k in spec.parameter_names())
        print(f"point {row['point']} ({params}): {row['status']}: {row['error']}",
              file=sys.stderr)
    if len(bad) > MAX_LISTED:
        print(f"... and {len(bad) - MAX_LISTED} more points not ok (see the 'status' and "
              "'error' columns)", file=sys.stderr)
    return 1 if bad and any(r["status"] in (FAILED, "invalid") for r in bad) else 0


class ProgressBar:
    """`[#####-----] 12/40 points  0:05 elapsed  ~0:12 left` on one terminal line."""

    WIDTH = 30

    def __init__(self, stream) -> None:
        self.stream = stream
        self.start = time.monotonic()
        self.shown = False

    def update(self, done: int, total: int) -> None:
        elapsed = time.monotonic() - self.start
        filled = self.WIDTH * done // total if total else self.WIDTH
        left = f"  ~{_clock(elapsed / done * (total - done))} left" if 0 < done < total else ""
        self.stream.write(f"\r[{'#' * filled}{'-' * (self.WIDTH - filled)}] {done}/{total} "
                          f"points  {_clock(elapsed)} elapsed{left}\x1b[K")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"
