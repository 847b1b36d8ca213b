"""A rack's power budget is a property the user sets in the Inspector: one undoable command,
saved in the file only when set, checked by the design rules."""

from __future__ import annotations

import pytest
from designer_fixtures import make_window, small_layout
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from rackdesigner.io import load_layout, save_layout
from rackdesigner.model import check_layout


def _power_findings(layout):
    return [f for f in check_layout(layout) if f.code == "rack-power"]


@pytest.mark.slow
def test_rack_budget_is_set_in_the_inspector_saved_and_undone(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    layout = window.document.layout
    inspector = window.inspector
    spin = inspector.device_budget
    window.editor.select_ids(["gpu-1"])
    assert not inspector.device_form.isRowVisible(spin)  # only racks have a budget
    window.editor.select_ids(["rack-1"])
    assert inspector.device_form.isRowVisible(spin)
    assert spin.value() == 0 and "default 40.0 kW" in spin.specialValueText()
    assert _power_findings(layout) == []  # the 1.5 kW switch is far within the default

    spin.setFocus()
    spin.lineEdit().selectAll()
    QTest.keyClicks(spin, "1")  # 1 kW: below the switch's 1.5 kW
    QTest.keyClick(spin, Qt.Key.Key_Return)
    assert dict(layout.device("rack-1").props)["power_budget_w"] == 1000
    findings = _power_findings(layout)
    assert len(findings) == 1 and "set on the rack" in findings[0].message
    assert window.document.undo_stack.count() == 1

    path = tmp_path / "budget.yaml"
    save_layout(layout, path)
    assert "power_budget_w: 1000" in path.read_text()
    reopened = load_layout(path, layout.catalog)
    assert reopened.device("rack-1").props == layout.device("rack-1").props

    window.actions_.undo_action.trigger()
    assert "power_budget_w" not in dict(layout.device("rack-1").props)
    assert spin.value() == 0  # the inspector follows the model
    assert _power_findings(layout) == []
    save_layout(layout, path)
    assert "power_budget_w" not in path.read_text()
