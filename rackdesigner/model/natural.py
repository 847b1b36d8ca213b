"""The order people expect of ids: `gpu-2` before `gpu-10`."""

from __future__ import annotations

import functools
import re

_DIGIT_RUNS = re.compile(r"(\d+)")


@functools.lru_cache(maxsize=1 << 17)
def natural_key(text: str) -> tuple:
    """Sort key that orders `gpu-2` before `gpu-10` (cached: the same ids are sorted by every
    pass over a large design)."""
    return tuple(int(p) if p.isdigit() else p for p in _DIGIT_RUNS.split(text))
