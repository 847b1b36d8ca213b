"""Sweep results on disk: CSV, JSON (`rackdesigner.sweep/1`) or Parquet, written atomically.

The format follows the file's extension. CSV has one header row (the columns) and one row per
point, a missing figure as an empty cell. JSON holds the columns, the rows and how the sweep
ran (spec file, scheduler, seconds). Parquet needs pyarrow, an optional dependency
(`pip install "rackdesigner[parquet]"`): it is large and only Parquet needs it, so without it
the other formats still work and asking for Parquet says what to install. Every write goes to a
temporary file beside the target and replaces it in one step, so a failure never leaves half a
results file. `read_results` reads CSV and JSON back (the GUI plots a results file).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rackdesigner.io.jsonout import json_text
from rackdesigner.sweep.runner import SweepResult

SCHEMA = "rackdesigner.sweep/1"
FORMATS = (".csv", ".json", ".parquet")


class ResultsError(ValueError):
    """A results file that cannot be written or read; the message says which and why."""


def results_format(path: str | os.PathLike) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ResultsError(f"{os.fspath(path)}: unknown results format {suffix or '(none)'!r}; "
                           f"name the file .csv, .json or .parquet")
    return suffix


def write_results(result: SweepResult, path: str | os.PathLike) -> None:
    """Write `result` in the format its extension names (atomically)."""
    fmt = results_format(path)
    if fmt == ".csv":
        _write_atomic(path, to_csv(result).encode("utf-8"))
    elif fmt == ".json":
        _write_atomic(path, (json_text(to_json(result), indent=1, newline=True)).encode("utf-8"))
    else:
        _write_parquet(result, path)


def to_csv(result: SweepResult) -> str:
    """Every cell through the one sanitiser (a grid value or an edit parameter is user text);
    `read_results` takes the guard off again."""
    from rackdesigner.io.sanitize import csv_text

    return csv_text([result.columns, *(["" if row.get(c) is None else _cell(row[c])
                                        for c in result.columns] for row in result.rows)])


def _cell(value: Any) -> Any:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return value


def to_json(result: SweepResult) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "spec": result.spec.path,
        "name": result.spec.name,
        "scheduler": result.scheduler,
        "elapsed_s": round(result.elapsed_s, 3),
        "columns": list(result.columns),
        "rows": [{c: _json_value(row.get(c)) for c in result.columns} for row in result.rows],
    }


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _write_parquet(result: SweepResult, path: str | os.PathLike) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ResultsError(f"{os.fspath(path)}: Parquet needs pyarrow, which is not installed "
                           "(pip install \"rackdesigner[parquet]\" or pip install pyarrow); "
                           "or write .csv or .json") from None
    from rackdesigner.sweep.point import figure_columns

    figures = set(figure_columns(result.spec))
    types = {c: _arrow_type(c, result.rows, c in figures) for c in result.columns}
    schema = pa.schema([(c, getattr(pa, types[c])()) for c in result.columns])
    table = pa.Table.from_pylist([{c: _arrow_value(r.get(c), types[c]) for c in result.columns}
                                  for r in result.rows], schema=schema)
    buffer = pa.BufferOutputStream()
    pq.write_table(table, buffer)
    _write_atomic(path, buffer.getvalue().to_pybytes())


#: Columns whose Arrow type does not follow from their values: text and counts keep their type
#: when every point failed (an all-empty column would otherwise be Arrow's `null` type, and a
#: folder of results files with and without a failure could not be read as one data set).
_FIXED_TYPES = {"status": "string", "error": "string", "capex_complete": "bool_",
                "fits": "bool_", "gpus": "int64", "switches": "int64", "links": "int64",
                "cables": "int64", "transceivers": "int64", "racks": "int64",
                "unpriced_items": "int64", "blast_radius_gpus": "int64",
                "design_errors": "int64", "design_warnings": "int64"}


def _arrow_type(column: str, rows: Sequence[dict[str, Any]], figure: bool = False) -> str:
    """The pyarrow type factory's name for `column`: fixed for the figures (a figure not
    declared above is a float, whatever one file's values are), and a parameter's from its
    values (the same spec gives every file the same)."""
    from rackdesigner.sweep.point import TRAILER

    if column in _FIXED_TYPES:
        return _FIXED_TYPES[column]
    if figure and column not in TRAILER:
        return "float64"
    values = [r.get(column) for r in rows if r.get(column) is not None]
    if column in TRAILER or any(isinstance(v, str) for v in values):
        return "string"
    if values and all(isinstance(v, bool) for v in values):
        return "bool_"
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "int64"
    return "float64"


def _arrow_value(value: Any, arrow_type: str) -> Any:
    value = _json_value(value)
    if value is None:
        return None
    if arrow_type == "string":
        return str(_cell(value))
    return float(value) if arrow_type == "float64" else value


def _write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """The project's atomic write (`rackdesigner.io.atomic`), its errors as `ResultsError`."""
    from rackdesigner.io import atomic

    try:
        atomic.write_bytes(path, data)
    except OSError as exc:
        raise ResultsError(f"cannot write {os.fspath(path)}: {exc.strerror or exc}") from None


def read_results(path: str | os.PathLike) -> tuple[list[str], list[dict[str, Any]], dict]:
    """(columns, rows, meta) of a CSV or JSON results file; `ResultsError` if unreadable."""
    fmt = results_format(path)
    label = os.fspath(path)
    from rackdesigner.inputs import InputError, read_text

    try:  # a FIFO or device refused before it is read; at most 1 GiB
        text = read_text(path, 2**30, "sweep results file")
    except InputError as exc:
        raise ResultsError(str(exc)) from None
    if fmt == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ResultsError(f"{label}:{exc.lineno}: invalid JSON: {exc.msg}") from None
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ResultsError(f"{label}: not a sweep results file (expected \"schema\": "
                               f"\"{SCHEMA}\")")
        columns = data.get("columns")
        rows = data.get("rows")
        if not isinstance(columns, list) or not isinstance(rows, list) or not all(
                isinstance(r, dict) for r in rows):
            raise ResultsError(f"{label}: expected 'columns' (a list) and 'rows' (a list of "
                               "mappings)")
        meta = {k: v for k, v in data.items() if k not in ("columns", "rows")}
        return [str(c) for c in columns], rows, meta
    if fmt == ".parquet":
        raise ResultsError(f"{label}: open the .csv or .json results to plot them")
    from rackdesigner.io.sanitize import uncell

    reader = csv.reader(io.StringIO(text))
    try:
        columns = [uncell(c) for c in next(reader)]
    except StopIteration:
        raise ResultsError(f"{label}: empty file (expected a header row of column names)"
                           ) from None
    rows = []
    for number, cells in enumerate(reader, start=2):
        if len(cells) != len(columns):
            raise ResultsError(f"{label}:{number}: {len(cells)} cells, the header has "
                               f"{len(columns)}")
        rows.append({c: _parse_cell(v) for c, v in zip(columns, cells, strict=True)})
    return columns, rows, {}


def _parse_cell(text: str) -> Any:
    from rackdesigner.io.sanitize import uncell

    if text[:1] == "'":
        return uncell(text)
    if text == "":
        return None
    if text in ("true", "false"):
        return text == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
