"""Start-up guard: when Qt cannot load its platform plugin, say what to install, not abort.

Qt reports a platform plugin that cannot load (a missing `libxcb-*` library on a fresh Linux, no
X display, a bad `QT_QPA_PLATFORM`) as a fatal message and aborts the process, blaming whichever
library it noticed first. `guarded_application` installs a message handler for the duration of
the `QApplication` constructor: on that fatal message it prints one line naming the system
packages the xcb plugin needs (Qt's "Qt for X11 Requirements" page; Debian/Ubuntu names) and
the `QT_QPA_PLATFORM=offscreen` escape, then Qt's own messages as details, and exits with status
2 instead of a core dump. Any other message seen meanwhile is logged, and the handler is
removed once the application exists.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable

from PySide6.QtCore import QtMsgType, qInstallMessageHandler

log = logging.getLogger(__name__)

#: Debian/Ubuntu packages of the libraries Qt 6's xcb platform plugin loads (doc.qt.io,
#: "Qt for X11 Requirements"); libxcb-cursor0 is required from Qt 6.5.
XCB_PACKAGES = ("libxcb-cursor0", "libxcb-icccm4", "libxcb-image0", "libxcb-keysyms1",
                "libxcb-randr0", "libxcb-render-util0", "libxcb-shape0", "libxcb-xinerama0",
                "libxcb-xkb1", "libxkbcommon-x11-0", "libegl1", "libgl1", "libfontconfig1")
EXIT_STATUS = 2


def explain(messages: list[str], platform: str | None, display: str | None) -> str:
    """The one line a user reads when the platform plugin cannot load."""
    escape = ("for headless use (no screen) run with QT_QPA_PLATFORM=offscreen, or use a verb "
              "such as 'rackdesigner render'")
    text = " ".join(messages)
    if platform and platform.split(":")[0] not in ("xcb", ""):
        return (f"rackdesigner: cannot start the designer: Qt has no usable platform plugin "
                f"{platform!r} (QT_QPA_PLATFORM); unset it on a desktop, or {escape}")
    if "could not connect to display" in text or not (display or os.environ.get(
            "WAYLAND_DISPLAY")):
        where = f"cannot connect to the X display {display}" if display else "DISPLAY is unset"
        return (f"rackdesigner: cannot start the designer: {where}; start it from a desktop "
                f"session, or {escape}")
    return ("rackdesigner: cannot start the designer: Qt's xcb platform plugin did not load; "
            f"install its system libraries (Debian/Ubuntu: apt-get install "
            f"{' '.join(XCB_PACKAGES)}), or {escape}")


def guarded_application(make: Callable[[], object]) -> object:
    """`make()` (which builds the QApplication) with Qt's platform abort turned into a message."""
    seen: list[str] = []

    def handler(kind: QtMsgType, context, text: str) -> None:
        seen.append(text.strip())
        if kind == QtMsgType.QtFatalMsg:
            print(explain(seen, os.environ.get("QT_QPA_PLATFORM"), os.environ.get("DISPLAY")),
                  file=sys.stderr)
            for line in seen:
                first = line.splitlines()[0] if line else ""
                if first:
                    print(f"rackdesigner:   Qt said: {first}", file=sys.stderr)
            sys.stderr.flush()
            sys.stdout.flush()
            os._exit(EXIT_STATUS)  # Qt aborts right after a fatal message returns

    qInstallMessageHandler(handler)
    try:
        app = make()
    finally:
        qInstallMessageHandler(None)
    for text in seen:
        log.info("Qt: %s", text)
    return app


__all__ = ["XCB_PACKAGES", "explain", "guarded_application"]
