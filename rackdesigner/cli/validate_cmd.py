"""`rackdesigner validate FILE...`: design-rule findings as `file:line: severity: message`."""

from __future__ import annotations

import argparse
import sys

from rackdesigner.io import LayoutFileError, load_layout
from rackdesigner.model import ERROR, Layout, check_layout
from rackdesigner.model.rules import USER_MODEL_HINT

#: How the command line adds a catalog folder and packs a design (the rule's hint says what)
CLI_MODEL_HINT = ": --catalog DIR or RACKDESIGNER_CATALOG, 'rackdesigner pack'"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "validate",
        help="check layout files against the design rules",
        description="Check layouts against the design rules. Exit status: 0 no errors, "
        "1 design-rule errors, 2 a file could not be read or is not a valid layout.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="layout YAML files")
    parser.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    parser.set_defaults(run=run)


def finding_line(layout: Layout, objects: tuple[str, ...], key: str = "") -> int | None:
    """The file line of a finding: its first object's, or its top-level key's (`site:`)."""
    if key and f"{key}:" in layout.source_lines:
        return layout.source_lines[f"{key}:"]
    for object_id in objects:
        line = layout.source_lines.get(object_id)
        if line is not None:
            return line
    return None


def run(args: argparse.Namespace) -> int:
    from rackdesigner.io.sanitize import shown

    status = 0
    for path in args.files:
        try:
            layout = load_layout(path)
        except LayoutFileError as exc:
            print(f"{exc}", file=sys.stderr)
            status = 2
            continue
        findings = check_layout(layout)
        errors = sum(1 for f in findings if f.severity == ERROR)
        for finding in findings:
            if args.quiet and finding.severity != ERROR:
                continue
            line = finding_line(layout, finding.objects, finding.key)
            where = f"{path}:{line}" if line is not None else f"{path}:1"
            hint = CLI_MODEL_HINT if finding.message.endswith(USER_MODEL_HINT) else ""
            # one finding, one line: a name in the message cannot forge another
            print(f"{where}: {finding.severity}: {shown(finding.message)}{hint}")
        if not args.quiet:
            warnings = len(findings) - errors
            print(f"{path}: {errors} error(s), {warnings} warning(s); "
                  f"{layout.device_count()} devices, {layout.link_count()} links")
        if errors and status == 0:
            status = 1
    return status
