"""`rackdesigner convert FILE -o OUT [--form plain|compact]`: rewrite a layout in the other form.

The plain form lists every group, device and link on its own line; the compact form writes each
distinct node once and places it N times (`rackdesigner.io.compact`). Both load to the same
design; without `--form` the output takes the form the input is not in.
"""

from __future__ import annotations

import argparse

from rackdesigner.cli import UsageError, load_layout_arg

FORMS = ("plain", "compact")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "convert",
        help="rewrite a layout in the plain or the compact form",
        description="Rewrite a layout file in the plain form (one line per group, device and "
        "link) or the compact form (each node written once as a template, placed N times). "
        "Both forms hold the same design. Exit status 0, or 2 for an unreadable file.",
    )
    parser.add_argument("file", metavar="FILE", help="layout file to read (either form)")
    parser.add_argument("-o", "--output", metavar="OUT", required=True,
                        help="layout file to write (- for standard output)")
    parser.add_argument("--form", choices=FORMS,
                        help="form to write (default: the one FILE is not in)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import sys

    from rackdesigner.io.compact import FORM, dump_compact_text
    from rackdesigner.io.writer import dump_plain_text

    layout = load_layout_arg(args.file)
    source = getattr(layout, "source_form", None) or "plain"
    form = args.form or ("plain" if source == FORM else FORM)
    text = dump_compact_text(layout) if form == FORM else dump_plain_text(layout)
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    from rackdesigner.io import save_layout

    layout.source_form = form  # save_layout writes this form
    try:
        save_layout(layout, args.output)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    lines = text.count("\n")
    print(f"{args.output}: {form} form, {lines:,} lines ({source} form in {args.file})")
    return 0
