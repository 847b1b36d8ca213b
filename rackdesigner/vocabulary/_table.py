"""Looking a name up in one of the vocabulary's tables, with the error every table gives."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

T = TypeVar("T")


def entry(table: Mapping[str, T], name: str, what: str) -> T:
    """`table[name]`; KeyError naming the known names when there is none."""
    try:
        return table[name]
    except KeyError:
        raise KeyError(f"unknown {what} {name!r} (expected one of "
                       f"{', '.join(table)})") from None
