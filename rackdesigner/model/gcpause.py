"""`gc_paused()`: Python's cyclic garbage collector held off while a large design is built.

Building a design allocates hundreds of thousands of small objects (devices, links, port
references, map nodes, graph dicts). Every few thousand allocations the collector runs, and
every so often it walks the whole heap; with a 16k-GPU design in memory each full pass takes a
large part of a second. Measured on the 2-core development machine: loading the 16k-GPU
SuperPOD took 3.0 s of CPU with the collector on and 2.0 s with it paused; the networkx graph of
the same design 2.2 s and 0.6 s. These builders make no reference cycles to collect (frozen
values, dicts and tuples referring downwards), so pausing the collector while they run only
saves the walks. Pauses nest and may come from several threads: the collector is switched back
on (if it was on) when the last one ends.

**Who pauses.** The collector is the process's, so the library never touches it (issue 23 §5:
a notebook or a Dask worker that embeds `simulate`, `check_layout` or `load_layout` keeps its
collector as it set it). The entry points opt in: the CLI holds it off for a verb's whole run
(`cli.main`), the designer around its workers' runs (`ui/jobs.py`), its file reads
(`ui/open_progress.py`) and its generate dialog, a sweep around each point (`sweep.runner.
run_point`), the benchmarks as the CLI does. A script or notebook working on a large design
does the same: `with gc_paused(): layout = load_layout(path); result = simulate(layout)`.

Switched back on, the collector still walks once what the block built and kept (0.7 s for the
16k design just loaded) and again in every later full collection (1 s each at 16k). A process
that keeps the design it loaded and goes on working (the designer) asks `freeze=True`: what is
alive when the pause ends moves to the collector's permanent generation (`gc.freeze()`), out of
every later walk; it is still freed by reference counting. The designer does the same on each
document it opens (`ui/heap.py`, which unfreezes when the document is replaced).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False
_freeze = False


@contextmanager
def gc_paused(freeze: bool = False) -> Iterator[None]:
    """Hold off the cyclic garbage collector for the block; with `freeze`, what is alive when
    the last overlapping pause ends is frozen (see the module docstring)."""
    global _depth, _was_enabled, _freeze
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            _freeze = _freeze or freeze
            if _depth == 0:
                if _freeze:
                    gc.freeze()
                    _freeze = False
                if _was_enabled:
                    gc.enable()
