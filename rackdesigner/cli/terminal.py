"""What the command line prints passes `io.sanitize.terminal` (issue 31: names are data).

Names in reports, listings, notes and errors are text from a file: an ESC starts an ANSI
sequence that colours or rewrites the terminal, a bidirectional override reorders what follows,
NUL and C1 characters confuse whatever reads the output. While a verb runs, stderr and — when
it holds a text report rather than data (JSON, CSV, a layout on `-o -`) — stdout are written
through `terminal`, which shows such characters as escapes (`\\x1b`, `\\u202e`) and keeps line
ends and tabs (and `\\r` on stderr, which the progress lines use). Names that could forge a whole
line are also passed through `sanitize.shown` where listings print them (`catalog`).
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

#: Text that needs no look (printable ASCII, line ends, tabs): written as it is, without
#: importing the sanitiser (`--version` and `examples` stay free of the io package).
_PLAIN = re.compile(r"[\x20-\x7e\n\t]*")


def _terminal(text: str) -> str:
    if _PLAIN.fullmatch(text):
        return text
    from rackdesigner.io.sanitize import terminal

    return terminal(text)


class TerminalText:
    """A text stream whose writes are made safe for a terminal first."""

    def __init__(self, stream: TextIO, keep_cr: bool = False) -> None:
        self._stream = stream
        self._keep_cr = keep_cr

    def write(self, text: str) -> int:
        if not self._keep_cr or "\r" not in text:
            self._stream.write(_terminal(text))
        else:
            self._stream.write("\r".join(_terminal(part) for part in text.split("\r")))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def data_on_stdout(args: argparse.Namespace) -> bool:
    """The verb writes data (JSON, CSV, a layout) to stdout, which must reach it unchanged."""
    return bool(getattr(args, "json", False) or getattr(args, "csv", False)
                or getattr(args, "format", None) in ("csv", "json")
                or getattr(args, "output", None) == "-")


@contextlib.contextmanager
def guarded(args: argparse.Namespace) -> Iterator[None]:
    """stderr, and stdout unless it carries data, through `terminal` while the verb runs."""
    out, err = sys.stdout, sys.stderr
    if not data_on_stdout(args):
        sys.stdout = TerminalText(out)  # type: ignore[assignment]
    sys.stderr = TerminalText(err, keep_cr=True)  # type: ignore[assignment]
    try:
        yield
    finally:
        if isinstance(sys.stdout, TerminalText):
            sys.stdout = out
        if isinstance(sys.stderr, TerminalText):
            sys.stderr = err
