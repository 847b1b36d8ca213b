"""Guards that run before YAML parsing so no input can crash, hang or exhaust the process.

libyaml's composer recurses in C: a few hundred kilobytes of `[[[[...` overflow the stack and
kill the process before Python can raise. Layout files never nest deeper than a handful of
levels, so a cheap linear scan flags anything that *might* nest deeply, and only then is the
exact depth measured from the parser's event stream (iterative, no recursion).
"""

from __future__ import annotations

import re

import numpy as np
import yaml

MAX_BYTES = 512 * 1024 * 1024
MAX_DEPTH = 32
_SUSPICIOUS_FLOW = 24
_BLOCK_CHAIN = re.compile(r"(?:[-?:][ \t]+){16,}")
_DEEP_INDENT = re.compile(r"^[ \t]{96,}\S", re.MULTILINE)
_Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def flow_depth_upper_bound(data: bytes) -> int:
    """Largest rise of bracket depth anywhere in `data` (quotes ignored, so an upper bound)."""
    arr = np.frombuffer(data, dtype=np.uint8)
    steps = np.zeros(arr.shape, dtype=np.int32)
    steps[(arr == ord("[")) | (arr == ord("{"))] = 1
    steps[(arr == ord("]")) | (arr == ord("}"))] = -1
    if not steps.any():
        return 0
    depth = np.cumsum(steps)
    lowest_before = np.minimum.accumulate(np.concatenate(([0], depth[:-1])))
    return int((depth - lowest_before).max())


def might_nest_deeply(data: bytes, text: str) -> bool:
    return (flow_depth_upper_bound(data) > _SUSPICIOUS_FLOW
            or _BLOCK_CHAIN.search(text) is not None
            or _DEEP_INDENT.search(text) is not None)


def exact_depth_exceeds(text: str, limit: int = MAX_DEPTH) -> tuple[bool, int | None]:
    """Walk the parser's events; (True, line) as soon as nesting passes `limit`."""
    depth = 0
    for event in yaml.parse(text, Loader=_Parser):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > limit:
                return True, event.start_mark.line + 1
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return False, None
