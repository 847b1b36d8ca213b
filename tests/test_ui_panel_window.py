"""The live panel inside the main window: it follows the opened file, edits made through the
designer (undo stack included) and the canvas selection."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from designer_fixtures import two_node_window


@pytest.fixture
def window(qtbot, tmp_path):
    return two_node_window(qtbot, tmp_path)


def _text(window, key):
    return window.simulation_panel.headline.text_of(key)


@pytest.mark.slow
def test_panel_shows_the_opened_file(window):
    assert window.simulation_dock.widget() is window.simulation_panel
    assert _text(window, "gpus") == "16"
    assert window.simulation_panel.current.revision == window.document.layout.revision


@pytest.mark.slow
def test_deleting_the_switch_and_undo(window, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    panel = window.simulation_panel
    window.editor.select_ids(["leaf-1"])
    window.flush()
    QTest.keyClick(window.view.viewport(), Qt.Key.Key_Delete)
    assert not window.document.layout.has_device("leaf-1")
    panel.flush()
    assert "8 reachable" in panel.headline.tiles["gpus"].detail.text()
    window.document.undo_stack.undo()
    panel.flush()
    assert panel.headline.tiles["gpus"].detail.text() == "2 nodes"
    assert panel.current.revision == window.document.layout.revision


@pytest.mark.slow
def test_scope_follows_the_canvas_selection(window):
    panel = window.simulation_panel
    assert not panel.scope_button.isEnabled()
    window.editor.select_ids(["dgx-2"])
    window.flush()
    assert panel.scope_button.isEnabled()
    panel.scope_button.click()
    panel.flush()
    assert panel.current.scope == "dgx-2" and _text(window, "gpus") == "8"
    window.editor.select_ids(["dgx-1.gpu0", "dgx-1.gpu1"])
    window.flush()
    panel.flush()
    assert panel.current.scope == ("dgx-1.gpu0", "dgx-1.gpu1")
    assert _text(window, "gpus") == "2" and "2 selected GPUs" in panel.scope_label.text()
    window.scene.clearSelection()
    window.flush()
    panel.flush()
    assert panel.current.scope is None and _text(window, "gpus") == "16"


@pytest.mark.slow
def test_opening_another_file_resets_the_scope(window):
    from rackdesigner._resources import example_paths

    panel = window.simulation_panel
    window.editor.select_ids(["dgx-2"])
    window.flush()
    panel.scope_button.click()
    panel.flush()
    path = next(p for p in example_paths() if p.name == "dgx-h100.yaml")
    assert window.open_file(path, ask=False)
    panel.flush()
    assert panel.current.scope is None and _text(window, "gpus") == "8"
    assert not panel.scope_button.isChecked()


@pytest.mark.slow
def test_a_partitioned_design_looks_broken_in_problems_status_bar_and_panel(window, qtbot):
    """One derived index: Problems, the status bar and the panel say the same thing."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    panel = window.simulation_panel
    window.flush()
    assert not any(f.code == "gpus-unreachable" for f in window.problems.findings)
    window.editor.select_ids(["leaf-1"])
    window.flush()
    QTest.keyClick(window.view.viewport(), Qt.Key.Key_Delete)  # the only IB switch
    window.flush()
    panel.flush()
    sentence = "8 of 16 GPUs cannot reach the others"
    finding = next(f for f in window.problems.findings if f.code == "gpus-unreachable")
    assert finding.severity == "error" and sentence in finding.message
    assert len(finding.objects) == 8
    assert "8 of 16 GPUs cannot reach the others" in window.problems_label.text()
    assert panel.banner.isVisible() and sentence in panel.banner.text()
    window.document.undo_stack.undo()
    window.flush()
    panel.flush()
    assert not any(f.code == "gpus-unreachable" for f in window.problems.findings)
    assert "cannot reach" not in window.problems_label.text()


@pytest.mark.slow
def test_gc_tuning_follows_every_replacement_and_is_undone(window):
    import gc

    from rackdesigner.model import Layout

    window.heap.min_devices = 10  # the open example (30 devices) counts as big
    window.document.set_layout(window.document.layout.copy(), None)
    assert window.heap.frozen and gc.get_freeze_count() > 0
    window.document.set_layout(Layout(window.catalog), None)  # a small design replaces it
    assert not window.heap.frozen and gc.get_freeze_count() == 0


@pytest.mark.slow
def test_sharp_switch_is_one_undo_step_saved_with_the_design(window, qtbot, tmp_path):
    from PySide6.QtCore import Qt

    panel = window.simulation_panel
    stack = window.document.undo_stack
    before = stack.count()
    qtbot.mouseClick(panel.sharp_check, Qt.MouseButton.LeftButton)
    live = panel.flush()
    assert stack.count() == before + 1 and window.document.layout.meta.sharp
    assert live.result.sharp
    stack.undo()
    panel.flush()
    assert not window.document.layout.meta.sharp and not panel.sharp_check.isChecked()
    stack.redo()
    panel.flush()
    assert panel.sharp_check.isChecked()
    from rackdesigner.io import load_layout, save_layout

    path = tmp_path / "sharp.yaml"
    save_layout(window.document.layout, path)
    assert "sharp: true" in path.read_text() and load_layout(path).meta.sharp
