"""Regenerate the worked example's tables in docs/cost.md from its own commands.

    python docs/cost_example.py

Runs the `rackdesigner generate` lines of the worked example in a temporary folder, then each
`rackdesigner compare` / `cost` line, and writes each output into the ```text block after its
`<!-- output: NAME -->` marker (the notes under a comparison table are left out: they repeat the
book and the assumptions).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "cost.md"
ANALYSTS = re.compile(r"(<!-- analysts: begin -->\n)(.*?)(<!-- analysts: end -->)", re.S)
BLOCK = re.compile(r"(<!-- output: (?P<name>[\w-]+) -->\n```text\n)(?P<body>.*?)(```)", re.S)


def _run(args: list[str]) -> str:
    from rackdesigner.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(args)
    if status != 0:
        raise SystemExit(f"rackdesigner {' '.join(args)}: exit {status}")
    return out.getvalue()


def _analysts() -> str:
    """The side-by-side tables of 'Against published figures' (rackdesigner/cost/analysts.py)."""
    from rackdesigner.cost.analysts import markdown, per_gpu_markdown, rows
    from rackdesigner.cost.locate import example_book_path, read_price_book
    from rackdesigner.generators import default_catalog

    book = read_price_book(example_book_path(), default_catalog())
    return markdown(rows(book)) + "\n" + per_gpu_markdown(book)


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    worked = text.split("## Worked example", 1)[1]
    lines = [shlex.split(line.strip())[1:] for line in worked.splitlines()
             if re.match(r"^\s{4}rackdesigner (generate|compare|cost) ", line)]
    here = Path.cwd()
    outputs: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            for args in lines:
                args = [str(ROOT / a) if a.startswith("docs/") else a for a in args]
                output = _run(args)
                if args[0] == "compare":
                    output = output.split("\nNote:")[0].rstrip() + "\n"
                if args[0] != "generate":
                    outputs.append(output)
        finally:
            os.chdir(here)
    blocks = list(BLOCK.finditer(text))
    if len(blocks) != len(outputs):
        raise SystemExit(f"{len(blocks)} output blocks for {len(outputs)} commands")
    it = iter(outputs)
    text = BLOCK.sub(lambda m: m.group(1) + next(it) + m.group(4), text)
    text = ANALYSTS.sub(lambda m: m.group(1) + _analysts() + m.group(3), text)
    from rackdesigner.io.atomic import write_text

    write_text(DOC, text)
    print(f"{DOC}: {len(outputs)} tables and the published figures written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
