"""`rackdesigner bom FILE [--format table|csv|json] [--prices FILE | --no-prices]`: the bill of
materials of a layout, with each row's price from the price book in effect."""

from __future__ import annotations

import argparse

from rackdesigner.cli import load_layout_arg


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "bom",
        help="bill of materials: parts per model, cables by type and length, transceivers, prices",
        description="Print a layout's bill of materials: devices per catalog model (systems "
        "once per instance; 'in systems' = parts that come with a system), cables by type and "
        "length, and the transceivers the optical cables need, each with its unit price and "
        "total from the price book in effect (see 'rackdesigner cost'); rows without a price "
        "are blank and the total says how many items it leaves out.",
    )
    parser.add_argument("file", metavar="FILE", help="layout YAML file")
    parser.add_argument("--format", choices=("table", "csv", "json"), default="table",
                        help="output format (default: table)")
    prices = parser.add_mutually_exclusive_group()
    prices.add_argument("--prices", metavar="FILE",
                        help="price book (default: as 'rackdesigner cost' finds it)")
    prices.add_argument("--no-prices", action="store_true", help="leave the price columns out")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rackdesigner.bom import bill_of_materials, format_csv, format_table
    from rackdesigner.io.jsonout import json_text

    layout = load_layout_arg(args.file)
    bom = bill_of_materials(layout, split=not args.no_prices)
    if args.no_prices:
        text = (json_text(bom.to_json(), newline=True) if args.format == "json"
                else format_csv(bom) if args.format == "csv" else format_table(bom))
        print(text, end="")
        return 0
    from rackdesigner.cli.cost_cmd import price_book_for
    from rackdesigner.cost.bomtext import format_priced_csv, format_priced_table, priced_json
    from rackdesigner.cost.capex import price_design

    book = price_book_for(layout, args.prices)
    capex = price_design(layout, book, bom)
    if args.format == "json":
        print(json_text(priced_json(bom, capex, book)))
    elif args.format == "csv":
        print(format_priced_csv(bom, capex, book), end="")
    else:
        print(format_priced_table(bom, capex, book), end="")
    return 0
