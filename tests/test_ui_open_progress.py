"""Opening a large file: a progress dialog with stages, a rising bar and Cancel, the read on a
worker; Cancel keeps the open design exactly as it was."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt, QTimer

from rackdesigner.generators import generate
from rackdesigner.io import save_layout
from rackdesigner.ui import MainWindow, open_progress
from rackdesigner.ui.problems import CHECKING


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


def _press_enter_once_reading(qtbot, window, pressed: list) -> None:
    """Press Return in the Opening dialog once the worker is reading (re-armed until then)."""
    progress = getattr(window.files, "open_progress", None)
    if progress is None or not progress.read_in_worker or progress.dialog is None:
        QTimer.singleShot(0, lambda: _press_enter_once_reading(qtbot, window, pressed))
        return
    progress.cancel_button.setFocus()
    qtbot.keyClick(progress.dialog, Qt.Key.Key_Return)
    qtbot.keyClick(progress.cancel_button, Qt.Key.Key_Enter)
    pressed.append(True)


@pytest.mark.slow
def test_enter_in_the_opening_dialog_does_not_cancel(qtbot, window, two_files):
    """Issue 38 item 12: Enter (the key that confirmed the file dialog) hit Cancel and a 39 MB
    open was lost; only a click or Escape cancels."""
    _, second = two_files
    pressed: list = []
    QTimer.singleShot(0, lambda: _press_enter_once_reading(qtbot, window, pressed))
    assert window.open_file(second, ask=False)
    assert pressed
    assert not window.files.open_progress.cancelled.is_set()
    assert window.document.path == second


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


@pytest.mark.slow
def test_the_first_edit_is_readied_after_the_canvas_not_before(qtbot, window, two_files):
    """The read hands the design over as read (the canvas needs no tries); the window draws
    it whole, then a worker makes what the first edit needs (`Layout.settle`), on the state
    that was opened: an edit meanwhile is the window's own and is not touched."""
    from rackdesigner.commands import MoveDevices
    from rackdesigner.model.order import DictMap

    _, second = two_files
    seen = []

    def on_replaced(layout) -> None:  # the views follow the read design here
        state = layout.state
        seen.append((state, isinstance(state.devices, DictMap) and state.devices._map is None,
                     isinstance(state.links, DictMap) and state.links._map is None))

    window.document.replaced.connect(on_replaced)
    assert window.open_file(second, ask=False)
    opened, devices_plain, links_plain = seen[-1]
    assert devices_plain and links_plain  # not settled before the views followed
    layout = window.document.layout
    scene = window.scene
    # the canvas shows the design: every link filed where a fresh look puts it (the relayout
    # finds each device's end once per pass)
    assert scene._link_key and scene.bundles
    assert all(scene._link_key.get(lk.id) == scene._key(lk) for lk in layout.links())
    device = next(d for d in layout.devices() if d.pos is not None)
    window.document.push(MoveDevices({device.id: (device.pos, (device.pos[0] + 20.0,
                                                               device.pos[1]))}))
    assert window.files.settling is None  # started once the event loop has painted
    qtbot.waitUntil(lambda: window.files.settling is not None)
    window.files.settling.join(30)
    assert not window.files.settling.is_alive()
    assert opened._links_by_device is not None and opened._port_use is not None
    assert opened.devices._map is not None and opened.links._map is not None
    assert dict(opened.links.as_map()) == dict(opened.links.items())
    assert window.document.layout.state is not opened  # the edit stands on its own state
    assert window.document.layout.device(device.id).pos[0] == device.pos[0] + 20.0
    window.document.undo_stack.undo()
    assert window.document.layout.device(device.id).pos == device.pos


def test_a_small_file_is_not_settled_on_a_worker(qtbot, tmp_path, catalog):
    path = tmp_path / "small.yaml"
    save_layout(generate("superpod", system="dgx-h100", sus=1, catalog=catalog), path)
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(catalog=catalog, settings=settings)
    qtbot.addWidget(win)
    assert win.open_file(path, ask=False)
    assert not win.files.open_progress.read_in_worker and win.files.settling is None


@pytest.mark.slow
def test_the_analyses_of_an_opened_design_start_after_its_first_paint(qtbot, window, two_files):
    """Problems, the live panel and the Cost tab start their runs of a design just opened from
    the event loop, once the canvas has painted it (a run holds the interpreter lock the paint
    needs); meanwhile they say they are busy, and the Problems list is then the whole check."""
    from rackdesigner.model import check_layout

    _, second = two_files
    problems, live = window.problems, window.simulation_panel.live
    cost = window.simulation_panel.cost_tab.live
    qtbot.waitUntil(lambda: not (problems.busy or live.busy or cost.job.busy), timeout=20_000)
    runs = (problems.runs, live.job.runs, cost.job.runs)
    assert window.open_file(second, ask=False)
    window.view.viewport().repaint()  # the first paint: nothing of the new design runs yet
    assert (problems.runs, live.job.runs, cost.job.runs) == runs
    assert problems.busy and live.busy and cost.job.busy  # but each says it will
    # and the Problems list does not show the previous design's verdict meanwhile
    assert problems.summary.text() == CHECKING and problems.tree.topLevelItemCount() == 0
    assert window.problems_label.text() == "checking…"  # nor does the status bar
    qtbot.waitUntil(lambda: not (problems.busy or live.busy or cost.job.busy), timeout=60_000)
    assert problems.summary.text() != CHECKING
    assert window.problems_label.text() == "no problems"  # a clean 2-SU SuperPOD, said again
    assert (problems.runs, live.job.runs, cost.job.runs) == tuple(n + 1 for n in runs)
    layout = window.document.layout
    assert problems.shown_revision == layout.revision
    assert sorted(map(str, problems.findings)) == sorted(map(str, check_layout(layout)))
    assert live.layout is layout and window.simulation_panel.current is not None


@pytest.mark.slow
def test_opened_from_the_event_loop_the_canvas_paints_before_any_analysis_runs(
        qtbot, window, two_files, monkeypatch):
    """As File ▸ Open runs it (from the event loop, which then paints): the canvas's first
    paint of the new design comes before the first run of Problems, the panel or the Cost tab."""
    from rackdesigner.ui.canvas import view as view_module

    _, second = two_files
    problems, live = window.problems, window.simulation_panel.live
    cost = window.simulation_panel.cost_tab.live
    qtbot.waitUntil(lambda: not (problems.busy or live.busy or cost.job.busy), timeout=20_000)
    seen: list[str] = []
    paint = view_module.paint_overlay

    def painting(view, painter) -> None:
        paint(view, painter)
        if window.document.path == second:
            seen.append("paint")

    monkeypatch.setattr(view_module, "paint_overlay", painting)
    for job in (problems.job, live.job, cost.job):
        work = job.work
        job.work = lambda snapshot, params, work=work: seen.append("run") or work(snapshot,
                                                                                   params)
    QTimer.singleShot(0, lambda: window.open_file(second, ask=False))
    qtbot.waitUntil(lambda: seen.count("run") == 3 and not (problems.busy or live.busy
                                                           or cost.job.busy), timeout=60_000)
    assert "paint" in seen and seen.index("paint") < seen.index("run")
