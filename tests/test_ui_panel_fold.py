"""The Simulation panel's tab pages are on screen when the designer opens (issue 38): at
1920 x 1050 on the bundled example the pages sat under the summary cards, below the fold of the
panel, because the tallest page (the Workload form) set every page's minimum height."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from rackdesigner.ui.window_layout import first_run_geometry


@pytest.fixture
def start(qtbot, tmp_path):
    """`rackdesigner` with no file and no saved settings on a screen of the given size."""
    from rackdesigner.app import open_start_window

    def open_on(width: int, height: int):
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        window = open_start_window(None, settings=settings)  # the bundled example
        qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
        window.setGeometry(first_run_geometry(QRect(0, 0, width, height)))
        window.show()
        qtbot.waitExposed(window)
        window.simulation_panel.flush()
        settle()
        return window

    return open_on


def settle() -> None:
    for _ in range(6):  # the layout requests a new width or a new minimum posts
        QApplication.processEvents()


def placed(widget, panel) -> QRect:
    """Where `widget` shows in the panel's scrolled content (as far as the widgets around it
    inside the content let it show), in the coordinates of the panel's viewport."""
    viewport = panel.scroll.viewport()
    rect = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not panel.scroll.widget():
        rect &= QRect(parent.mapTo(viewport, QPoint(0, 0)), parent.size())
        parent = parent.parentWidget()
    return rect


def shown_page(panel) -> QRect:
    """The current tab's page, in the panel's viewport: on screen if the viewport holds it."""
    return placed(panel.tabs.currentWidget(), panel)


def squeezed_tiles(panel) -> list[str]:
    """Headline tiles lower than they need (their values cut) or not wholly on screen."""
    out = []
    for key, tile in panel.headline.tiles.items():
        if tile.height() < tile.minimumSizeHint().height():
            out.append(f"{key}: {tile.height()} < {tile.minimumSizeHint().height()} px")
        elif not panel.scroll.viewport().rect().contains(placed(tile, panel)):
            out.append(f"{key}: out of sight")
    return out


@pytest.mark.slow
def test_the_tab_pages_are_on_screen_at_1920_by_1050(start):
    window = start(1920, 1050)
    panel = window.simulation_panel
    viewport = panel.scroll.viewport()
    assert panel.headline.tiles and squeezed_tiles(panel) == []
    bar_at = panel.tabs.tabBar().mapTo(window, QPoint(0, 0))
    for index in range(panel.tabs.count()):
        tab = panel.tabs.tabBar().tabRect(index).center()
        QTest.mouseClick(panel.tabs.tabBar(), Qt.MouseButton.LeftButton, pos=tab)
        settle()
        assert panel.tabs.currentIndex() == index
        seen = shown_page(panel)
        name = panel.tabs.tabText(index)
        assert viewport.rect().contains(seen), name
        assert seen.height() >= 150, f"{name}: {seen.height()} px of its page on screen"
        # a click on a tab moves nothing: the tiles and the tab bar stay where they were
        assert panel.tabs.tabBar().mapTo(window, QPoint(0, 0)) == bar_at, name
        assert squeezed_tiles(panel) == [], name
    assert panel.scroll.verticalScrollBar().maximum() == 0  # nothing to scroll to


@pytest.mark.slow
def test_a_dock_layout_saved_before_still_shows_the_pages(start):
    """The next start restores a layout saved before (Inspector 270 px over a 440 px wide
    Simulation dock, the defaults until now): the tiles still take three columns (a panel
    that started in two, scrolling, stayed so) and a tab page shows under them."""
    window = start(1920, 1050)
    window.resizeDocks([window.inspector_dock, window.simulation_dock], [440, 440],
                       Qt.Orientation.Horizontal)
    column = window.inspector_dock.height() + window.simulation_dock.height()
    window.resizeDocks([window.inspector_dock, window.simulation_dock], [270, column - 270],
                       Qt.Orientation.Vertical)
    settle()
    window.document.undo_stack.setClean()
    window.close()  # saves the layout
    window = start(1920, 1050)
    panel = window.simulation_panel
    assert (window.simulation_dock.width(), window.inspector_dock.height()) == (440, 270)
    assert panel.headline.columns == 3
    assert squeezed_tiles(panel) == []
    seen = shown_page(panel)
    assert panel.scroll.viewport().rect().contains(seen)
    assert seen.height() >= 100  # the rest of the page scrolls inside its tab


@pytest.mark.slow
def test_notes_opened_and_closed_leave_the_panel_as_it_was(start):
    """In a dock as saved before, the opened notes make the panel scroll (the tiles take two
    columns beside the scroll bar); closed again, the tiles go back to three columns and the
    tab page to where it was (it stayed below the fold: the panel kept its two columns)."""
    window = start(1920, 1050)
    window.resizeDocks([window.simulation_dock], [440], Qt.Orientation.Horizontal)
    column = window.inspector_dock.height() + window.simulation_dock.height()
    window.resizeDocks([window.inspector_dock, window.simulation_dock], [270, column - 270],
                       Qt.Orientation.Vertical)
    settle()
    panel = window.simulation_panel
    bar = panel.scroll.verticalScrollBar()
    before = panel.tabs.mapTo(window, QPoint(0, 0))
    assert (panel.headline.columns, bar.maximum()) == (3, 0)
    QTest.mouseClick(panel.notes_bar.notes_button, Qt.MouseButton.LeftButton)
    settle()
    assert panel.notes_bar.notes_label.isVisible() and bar.maximum() > 0
    assert all(tile.height() >= tile.minimumSizeHint().height()
               for tile in panel.headline.tiles.values())
    QTest.mouseClick(panel.notes_bar.notes_button, Qt.MouseButton.LeftButton)
    settle()
    assert (panel.headline.columns, bar.maximum()) == (3, 0)
    assert panel.tabs.mapTo(window, QPoint(0, 0)) == before
    assert squeezed_tiles(panel) == []


@pytest.mark.slow
def test_a_small_screen_scrolls_the_panel_and_cuts_no_figure(start):
    window = start(1366, 768)
    panel = window.simulation_panel
    bar = panel.scroll.verticalScrollBar()
    assert bar.maximum() > 0  # truly not enough room: the panel scrolls
    assert all(tile.height() >= tile.minimumSizeHint().height()
               for tile in panel.headline.tiles.values())
    bar.setValue(bar.maximum())  # scrolled to the end, the tabs fill the panel
    settle()
    seen = shown_page(panel)
    viewport = panel.scroll.viewport().rect()
    assert viewport.contains(seen)
    assert seen.height() >= viewport.height() - panel.tabs.tabBar().height() - 8


@pytest.mark.slow
def test_the_wheel_over_a_page_that_fits_scrolls_the_panel(start):
    """A page in its own scroll area: while it has nothing to scroll, the wheel over one of its
    controls scrolls the panel (and never changes the control)."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QWheelEvent

    window = start(1366, 768)
    panel = window.simulation_panel
    panel.tabs.setCurrentWidget(panel.heat_tab)
    settle()
    combo = panel.heat_tab.collective_combo
    index = combo.currentIndex()
    bar = panel.scroll.verticalScrollBar()
    assert 0 == bar.value() < bar.maximum()
    local = QPointF(combo.rect().center())
    event = QWheelEvent(local, QPointF(combo.mapToGlobal(local.toPoint())), QPoint(0, 0),
                        QPoint(0, -120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(combo, event)
    assert bar.value() > 0 and combo.currentIndex() == index
