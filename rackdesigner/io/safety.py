"""Guards that run before YAML parsing so no input can crash, hang or exhaust the process.

libyaml's composer recurses in C: a few hundred kilobytes of `[[[[...` overflow the stack and
kill the process before Python can raise. Layout files never nest deeper than a handful of
levels, so a cheap linear scan flags anything that *might* nest deeply, and only then is the
exact depth measured from the parser's event stream (iterative, no recursion).

Memory: a composed YAML node costs a few hundred bytes (a 13 MiB layout of 200,000 devices peaks
near 1.2 GB), so size alone does not bound memory: `[1,1,1,...` packs a node into two bytes.
Files are capped at MAX_BYTES, and files big enough to hold more than MAX_NODES nodes have their
nodes counted from the event stream before anything is composed. The event scans themselves are
in the one YAML loader (`rackdesigner/yamlfile.py`).
"""

from __future__ import annotations

import re

from rackdesigner import yamlfile

MAX_BYTES = 64 * 1024 * 1024
#: Files in the canonical one-line-per-entry form are read without composing YAML nodes
#: (`fastread`), so they may be larger: a 100,000-GPU design is ~100 MiB.
MAX_CANONICAL_BYTES = 1024 * 1024 * 1024
MAX_DEPTH = yamlfile.MAX_DEPTH  # one limit for every YAML reader
#: ~1.5 GB of composed nodes; a layout of 300,000 one-line devices has ~3.3 million.
MAX_NODES = 4_000_000
#: Below this many bytes a file cannot hold MAX_NODES nodes (`{a,a,a,...` makes two per two bytes).
COUNT_NODES_ABOVE = MAX_NODES
_SUSPICIOUS_FLOW = 24
_SHORT = 4096
_OPEN = frozenset(b"[{")
_CLOSE = frozenset(b"]}")
_BLOCK_CHAIN = re.compile(r"(?:[-?:][ \t]+){16,}")
_DEEP_INDENT = re.compile(r"^[ \t]{96,}\S", re.MULTILINE)


def flow_depth_upper_bound(data: bytes) -> int:
    """Largest rise of bracket depth anywhere in `data` (quotes ignored, so an upper bound)."""
    if len(data) <= _SHORT:  # one line of a file (fastread): a loop, no numpy import
        depth = lowest = rise = 0
        for byte in data:
            if byte in _OPEN:
                depth += 1
                rise = max(rise, depth - lowest)
            elif byte in _CLOSE:
                depth -= 1
                lowest = min(lowest, depth)
        return rise
    import numpy as np  # whole hand-written files only: kept out of every start-up

    arr = np.frombuffer(data, dtype=np.uint8)
    steps = np.zeros(arr.shape, dtype=np.int32)
    steps[(arr == ord("[")) | (arr == ord("{"))] = 1
    steps[(arr == ord("]")) | (arr == ord("}"))] = -1
    if not steps.any():
        return 0
    levels = np.cumsum(steps)
    lowest_before = np.minimum.accumulate(np.concatenate(([0], levels[:-1])))
    return int(np.max(levels - lowest_before))


def might_nest_deeply(data: bytes, text: str) -> bool:
    return (flow_depth_upper_bound(data) > _SUSPICIOUS_FLOW
            or _BLOCK_CHAIN.search(text) is not None
            or _DEEP_INDENT.search(text) is not None)
