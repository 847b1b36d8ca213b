"""What every writer does to text a user typed, so its consumers never execute it.

It lives in io/ (below bom, cost, sweep, interop and ui) so that every tabular writer — the
exports, `bom --format csv`, the priced bill, sweep results, `compare --csv`, the designer's
CSV exports — goes through the same functions: `csv_text` is the one CSV writer (each cell
through `cell`), `xlsx_value` the one XLSX cell maker. tests/test_hostile_names_tables.py fails
when a module writes CSV with the csv module directly.

Names (a design's, a rack's, a device's) are free text: `=cmd|' /C calc'!A0` or a newline
followed by `SwitchName=evil Nodes=ALL` are valid names. The files RackDesigner writes go to a
spreadsheet, a Slurm controller, a simulator:

* `cell` (CSV): a text cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return
  gets a leading `'`, so Excel, LibreOffice and Google Sheets show it as text instead of
  evaluating it (OWASP, "CSV Injection"); a carriage return inside becomes a newline, which the
  csv writer quotes (a bare one would start a new row). Numbers stay numbers.
* `xlsx_value` (XLSX): every text cell is written with the string type, never inferred (openpyxl
  turns a string that starts with `=` into a formula), and such text also carries Excel's quote
  prefix, as if the user had typed `'` before it.
* `one_line` (comment and directive lines of generated configs): control characters and line
  or paragraph separators become spaces, so no text can end the line it is written on.
* `config_token` (a value inside a directive, e.g. `SwitchName=...`): refused unless it is one
  plain token (no space, `=`, `#`, control character).
* `xml_text` (GraphML, XLSX): characters XML 1.0 forbids (a control character in a name)
  become U+FFFD, so the file stays readable; `xml_document` does the same to a whole document
  written by someone else's code (Qt's SVG generator writes a name's ESC or NUL raw), also to
  character references such as `&#27;`.
* `terminal` (text reports on a terminal): control characters but line ends and tabs (ESC
  starts an ANSI sequence that colours or rewrites lines, NUL, C1), bidirectional overrides and
  other format characters, and line/paragraph separators are shown as escapes (`\\x1b`,
  `\\u202e`), so no name can colour, reorder or hide text; `shown` does the same to one name and
  also escapes its line breaks, so a name cannot forge a line of a report or listing.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

#: OWASP's list: the characters a spreadsheet may take as the start of a formula or command.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_TOKEN = re.compile(r"[A-Za-z0-9_.\-\[\],:/]+")
#: What XML 1.0 does not allow in a document (control characters but tab, newline and CR;
#: lone surrogates; U+FFFE/U+FFFF): written raw, they make GraphML and XLSX files unreadable.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


_CHAR_REF = re.compile(r"&#(x[0-9A-Fa-f]+|[0-9]+);")
_HIDDEN = ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


def xml_document(data: bytes) -> bytes:
    """A UTF-8 XML document with every character (and character reference) XML 1.0 forbids
    replaced by U+FFFD: well-formed whatever text was drawn into it."""
    text = xml_text(data.decode("utf-8", errors="replace"))

    def ref(match: re.Match[str]) -> str:
        digits = match.group(1)
        code = int(digits[1:], 16) if digits[0] == "x" else int(digits)
        ok = code < 0x110000 and not _NOT_XML.match(chr(code))
        return match.group(0) if ok else "&#xFFFD;"

    return _CHAR_REF.sub(ref, text).encode("utf-8")


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def terminal(text: str) -> str:
    """A text report safe to print: hidden characters shown as escapes, line ends and tabs
    kept."""
    if text.isprintable():
        return text
    return "".join(ch if ch in "\n\t" or unicodedata.category(ch) not in _HIDDEN
                   else _escape(ch) for ch in text)


def shown(name: Any) -> str:
    """One name for a text report or listing: every hidden character, line ends included,
    shown as an escape."""
    text = str(name)
    if text.isprintable():
        return text
    return "".join(_escape(ch) if unicodedata.category(ch) in _HIDDEN else ch for ch in text)


def xml_text(text: str) -> str:
    """`text` with the characters XML 1.0 forbids replaced by U+FFFD."""
    return _NOT_XML.sub("\ufffd", text)


def cell(value: Any) -> Any:
    """A CSV cell: text that a spreadsheet would evaluate is prefixed with `'`; a carriage
    return becomes a newline (the csv module quotes a cell holding its line terminator, "\n",
    but not a lone "\r", which spreadsheets take for a new row: `x\r=1+1` put a live
    formula at the start of one)."""
    if not isinstance(value, str):
        return value
    value = xml_text(value)  # a NUL or escape character is no text a CSV consumer reads
    if "\r" in value:
        value = value.replace("\r\n", "\n").replace("\r", "\n")
    return "'" + value if _needs_guard(value) else value


def _needs_guard(text: str) -> bool:
    """Starts with a formula character or a line break, or is such text behind quotes (so
    that a name that really starts with `'=` survives `uncell` unchanged)."""
    while text[:1] == "'":
        text = text[1:]
        if text[:1] not in ("'", "\n", *FORMULA_START) or not text:
            return False
    return bool(text) and (text[:1] == "\n" or text.startswith(FORMULA_START))


def uncell(text: str) -> str:
    """The text `cell` was given: the `'` it put before a guarded cell is taken off (the
    readers of our own CSV files, so a name round-trips: `uncell(cell(x)) == x`)."""
    return text[1:] if text[:1] == "'" and _needs_guard(text[1:]) else text


def row(values: list[Any]) -> list[Any]:
    return [cell(v) for v in values]


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    """CSV (comma, `\\n` line ends, minimal quoting) of `rows`, every cell through `cell`: the
    one CSV writer of the program."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(row(list(r)) for r in rows)
    return out.getvalue()


def dangerous(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(FORMULA_START)


def xlsx_value(sheet: Any, value: Any, font: Any = None) -> Any:
    """A write-only openpyxl cell holding `value`; text is always a string cell."""
    from openpyxl.cell import WriteOnlyCell

    if isinstance(value, str):
        c = WriteOnlyCell(sheet)
        value = xml_text(value)
        c._value = value  # the setter would infer a formula from a leading "="
        c.data_type = "s"  # never "f": a text cell is not a formula, whatever it starts with
        if dangerous(value):
            c.quotePrefix = True
    else:
        c = WriteOnlyCell(sheet, value=value)
    if font is not None:
        c.font = font
    return c


def one_line(text: Any, limit: int = 200) -> str:
    """`text` on one line: control, format and separator characters become spaces."""
    out = []
    for ch in str(text):
        category = unicodedata.category(ch)
        out.append(" " if category in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn") else ch)
    flat = " ".join("".join(out).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def config_token(value: str, what: str) -> str:
    """`value` if it is one plain token a config line can carry, else ValueError."""
    if not _TOKEN.fullmatch(value):
        raise ValueError(f"{what} {value!r} cannot be written into a config line (letters, "
                         "digits and . _ - only)")
    return value
