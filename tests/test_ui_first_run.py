"""What a user sees on start: first-run window size and dock layout, saved layout winning
later, the design fitted to the view's real size, and the application's desktop identity."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QRectF, QSettings
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from rackdesigner._resources import example_paths
from rackdesigner.ui.window_layout import first_run_geometry

REPO = Path(__file__).resolve().parent.parent


def _window(qtbot, tmp_path, name: str = "settings.ini"):
    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / name), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)  # the shipped catalog
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    return window


def _show(qtbot, window) -> None:
    window.show()
    qtbot.waitExposed(window)


def _example(name: str):
    return next(p for p in example_paths() if p.name == name)


def _zoom_percent(window) -> float:
    text = window.zoom_label.text()
    return float(text.rstrip("%")) if text.endswith("%") else 0.0


@pytest.mark.parametrize(("available", "expected"), [
    (QRect(0, 0, 1920, 1080), (1632, 918)),     # 85 %
    (QRect(0, 0, 2560, 1440), (2176, 1224)),
    (QRect(0, 0, 1366, 768), (1280, 720)),      # at least 1280 wide; the height fits the frame
    (QRect(0, 0, 800, 600), (784, 552)),        # never larger than the screen
    (QRect(1920, 0, 1920, 1200), (1632, 1020)),  # a second screen
])
def test_first_run_geometry_follows_the_screen(available, expected):
    rect = first_run_geometry(available)
    assert (rect.width(), rect.height()) == expected
    assert available.contains(rect)
    assert abs(rect.center().x() - available.center().x()) <= 1


@pytest.mark.slow
def test_first_run_window_is_sized_from_the_screen(qtbot, tmp_path):
    window = _window(qtbot, tmp_path)
    screen = QGuiApplication.primaryScreen().availableGeometry()
    assert window.size() == first_run_geometry(screen).size()


@pytest.mark.slow
def test_first_run_docks_leave_the_canvas_most_of_the_window(qtbot, tmp_path):
    window = _window(qtbot, tmp_path)
    window.resize(1600, 1000)
    _show(qtbot, window)

    def laid_out() -> None:
        assert 220 <= window.palette_dock.width() <= 300
        assert 380 <= window.simulation_dock.width() <= 480
        assert window.view.width() > 0.5 * window.width()
        assert window.view.height() > 0.6 * window.height()

    qtbot.waitUntil(laid_out)
    assert window.inspector_dock.width() == window.simulation_dock.width()  # one column
    central = window.centralWidget()  # the Topology/Racks tabs holding the canvas
    assert window.inspector_dock.x() > central.x() + central.width()
    assert window.simulation_dock.y() > window.inspector_dock.y()  # stacked, not tabbed
    assert window.simulation_dock.height() > window.inspector_dock.height()
    assert window.palette_dock.x() < central.x()
    # Problems and History sit under the canvas only, in a short strip
    assert window.problems_dock.height() <= 200
    assert window.problems_dock.x() >= central.x()
    assert window.problems_dock.width() == central.width()


@pytest.mark.slow
def test_saved_window_layout_wins_over_the_first_run_defaults(qtbot, tmp_path):
    from PySide6.QtCore import Qt

    window = _window(qtbot, tmp_path)
    window.resize(1100, 700)  # the window's least width (942) leaves the canvas 400 px
    _show(qtbot, window)
    # wider than the first run's 20 %, and readable (window_layout.PALETTE_READABLE)
    window.resizeDocks([window.palette_dock], [230], Qt.Orientation.Horizontal)
    qtbot.waitUntil(lambda: window.palette_dock.width() == 230)
    size = window.size()
    assert window.close()
    again = _window(qtbot, tmp_path)
    assert again.size().height() == size.height()  # the width: clamped to the offscreen
    again.resize(size)  # screen's 800 px, which a real screen holding 1,100 px would not
    _show(qtbot, again)
    qtbot.waitUntil(lambda: again.palette_dock.width() == 230)


@pytest.mark.slow
def test_a_dock_state_from_an_older_dock_set_falls_back_to_the_defaults(qtbot, tmp_path):
    window = _window(qtbot, tmp_path)
    window.settings.save_window_state(window.saveGeometry(), window.saveState(0))
    again = _window(qtbot, tmp_path)
    again.resize(1600, 1000)
    _show(qtbot, again)
    qtbot.waitUntil(lambda: again.view.width() > 0.5 * again.width())


def _device_rect_in_view(window) -> QRectF:
    rect = QRectF()
    for item in window.scene.item_for_device.values():
        if item.isVisible():
            rect = rect.united(item.sceneBoundingRect())
    return window.view.mapFromScene(rect).boundingRect().toRectF()


def _fills_the_view(window) -> bool:
    devices = _device_rect_in_view(window)
    viewport = window.view.viewport().rect()
    inside = QRectF(viewport).adjusted(-2, -2, 2, 2).contains(devices)
    share = max(devices.width() / viewport.width(), devices.height() / viewport.height())
    return inside and share > 0.5 and _zoom_percent(window) > 10


@pytest.mark.slow
@pytest.mark.parametrize("opened", ["before show", "while shown"])
def test_an_opened_design_is_fitted_to_the_shown_view(qtbot, tmp_path, opened):
    window = _window(qtbot, tmp_path)
    window.resize(1400, 900)
    if opened == "before show":  # as `rackdesigner FILE` does
        window.open_file(_example("dgx-h100.yaml"), ask=False)
        _show(qtbot, window)
    else:
        _show(qtbot, window)
        window.open_file(_example("dgx-h100.yaml"), ask=False)
    qtbot.waitUntil(lambda: _fills_the_view(window))
    assert window.scene.sceneRect().contains(window.view.design_rect())


@pytest.mark.slow
def test_the_fit_follows_resizes_until_the_user_zooms(qtbot, tmp_path):
    window = _window(qtbot, tmp_path)
    window.resize(1200, 800)
    window.open_file(_example("dgx-h100-2node-ib.yaml"), ask=False)
    _show(qtbot, window)
    qtbot.waitUntil(lambda: _fills_the_view(window))
    fitted = window.view.zoom()
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.view.zoom() > fitted * 1.05)
    assert _fills_the_view(window)
    window.view.zoom_in()  # the user takes over
    zoom = window.view.zoom()
    window.resize(1300, 850)
    qtbot.waitUntil(lambda: window.view.width() < 1300 - 600)
    QApplication.processEvents()
    assert not window.view._fit_timer.isActive()
    assert window.view.zoom() == zoom


def test_the_application_names_its_desktop_entry_and_icon(qapp):
    from PySide6.QtGui import QIcon

    from rackdesigner.app import DESKTOP_FILE_NAME, configure_application

    saved = (qapp.applicationName(), qapp.organizationName(), qapp.desktopFileName(),
             qapp.windowIcon())
    try:
        qapp.setWindowIcon(QIcon())
        configure_application(qapp)
        assert qapp.desktopFileName() == DESKTOP_FILE_NAME
        assert (REPO / "packaging" / f"{DESKTOP_FILE_NAME}.desktop").is_file()
        assert not qapp.windowIcon().isNull()
        assert qapp.windowIcon().availableSizes()
    finally:
        qapp.setApplicationName(saved[0])
        qapp.setOrganizationName(saved[1])
        qapp.setDesktopFileName(saved[2])
        qapp.setWindowIcon(saved[3])


@pytest.mark.slow
def test_going_to_an_object_ends_the_kept_fit(qtbot, tmp_path):
    window = _window(qtbot, tmp_path)
    window.resize(1200, 800)
    window.open_file(_example("dgx-h100.yaml"), ask=False)
    _show(qtbot, window)
    qtbot.waitUntil(lambda: _fills_the_view(window))
    zoom, width = window.view.zoom(), window.view.width()
    window.editor.select_ids(["dgx-1.nic7"])  # as a click in the Problems list does
    window.resize(1500, 950)
    qtbot.waitUntil(lambda: window.view.width() > width + 200)
    QApplication.processEvents()
    assert window.view.zoom() == zoom
