"""`rackdesigner import ibnetdiscover|graphml|netbox FILE -o layout.yaml`: a design from
elsewhere."""

from __future__ import annotations

import argparse
import sys

from rackdesigner.vocabulary.wording import counted


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "import", help="make a layout from a live fabric (ibnetdiscover) or a GraphML file",
        description="Make a layout from another tool's output. 'ibnetdiscover': the text "
        "ibnetdiscover prints for a live InfiniBand fabric (switches, HCAs grouped by host, "
        "port-to-port links), matched to catalog models; unmatched parts are reported. "
        "'graphml': a GraphML file written by 'rackdesigner export --format graphml' (or any "
        "graph whose nodes carry a 'model' attribute). 'netbox': the folder of NetBox "
        "bulk-import CSVs and device types (devices become catalog systems again, cables "
        "links).")
    parser.add_argument("source", choices=("ibnetdiscover", "graphml", "netbox"),
                        help="input format")
    parser.add_argument("file", metavar="FILE", help="file to read (netbox: the folder of "
                        "bulk-import files, as 'export -f netbox' writes them)")
    parser.add_argument("-o", "--output", required=True, metavar="LAYOUT",
                        help="layout YAML to write")
    parser.add_argument("--host-map", metavar="FILE",
                        help="ibnetdiscover: host names of HCAs that carry their vendor's "
                        "factory description ('GUID host' per line)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rackdesigner.cli import UsageError
    from rackdesigner.io import save_layout

    output = Path(args.output)
    if output.suffix.lower() not in (".yaml", ".yml"):
        raise UsageError(f"{output}: the layout to write must end in .yaml")
    if args.source == "ibnetdiscover":
        from rackdesigner.interop.ibnetdiscover import IbnetdiscoverError, import_file

        try:
            report = import_file(args.file, host_map=args.host_map)
        except IbnetdiscoverError as exc:
            raise UsageError(str(exc)) from None
        layout = report.layout
        summary = (f"{output}: {counted(report.switches, 'switch', 'switches')}, "
                   f"{counted(report.hosts, 'host')} with {counted(report.hcas, 'HCA')}, "
                   f"{counted(report.links, 'link')}")
        for description, nodes in sorted(report.unmatched.items()):
            print(f"rackdesigner: note: no catalog model for {description!r} "
                  f"({', '.join(nodes)}); kept as an unknown model (add it to your catalog: "
                  "see docs/interop.md)", file=sys.stderr)
        for message in report.messages:
            print(f"rackdesigner: note: {message}", file=sys.stderr)
    elif args.source == "netbox":
        from rackdesigner.interop.netbox_design import NetboxImportError, read_folder

        try:
            result = read_folder(args.file)
        except NetboxImportError as exc:
            raise UsageError(str(exc)) from None
        layout = result.layout
        for dtype, names in sorted(result.skipped.items()):
            print(f"rackdesigner: note: device type {dtype!r} is not in the catalog; "
                  f"{counted(len(names), 'device')} left out "
                  f"({', '.join(names[:3])})", file=sys.stderr)
        for note in result.notes:
            print(f"rackdesigner: note: {note}", file=sys.stderr)
        summary = (f"{output}: {result.devices} devices from NetBox ({layout.device_count()} "
                   f"with their parts), {result.cables} cables as {layout.link_count()} links")
    else:
        from rackdesigner.interop.graphml import GraphmlImportError, read

        try:
            layout = read(args.file)
        except GraphmlImportError as exc:
            raise UsageError(str(exc)) from None
        summary = f"{output}: {layout.device_count()} devices, {layout.link_count()} links"
    try:
        save_layout(layout, output)
    except OSError as exc:
        raise UsageError(f"{output}: {exc.strerror or exc}") from None
    print(summary)
    return 0
