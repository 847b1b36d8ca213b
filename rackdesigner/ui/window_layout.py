"""The main window's first-run geometry and dock layout.

A first run (nothing saved) sizes the window from the screen it opens on: 85 % of the available
area, at least 1280 x 800 where the screen has room for it, centred. The Palette takes a narrow
column on the left, the Inspector above the Simulation panel a wider one on the right (both full
height: the bottom-left and bottom-right corners belong to the side areas), and Problems/History
a short strip under the canvas, so the canvas gets most of the window. The dock sizes are applied
once the window is shown, because `resizeDocks` needs the laid-out window to share space out.

Later runs restore the saved geometry and dock state instead (`DOCK_STATE_VERSION` is bumped when
the set of docks changes, so a stale saved arrangement falls back to this default once).
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow

DOCK_STATE_VERSION = 1
SCREEN_SHARE = 0.85
MIN_SIZE = QSize(1280, 800)
FRAME = QSize(16, 48)  # what a window manager adds around the client area (title bar, borders)
PALETTE_WIDTH = 260
SIDE_WIDTH = 440  # the live panel's three columns of figures without clipping
BOTTOM_HEIGHT = 150
INSPECTOR_HEIGHT = 270  # a device's or a link's properties; the Simulation panel gets the rest


def first_run_geometry(available: QRect) -> QRect:
    """The window's client rectangle on a screen whose available area is `available`."""
    room_w = max(1, available.width() - FRAME.width())
    room_h = max(1, available.height() - FRAME.height())
    width = min(room_w, max(round(available.width() * SCREEN_SHARE), MIN_SIZE.width()))
    height = min(room_h, max(round(available.height() * SCREEN_SHARE), MIN_SIZE.height()))
    rect = QRect(0, 0, width, height)
    rect.moveCenter(available.center())
    return rect


def place_first_run(window: QMainWindow) -> None:
    """Size and centre `window` on its screen (the primary one before it is shown)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        window.resize(MIN_SIZE)
        return
    window.setGeometry(first_run_geometry(screen.availableGeometry()))


def set_dock_corners(window: QMainWindow) -> None:
    """Side docks run the full height; bottom docks sit under the canvas only."""
    window.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
    window.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)


def apply_default_dock_sizes(window) -> None:
    """Share the shown window out: Palette, canvas, Inspector over Simulation, Problems.

    `window` is the designer's `MainWindow` (its `*_dock` attributes). On small screens the
    side columns shrink with the window so the canvas keeps the larger part where it can (the
    docks' minimum sizes still apply).
    """
    width, height = window.width(), window.height()
    palette = min(PALETTE_WIDTH, round(width * 0.2))
    side = min(SIDE_WIDTH, round(width * 0.3))  # the docks' minimum widths still apply
    bottom = min(BOTTOM_HEIGHT, round(height * 0.2))
    window.resizeDocks([window.palette_dock, window.inspector_dock], [palette, side],
                       Qt.Orientation.Horizontal)
    column = window.inspector_dock.height() + window.simulation_dock.height()
    inspector = max(window.inspector_dock.minimumSizeHint().height(),
                    min(INSPECTOR_HEIGHT, round(column * 0.35)))
    window.resizeDocks([window.inspector_dock, window.simulation_dock],
                       [inspector, max(1, column - inspector)], Qt.Orientation.Vertical)
    window.resizeDocks([window.problems_dock], [bottom], Qt.Orientation.Vertical)


QWIDGETSIZE_MAX = (1 << 24) - 1


def compact_inspector(window, empty: bool) -> None:
    """With nothing selected the Inspector shrinks to its one-line hint and the Simulation
    panel below takes the room (its plots come above the fold at 1080p); a selection gives
    the Inspector back the height it had."""
    inspector, dock = window.inspector, window.inspector_dock
    stacked = (not dock.isFloating() and not window.simulation_dock.isFloating()
               and window.dockWidgetArea(dock) == window.dockWidgetArea(window.simulation_dock)
               and not window.tabifiedDockWidgets(dock))
    if not stacked:  # floating or tabbed: the Inspector keeps its size, no one to give it to
        empty = False
    if empty == getattr(window, "_inspector_compact", False):
        return
    window._inspector_compact = empty
    if empty:
        if dock.isVisible():
            window._inspector_height = dock.height()
        inspector.setMaximumHeight(inspector.empty.sizeHint().height() + 4)
        return
    inspector.setMaximumHeight(QWIDGETSIZE_MAX)
    height = getattr(window, "_inspector_height", INSPECTOR_HEIGHT)

    def restore() -> None:
        if window._inspector_compact or not dock.isVisible():
            return
        column = dock.height() + window.simulation_dock.height()
        window.resizeDocks([dock, window.simulation_dock],
                           [height, max(1, column - height)], Qt.Orientation.Vertical)

    QTimer.singleShot(0, window, restore)
