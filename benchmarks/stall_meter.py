"""`StallMeter`: the longest GUI-thread pause, shared by the GUI benchmarks."""

from __future__ import annotations

import time


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
