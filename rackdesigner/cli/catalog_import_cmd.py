"""`rackdesigner catalog import-netbox FILE... --into DIR`: NetBox device types as your models.

Registered as a sub-command of `catalog` (catalog_cmd.register calls `register_import`).
Questions the device type leaves open (the protocol and rate of an interface type NetBox does
not spell out, the kind of a box with few fabric ports) are asked on a terminal, or answered
with `--port TYPE=PROTOCOL:GBPS` and `--kind KIND`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rackdesigner.catalog import KINDS, PROTOCOLS
from rackdesigner.vocabulary.wording import counted


def register_import(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="catalog_action", metavar="ACTION")
    p = sub.add_parser(
        "import-netbox", help="turn NetBox device-type YAML files into your own models",
        description="Convert device types in the NetBox community device-type library format "
        "into RackDesigner models in a user catalog folder (use it with --catalog DIR or "
        "RACKDESIGNER_CATALOG).")
    p.add_argument("files", nargs="+", metavar="FILE", help="NetBox device-type YAML files")
    p.add_argument("--into", required=True, metavar="DIR", help="user catalog folder to write")
    p.add_argument("--port", action="append", default=[], metavar="TYPE=PROTOCOL:GBPS",
                   help="protocol and rate (Gb/s per port) for an interface type the device "
                   "type does not spell out, e.g. other=ethernet:400; repeatable")
    p.add_argument("--kind", choices=KINDS, help="kind of device (default: switch when it has "
                   "24 or more fabric ports, else asked)")
    p.add_argument("--fabric", choices=("auto", "infiniband", "ethernet"), default="auto",
                   help="protocol of Ethernet-typed fabric ports: auto (default) takes those "
                   "of a recognisable InfiniBand part (QM8700, SB7800, SX6036, 'IB1/1' "
                   "ports...) as InfiniBand and says so; infiniband or ethernet decides. "
                   "Ports typed InfiniBand stay InfiniBand; --port answers win")
    p.add_argument("--force", action="store_true", help="replace models already in DIR")
    p.set_defaults(run=run_import)


def _parse_answer(text: str):
    from rackdesigner.cli import UsageError
    from rackdesigner.interop.netbox_types import PortFacts

    try:
        itype, rest = text.split("=", 1)
        protocol, rate = rest.split(":", 1)
        gbps = float(rate)
    except ValueError:
        raise UsageError(f"--port {text}: expected TYPE=PROTOCOL:GBPS (e.g. "
                         "other=ethernet:400)") from None
    if protocol not in PROTOCOLS or gbps <= 0:
        raise UsageError(f"--port {text}: protocol must be one of {', '.join(PROTOCOLS)} and "
                         "the rate a positive number of Gb/s")
    gen = f"{gbps:g}GbE" if protocol == "ethernet" else "custom"
    return itype, PortFacts(protocol, gen, gbps, 4, "unspecified")


def _ask(itype: str, names: list[str]):
    from rackdesigner.interop.netbox_types import PortFacts

    print(f"Interface type {itype!r} ({len(names)} ports: {names[0]} ...) does not say its "
          "protocol and rate.", file=sys.stderr)
    protocol = input(f"  protocol ({'/'.join(PROTOCOLS)}) [ethernet]: ").strip() or "ethernet"
    rate = float(input("  rate per port in Gb/s: ").strip())
    gen = f"{rate:g}GbE" if protocol == "ethernet" else "custom"
    return PortFacts(protocol, gen, rate, 4, "unspecified")


def _cli_text(exc) -> str:
    """A device type's error as the command line says it: the answer it needs as an option."""
    from rackdesigner.vocabulary.wording import cli_word

    text = exc.worded(cli_word)
    if exc.option == "port" and exc.itype:
        return (f"{text}: give them with --port {exc.itype}=PROTOCOL:GBPS (e.g. --port "
                f"{exc.itype}=infiniband:400 or --port {exc.itype}=ethernet:400)")
    if exc.option == "kind":
        return f"{text}: give it with --kind"
    return text


def run_import(args: argparse.Namespace) -> int:
    from rackdesigner.cli import UsageError
    from rackdesigner.interop.base import write_atomic
    from rackdesigner.interop.netbox_import import (
        NetboxTypeError,
        dump,
        read_device_type,
        to_catalog_data,
        unanswered,
    )
    from rackdesigner.io.names import UnsafeNameError, path_inside
    from rackdesigner.vocabulary.wording import cli_word, worded

    answers = dict(_parse_answer(a) for a in args.port)
    into = Path(args.into)
    if into.exists() and not into.is_dir():
        raise UsageError(f"--into {into}: is a file, not a folder")
    interactive = sys.stdin.isatty()
    written = []
    for name in args.files:
        path = Path(name)
        warnings: list[str] = []
        try:
            data = read_device_type(path)
            for itype, names in unanswered(path, data):
                if itype not in answers and interactive:
                    try:
                        answers[itype] = _ask(itype, names)
                    except (ValueError, EOFError):
                        raise UsageError(f"{path}: no usable answer for {itype!r}") from None
            kind = args.kind
            if kind is None and interactive:
                try:
                    model = to_catalog_data(path, data, answers, None, args.fabric, warnings)
                except NetboxTypeError as exc:
                    if exc.option != "kind":
                        raise
                    kind = input(f"{path.name}: kind ({', '.join(KINDS)}): ").strip()
                    if kind not in KINDS:
                        raise UsageError(f"{path}: kind must be one of {', '.join(KINDS)}") \
                            from None
                    warnings.clear()
                    model = to_catalog_data(path, data, answers, kind, args.fabric, warnings)
            else:
                model = to_catalog_data(path, data, answers, kind, args.fabric, warnings)
        except NetboxTypeError as exc:
            raise UsageError(_cli_text(exc)) from None
        try:
            target = path_inside(into, model["id"], ".yaml")
        except UnsafeNameError as exc:
            raise UsageError(f"{path}: slug: {exc}") from None
        if target.exists() and not args.force:
            raise UsageError(f"{target}: already exists (use --force to replace it)")
        from rackdesigner.cli.outputs import refuse_over_input

        refuse_over_input(target, args.files, "catalog model")  # --force never over an input
        for warning in warnings:
            print(f"rackdesigner: warning: {worded(warning, cli_word)}", file=sys.stderr)
        into.mkdir(parents=True, exist_ok=True)
        write_atomic(target, dump(model))
        written.append(target)
        ports = ", ".join(f"{g['count']}x {g['generation']}" for g in model.get("ports", []))
        print(f"{target}: {model['kind']} {model['manufacturer']} {model['model']}"
              + (f" ({ports})" if ports else ""))
    print(f"{counted(len(written), 'model')} written; check them with 'rackdesigner catalog "
          f"--check "
          f"{into}' and use them with --catalog {into}")
    return 0
