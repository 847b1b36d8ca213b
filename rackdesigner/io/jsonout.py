"""The one JSON writer: standard JSON only, never `NaN` or `Infinity`.

Python's json module writes a non-finite float as `Infinity`/`NaN` by default, which no
standard parser reads (a price of 1e308 made `cost --json` and `bom --format json` emit
`Infinity`). Every JSON output — the CLI's `--json`, the exports, sweep results, the designer's
compare and figures exports — is produced by `json_text`, which refuses such a value and names
where it sits (`capex.total`), so a bug shows as a clear error instead of a broken file. The
readers bound what they accept (prices, power, site figures), so a refusal here is a bug, not
bad input. (catalog/filecache.py, a layer below, passes `allow_nan=False` itself.)
"""

from __future__ import annotations

import json
import math
from typing import Any


class NonFiniteError(ValueError):
    """A value to be written as JSON is NaN or infinite."""


def json_text(data: Any, *, indent: int | None = 2, sort_keys: bool = False,
              separators: tuple[str, str] | None = None, newline: bool = False) -> str:
    """`data` as standard JSON (`allow_nan=False`); NonFiniteError names the offending key."""
    try:
        text = json.dumps(data, indent=indent, sort_keys=sort_keys, separators=separators,
                          allow_nan=False)
    except ValueError:
        where = _where_non_finite(data)
        if where is None:
            raise
        raise NonFiniteError(f"cannot write JSON: {where or 'the value'} is not a finite "
                             "number") from None
    return text + "\n" if newline else text


def _where_non_finite(data: Any, path: str = "") -> str | None:
    """The key path of the first NaN or infinity in `data` (depth-first), or None."""
    stack: list[tuple[str, Any]] = [(path, data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return where
        if isinstance(value, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v)
                         for k, v in reversed(list(value.items())))
        elif isinstance(value, list | tuple):
            stack.extend((f"{where}[{i}]", v) for i, v in reversed(list(enumerate(value))))
    return None


__all__ = ["NonFiniteError", "json_text"]
