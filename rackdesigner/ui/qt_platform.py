"""Start-up guard: when Qt cannot load its platform plugin, say what to install, not abort.

Qt reports a platform plugin that cannot load (a missing `libxcb-*` library on a fresh Linux, no
X display, a bad `QT_QPA_PLATFORM`) as a fatal message and aborts the process, blaming whichever
library it noticed first. `guarded_application` installs a message handler for the duration of
the `QApplication` constructor: on that fatal message it prints one line saying what is wrong —
no display, a Wayland display Qt could not use, an X display it cannot reach, or the system
packages of the xcb plugin that are actually missing (Qt's "Qt for X11 Requirements" page;
Debian/Ubuntu names) — with the `QT_QPA_PLATFORM=offscreen` escape, then Qt's own messages as
details (less its libxcb-cursor0 hint when that library is there), and exits with status 2
instead of a core dump, even when stderr cannot be written. Any other message seen meanwhile
is logged, and the handler is removed once the application exists.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable

from PySide6.QtCore import QtMsgType, qInstallMessageHandler

log = logging.getLogger(__name__)

#: Debian/Ubuntu packages of the libraries Qt 6's xcb platform plugin loads (doc.qt.io,
#: "Qt for X11 Requirements"), each with the library name the dynamic loader knows it by;
#: libxcb-cursor0 is required from Qt 6.5.
XCB_LIBRARIES = {"libxcb-cursor0": "xcb-cursor", "libxcb-icccm4": "xcb-icccm",
                 "libxcb-image0": "xcb-image", "libxcb-keysyms1": "xcb-keysyms",
                 "libxcb-randr0": "xcb-randr", "libxcb-render-util0": "xcb-render-util",
                 "libxcb-shape0": "xcb-shape", "libxcb-xinerama0": "xcb-xinerama",
                 "libxcb-xkb1": "xcb-xkb", "libxkbcommon-x11-0": "xkbcommon-x11",
                 "libegl1": "EGL", "libgl1": "GL", "libfontconfig1": "fontconfig"}
XCB_PACKAGES = tuple(XCB_LIBRARIES)
EXIT_STATUS = 2
#: Qt prints this whenever the xcb plugin fails, whatever the cause (no display included):
#: repeated to a user whose libxcb-cursor0 is installed it sends them the wrong way.
CURSOR_HINT = "xcb-cursor0 or libxcb-cursor0 is needed"
#: Qt ends its last word with this; the cause is the display or a system library, never the
#: installed application, so it is not passed on.
REINSTALL_HINT = "Reinstalling the application may fix this problem."


def missing_packages() -> list[str]:
    """The packages of `XCB_PACKAGES` whose library the dynamic loader cannot find."""
    from ctypes.util import find_library

    return [package for package, lib in XCB_LIBRARIES.items() if find_library(lib) is None]


def explain(messages: list[str], platform: str | None, display: str | None,
            wayland: str | None = None, missing: list[str] | None = None) -> str:
    """The one line a user reads when the platform plugin cannot load.

    `display`/`wayland` are $DISPLAY and $WAYLAND_DISPLAY; `missing` the xcb packages not
    installed (None: look them up)."""
    escape = ("for headless use (no screen) run with QT_QPA_PLATFORM=offscreen, or use a verb "
              "such as 'rackdesigner render'")
    head = "rackdesigner: cannot start the designer: "
    text = " ".join(messages)
    name = platform.split(":")[0] if platform else ""
    if name not in ("xcb", "wayland", ""):
        return (f"{head}Qt has no usable platform plugin {platform!r} (QT_QPA_PLATFORM); "
                f"unset it on a desktop, or {escape}")
    tried_wayland = name == "wayland" or (not name and "wayland" in text.lower())
    if name == "wayland" or (tried_wayland and wayland and not display):
        where = (f"cannot connect to the Wayland display {wayland!r} (WAYLAND_DISPLAY; is "
                 "XDG_RUNTIME_DIR that of the session?)" if wayland else
                 "QT_QPA_PLATFORM=wayland but WAYLAND_DISPLAY is unset")
        x11 = "" if name == "wayland" else ", and there is no X display (DISPLAY is unset)"
        return f"{head}{where}{x11}; start it from the desktop session, or {escape}"
    if not display:
        where = ("DISPLAY is unset (no X display); on Wayland, WAYLAND_DISPLAY is set but Qt "
                 "could not use it" if wayland else "no display: neither DISPLAY nor "
                 "WAYLAND_DISPLAY is set")
        return f"{head}{where}; start it from a desktop session, or {escape}"
    if "could not connect to display" in text:
        return (f"{head}cannot connect to the X display {display!r} (DISPLAY); is the X "
                f"server running and are you allowed to use it (xauth)? Or {escape}")
    if missing is None:
        missing = missing_packages()
    if missing:
        return (f"{head}Qt's xcb platform plugin did not load: these system libraries are "
                f"missing (Debian/Ubuntu: apt-get install {' '.join(missing)}); or {escape}")
    return (f"{head}Qt's xcb platform plugin did not load although its system libraries are "
            f"installed (Qt's messages below say why; QT_DEBUG_PLUGINS=1 says more); or "
            f"{escape}")


def _details(messages: list[str], missing: list[str] | None) -> list[str]:
    """Qt's own messages worth repeating: the first line of each, without the libxcb-cursor0
    hint when that library is installed."""
    lines = []
    for message in messages:
        first = message.splitlines()[0].replace(REINSTALL_HINT, "").strip() if message else ""
        if not first or (CURSOR_HINT in first and "libxcb-cursor0" not in (missing or ())):
            continue
        lines.append(f"rackdesigner:   Qt said: {first}")
    return lines


def guarded_application(make: Callable[[], object]) -> object:
    """`make()` (which builds the QApplication) with Qt's platform abort turned into a message."""
    seen: list[str] = []

    def handler(kind: QtMsgType, context, text: str) -> None:
        seen.append(text.strip())
        if kind == QtMsgType.QtFatalMsg:
            try:  # whatever happens to the message (stderr on a full disk), exit with 2
                env = os.environ
                display = env.get("DISPLAY")
                missing = missing_packages() if display else []
                line = explain(seen, env.get("QT_QPA_PLATFORM"), display,
                               env.get("WAYLAND_DISPLAY"), missing)
                print(line, *_details(seen, missing), sep="\n", file=sys.stderr)
                sys.stderr.flush()
            except BaseException:  # the exit below must happen whatever went wrong
                pass
            os._exit(EXIT_STATUS)  # Qt aborts right after a fatal message returns

    qInstallMessageHandler(handler)
    try:
        app = make()
    finally:
        qInstallMessageHandler(None)
    for text in seen:
        log.info("Qt: %s", text)
    return app


__all__ = ["XCB_PACKAGES", "explain", "guarded_application", "missing_packages"]
