"""The window's least size leaves a usable canvas, and a Palette narrowed to its minimum opens
readable at the next start (issue 38 item 12: at 745 x 412 the canvas was 140 px; a narrowed
Palette stayed narrow for good)."""

from __future__ import annotations

import pytest
from designer_fixtures import make_window, small_layout
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

pytest.importorskip("pytestqt")


def _settle():
    for _ in range(20):
        QApplication.processEvents()


def test_at_its_minimum_size_the_window_leaves_a_usable_canvas(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    window.resize(window.minimumSizeHint())
    _settle()
    size = window.size()
    viewport = window.view.viewport().size()
    assert viewport.width() >= 300 and viewport.height() >= 200, (size, viewport)
    # and the least size still fits a small laptop screen (1024 x 600)
    assert size.width() <= 1024 and size.height() <= 600, size


def _window(qtbot, settings_file):
    from designer_fixtures import make_catalog

    from rackdesigner.ui import MainWindow

    window = MainWindow(catalog=make_catalog(),
                        settings=QSettings(str(settings_file), QSettings.Format.IniFormat))
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    return window


def test_a_narrowed_palette_opens_readable_at_the_next_start(qtbot, tmp_path):
    from rackdesigner.ui.window_layout import PALETTE_READABLE

    narrowed, second = _palette_left_at(qtbot, tmp_path, 1)  # as narrow as it goes
    assert narrowed < PALETTE_READABLE
    assert second.palette_dock.width() >= PALETTE_READABLE - 2


def test_a_wide_palette_is_kept_as_the_user_left_it(qtbot, tmp_path):
    wide, second = _palette_left_at(qtbot, tmp_path, 320)
    assert abs(second.palette_dock.width() - wide) <= 2


def _palette_left_at(qtbot, tmp_path, width: int):
    """The Palette's width as the user left it at `width`, and the window of the next start
    (both 1,400 x 900: the offscreen screen is smaller than the saved geometry)."""
    settings_file = tmp_path / "s.ini"
    windows = []
    for _ in range(2):
        window = _window(qtbot, settings_file)
        window.resize(1400, 900)
        window.show()
        qtbot.waitExposed(window)
        _settle()
        windows.append(window)
        if len(windows) == 1:
            window.resizeDocks([window.palette_dock], [width], Qt.Orientation.Horizontal)
            _settle()
            left = window.palette_dock.width()
            window.close()
    return left, windows[1]
