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


def _wheel(widget, steps: int = -1) -> None:
    """One notch of the mouse wheel over the middle of `widget` (negative: towards the user)."""
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    local = QPointF(widget.rect().center())
    event = QWheelEvent(local, QPointF(widget.mapToGlobal(local.toPoint())), QPoint(0, 0),
                        QPoint(0, 120 * steps), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_the_wheel_scrolls_the_panel_and_leaves_its_controls_alone(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    window.resize(1100, 620)  # a short dock: the figures and plots scroll
    window.flush()
    panel = window.simulation_panel
    panel.flush()
    bar = panel.scroll.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    tab_bar = panel.tabs.tabBar()
    panel.tabs.setCurrentIndex(panel.tabs.indexOf(panel.workload_modes))
    before = bar.value()
    _wheel(tab_bar)  # scrolling down the dock, the tab bar passes under the pointer
    assert panel.tabs.currentWidget() is panel.workload_modes
    assert bar.value() > before
    panel.tabs.setCurrentIndex(panel.tabs.indexOf(panel.heat_tab))
    combo = panel.heat_tab.collective_combo
    index = combo.currentIndex()
    for steps in (-1, 1):
        _wheel(combo, steps)
        assert combo.currentIndex() == index
    for control in (panel.algorithm_combo, panel.pue_spin):  # above the scrolled part
        value = control.currentIndex() if control is panel.algorithm_combo else control.value()
        _wheel(control)
        assert value == (control.currentIndex() if control is panel.algorithm_combo
                         else control.value())
    # a focused control takes the wheel, as a user who clicked into it expects
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    _wheel(combo, -1)
    assert combo.currentIndex() == index + 1


def test_docks_keep_their_geometry_when_the_selection_changes(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    window.resize(1400, 900)
    window.editor.select_ids([])
    window.flush()
    qtbot.wait(50)  # let the dock layout settle after the resize
    docks = (window.inspector_dock, window.simulation_dock, window.palette_dock)
    before = [d.geometry() for d in docks]
    for ids in (["gpu-1"], ["link-1"], ["gpu-1", "gpu-2", "switch-1"], []):
        window.editor.select_ids(ids)
        window.flush()
        qtbot.wait(20)
        assert [d.geometry() for d in docks] == before, ids


def test_opening_a_file_shows_nothing_of_the_previous_design(qtbot, tmp_path):
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    from rackdesigner.io import save_layout

    window = make_window(qtbot, tmp_path, small_layout())
    panel = window.simulation_panel
    panel.set_heat_enabled(True)
    panel.flush()
    assert panel.current is not None and not panel.headline.isHidden()
    assert panel.heat_tab.heat is not None  # the loads of this design
    panel.show_tab("bandwidth")
    qtbot.wait(10)
    tabs_at = panel.tabs.mapTo(panel, panel.tabs.rect().topLeft())
    window.view.set_zoom(4.0)  # zoomed in: the overview map shows the design
    window.view.minimap.refresh()
    assert window.view.minimap._pixmap is not None
    path = tmp_path / "other.yaml"
    save_layout(small_layout(), path)
    assert window.files.open_file(path, ask=False)
    # before the new design's figures exist: no figure, plot, hottest link or overview of
    # the old one
    assert panel.current is None
    assert panel.headline.isHidden()
    assert panel.heat_tab.heat is None and not panel.heat_tab.table.topLevelItemCount()
    assert "this design" in panel.heat_tab.summary.text()
    assert window.scene.heat is None
    assert "note" not in panel.notes_bar.notes_button.text()
    # and the tabs under the figures stay where the user's next click goes (they jumped up
    # by the figures' height, then back)
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    assert panel.current is None
    assert panel.tabs.mapTo(panel, panel.tabs.rect().topLeft()) == tabs_at
    assert window.view.minimap._pixmap is None and window.view.minimap.isHidden()
    assert window.windowTitle().startswith("other.yaml")
    panel.flush()
    assert panel.current is not None and not panel.headline.isHidden()


def test_palette_places_systems_collapsed_in_free_space(qtbot, tmp_path):
    from PySide6.QtTest import QTest

    window = make_window(qtbot, tmp_path, small_layout())
    palette = window.palette
    palette.search.setText("Test node")
    item = next(palette.tree.topLevelItem(i).child(j)
                for i in range(palette.tree.topLevelItemCount())
                for j in range(palette.tree.topLevelItem(i).childCount())
                if not palette.tree.topLevelItem(i).child(j).isHidden())
    palette.tree.setCurrentItem(item)
    palette.tree.setFocus()
    for _ in range(2):  # Enter (as a double-click) twice, the view not moved
        QTest.keyClick(palette.tree, Qt.Key.Key_Return)
        window.flush()
    layout = window.document.layout
    groups = [g for g in layout.groups() if g.template == "tnode"]
    assert len(groups) == 2 and all(g.collapsed for g in groups)
    assert sorted(g.id for g in groups) == ["tnode-1", "tnode-2"]
    window.scene.flush()
    boxes = [window.scene.item_for_group[g.id].frame_rect() for g in groups]
    assert not boxes[0].intersects(boxes[1])
    others = [window.scene.item_for_device[d].sceneBoundingRect()
              for d in ("gpu-1", "gpu-2", "nvsw-1", "nic-1", "switch-1")]
    assert not any(box.intersects(other) for box in boxes for other in others)
    # a drop right onto an existing device goes beside it
    target = window.scene.item_for_device["switch-1"].sceneBoundingRect().center()
    before = {d.id for d in layout.devices()}
    window.editor.drop_model("tgpu", (target.x(), target.y()))
    window.scene.flush()
    (new,) = {d.id for d in layout.devices()} - before
    rect = window.scene.item_for_device[new].sceneBoundingRect()
    assert not rect.intersects(window.scene.item_for_device["switch-1"].sceneBoundingRect())


def test_a_system_is_not_placed_inside_an_expanded_one(qtbot, tmp_path):
    """The stock example shows its DGX H100 expanded; a DGX B200 double-clicked in the Palette
    with the view on the empty middle of that frame (beside the NVSwitches) arrived there,
    inside the other system's frame, reading as a part of it (issue 26, item 6)."""
    from PySide6.QtCore import QSettings

    from rackdesigner.generators import generate
    from rackdesigner.ui import MainWindow

    layout = generate("dgx-h100")
    window = MainWindow(catalog=layout.catalog,
                        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window._set_document(layout, None)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    window.flush()
    scene, view = window.scene, window.view
    node = next(g for g in layout.groups() if g.kind == "node")
    frame = scene.item_for_group[node.id].frame_rect()
    nvswitches = [scene.item_for_device[d.id].sceneBoundingRect() for d in layout.devices()
                  if d.group == node.id and layout.catalog.get(d.model).kind == "nvswitch"]
    right = max(r.right() for r in nvswitches)
    spot = (right + frame.right()) / 2, nvswitches[0].center().y()  # no device drawn there
    view.set_zoom(1.0)
    view.centerOn(*spot)
    before = {g.id for g in layout.groups()}
    assert window.editor.add_at_center("dgx-b200")
    window.flush()
    (new,) = {g.id for g in layout.groups() if g.parent is None} - before
    box = scene.item_for_group[new].frame_rect()
    assert not box.intersects(frame), (box, frame)
