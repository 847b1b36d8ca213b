"""The GUI composition root: `rackdesigner` and `rackdesigner FILE` start here.

With no file, the window opens a bundled example so the canvas and panels show something real
at once. PySide6 is imported before anything that might import pyqtgraph.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

log = logging.getLogger(__name__)
DEFAULT_EXAMPLE = "dgx-h100.yaml"
DESKTOP_FILE_NAME = "rackdesigner"  # packaging/rackdesigner.desktop
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
    to `rackdesigner.desktop` for the dock icon and name: it must equal that file's stem.
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

    QMessageBox.warning(window, "Your device catalog has problems",
                        f"{problem}\n\nYour own models are not loaded; the shipped catalog is "
                        "used. Check the folder with 'rackdesigner catalog --check DIR'.")


def run_app(path: str | None, *, quit_after_ms: int | None = None) -> int:
    """Open the designer on `path` (or a bundled example) and run until the window closes.

    `quit_after_ms` closes the window after a delay (start-up smoke tests).
    """
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    configure_application(app)
    from rackdesigner.ui.main_window import MainWindow

    if path is not None and not Path(path).exists():
        print(f"rackdesigner: error: {path}: no such file", file=sys.stderr)
        return 2
    target = Path(path) if path is not None else default_example()
    from rackdesigner.catalog import CatalogError, bundled_catalog, default_catalog

    catalog_problem = None
    try:
        catalog = default_catalog()
    except CatalogError as exc:  # a broken user catalog folder: start with the shipped one
        catalog_problem = str(exc)
        print(f"rackdesigner: {exc}", file=sys.stderr)
        catalog = bundled_catalog()
    window = MainWindow(catalog=catalog)
    if catalog_problem is not None:
        window.last_error = catalog_problem
        QTimer.singleShot(0, lambda: _warn_catalog(window, catalog_problem))
    if target is not None:
        opened = window.open_file(target, ask=False)
        if not opened and path is not None:
            return 2
        if path is None:  # an example is a template, not the user's file
            window.document.path = None
            window._update_title()
    window.show()
    if quit_after_ms is not None:
        QTimer.singleShot(quit_after_ms, window.close)
    return int(app.exec())
