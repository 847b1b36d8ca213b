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

    settings_file = tmp_path / "s.ini"
    first = _window(qtbot, settings_file)
    first.resize(1400, 900)
    first.show()
    qtbot.waitExposed(first)
    _settle()
    first.resizeDocks([first.palette_dock], [1], Qt.Orientation.Horizontal)  # as narrow as it goes
    _settle()
    narrowed = first.palette_dock.width()
    assert narrowed < PALETTE_READABLE
    first.close()
    second = _window(qtbot, settings_file)
    second.resize(1400, 900)  # the offscreen screen is smaller than the saved geometry
    second.show()
    qtbot.waitExposed(second)
    _settle()
    assert second.palette_dock.width() >= PALETTE_READABLE - 2
    second.close()


def test_a_wide_palette_is_kept_as_the_user_left_it(qtbot, tmp_path):
    settings_file = tmp_path / "s.ini"
    first = _window(qtbot, settings_file)
    first.resize(1400, 900)
    first.show()
    qtbot.waitExposed(first)
    _settle()
    first.resizeDocks([first.palette_dock], [320], Qt.Orientation.Horizontal)
    _settle()
    wide = first.palette_dock.width()
    first.close()
    second = _window(qtbot, settings_file)
    second.resize(1400, 900)
    second.show()
    qtbot.waitExposed(second)
    _settle()
    assert abs(second.palette_dock.width() - wide) <= 2
