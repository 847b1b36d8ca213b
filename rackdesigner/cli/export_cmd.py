"""`rackdesigner export FILE --format F -o OUT`: a design in another tool's format.

Formats and what they write are listed by `rackdesigner.interop.EXPORTERS`; docs/interop.md
shows each with an example.
"""

from __future__ import annotations

import argparse
import sys

from rackdesigner.interop import EXPORTERS


def register(sub: argparse._SubParsersAction) -> None:
    formats = "; ".join(f"{e.name}: {e.description}" for e in EXPORTERS.values())
    parser = sub.add_parser(
        "export", help="write a design for Slurm, NetBox, a site team, graph tools or ASTRA-sim",
        description=f"Write a layout in another tool's format. Formats: {formats}.")
    parser.add_argument("file", metavar="FILE", help="layout YAML file")
    parser.add_argument("--format", "-f", required=True, choices=list(EXPORTERS),
                        help="target format")
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="file to write (a folder for netbox and astra-sim)")
    parser.add_argument("--hosts", metavar="MAP",
                        help="slurm-*: file of 'design-name host-name' lines naming the Slurm "
                        "nodes (default: the design's ids, e.g. dgx-1)")
    parser.add_argument("--site", help="netbox: the site's name (default: the design's name)")
    # the names of rackdesigner.interop.dot.LEVELS (not imported here: start-up time)
    parser.add_argument("--level", choices=("units", "devices", "racks"), default="units",
                        help="dot: one node per system/switch (default), per device, or per "
                        "rack (a large design on one page)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rackdesigner.cli import UsageError, load_layout_arg
    from rackdesigner.cli.outputs import refuse_over_input
    from rackdesigner.interop import EXPORTERS, ExportError, export
    from rackdesigner.interop.hostlist import HostMapError, read_host_map

    refuse_over_input(args.output, (args.file, args.hosts), f"{args.format} export",
                      folder=EXPORTERS[args.format].suffixes == ("",))
    options: dict = {}
    if args.hosts:
        if not args.format.startswith("slurm"):
            raise UsageError("--hosts applies to the slurm-tree and slurm-block formats")
        try:
            options["host_map"] = read_host_map(args.hosts)
        except HostMapError as exc:
            raise UsageError(str(exc)) from None
        options["host_map_source"] = args.hosts
    if args.site:
        if args.format != "netbox":
            raise UsageError("--site applies to the netbox format")
        options["site"] = args.site
    if args.format == "dot":
        options["level"] = args.level
    layout = load_layout_arg(args.file)
    try:
        report = export(layout, args.format, Path(args.output), **options)
    except ExportError as exc:
        raise UsageError(f"{args.file}: cannot export as {args.format}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"{args.output}: {exc.strerror or exc}") from None
    for message in report.messages:
        print(f"rackdesigner: note: {message}", file=sys.stderr)
    print(report.summary)
    return 0
