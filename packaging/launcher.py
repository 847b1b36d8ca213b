"""Entry script of the bundled application: `rackdesigner.cli.program`, plus a smoke-test switch.

The bundle runs exactly what `pip install` gives (`rackdesigner.cli:program`). One addition, active
only when the environment asks for it, lets a check start the GUI unattended and measure it:

``RACKDESIGNER_SMOKE_TEST=1``
    Start the designer as usual, quit as soon as the first frame of a top-level window has been
    painted, and print one line on stderr: ``rackdesigner-smoke: first frame after N ms (window
    'TITLE', WxH, icon set|missing)``. The
    time counts from ``RACKDESIGNER_SMOKE_T0`` (a Unix time the caller sets just before starting
    the process) or, without it, from the process's start time as the kernel recorded it.
    Exit code 0 on success, 3 if no frame came within ``RACKDESIGNER_SMOKE_TIMEOUT`` seconds
    (default 60).
``RACKDESIGNER_SMOKE_SCREENSHOT=FILE.png``
    With the smoke test, also save a picture of that first window.
``RACKDESIGNER_SMOKE_SETTLE_MS=N``
    Keep running N ms after the first frame before the picture and the exit (to see the window
    once deferred work such as fitting the canvas to the view has run). Default 0.

Why here and not in `rackdesigner/app.py`: the GUI stays free of test hooks; this script swaps in
a `QApplication` subclass before `rackdesigner.app` is imported, so whatever the app does between
creating its application and entering the event loop runs unchanged. The same file works from a
source checkout (`python3 packaging/launcher.py`), which is how the tests exercise it.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from typing import NoReturn

SMOKE_PREFIX = "rackdesigner-smoke:"


def _process_start_time() -> float:
    """Unix time at which this process started (Linux /proc; falls back to now)."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22 of stat(5); fields[0] is field 3
        with open("/proc/uptime", encoding="ascii") as uptime:
            seconds_since_boot = float(uptime.read().split()[0])
        ticks = os.sysconf("SC_CLK_TCK")
        return time.time() - seconds_since_boot + start_ticks / ticks
    except (OSError, ValueError, IndexError):
        return time.time()


def _install_smoke_test() -> None:
    """Make the next QApplication quit after its first painted top-level frame."""
    t0_text = os.environ.get("RACKDESIGNER_SMOKE_T0")
    t0 = float(t0_text) if t0_text else _process_start_time()
    timeout_s = float(os.environ.get("RACKDESIGNER_SMOKE_TIMEOUT", "60"))
    screenshot = os.environ.get("RACKDESIGNER_SMOKE_SCREENSHOT")
    settle_ms = int(os.environ.get("RACKDESIGNER_SMOKE_SETTLE_MS", "0"))

    from PySide6 import QtWidgets
    from PySide6.QtCore import QEvent, QObject, QTimer

    base = QtWidgets.QApplication

    class _FirstFrameWatcher(QObject):
        def __init__(self, app: QtWidgets.QApplication) -> None:
            super().__init__(app)
            self._app = app
            self._done = False

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if (not self._done and event.type() == QEvent.Type.Paint
                    and isinstance(watched, QtWidgets.QWidget) and watched.isWindow()
                    and watched.isVisible()):
                self._done = True
                # The whole window is painted within this same backing-store flush; the
                # zero-delay timer runs once it is finished.
                QTimer.singleShot(0, lambda: self._finish(watched))
            return False

        def _finish(self, window: QtWidgets.QWidget) -> None:
            elapsed_ms = (time.time() - t0) * 1000.0
            title = window.windowTitle() or type(window).__name__
            icon = "set" if not window.windowIcon().isNull() else "missing"
            print(f"{SMOKE_PREFIX} first frame after {elapsed_ms:.0f} ms "
                  f"(window {title!r}, {window.width()}x{window.height()}, icon {icon})",
                  file=sys.stderr, flush=True)
            QTimer.singleShot(settle_ms, lambda: self._leave(window))

        def _leave(self, window: QtWidgets.QWidget) -> None:
            if screenshot and not window.grab().save(screenshot):
                print(f"{SMOKE_PREFIX} could not save {screenshot}", file=sys.stderr)
            self._app.exit(0)

        def give_up(self) -> None:
            if not self._done:
                self._done = True
                print(f"{SMOKE_PREFIX} no frame within {timeout_s:g} s", file=sys.stderr,
                      flush=True)
                self._app.exit(3)

    class SmokeTestApplication(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            watcher = _FirstFrameWatcher(self)
            self.installEventFilter(watcher)
            QTimer.singleShot(int(timeout_s * 1000), watcher.give_up)

    QtWidgets.QApplication = SmokeTestApplication


def main() -> NoReturn:
    # `sweep` runs its points on worker processes (Dask's local process pool): a frozen
    # executable is its own Python, so a worker (or multiprocessing's resource tracker) starts
    # as this program with multiprocessing's arguments; this hands those to multiprocessing
    # instead of the command line parser, and does nothing in a normal start.
    multiprocessing.freeze_support()
    if os.environ.get("RACKDESIGNER_SMOKE_TEST") == "1":
        _install_smoke_test()
    from rackdesigner.cli import program

    program()


if __name__ == "__main__":
    main()
