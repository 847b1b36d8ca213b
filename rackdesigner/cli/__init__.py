"""`rackdesigner` command line: headless verbs over the same engine as the GUI.

Each verb lives in its own module exposing `register(subparsers)`; the module list below is the
only place that names them. Bare `rackdesigner` (or `rackdesigner FILE.yaml`) starts the GUI.
Exit codes: 0 success, 1 the design has errors (validate), 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rackdesigner import __version__

if TYPE_CHECKING:
    from rackdesigner.model import Layout

VERB_MODULES = (
    "rackdesigner.cli.catalog_cmd",
    "rackdesigner.cli.validate_cmd",
    "rackdesigner.cli.examples_cmd",
    "rackdesigner.cli.simulate_cmd",
    "rackdesigner.cli.generate_cmd",
    "rackdesigner.cli.bom_cmd",
    "rackdesigner.cli.render_cmd",
    "rackdesigner.cli.models_cmd",
    "rackdesigner.cli.estimate_cmd",
)


class UsageError(Exception):
    """Bad input the user can fix: printed on stderr, exit code 2."""


def load_layout_arg(path: str) -> Layout:
    """Load a layout named on the command line; an unreadable file is a UsageError."""
    from rackdesigner.io import LayoutFileError, load_layout

    try:
        return load_layout(path)
    except LayoutFileError as exc:
        raise UsageError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rackdesigner",
        description="Design GPU clusters and see their bandwidth, latency and power. "
        "Without a verb, opens the designer (optionally on FILE).",
    )
    parser.add_argument("--version", action="version", version=f"rackdesigner {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    for name in VERB_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # verb not written yet
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    verbs = set(parser._subparsers._group_actions[0].choices) if parser._subparsers else set()
    if not args_list or (args_list[0] not in verbs and not args_list[0].startswith("-")):
        return _start_gui(args_list)
    args = parser.parse_args(args_list)
    try:
        status = int(args.run(args) or 0)
        sys.stdout.flush()
        return status
    except UsageError as exc:
        print(f"rackdesigner: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`rackdesigner catalog | head`): stop quietly, and point stdout
        # at /dev/null so the interpreter's final flush does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _start_gui(args: list[str]) -> int:
    if len(args) > 1:
        print("rackdesigner: error: the designer opens one file at a time", file=sys.stderr)
        return 2
    try:
        from rackdesigner.app import run_app
    except ImportError as exc:
        print(f"rackdesigner: the designer is not available here ({exc}); "
              "use a verb, see 'rackdesigner --help'", file=sys.stderr)
        return 2
    return run_app(args[0] if args else None)


if __name__ == "__main__":
    sys.exit(main())
