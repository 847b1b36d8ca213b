"""`rackdesigner` command line: headless verbs over the same engine as the GUI.

Each verb lives in its own module exposing `register(subparsers)`; the module list below is the
only place that names them. Bare `rackdesigner` (or `rackdesigner FILE.yaml`) starts the GUI.
Exit codes: 0 success, 1 the design has errors (validate), 2 bad input, usage or an output that
cannot be written (a full disk, `validate F > /dev/full`): a message, never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, NoReturn

from rackdesigner import __version__

if TYPE_CHECKING:
    from rackdesigner.model import Layout

class Verb(NamedTuple):
    """One verb of the command line: its name, the module that registers it (imported only
    when the verb runs, or for a full parser) and the one-line help `rackdesigner --help`
    shows without importing that module (a test checks it is the help the module registers)."""

    name: str
    module: str
    help: str
    #: the garbage collector held off while the verb runs (see `main`); not for `sweep`, whose
    #: process runs Dask's machinery for as long as the sweep lasts
    holds_gc: bool = True


#: The verbs, in `--help` order. Adding a verb = one row here + a module with `register(sub)`
#: that keeps its top-level imports light (heavy imports inside `run`): `rackdesigner VERB`
#: imports that one module only, so `--version` and every verb start in well under 0.1 s.
VERBS: tuple[Verb, ...] = (
    Verb("catalog", "rackdesigner.cli.catalog_cmd",
         "list the device catalog, check or import your own models"),
    Verb("validate", "rackdesigner.cli.validate_cmd",
         "check layout files against the design rules"),
    Verb("examples", "rackdesigner.cli.examples_cmd",
         "print the paths of the bundled example layouts"),
    Verb("simulate", "rackdesigner.cli.simulate_cmd",
         "predict bandwidth, NCCL collectives, latency and power of a layout"),
    Verb("generate", "rackdesigner.cli.generate_cmd",
         "write a reference design (DGX node, NVL72, SuperPOD) or a generated topology"),
    Verb("bom", "rackdesigner.cli.bom_cmd",
         "bill of materials: parts per model, cables by type and length, transceivers, prices"),
    Verb("render", "rackdesigner.cli.render_cmd",
         "draw a layout (or its rack elevations) as PNG, SVG or PDF"),
    Verb("export", "rackdesigner.cli.export_cmd",
         "write a design for Slurm, NetBox, a site team, graph tools or ASTRA-sim"),
    Verb("import", "rackdesigner.cli.import_cmd",
         "make a layout from a live fabric (ibnetdiscover) or a GraphML file"),
    Verb("pack", "rackdesigner.cli.pack_cmd",
         "embed the user models a design uses, so it opens anywhere"),
    Verb("sweep", "rackdesigner.cli.sweep_cmd",
         "run a design-space sweep on Dask (local processes or a cluster)", holds_gc=False),
    Verb("convert", "rackdesigner.cli.convert_cmd",
         "rewrite a layout in the plain or the compact form"),
    Verb("models", "rackdesigner.cli.models_cmd", "list the bundled training models"),
    Verb("estimate", "rackdesigner.cli.estimate_cmd",
         "estimate LLM training step time, MFU, memory and energy on a design"),
    Verb("serve", "rackdesigner.cli.serve_cmd",
         "LLM serving on a design: tokens/s per GPU against tokens/s per user, $/M tokens"),
    Verb("whatif", "rackdesigner.cli.whatif_cmd",
         "what a layout loses when parts fail (one scenario or every single failure)"),
    Verb("cost", "rackdesigner.cli.cost_cmd",
         "capex, energy, TCO, $/GPU-hour and cooling of a design (and cost to train)"),
    Verb("compare", "rackdesigner.cli.compare_cmd",
         "designs side by side: bandwidth, power, heat, cost, and time and cost to train"),
    Verb("reliability", "rackdesigner.cli.reliability_cmd",
         "failures, blast radius, checkpointing and goodput of a design (ETTR)"),
    Verb("fit", "rackdesigner.cli.fit_cmd",
         "the best clusters a site and a budget allow (Pareto front of tokens/s vs cost)",
         holds_gc=False),
)
VERB_MODULES = tuple(verb.module for verb in VERBS)


class UsageError(Exception):
    """Bad input the user can fix: printed on stderr, exit code 2."""


#: what verbs asked to keep until the process ends (`keep_until_exit`); filled only under
#: `program`, whose process then ends without the interpreter's teardown
_KEPT: list[object] = []
_EXITS_AT_ONCE = False


def keep_until_exit(*objects: object) -> None:
    """Keep a verb's large objects (a loaded design, what was derived from it) alive until the
    process ends, when it ends at once (`program`): freeing a 16,384-GPU design and its engine
    topology object by object is about 0.1 s of the `estimate` command's CPU, and the
    operating system takes the whole memory back in one go. For an in-process caller of `main`
    (tests, an embedding program) nothing is kept."""
    if _EXITS_AT_ONCE:
        _KEPT.extend(objects)


def program() -> NoReturn:
    """The program's entry (`python -m rackdesigner`, the `rackdesigner` script): `main`, then,
    when a verb kept its design (`keep_until_exit`), the process ends without the
    interpreter's teardown (its output flushed first, as the designer's `app._exit_now`);
    otherwise it exits as usual (a verb that started Dask workers or other children has them
    closed by their exit handlers)."""
    global _EXITS_AT_ONCE
    _EXITS_AT_ONCE = True
    status = main()
    if _KEPT:
        import contextlib

        logging = sys.modules.get("logging")
        if logging is not None:  # the handlers' last lines (imported only if a verb used it)
            logging.shutdown()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # a closed or full stream
                stream.flush()
        os._exit(status)
    sys.exit(status)


def load_layout_arg(path: str) -> Layout:
    """Load a layout named on the command line; an unreadable file is a UsageError."""
    from rackdesigner.io import LayoutFileError, load_layout

    try:
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


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser. With `verb`, only that verb's module is imported and
    registered; the others are listed by name and help line (enough for `--help`, `--version`
    and telling a verb from a file). Without, every verb is registered in full."""
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
    for entry in VERBS:
        if verb is None or entry.name == verb:
            importlib.import_module(entry.module).register(sub)
        else:
            sub.add_parser(entry.name, help=entry.help, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        args_list = _apply_catalog_option(args_list)
    except UsageError as exc:
        print(f"rackdesigner: error: {exc}", file=sys.stderr)
        return 2
    from rackdesigner.plugins import PluginError, load_plugins

    try:
        load_plugins()  # installed packages' kinds, catalog packs and export formats
    except PluginError as exc:
        print(f"rackdesigner: error: {exc}", file=sys.stderr)
        return 2
    verbs = {verb.name: verb for verb in VERBS}
    if not args_list or (args_list[0] not in verbs and not args_list[0].startswith("-")):
        return _start_gui(args_list)
    verb = verbs.get(args_list[0])
    # No verb does linear algebra, but NumPy's OpenBLAS starts a worker thread per core when a
    # large design's columns import it, and spins it: 0.1 s of CPU per process on a 2-core
    # machine, taken from whatever else runs there. A value the user set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    parser = build_parser(verb.name if verb is not None else "")
    try:
        try:
            args = parser.parse_args(args_list)
        except SystemExit:  # --help, --version: printed, then argparse exits; the text may
            sys.stdout.flush()  # still be buffered (stdout to a file), so the flush is here,
            raise               # not in the interpreter's exit (exit 120, "Exception ignored")
        sys.stdout.flush()
    except BrokenPipeError:  # `rackdesigner --help | head -1`: the reader has what it wanted
        _discard_stdout()
        return 0
    except OSError as exc:  # --help or --version into a full disk
        return _output_error(exc)
    hold = verb is not None and verb.holds_gc and gc.isenabled()
    try:
        if hold:
            # A verb loads, builds or walks a whole design and exits: Python's cyclic collector
            # would walk the growing heap again and again meanwhile (a third of a large
            # design's load, half of its topology build) and find nothing, since the model
            # makes no reference cycles; objects are still freed by reference counting. The
            # library itself never touches the collector (issue 23 §5, `model/gcpause.py`).
            gc.disable()
        from rackdesigner.cli.terminal import guarded

        with guarded(args):  # names from files never colour, reorder or hide output
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
        _discard_stdout()
        return 0
    except OSError as exc:  # the output cannot be written (full disk, /dev/full, I/O error)
        return _output_error(exc)
    except Exception as exc:
        if _is_catalog_error(exc) or _is_non_finite_output(exc):
            print(f"rackdesigner: error: {exc}", file=sys.stderr)
            return 2
        raise
    finally:
        if hold:
            _resume_gc()


#: net objects made while a verb held the collector off above which `_resume_gc` freezes them
#: (a 1,024-GPU design makes about 100,000; the 32,760-GPU SuperPOD several million)
FREEZE_FROM = 500_000


def _resume_gc() -> None:
    """Turn the collector back on after a verb that held it off.

    When the verb made many objects (a large design: `gc.get_count()` counts them while the
    collector is off), they are frozen first (`gc.freeze()`: kept out of every later
    collection). Otherwise the first allocations after `gc.enable()` start a full collection
    that walks the whole design to find nothing, the model making no reference cycles: 0.8 s
    of CPU after `validate` of the 32,760-GPU SuperPOD, 1.7 s at 102,400 GPUs (issue 38
    item 19). Frozen objects are still freed by reference counting; only a cycle among them
    would never be collected, which matters to no process that ends with the verb (a program
    calling `main` for a large design keeps such cycles, if any, until it exits)."""
    if gc.get_count()[0] >= FREEZE_FROM:
        gc.freeze()
    gc.enable()


def _is_catalog_error(exc: Exception) -> bool:
    """A CatalogError (a bad user model: exit 2), asked without importing the catalog: when
    it was never imported, nothing can have raised one."""
    catalog = sys.modules.get("rackdesigner.catalog")
    return catalog is not None and isinstance(exc, catalog.CatalogError)


def _is_non_finite_output(exc: Exception) -> bool:
    """A NaN or infinity refused by the JSON writer (io/jsonout.py): a clear error, not a file
    of `Infinity` no parser reads."""
    jsonout = sys.modules.get("rackdesigner.io.jsonout")
    return jsonout is not None and isinstance(exc, jsonout.NonFiniteError)


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
        from rackdesigner.catalog import reset_default_catalog
        from rackdesigner.catalog.user import ENV

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
    return run_app(args[0] if args else None, exit_at_once=True)


if __name__ == "__main__":
    sys.exit(main())
