"""`rackdesigner fit --site SITE.yaml [--budget USD] [--job JOB.yaml | --serve SERVE.yaml]
[--systems ...] [--scheduler ...] [--out DIR] [--json]`: the compositions that fit a site and
a budget, and the Pareto front of tokens/s against capex (or TCO), each point a real design
(rackdesigner/fit/search.py; docs/site.md). Exit 0 a front was found, 1 nothing fits, 2 bad
input (a site file, job, budget or scheduler that cannot be used)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING

from rackdesigner.cli import UsageError

if TYPE_CHECKING:
    from rackdesigner.serving.jobfile import ServeJob
    from rackdesigner.workload.jobfile import JobSpec


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "fit", help="the best clusters a site and a budget allow (Pareto front of tokens/s vs "
        "cost)",
        description="Search system mixes, counts, fabric switches and oversubscription within "
        "a site's limits (SITE.yaml: the design file's site: form) and a budget, on local "
        "processes or a Dask cluster; print the Pareto front of training tokens/s against "
        "capex or TCO with the limit that binds each point. docs/site.md.")
    parser.add_argument("--site", required=True, metavar="SITE.yaml", help="the site's limits")
    parser.add_argument("--budget", type=float, metavar="USD", help="capex budget")
    parser.add_argument("--job", metavar="JOB.yaml", help="training job (estimate options); "
                        "laid out again for every candidate's GPUs")
    parser.add_argument("--serve", metavar="SERVE.yaml", help="serving job (the format of "
                        "compare --serve): rank by output tokens/s at its target, each "
                        "candidate served on its own fabric")
    parser.add_argument("--systems", default="gb200-nvl72,dgx-b200",
                        help="system types to mix (default gb200-nvl72,dgx-b200)")
    parser.add_argument("--switches", default="qm9700,q3400",
                        help="fabric switches to try (default qm9700,q3400)")
    parser.add_argument("--oversubscription", default="1,2",
                        help="leaf down:up ratios to try (default 1,2)")
    parser.add_argument("--against", choices=("capex", "tco"), default="capex",
                        help="the front's cost axis (default capex)")
    parser.add_argument("--scheduler", default="processes", metavar="WHERE",
                        help="processes (default), threads, synchronous, or a "
                        "dask.distributed address (tcp://host:8786)")
    parser.add_argument("--workers", type=int, metavar="N", help="local workers")
    parser.add_argument("--out", metavar="DIR", help="write each front point's design here")
    parser.add_argument("--json", action="store_true", help="JSON on stdout")
    parser.set_defaults(run=run)


def _floats(text: str, what: str) -> tuple[float, ...]:
    try:
        values = tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise UsageError(f"--{what}: expected numbers separated by commas, got {text!r}") \
            from None
    if not values or any(not v >= 1 for v in values):
        raise UsageError(f"--{what}: every ratio must be 1 or more, got {text!r}")
    return values


def run(args: argparse.Namespace) -> int:
    from rackdesigner.fit.search import FitError, design_name, fit
    from rackdesigner.io import LayoutFileError
    from rackdesigner.io.site_read import load_site
    from rackdesigner.sweep.runner import SweepRunError
    from rackdesigner.workload.jobfile import JobFileError, load_job

    if args.serve is not None and args.job is not None:
        raise UsageError("--job and --serve: give one (training or serving throughput)")
    if args.budget is not None and not (args.budget > 0 and math.isfinite(args.budget)):
        raise UsageError(f"--budget must be a positive amount of dollars, got {args.budget:g}")
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be 1 or more")
    try:
        site = load_site(args.site)
    except LayoutFileError as exc:
        raise UsageError(str(exc)) from None
    job: JobSpec | ServeJob | None = None
    if args.job is not None:
        try:
            job = load_job(args.job)
        except JobFileError as exc:
            raise UsageError(str(exc)) from None
    if args.serve is not None:  # output tokens/s at the serving job's target
        from rackdesigner.serving.jobfile import ServeJobError, load_serve_job

        try:
            job = load_serve_job(args.serve)
        except ServeJobError as exc:
            raise UsageError(str(exc)) from None
    systems = tuple(s.strip() for s in args.systems.split(",") if s.strip())
    switches = tuple(s.strip() for s in args.switches.split(",") if s.strip())
    try:
        result = fit(site, budget=args.budget, job=job, systems=systems, switches=switches,
                     oversubscriptions=_floats(args.oversubscription, "oversubscription"),
                     against=args.against, scheduler=args.scheduler, workers=args.workers)
    except (FitError, SweepRunError) as exc:
        raise UsageError(str(exc)) from None
    if args.out:
        result = _write(result, Path(args.out), design_name)
    if args.json:
        from rackdesigner.io.jsonout import json_text

        print(json_text(result.to_dict(), indent=1))
    else:
        print(_text(result, job is not None))
    return 0 if result.front else 1


def _write(result, folder: Path, name):
    """Each front point's design, with the site set and every liquid rack given its CDU,
    written atomically into `folder`; the result with each point's `design` path."""
    from dataclasses import replace

    from rackdesigner.fit.search import build_candidate
    from rackdesigner.io import save_layout

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {folder}: {exc.strerror or exc}") from None
    front = []
    for i, c in enumerate(result.front, start=1):
        layout = build_candidate(c, cdus=1)
        layout.set_meta(site=result.site)
        path = folder / name(i, c)
        try:
            save_layout(layout, path)
        except OSError as exc:
            raise UsageError(f"--out {path}: {exc.strerror or exc}") from None
        front.append(replace(c, design=str(path)))
    return replace(result, front=tuple(front))


def _text(result, with_job: bool) -> str:
    from rackdesigner.cost.report import format_money

    lines = [f"{len(result.candidates)} candidates ({result.parts} parts measured), "
             f"{result.feasible} within the site"
             + (f" and a budget of {format_money(result.budget)}" if result.budget else "")
             + f"; the front of {'tokens/s' if with_job else 'GPUs'} against {result.against}:"]
    head = f"{'systems':34} {'switch':7} {'GPUs':>5} {'tokens/s':>10} {'capex':>8} " \
           f"{'TCO':>8} {'liquid':>8} {'facility':>9} binding"
    lines.append(head)
    for c in result.front:
        tokens = f"{c.tokens_per_s:,.0f}" if c.tokens_per_s is not None else "-"
        over = ("" if c.oversubscription == 1 else f" {c.oversubscription:g}:1") + (
            " core" if c.fabric == "core" else "")
        lines.append(f"{c.systems + over:34} {c.switch:7} {c.gpus:>5} {tokens:>10} "
                     f"{format_money(c.capex):>8} {format_money(c.tco):>8} "
                     f"{c.liquid_w / 1000:>6,.0f}kW {c.facility_w / 1000:>7,.0f}kW {c.binding}")
        if c.design:
            lines.append(f"    {c.design}")
    for part, why in result.failed_parts[:5]:
        lines.append(f"part {part} left out: {why}")
    lines += [f"note: {n}" for n in result.notes]
    return "\n".join(lines)

