"""The sanitiser moved to `rackdesigner.io.sanitize` (one layer down, so bom, cost and sweep
use it too); the exports keep importing it from here."""

from __future__ import annotations

from rackdesigner.io.sanitize import (
    FORMULA_START,
    cell,
    config_token,
    csv_text,
    dangerous,
    one_line,
    row,
    uncell,
    xlsx_value,
    xml_text,
)

__all__ = ["FORMULA_START", "cell", "config_token", "csv_text", "dangerous", "one_line", "row",
           "uncell", "xlsx_value", "xml_text"]
