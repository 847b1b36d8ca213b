"""`rackdesigner` command line: headless verbs over the same engine as the GUI.

Each verb lives in its own module exposing `register(subparsers)`; the module list below is the
only place that names them. Bare `rackdesigner` (or `rackdesigner FILE.yaml`) starts the GUI.
Exit codes: 0 success, 1 the design has errors (validate), 2 bad input, usage or an output that
cannot be written (a full disk, `validate F > /dev/full`): a message, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rackdesigner import __version__
from rackdesigner.catalog import CatalogError

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
    "rackdesigner.cli.export_cmd",
    "rackdesigner.cli.import_cmd",
    "rackdesigner.cli.pack_cmd",
    "rackdesigner.cli.sweep_cmd",
    "rackdesigner.cli.convert_cmd",
    "rackdesigner.cli.models_cmd",
    "rackdesigner.cli.estimate_cmd",
    "rackdesigner.cli.whatif_cmd",
    "rackdesigner.cli.cost_cmd",
)


class UsageError(Exception):
    """Bad input the user can fix: printed on stderr, exit code 2."""


def load_layout_arg(path: str) -> Layout:
    """Load a layout named on the command line; an unreadable file is a UsageError.

    The design lives until the command ends, so it is frozen out of the garbage collector's
    later heap walks (`model/gcpause.py`: about 1 s per full collection at 16k GPUs)."""
    from rackdesigner.io import LayoutFileError, load_layout
    from rackdesigner.model.gcpause import gc_paused

    try:
        with gc_paused(freeze=True):
            return load_layout(path)
    except LayoutFileError as exc:
        raise UsageError(str(exc)) from None


def load_job_arg(path: str):
    """Load a training-job file named by `--job` (workload/jobfile.py); a bad one is a
    UsageError naming the file and line."""
    from rackdesigner.workload.jobfile import JobFileError, load_job

    try:
        return load_job(path)
    except JobFileError as exc:
        raise UsageError(str(exc)) from None


class _Parser(argparse.ArgumentParser):
    """argparse drops write errors of --help/--version silently (exit 0): let them through."""

    def _print_message(self, message: str, file=None) -> None:
        if message:
            (file or sys.stderr).write(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="rackdesigner",
        description="Design GPU clusters and see their bandwidth, latency and power. "
        "Without a verb, opens the designer (optionally on FILE).",
    )
    parser.add_argument("--version", action="version", version=f"rackdesigner {__version__}")
    parser.add_argument("--catalog", metavar="DIR", action="append",
                        help="a folder of your own device models, added to (or overriding) the "
                        "shipped catalog for this run; repeatable; default: $RACKDESIGNER_CATALOG"
                        " or the platform data folder (see docs/interop.md)")
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
    try:
        args_list = _apply_catalog_option(args_list)
    except UsageError as exc:
        print(f"rackdesigner: error: {exc}", file=sys.stderr)
        return 2
    parser = build_parser()
    verbs = set(parser._subparsers._group_actions[0].choices) if parser._subparsers else set()
    if not args_list or (args_list[0] not in verbs and not args_list[0].startswith("-")):
        return _start_gui(args_list)
    try:
        args = parser.parse_args(args_list)
        sys.stdout.flush()
    except OSError as exc:  # --help or --version into a full disk
        return _output_error(exc)
    try:
        status = int(args.run(args) or 0)
        sys.stdout.flush()
        return status
    except UsageError as exc:
        print(f"rackdesigner: error: {exc}", file=sys.stderr)
        return 2
    except CatalogError as exc:
        print(f"rackdesigner: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`rackdesigner catalog | head`): stop quietly, and point stdout
        # at /dev/null so the interpreter's final flush does not complain either.
        _discard_stdout()
        return 0
    except OSError as exc:  # the output cannot be written (full disk, /dev/full, I/O error)
        return _output_error(exc)


def _output_error(exc: OSError) -> int:
    _discard_stdout()
    where = f"{exc.filename}" if exc.filename else "the output"
    print(f"rackdesigner: error: cannot write {where}: {exc.strerror or exc}", file=sys.stderr)
    return 2


def _discard_stdout() -> None:
    """Point stdout at /dev/null, dropping what is buffered, so the exit flush cannot fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _apply_catalog_option(args: list[str]) -> list[str]:
    """Take the global `--catalog DIR` options out of `args` (they may stand anywhere, also
    before a file that opens the designer) and make their folders the user catalog."""
    from rackdesigner.catalog import reset_default_catalog
    from rackdesigner.catalog.user import ENV

    rest: list[str] = []
    dirs: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--catalog":
            if i + 1 >= len(args):
                raise UsageError("--catalog needs a folder (--catalog DIR)")
            dirs.append(args[i + 1])
            i += 2
            continue
        if arg.startswith("--catalog="):
            dirs.append(arg.split("=", 1)[1])
        else:
            rest.append(arg)
        i += 1
    if dirs:
        for folder in dirs:
            if not os.path.isdir(folder):
                raise UsageError(f"--catalog {folder}: no such folder")
        os.environ[ENV] = os.pathsep.join(dirs)
        reset_default_catalog()
    return rest


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
