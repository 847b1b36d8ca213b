"""An NVL72's rack device is selectable as itself (issue 26, cost's leftover): its system is drawn
as one collapsed box, yet clicking the rack's header in the Racks view, or its finding, shows
the RACK in the Inspector (power budget, air limit) — not the whole system's group page — and
the box on the canvas is what is highlighted. The group's own page links to its rack."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")
pytestmark = pytest.mark.slow  # window-level GUI


@pytest.fixture
def window(qtbot, tmp_path, catalog):
    from PySide6.QtCore import QSettings

    from rackdesigner.generators import generate
    from rackdesigner.ui import MainWindow

    layout = generate("nvl72", catalog=catalog)
    layout.update_group("nvl72-1", collapsed=True)  # as the Palette drops a system
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(catalog=catalog, settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window._set_document(layout, None)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    window.flush()
    return window


def _rack(layout) -> str:
    return next(d.id for d in layout.devices() if d.model == "rack-48u")


def _group_selected(window, group_id: str) -> bool:
    item = window.scene.item_for_group[group_id]
    return item.isSelected() and item.isVisible()


def test_clicking_a_rack_header_in_the_racks_view_shows_that_rack(qtbot, window):
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    layout = window.document.layout
    rack = _rack(layout)
    assert window.scene.item_standing_for(rack) is window.scene.item_for_group["nvl72-1"]
    window.views.setCurrentWidget(window.racks_panel)
    panel = window.racks_panel
    panel.flush()
    item = panel.scene.item_for_rack[rack]
    view = panel.view
    view.ensureVisible(item)
    header = item.mapToScene(item.shape().boundingRect().topLeft())  # the header, above the frame
    point = view.mapFromScene(header) + QPoint(40, 12)
    assert item in view.items(point)
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    window.flush()
    inspector = window.inspector
    assert inspector.stack.currentWidget() is inspector.device_page
    assert inspector.devices == [rack]
    assert not inspector.device_budget.isHidden()  # the rack's power budget is there
    assert _group_selected(window, "nvl72-1")  # the canvas highlights the box holding it
    assert item.isSelected()  # and the Racks view keeps the rack selected
    # the Inspector edits the rack itself: one undo step on the rack device
    inspector.device_budget.setValue(150.0)
    window.flush()
    assert dict(layout.device(rack).props).get("power_budget_w") == pytest.approx(150_000)
    window.document.undo_stack.undo()
    assert "power_budget_w" not in dict(layout.device(rack).props)


def test_the_stand_in_ends_when_the_user_selects_something_else(qtbot, window):
    layout = window.document.layout
    rack = _rack(layout)
    window.editor.select_ids([rack])  # a finding about the rack, the what-if table ...
    window.flush()
    assert window.editor.selection() == ([rack], [], [])
    assert _group_selected(window, "nvl72-1")
    # the user clicks the box itself: now it is the group that is selected
    group = window.scene.item_for_group["nvl72-1"]
    window.scene.clearSelection()
    group.setSelected(True)
    window.flush()
    assert window.editor.selection() == ([], [], ["nvl72-1"])
    inspector = window.inspector
    assert inspector.stack.currentWidget() is inspector.group_page
    # ... whose page links to its rack: following the link shows the rack's own page
    assert not inspector.group_racks.isHidden()
    assert layout.device(rack).label in inspector.group_racks.text()
    inspector.group_racks.linkActivated.emit(rack)
    window.flush()
    assert inspector.stack.currentWidget() is inspector.device_page
    assert inspector.devices == [rack]
    # selecting the group and the rack together keeps the group (it was asked for)
    window.editor.select_ids(["nvl72-1", rack])
    window.flush()
    assert window.editor.selection() == ([], [], ["nvl72-1"])


def test_a_tray_chosen_in_the_racks_view_is_the_tray(qtbot, window):
    """A compute tray of the collapsed NVL72 (a unit in the Racks view): its own group page,
    with no rack row (it holds no rack)."""
    inspector = window.inspector
    window.editor.select_ids(["nvl72-1.tray0"])
    window.flush()
    assert _group_selected(window, "nvl72-1")
    assert window.editor.selection() == ([], [], ["nvl72-1.tray0"])
    assert inspector.stack.currentWidget() is inspector.group_page
    assert inspector.group_id.text().startswith("nvl72-1.tray0")
    assert inspector.group_racks.isHidden()
