"""What the GUI benchmarks share: `StallMeter` (the longest GUI-thread pause), `process_until`
(run the event loop until something holds) and `load_average` (for the figures' labels)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as the benchmarks print them."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def process_until(predicate: Callable[[], bool], timeout_s: float = 180.0,
                  tick_ms: int = 5) -> bool:
    """Process events until `predicate()` holds (True) or `timeout_s` passed (False)."""
    from PySide6.QtCore import QEventLoop, QTimer

    deadline = time.perf_counter() + timeout_s
    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(tick_ms)
    timer.timeout.connect(loop.quit)
    timer.start()
    try:
        while not predicate():
            if time.perf_counter() > deadline:
                return False
            loop.exec()
        return True
    finally:
        timer.stop()


class StallMeter:
    """Largest interval between ticks of a 1 ms timer on the GUI thread."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.timer = QTimer()
        self.timer.setInterval(1)
        self.timer.timeout.connect(self._tick)
        self.last = 0.0
        self.worst = 0.0

    def start(self) -> None:
        self.last = time.perf_counter()
        self.worst = 0.0
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self.last)
        self.last = now

    def stop(self) -> float:
        self._tick()
        self.timer.stop()
        return self.worst
