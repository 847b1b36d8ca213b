"""`rackdesigner generate TEMPLATE [options] -o FILE`: write a reference design or topology."""

from __future__ import annotations

import argparse
import sys

from rackdesigner.cli import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    from rackdesigner.generators import TEMPLATES
    from rackdesigner.vocabulary.wording import cli_word, worded

    parser = sub.add_parser(
        "generate",
        help="write a reference design (DGX node, NVL72, SuperPOD) or a generated topology",
        description="Generate a layout from a template and save it as YAML. "
        "'rackdesigner generate --list' shows the templates and their options.",
    )
    parser.add_argument("template", nargs="?", metavar="TEMPLATE",
                        help=f"one of: {', '.join(TEMPLATES)}")
    parser.add_argument("--list", action="store_true", help="list the templates and options")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="layout file to write (- for standard output)")
    seen: dict[str, str] = {}
    for template in TEMPLATES.values():
        for option in template.options:
            seen.setdefault(option.name, option.help)
    for name, text in seen.items():
        parser.add_argument(f"--{name}", metavar=name.upper(), help=worded(text, cli_word))
    parser.set_defaults(run=run, template_options=tuple(seen))


def summary(layout) -> str:
    from rackdesigner.vocabulary.wording import counted

    kinds, _ = layout.index().counts()  # devices per kind, as the status bar counts them
    return ", ".join((counted(kinds.get("gpu", 0), "GPU", grouped=False),
                      counted(kinds.get("switch", 0), "switch", "switches", grouped=False),
                      counted(layout.link_count(), "link", grouped=False),
                      counted(kinds.get("rack", 0), "rack", grouped=False)))


def run(args: argparse.Namespace) -> int:
    from rackdesigner.generators import GeneratorError, describe_templates, generate

    if args.list:
        print(describe_templates(), end="")
        return 0
    if not args.template:
        raise UsageError("generate needs a TEMPLATE (see 'rackdesigner generate --list')")
    if not args.output:
        raise UsageError("generate needs -o FILE, the layout file to write")
    options = {name: getattr(args, name) for name in args.template_options
               if getattr(args, name) is not None}
    try:
        layout = generate(args.template, **options)
    except GeneratorError as exc:
        raise UsageError(exc.for_cli()) from None
    from rackdesigner.io import save_layout

    line = f"{args.output}: {args.template}: {summary(layout)}"
    if args.output == "-":  # the YAML on stdout, the summary on stderr
        save_layout(layout, sys.stdout)
        sys.stdout.flush()  # written (or refused: a full disk) before the summary says so
        print(line, file=sys.stderr)
        return 0
    try:
        save_layout(layout, args.output)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    print(line)
    return 0
