"""`rackdesigner cost FILE`: capex, energy, TCO, $/GPU-hour and cooling of a design, and with a
training job the days and dollars to train (schema `rackdesigner.cost/1` with --json)."""

from __future__ import annotations

import argparse

from rackdesigner.cli import UsageError, load_layout_arg


def add_cost_options(parser: argparse.ArgumentParser) -> None:
    """The price book and running-cost options `cost`, `compare` and `sweep` share."""
    parser.add_argument("--prices", metavar="FILE",
                        help="price book (default: $RACKDESIGNER_PRICES, the data folder's "
                        "prices.yaml, the book embedded in the design, else the bundled "
                        "example book of public figures)")
    parser.add_argument("--years", type=float, metavar="N",
                        help="years of operation for TCO and $/GPU-hour (default 5)")
    parser.add_argument("--kwh-price", type=float, metavar="X",
                        help="electricity price per kWh in the book's currency (default "
                        "0.0806, the 2023 US industrial average, EIA)")
    parser.add_argument("--pue", type=float, metavar="X",
                        help="power usage effectiveness (default 1.3)")
    parser.add_argument("--utilisation", type=float, metavar="U",
                        help="share of the year the design draws its power, 0-1 (default 0.8, "
                        "a model assumption)")
    parser.add_argument("--power-basis", choices=("typical", "max"),
                        help="draw the energy is computed from (default typical)")
    parser.add_argument("--facility", choices=("build", "colocation", "none"),
                        help="count the building as built (capex per MW of IT by cooling) or "
                        "rented (per kW-month), or leave it out (default: the price book's)")
    parser.add_argument("--capital-rate", type=float, metavar="R",
                        help="cost of capital per year, e.g. 0.08: capex is charged as the "
                        "annuity that repays it over the years (default: none)")


def assumptions_from(args: argparse.Namespace):
    from rackdesigner.cost import Assumptions

    values = {k: getattr(args, a) for k, a in (("years", "years"), ("kwh_price", "kwh_price"),
                                                ("pue", "pue"), ("utilisation", "utilisation"),
                                                ("power_basis", "power_basis"),
                                                ("facility", "facility"),
                                                ("capital_rate", "capital_rate"))
              if getattr(args, a, None) is not None}
    try:
        return Assumptions(**values)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def price_book_for(layout, path: str | None):
    """The price book in effect (cost/locate.py); a bad one is a UsageError naming the file
    and line. Warnings (ids not in the catalog) go to stderr."""
    import sys

    from rackdesigner.cost import PriceBookError, find_price_book

    try:
        book = find_price_book(layout, path, chosen_as=f"--prices {path}" if path else None)
    except PriceBookError as exc:
        raise UsageError(str(exc)) from None
    for warning in book.warnings:
        print(f"rackdesigner: warning: {warning}", file=sys.stderr)
    return book


def job_and_tokens(args: argparse.Namespace, verb: str):
    """(JobSpec or None, tokens or None) from `--job` and `--tokens`; bad ones are UsageErrors."""
    from rackdesigner.cli import load_job_arg

    job = load_job_arg(args.job) if args.job else None
    if args.tokens is None:
        if job is not None and not job.tokens:  # the core says it in the design's words
            raise UsageError("--job: a training job needs the tokens to train: give --tokens "
                             "(e.g. 15T) or 'tokens:' in the job file")
        return job, None
    if job is None:
        raise UsageError(f"--tokens goes with --job (the training job to {verb})")
    from rackdesigner.workload.jobfile import token_count

    try:
        return job, token_count(args.tokens)
    except ValueError as exc:
        raise UsageError(f"--tokens: {exc}") from None


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "cost",
        help="capex, energy, TCO, $/GPU-hour and cooling of a design (and cost to train)",
        description="Price a design's bill of materials from a price book, add yearly energy "
        "and support, and report TCO over N years, $ per GPU-hour, heat to liquid and air, "
        "and with --job the days, dollars and energy to train --tokens tokens. A total that "
        "leaves parts unpriced is a lower bound and lists them. Exit status 0, or 2 when the "
        "design, price book, job or an option is not usable.",
    )
    parser.add_argument("file", metavar="FILE", help="layout YAML file")
    add_cost_options(parser)
    parser.add_argument("--job", metavar="JOB.yaml",
                        help="a training job file (as 'estimate --job'): adds days, cost and "
                        "energy to train")
    parser.add_argument("--tokens", metavar="T",
                        help="tokens to train with --job, e.g. 15T (default: the job file's)")
    parser.add_argument("--failures", metavar="FILE",
                        help="with --job: your own failure rates for the days and cost to train "
                        "with failures (as 'reliability --failures')")
    parser.add_argument("--lines", action="store_true", help="list every priced line")
    parser.add_argument("--sensitivity", action="store_true",
                        help="$/GPU-hour with GPU price, network price, $/kWh, PUE, "
                        "utilisation and years each moved by ±20 %% (JSON: 'sensitivity')")
    parser.add_argument("--json", action="store_true",
                        help="machine-readable output (schema rackdesigner.cost/1)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rackdesigner.cost.text import format_report
    from rackdesigner.io.jsonout import json_text

    assumptions = assumptions_from(args)
    layout = load_layout_arg(args.file)
    book = price_book_for(layout, args.prices)
    job, tokens = job_and_tokens(args, "cost")
    report = _report(layout, book, assumptions, job, tokens, args.file)
    spread = None
    if getattr(args, "sensitivity", False):
        from rackdesigner.cost.sensitivity import sensitivity

        spread = sensitivity(report)
    failures = _with_failures(layout, report, args) if job is not None else None
    if args.json:
        data = report.to_json()
        if spread is not None:
            data["sensitivity"] = spread.to_dict()
        if failures is not None:
            data["with_failures"] = failures
        print(json_text(data))
    else:
        print(format_report(report, lines=args.lines), end="")
        if spread is not None:
            print("\n" + spread.format(book.symbol), end="")
        if failures is not None and failures["time_to_train_days"] is not None:
            from rackdesigner.cost import format_money

            cost = failures["cost_to_train"]
            money = "—" if cost is None else format_money(
                cost, report.book.symbol, bound=not report.complete)
            print(f"With failures {failures['time_to_train_days']:,.1f} days, {money} to train "
                  f"({failures['interruptions_per_day']:.3g} interruptions/day, ETTR "
                  f"{failures['ettr']:.1%}, time that trains {failures['goodput']:.1%}; "
                  "rackdesigner reliability)")
    return 0


def _with_failures(layout, report, args) -> dict | None:
    """Days and cost to train with the work failures lose (docs/reliability.md)."""
    import math

    from rackdesigner.cli.reliability_cmd import library_arg
    from rackdesigner.cost.compare import effective_cost_to_train, training_reliability

    if report.training is None or not report.training.tokens_per_s:
        return None
    a = training_reliability(layout, report, library_arg(args.failures))
    days = a.effective_days()
    cost = effective_cost_to_train(report, a)
    return {"interruptions_per_day": round(a.interruptions_per_day, 4),
            "ettr": round(a.ettr, 4), "goodput": round(a.goodput, 4),
            "time_to_train_days": round(days, 3) if days is not None and math.isfinite(days)
            else None,
            "cost_to_train": None if cost is None else round(cost, 2)}


def _report(layout, book, assumptions, job, tokens, label):
    from rackdesigner.cost import design_cost
    from rackdesigner.workload.api import EstimateError

    try:
        return design_cost(layout, book, assumptions, job=job, tokens=tokens)
    except EstimateError as exc:
        # the job file's keys name its settings (`gbs`, `tp`)
        raise UsageError(f"--job: {exc.worded(str)}") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
