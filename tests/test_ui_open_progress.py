"""Opening a large file: a progress dialog with stages, a rising bar and Cancel, the read on a
worker; Cancel keeps the open design exactly as it was."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt, QTimer

from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.ui import MainWindow, open_progress


@pytest.fixture
def window(qtbot, tmp_path, catalog, monkeypatch):
    monkeypatch.setattr(open_progress, "PROGRESS_ABOVE_BYTES", 1000)  # the test files: "large"
    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.critical",
                        lambda *a: pytest.fail(f"unexpected error dialog: {a[2]}"))
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(catalog=catalog, settings=settings)
    qtbot.addWidget(win, before_close_func=lambda w: w.document.undo_stack.setClean())
    win.show()
    return win


@pytest.fixture
def two_files(tmp_path, catalog):
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    save_layout(generate("superpod", system="dgx-h100", sus=1, catalog=catalog), first)
    save_layout(generate("superpod", system="dgx-h100", sus=2, catalog=catalog), second)
    return first, second


@pytest.mark.slow
def test_opening_shows_the_stages_and_a_rising_bar(window, two_files):
    _, second = two_files
    assert window.open_file(second, ask=False)
    progress = window.files.open_progress
    assert progress.shown and progress.read_in_worker
    assert progress.stages[0].startswith("reading")
    assert "checking…" in progress.stages and "building the design…" in progress.stages
    assert progress.stages[-1].startswith("drawing")
    assert progress.values == sorted(progress.values) and len(set(progress.values)) >= 3
    assert progress.dialog is None  # taken down when done
    assert window.document.path == second


def _click_cancel_once_reading(qtbot, window) -> None:
    """Press Cancel as a user would, once the worker is reading (re-armed until then)."""
    progress = getattr(window.files, "open_progress", None)
    if progress is None or not progress.read_in_worker or progress.cancel_button is None:
        QTimer.singleShot(0, lambda: _click_cancel_once_reading(qtbot, window))
        return
    qtbot.mouseClick(progress.cancel_button, Qt.MouseButton.LeftButton)


@pytest.mark.slow
def test_cancel_keeps_the_open_design(qtbot, window, two_files):
    first, second = two_files
    assert window.open_file(first, ask=False)
    before = window.document.layout
    window.files.open_progress = None
    QTimer.singleShot(0, lambda: _click_cancel_once_reading(qtbot, window))
    assert not window.open_file(second, ask=False)
    progress = window.files.open_progress
    assert progress.cancelled.is_set() and "cancelling…" in progress.stages
    assert not any(s.startswith("drawing") for s in progress.stages)
    assert window.document.layout is before and window.document.path == first
    assert "cancelled" in window.statusBar().currentMessage()
    assert progress.dialog is None
    # and the next open works as usual
    assert window.open_file(second, ask=False)
    assert window.document.path == second


@pytest.mark.slow
def test_the_window_hands_the_gil_round_often_while_it_is_open(qtbot, tmp_path, catalog):
    """Workers running pure Python must not starve the GUI thread's many small Python calls
    (ui/heap.py): the switch interval is short while a window is open, as before after."""
    import sys

    from rackdesigner.ui.heap import GUI_SWITCH_INTERVAL_S

    before = sys.getswitchinterval()
    settings = QSettings(str(tmp_path / "s2.ini"), QSettings.Format.IniFormat)
    win = MainWindow(catalog=catalog, settings=settings)
    qtbot.addWidget(win)
    assert sys.getswitchinterval() <= GUI_SWITCH_INTERVAL_S
    assert win.close()
    assert sys.getswitchinterval() == before
