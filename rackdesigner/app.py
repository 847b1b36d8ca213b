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


def run_app(path: str | None, *, quit_after_ms: int | None = None) -> int:
    """Open the designer on `path` (or a bundled example) and run until the window closes.

    `quit_after_ms` closes the window after a delay (start-up smoke tests).
    """
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from rackdesigner import __version__

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("RackDesigner")
    app.setOrganizationName("RackDesigner")
    app.setApplicationVersion(__version__)
    from rackdesigner._resources import icon_path

    try:
        icon = icon_path()
        if icon.exists():
            app.setWindowIcon(QIcon(str(icon)))
    except FileNotFoundError:
        pass
    from rackdesigner.ui.main_window import MainWindow

    if path is not None and not Path(path).exists():
        print(f"rackdesigner: error: {path}: no such file", file=sys.stderr)
        return 2
    target = Path(path) if path is not None else default_example()
    window = MainWindow()
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
