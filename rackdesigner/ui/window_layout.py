"""The main window's first-run geometry and dock layout.

A first run (nothing saved) sizes the window from the screen it opens on: 85 % of the available
area, at least 1280 x 800 where the screen has room for it, centred. The Palette takes a narrow
column on the left, the Inspector above the Simulation panel a wider one on the right (both full
height: the bottom-left and bottom-right corners belong to the side areas), and Problems/History
a short strip under the canvas, so the canvas gets most of the window. The dock sizes are applied
once the window is shown, because `resizeDocks` needs the laid-out window to share space out.

The docks then keep their geometry: the Inspector does not grow or shrink with what is selected
(it scrolls instead), so the Simulation panel below it never jumps and the next click lands
where the user aimed (issue 26: a selection pushed the panel ~300 px down).

Later runs restore the saved geometry and dock state instead (`DOCK_STATE_VERSION` is bumped when
the set of docks changes, so a stale saved arrangement falls back to this default once), with the
Palette kept readable (`clamp_restored_docks`). The canvas has a least size (`CANVAS_MIN`), so
the window's minimum size leaves it usable.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QMainWindow, QScrollArea, QWidget

DOCK_STATE_VERSION = 1
SCREEN_SHARE = 0.85
MIN_SIZE = QSize(1280, 800)
FRAME = QSize(16, 48)  # what a window manager adds around the client area (title bar, borders)
PALETTE_WIDTH = 260
SIDE_WIDTH = 440  # the live panel's three columns of figures without clipping
BOTTOM_HEIGHT = 150
INSPECTOR_HEIGHT = 270  # a device's or a link's properties; the Simulation panel gets the rest
#: the canvas (and Racks) tabs' least size: the window's minimum size follows from it and the
#: docks' (at 737 x 389 the canvas was 181 x 123 px, issue 38 item 12)
CANVAS_MIN = QSize(400, 300)
#: a Palette narrower than this when the window opens is widened to it (the models' names are
#: cut short below it; one dragged to its minimum stayed so at every start)
PALETTE_READABLE = 200


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


def scrolled(widget: QWidget) -> QScrollArea:
    """`widget` in a frameless vertical scroll area: its dock keeps the size it is given
    whatever the widget shows (an Inspector page of one line or of ten)."""
    area = QScrollArea(widget.parentWidget())
    area.setObjectName(f"{widget.objectName() or 'dock'}-scroll")
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(widget)
    return area


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


def clamp_restored_docks(window) -> None:
    """After a saved dock state is restored: a Palette narrowed below `PALETTE_READABLE` (or a
    fifth of a small window) opens at that width again."""
    wanted = min(PALETTE_READABLE, round(window.width() * 0.2))
    dock = window.palette_dock
    if dock.isVisible() and not dock.isFloating() and dock.width() < wanted:
        window.resizeDocks([dock], [wanted], Qt.Orientation.Horizontal)
