"""The values of a layout file's entries, each checked and each refusal located: optional
text, positions, rack units, references, statuses, positive figures, id lists, flags, the site
block and the tools' `x-` extensions. A part of `EntryReader` (`reader.py`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from rackdesigner.io.errors import LayoutFileError
from rackdesigner.io.lined import Entry
from rackdesigner.model.items import (
    ACTIVE,
    MAX_COORD,
    NO_SITE,
    STATUSES,
    Site,
    is_valid_id,
    position,
    rack_unit_ok,
)


class EntryValues:
    """`EntryReader`'s checks of single values."""

    lines: dict[str, int]

    if TYPE_CHECKING:
        def fail(self, line: int | None, message: str) -> LayoutFileError: ...

    def opt_str(self, e: Entry, key: str, what: str) -> str:
        value = e.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.fail(e.line_of(key), f"{what}: '{key}' must be text, got "
                            f"{_short(value)} (put it in quotes)")
        return value

    def pos(self, e: Entry, what: str) -> tuple[float, float]:
        """The entry's `pos` ([0, 0] when absent): two finite numbers, or a located error."""
        pos = e.get("pos", (0.0, 0.0))
        xy = position(pos)  # the model's own check (model/items.py), worded here
        if xy is None:
            raise self.fail(e.line_of("pos"), f"{what}: 'pos' must be [x, y] with two finite "
                            f"numbers within ±{MAX_COORD:g}, got {_short(pos)}")
        return xy

    def unit(self, e: Entry, what: str) -> int | None:
        """The entry's rack unit `u` (None when absent): a whole number, or a located error."""
        u = e.get("u")
        if not rack_unit_ok(u):
            raise self.fail(e.line_of("u"), f"{what}: 'u' must be a whole number of rack units "
                            f"(1 = bottom), got {_short(u)}")
        return u

    def opt_ref(self, e: Entry, key: str, what: str) -> str | None:
        value = e.get(key)
        if value is None:
            return None
        if not is_valid_id(value):
            raise self.fail(e.line_of(key), f"{what}: '{key}' must be an id (letters, digits, "
                            f". _ -), got {_short(value)}")
        return value

    def status(self, e: Entry, what: str) -> str:
        value = e.get("status", ACTIVE)
        if value not in STATUSES:
            raise self.fail(e.line_of("status"), f"{what}: 'status' must be one of "
                            f"{', '.join(STATUSES)}, got {_short(value)}")
        return value

    def positive(self, e: Entry, key: str, what: str, expected: str,
                 bounds: tuple[float, float] | None = None) -> float | int:
        value = e.get(key)
        if (isinstance(value, bool) or not isinstance(value, int | float)
                or not math.isfinite(value) or value <= 0):
            raise self.fail(e.line_of(key), f"{what}: '{key}' must be {expected}, got "
                            f"{_short(value)}")
        if bounds is not None and not bounds[0] <= value <= bounds[1]:
            raise self.fail(e.line_of(key), f"{what}: '{key}' must be from {bounds[0]:g} to "
                            f"{bounds[1]:,.0f}, got {_short(value)}")
        return value

    def id_list(self, e: Entry, key: str, what: str) -> tuple[str, ...]:
        value = e.get(key)
        if not isinstance(value, list) or not all(is_valid_id(v) for v in value) \
                or len(set(value)) != len(value):
            raise self.fail(e.line_of(key), f"{what}: '{key}' must be a list of distinct ids "
                            f"(e.g. [rack-1, rack-2]), got {_short(value)}")
        return tuple(value)

    def site(self, doc: Entry) -> Site:
        """The `site:` limits (model.items.Site): positive finite kW figures."""
        value = doc.get("site")
        if value is None:
            return NO_SITE
        line = doc.line_of("site")
        if line is not None:  # design-level findings point here ("site:" is never an id)
            self.lines["site:"] = line
        from rackdesigner.io.site_read import read_site

        return read_site(value, self.fail, line)

    def opt_bool(self, e: Entry, key: str, what: str) -> bool:
        value = e.get(key, False)
        if not isinstance(value, bool):
            raise self.fail(e.line_of(key), f"{what}: '{key}' must be true or false, got "
                            f"{_short(value)}")
        return value


def extensions(entry: dict) -> tuple[tuple[str, Any], ...]:
    """The `x-...` keys of a mapping as sorted plain data (tools' extensions, kept as they are)."""
    return tuple(sorted((k, _plain(v)) for k, v in entry.items()
                        if isinstance(k, str) and k.startswith("x-")))


def _plain(value: Any) -> Any:
    """Loader containers back to plain dicts and lists (depth is bounded by `safety`)."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):  # tuples come from !!omap / !!pairs
        return [_plain(v) for v in value]
    return value


def value_kind(value: Any) -> str:
    for kind, text in ((bool, "true/false"), (dict, "a mapping"), (list, "a list"),
                       (str, "text"), (int, "a number"), (float, "a number")):
        if isinstance(value, kind):
            return text
    return "nothing" if value is None else type(value).__name__


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
