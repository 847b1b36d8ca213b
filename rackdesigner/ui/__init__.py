"""Everything Qt: main window, canvas, palette, inspector, problems, undo adapter, export.

PySide6 is imported here (and in `rackdesigner.app`) only; pyqtgraph, when a panel needs it,
after PySide6 so that PySide6 is the binding it picks.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MainWindow"]


def __getattr__(name: str) -> Any:
    if name == "MainWindow":
        from rackdesigner.ui.main_window import MainWindow

        return MainWindow
    raise AttributeError(f"module 'rackdesigner.ui' has no attribute {name!r}")
