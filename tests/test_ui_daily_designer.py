"""The designer in daily use (issue 26, items 1-8): what a new user hit in the first days."""

from __future__ import annotations

from designer_fixtures import make_window, small_layout
from PySide6.QtCore import Qt


def test_sharp_toggled_and_undone_with_a_selection_raises_nothing(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    window.editor.select_ids(["gpu-1"])
    window.flush()
    panel = window.simulation_panel
    qtbot.mouseClick(panel.sharp_check, Qt.MouseButton.LeftButton)
    window.flush()
    assert window.document.layout.meta.sharp
    window.document.undo_stack.undo()
    window.flush()
    panel.flush()
    assert not window.document.layout.meta.sharp and not panel.sharp_check.isChecked()
    assert window.inspector.device_id.text().startswith("gpu-1")
