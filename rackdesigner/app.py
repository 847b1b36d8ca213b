"""The GUI composition root: `rackdesigner` and `rackdesigner FILE` start here.

With no file, the window opens a bundled example so the canvas and panels show something real
at once. PySide6 is imported before anything that might import pyqtgraph.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from pathlib import Path

log = logging.getLogger(__name__)
DEFAULT_EXAMPLE = "dgx-h100.yaml"
DESKTOP_FILE_NAME = "io.github.rackdesigner.RackDesigner"  # packaging/<this>.desktop
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)  # resources/icons/rackdesigner-N.png


def default_example() -> Path | None:
    from rackdesigner._resources import example_paths

    try:
        paths = example_paths()
    except FileNotFoundError:
        return None
    for path in paths:
        if path.name == DEFAULT_EXAMPLE:
            return path
    return paths[0] if paths else None


def configure_application(app) -> None:
    """Name the application (QSettings' location), tie it to its desktop entry and set the icon.

    The desktop file name becomes the window's app id on Wayland, which the compositor matches
    to `io.github.rackdesigner.RackDesigner.desktop` for the dock icon and name: it must equal
    that file's stem (and, for AppStream, the component id).
    """
    from PySide6.QtGui import QIcon

    from rackdesigner import __version__
    from rackdesigner._resources import icon_path

    app.setApplicationName("RackDesigner")
    app.setOrganizationName("RackDesigner")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(DESKTOP_FILE_NAME)
    if not app.windowIcon().isNull():
        return
    icon = QIcon()
    try:  # the rendered sizes first: they need no SVG image plugin
        files = [icon_path(f"rackdesigner-{size}.png") for size in ICON_SIZES]
        files.append(icon_path())
    except FileNotFoundError:
        return
    for file in files:
        if file.exists():
            icon.addFile(str(file))
    if not icon.isNull():
        app.setWindowIcon(icon)


def _warn_catalog(window, problem: str) -> None:
    from PySide6.QtWidgets import QMessageBox

    from rackdesigner.ui.plain_text import plain

    QMessageBox.warning(window, "Your device catalog has problems",
                        plain(f"{problem}\n\nYour own models are not loaded; the shipped "
                              "catalog is used. Check the folder with 'rackdesigner catalog "
                              "--check DIR'."))


def open_start_window(path: str | None, settings=None):
    """The window `rackdesigner [FILE]` starts with: FILE, or (without one) a bundled example
    opened as an untitled copy, with a status line saying which; None if FILE cannot be opened.

    A settings file that had to be reset is said in the status bar too.
    """
    from PySide6.QtCore import QTimer

    from rackdesigner.catalog import CatalogError, bundled_catalog, default_catalog
    from rackdesigner.ui.main_window import MainWindow

    target = Path(path) if path is not None else default_example()
    catalog_problem = None
    try:
        catalog = default_catalog()
    except CatalogError as exc:  # a broken user catalog folder: start with the shipped one
        catalog_problem = str(exc)
        print(f"rackdesigner: {exc}", file=sys.stderr)
        catalog = bundled_catalog()
    window = MainWindow(catalog=catalog, settings=settings)
    if catalog_problem is not None:
        window.last_error = catalog_problem
        QTimer.singleShot(0, lambda: _warn_catalog(window, catalog_problem))
    if target is not None:
        opened = window.open_file(target, ask=False)  # an example opens as an untitled copy
        if not opened and path is not None:
            return None
        if opened and path is None:
            window.status_message(f"Welcome: this is the example {window.document.untitled_title}"
                                  ", an untitled copy. Save asks where to keep it; File ▸ New "
                                  "starts empty")
    if window.settings.reset_notice:
        window.status_message(window.settings.reset_notice)
    return window


def run_app(path: str | None, *, quit_after_ms: int | None = None,
            exit_at_once: bool = False) -> int:
    """Open the designer on `path` (or a bundled example) and run until the window closes.

    `quit_after_ms` closes the window after a delay (start-up smoke tests). `exit_at_once`
    (the `rackdesigner` command) ends the process as soon as the window has closed: the window
    has saved its settings and stopped its workers by then, and tearing down a large design's
    millions of objects one by one kept a 32k-GPU design's process alive for 3-5 s after Quit
    (the terminal's prompt came back late, a script waiting on it waited). Not for a caller
    that goes on running (tests, an embedding program).
    """
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from rackdesigner.ui.qt_platform import guarded_application

    app = QApplication.instance() or guarded_application(lambda: QApplication(sys.argv[:1]))
    configure_application(app)
    if path is not None and not Path(path).exists():
        print(f"rackdesigner: error: {path}: no such file", file=sys.stderr)
        return 2
    window = open_start_window(path)
    if window is None:
        return 2
    window.show()
    if quit_after_ms is not None:
        QTimer.singleShot(quit_after_ms, window.close)
    code = int(app.exec())
    if exit_at_once:
        _exit_now(code)
    return code


def _exit_now(code: int) -> None:
    """End the process with `code` without the interpreter's teardown (see `run_app`)."""
    logging.shutdown()  # the handlers' last lines
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed or full stream: no more
            stream.flush()
    os._exit(code)
