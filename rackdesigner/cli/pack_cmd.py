"""`rackdesigner pack FILE -o OUT.yaml`: a design that carries the user models it uses.

The models go into the layout under `x-rackdesigner-models` (catalog/user.py, EMBED_KEY), as
their catalog files say them; wherever the packed file is opened, models missing from that
machine's catalog come from the file. `--unpack DIR` writes the embedded models out as catalog
files instead (to install them in a user catalog folder). `--prices BOOK.yaml` also embeds a
price book (under `x-rackdesigner-prices`, cost/locate.py), checked first: the costs then
travel with the design too.
"""

from __future__ import annotations

import argparse

from rackdesigner.vocabulary.wording import counted


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "pack", help="embed the user models a design uses, so it opens anywhere",
        description="Write a copy of a layout that carries the user catalog models it uses "
        "(under the key x-rackdesigner-models), so it opens on a machine without them. "
        "With --unpack DIR, write the models a packed layout carries as catalog files.")
    parser.add_argument("file", metavar="FILE", help="layout YAML file")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("-o", "--output", metavar="OUT", help="packed layout to write (.yaml)")
    group.add_argument("--unpack", metavar="DIR", help="write the embedded models into DIR")
    parser.add_argument("--prices", metavar="BOOK", help="also embed this price book (see "
                        "'rackdesigner cost'); a bad book is refused and nothing is written")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    import yaml

    from rackdesigner.catalog.user import EMBED_KEY, models_to_embed
    from rackdesigner.cli import UsageError, load_layout_arg
    from rackdesigner.interop.base import write_atomic
    from rackdesigner.io import save_layout

    layout = load_layout_arg(args.file)
    if args.unpack:
        embedded = dict(layout.meta.extra).get(EMBED_KEY) or {}
        if not embedded:
            raise UsageError(f"{args.file}: carries no models (it has no {EMBED_KEY} key)")
        from rackdesigner.io.names import UnsafeNameError, path_inside

        folder = Path(args.unpack)
        folder.mkdir(parents=True, exist_ok=True)
        targets = []
        for model_id, data in sorted(embedded.items(), key=lambda item: str(item[0])):
            try:  # every id checked before anything is written
                targets.append((path_inside(folder, model_id, ".yaml"), data))
            except UnsafeNameError as exc:
                raise UsageError(f"{args.file}: {EMBED_KEY}: model id {exc}; nothing was "
                                 "unpacked") from None
        from rackdesigner.cli.outputs import refuse_over_input

        for target, _data in targets:  # a model file named like the packed layout: refused
            refuse_over_input(target, [args.file], "--unpack")
        for target, data in targets:
            write_atomic(target, yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
            print(target)
        return 0
    output = Path(args.output)
    if output.suffix.lower() not in (".yaml", ".yml"):
        raise UsageError(f"{output}: the packed layout must end in .yaml")
    if args.prices is not None:
        from rackdesigner.cost import PriceBookError
        from rackdesigner.cost.locate import with_embedded

        try:
            layout.set_meta(extra=with_embedded(layout.meta, args.prices, layout.catalog).extra)
        except PriceBookError as exc:
            raise UsageError(str(exc)) from None
    models = models_to_embed(layout)
    extra = dict(layout.meta.extra)
    if models:
        extra[EMBED_KEY] = models
    else:
        extra.pop(EMBED_KEY, None)
    layout.set_meta(extra=tuple(sorted(extra.items())))
    try:
        save_layout(layout, output)
    except OSError as exc:
        raise UsageError(f"{output}: {exc.strerror or exc}") from None
    names = ", ".join(models) if models else "none (it uses shipped models only)"
    book = f" and the price book {args.prices}" if args.prices else ""
    print(f"{output}: packed with {counted(len(models), 'user model')}: {names}{book}")
    return 0
