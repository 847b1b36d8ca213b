"""`HeapSettler`: the application's garbage-collector tuning, applied on every document
replacement and undone when it is not needed.

A big open design is millions of long-lived objects. Each worker run (design rules, the
simulation) allocates enough to trigger full collections, and a full collection walks the
whole heap holding the GIL — hence the GUI thread — for 40–85 ms on a SuperPOD. Freezing the
objects that survive opening (`gc.freeze()`: the design itself) takes them out of every later
collection. When a small design replaces a big one, the frozen objects are unfrozen so the old
design can be freed, and nothing stays frozen (before, ~95k objects stayed frozen for good).

The window calls it after every view has followed the new document, so what they built for it
is frozen too. This is process-wide state, so it lives here, owned by the main window (the
composition root), and nowhere in a view.

The same goes for the interpreter's thread switch interval. The canvas paints through many
small Python calls, each of which needs the GIL; while the Problems and simulation workers run
pure Python, every one of those calls waited up to the default 5 ms for the GIL, so after
opening the 32k-GPU SuperPOD the window sat frozen for 8 s while the workers checked and
simulated it. With 0.5 ms the same stretch froze it for about 1.3 s, and the workers finished
no later; `GUI_SWITCH_INTERVAL_S` is 0.1 ms, measured against 0.5 ms on the 4,088- and
32,760-GPU SuperPODs (benchmarks/gui_scale.py "with the workers busy", benchmarks/core_edit.py
--with-canvas): edits while the workers run 96 -> 73 ms at 4k, the 32k open's longest freeze
3.7 -> 2.0 s (open 6.5 -> 5.1 s). Set while the window lives, restored by `release()`.
"""

from __future__ import annotations

import gc
import logging
import sys

from rackdesigner.model import Layout

log = logging.getLogger(__name__)
SETTLE_MIN_DEVICES = 1000  # below this a full collection is too quick to matter
GUI_SWITCH_INTERVAL_S = 0.0001  # the GIL changes hands this often at most (default 5 ms)


class HeapSettler:
    def __init__(self, min_devices: int = SETTLE_MIN_DEVICES) -> None:
        self.min_devices = min_devices
        self.frozen = False
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(self._switch_interval, GUI_SWITCH_INTERVAL_S))

    def on_document_replaced(self, layout: Layout | None) -> None:
        big = layout is not None and layout.device_count() >= self.min_devices
        gc.unfreeze()  # let the replaced design go (also what the open's reader froze)
        self.frozen = False
        if big:
            # No gc.collect() first: it walked the whole heap on the GUI thread (1.5 s at 16k
            # GPUs) and freed little, since the views still hold the replaced design when this
            # runs (it is freed by reference counting as they let go). Cyclic garbage frozen
            # here waits for the next document replacement, which unfreezes it.
            gc.freeze()
            self.frozen = True
            if log.isEnabledFor(logging.DEBUG):  # counting walks the frozen list
                log.debug("froze %d objects for a %d-device design", gc.get_freeze_count(),
                          layout.device_count())

    def release(self) -> None:
        """Undo the tuning (the window is closing): also what workers and the reader froze."""
        gc.unfreeze()
        self.frozen = False
        sys.setswitchinterval(self._switch_interval)
