"""`rackdesigner render FILE -o OUT.png|.svg`: draw a layout headless with the GUI's scene code.

Qt is imported only when the verb runs (through `rackdesigner.ui.export.render_layout`), so the
rest of the CLI works where Qt cannot load. Without a display, Qt's offscreen platform is used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rackdesigner.analysis.heat import HeatMap


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "render", help="draw a layout (or its rack elevations) as PNG, SVG or PDF",
        description="Draw a layout as the designer shows it, to a PNG or SVG file; with "
                    "--view racks, the rack elevations to PNG, SVG or a PDF with several "
                    "racks per page.")
    parser.add_argument("file", help="layout file (.yaml)")
    parser.add_argument("-o", "--output", required=True,
                        help="image to write: .png or .svg (and .pdf with --view racks)")
    parser.add_argument("--view", choices=("topology", "racks"), default="topology",
                        help="what to draw: the topology canvas (default) or rack elevations")
    parser.add_argument("--face", choices=("front", "rear"), default="front",
                        help="with --view racks: the front (default) or rear of the racks")
    parser.add_argument("--per-page", type=int, default=6,
                        help="with --view racks and a PDF: racks per page (default 6)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="PNG pixels per canvas unit (default 1; large designs are capped)")
    parser.add_argument("--overview", action="store_true",
                        help="draw nodes and trays collapsed, as the zoomed-out canvas does")
    parser.add_argument("--heat", metavar="COLLECTIVE[:SIZE]|workload[:CLASSES]",
                        help="colour each network link by its utilisation under a collective "
                        "(all_reduce, all_gather, all_to_all, send_recv...) at SIZE bytes "
                        "(default 1G), e.g. all_to_all:64M; or, with --job, under a training "
                        "job's traffic: workload (TP/CP/EP/PP/DP, NVLink links too) or "
                        "workload:dp, workload:tp,pp; the numbers: simulate --link-loads")
    parser.add_argument("--job", metavar="FILE",
                        help="training job for --heat workload: a YAML file of estimate "
                        "options (model, tp, pp, gbs, ...; docs/workload.md)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rackdesigner.cli import UsageError, load_job_arg, load_layout_arg
    from rackdesigner.cli.outputs import refuse_over_input

    output = Path(args.output)
    refuse_over_input(output, (args.file, args.job), "image")
    if args.view == "racks":
        return _run_racks(args, output)
    if output.suffix.lower() not in (".png", ".svg"):
        raise UsageError(f"{output}: the output must end in .png or .svg")
    if args.scale <= 0:
        raise UsageError("--scale must be positive")
    heat: tuple[str, int] | HeatMap | None = None
    classes = None
    if args.heat is not None:
        from rackdesigner.analysis.heat import parse_heat
        from rackdesigner.analysis.jobheat import parse_workload

        try:
            classes = parse_workload(args.heat)
            heat = parse_heat(args.heat) if classes is None else None
        except ValueError as exc:
            raise UsageError(f"--heat: {exc}") from None
    if classes is not None and args.job is None:
        raise UsageError("--heat workload needs --job FILE: the training job whose traffic to "
                         "draw (a YAML file of estimate options, e.g. model: llama3-70b, tp: 8, "
                         "gbs: 512)")
    if args.job is not None and classes is None:
        raise UsageError("--job is used by --heat workload[:CLASSES]")
    spec = load_job_arg(args.job) if args.job is not None else None
    layout = load_layout_arg(args.file)
    if spec is not None:
        from rackdesigner.analysis.jobheat import JobHeatError, workload_heat

        try:
            heat, _ = workload_heat(layout, spec, classes)
        except JobHeatError as exc:
            raise UsageError(f"{args.job}: the job cannot run on {args.file}: {exc}") from None
    from rackdesigner.ui.export import MAX_DRAWN_DEVICES, drawn_level, render_layout

    try:
        level = drawn_level(layout, args.overview)
    except ValueError as exc:
        raise UsageError(f"{args.file}: {exc}") from None
    if level == "far":
        print(f"rackdesigner: note: {layout.device_count():,} devices (more than "
              f"{MAX_DRAWN_DEVICES:,}): drawn as blocks, one per scalable unit and switch tier, "
              "as the designer's far zoom", file=sys.stderr)
    try:
        render_layout(layout, output, scale=args.scale, overview=args.overview, heat=heat,
                      level=level)
    except OSError as exc:  # the image is written atomically: an old one is left as it was
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(output)
    return 0


def _run_racks(args: argparse.Namespace, output: Path) -> int:
    from rackdesigner.cli import UsageError, load_layout_arg

    if output.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise UsageError(f"{output}: the output must end in .png, .svg or .pdf")
    if args.per_page < 1:
        raise UsageError("--per-page must be at least 1")
    layout = load_layout_arg(args.file)
    from rackdesigner.ui.racks.export import render_racks

    try:
        render_racks(layout, output, face=args.face, per_page=args.per_page)
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(output)
    return 0
