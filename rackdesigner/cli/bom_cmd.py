"""`rackdesigner bom FILE [--format table|csv|json]`: the bill of materials of a layout."""

from __future__ import annotations

import argparse
import json

from rackdesigner.cli import load_layout_arg


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "bom",
        help="bill of materials: parts per model, cables by type and length, transceivers",
        description="Print a layout's bill of materials: devices per catalog model (systems "
        "once per instance; 'in systems' = parts that come with a system), cables by type and "
        "length, and the transceivers the optical cables need.",
    )
    parser.add_argument("file", metavar="FILE", help="layout YAML file")
    parser.add_argument("--format", choices=("table", "csv", "json"), default="table",
                        help="output format (default: table)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rackdesigner.bom import bill_of_materials, format_csv, format_table

    layout = load_layout_arg(args.file)
    bom = bill_of_materials(layout)
    if args.format == "json":
        print(json.dumps(bom.to_json(), indent=2))
    elif args.format == "csv":
        print(format_csv(bom), end="")
    else:
        print(format_table(bom), end="")
    return 0
