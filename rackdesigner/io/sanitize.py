"""What exports do to text a user typed, so their consumers never execute it.

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
  become U+FFFD, so the file stays readable.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

#: OWASP's list: the characters a spreadsheet may take as the start of a formula or command.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_TOKEN = re.compile(r"[A-Za-z0-9_.\-\[\],:/]+")
#: What XML 1.0 does not allow in a document (control characters but tab, newline and CR;
#: lone surrogates; U+FFFE/U+FFFF): written raw, they make GraphML and XLSX files unreadable.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


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
    if value.startswith(FORMULA_START) or (value[:1] == "\n"):
        return "'" + value
    return value


def row(values: list[Any]) -> list[Any]:
    return [cell(v) for v in values]


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
