"""`rackdesigner validate FILE...`: design-rule findings as `file:line: severity: message`.

The same finding on many objects (102,400 NICs slower than their leaf ports) is one line with a
count and examples (`model/finding_groups.py`); `--all` lists every finding, `--json` keeps
every finding with its objects and line, grouped the same way.
"""

from __future__ import annotations

import argparse
import sys

from rackdesigner.io import LayoutFileError, load_layout
from rackdesigner.model import ERROR, Layout, check_layout
from rackdesigner.model.rules import USER_MODEL_HINT
from rackdesigner.vocabulary.wording import counted

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
    parser.add_argument("--all", action="store_true",
                        help="one line per finding (by default the same finding on many "
                        "objects is one line with a count and examples)")
    parser.add_argument("--json", action="store_true",
                        help="print the findings as JSON (schema rackdesigner.validate/1): "
                        "every finding with its objects and line, grouped")
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
    from rackdesigner.cli import keep_until_exit
    from rackdesigner.cli.validate_parallel import beside, check_layout_beside, rack_part
    from rackdesigner.io.sanitize import shown
    from rackdesigner.model.finding_groups import GROUP_FROM, group_findings

    status = 0
    reports = []
    for path in args.files:
        child = beside(path, rack_part)  # a large file: its rack rules on the second core
        try:
            layout = load_layout(path)
        except LayoutFileError as exc:
            if child is not None:
                child.stop()
            print(f"{exc}", file=sys.stderr)
            status = 2
            continue
        if path is args.files[-1]:
            keep_until_exit(layout)  # freed by the process's end, not object by object
        findings = (check_layout(layout) if child is None
                    else check_layout_beside(layout, child))
        if args.quiet:
            findings = [f for f in findings if f.severity == ERROR]
        errors = sum(1 for f in findings if f.severity == ERROR)
        groups = group_findings(layout, findings)
        if args.json:
            reports.append(_json_report(path, layout, groups, errors, len(findings) - errors))
        else:
            for group in groups:
                one_line = not args.all and len(group) >= GROUP_FROM
                for finding in group.findings[:1] if one_line else group.findings:
                    message = group.summary() if one_line else finding.message
                    # one finding, one line: a name in the message cannot forge another
                    print(f"{_where(path, layout, finding)}: {finding.severity}: "
                          f"{shown(message)}{_hint(finding)}")
            if not args.quiet:
                warnings = len(findings) - errors
                print(f"{path}: {counted(errors, 'error')}, {counted(warnings, 'warning')}; "
                      f"{counted(layout.device_count(), 'device')}, "
                      f"{counted(layout.link_count(), 'link')}")
        if errors and status == 0:
            status = 1
    if args.json:
        from rackdesigner.io.jsonout import json_text

        print(json_text({"schema": "rackdesigner.validate/1", "files": reports}, indent=1))
    return status


def _where(path: str, layout: Layout, finding) -> str:
    line = finding_line(layout, finding.objects, finding.key)
    return f"{path}:{line}" if line is not None else f"{path}:1"


def _hint(finding) -> str:
    return CLI_MODEL_HINT if finding.message.endswith(USER_MODEL_HINT) else ""


def _json_report(path: str, layout: Layout, groups: list, errors: int, warnings: int) -> dict:
    return {
        "file": path, "errors": errors, "warnings": warnings,
        "devices": layout.device_count(), "links": layout.link_count(),
        "groups": [{
            "severity": g.severity, "code": g.code, "count": len(g),
            "message": g.first.message + _hint(g.first),
            "findings": [{"message": f.message, "objects": list(f.objects),
                          "line": finding_line(layout, f.objects, f.key)}
                         for f in g.findings],
        } for g in groups],
    }
