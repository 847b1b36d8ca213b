"""`rackdesigner examples`: the installed example layouts' paths, one per line."""

from __future__ import annotations

import argparse

from rackdesigner._resources import example_paths


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("examples", help="print the paths of the bundled example layouts")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    for path in example_paths():
        print(path)
    return 0
