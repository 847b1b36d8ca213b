"""The smaller things a new user hit (issue 13, item 7), each driven through the real widgets."""

from __future__ import annotations

import pytest
from designer_fixtures import drag_events, make_window, small_layout
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QToolButton

from rackdesigner import __version__
from rackdesigner.io import save_layout


@pytest.mark.slow
def test_enter_in_the_palette_offsets_each_new_device_and_selects_it(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    palette = window.palette
    palette.search.setText("infiniband switch")
    item = palette.tree.topLevelItem(0)
    item = next(item.child(j) for i in range(palette.tree.topLevelItemCount())
                if not (item := palette.tree.topLevelItem(i)).isHidden()
                for j in range(item.childCount()) if not item.child(j).isHidden())
    palette.tree.setCurrentItem(item)
    palette.tree.setFocus()
    positions = []
    for _ in range(3):
        QTest.keyClick(palette.tree, Qt.Key.Key_Return)
        window.flush()
        devices, _, _ = window.editor.selection()
        assert len(devices) == 1  # the new one is selected
        positions.append(window.document.layout.device(devices[0]).pos)
    assert len(set(positions)) == 3  # not stacked on top of each other
    rects = [window.scene.item_for_device[d].sceneBoundingRect()
             for d in (x.id for x in window.document.layout.devices()) if d.startswith("switch")]
    assert len(rects) == 3
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])


@pytest.mark.slow
def test_toolbar_undo_keeps_its_width_and_says_what_in_the_tooltip(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    toolbar = window.findChildren(QToolButton)
    button = next(b for b in toolbar if b.defaultAction() is window.actions_.toolbar_undo)
    width = button.sizeHint().width()
    assert not button.isEnabled()
    window.editor.select_ids(["gpu-2"])
    window.actions_.delete_action.trigger()
    assert button.isEnabled() and button.text() == "Undo"
    assert button.sizeHint().width() == width
    assert "Delete" in button.toolTip() or "Remove" in button.toolTip()
    assert "Ctrl+Z" in button.toolTip()
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    assert window.document.layout.has_device("gpu-2")
    save = next(b for b in toolbar if b.defaultAction() is window.actions_.save_action)
    assert "Ctrl+S" in save.toolTip()


@pytest.mark.slow
def test_file_dialogs_start_next_to_the_design(qtbot, tmp_path, monkeypatch):
    folder = tmp_path / "designs"
    folder.mkdir()
    save_layout(small_layout(), folder / "pod.yaml")
    window = make_window(qtbot, tmp_path)
    assert window.open_file(folder / "pod.yaml", ask=False)
    starts = []

    def fake(parent, caption, start="", *args, **kwargs):
        starts.append(start)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(fake))
    window.files.export_bom_dialog()
    window.files.export_image_dialog()
    window.files.open_dialog()
    window.simulation_panel.export_dialog("csv")
    assert len(starts) == 4
    assert all(str(folder) in s for s in starts), starts


@pytest.mark.slow
def test_a_dropped_file_that_is_not_a_layout_says_why(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(text))])
    enter, _move, drop = drag_events(QPointF(5, 5), mime)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    QApplication.sendEvent(window, drop)
    message = window.statusBar().currentMessage()
    assert "notes.txt" in message and ".yaml" in message


@pytest.mark.slow
def test_about_names_version_licence_and_catalog_size(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    window.actions_.about_action.trigger()
    box = window.about_box
    assert box.isVisible()
    text = box.text()
    assert __version__ in text and "Apache-2.0" in text
    assert f"{len(list(window.catalog))} device models" in text
    QTest.keyClick(box, Qt.Key.Key_Escape)
    assert not box.isVisible()


@pytest.mark.slow
def test_problem_counts_are_drawn_icons_not_emoji(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    window.problems.flush()
    status = window.problems_label
    assert status.isVisible()
    for label in (status.error_icon, status.warning_icon, status.ok_icon):
        assert not label.pixmap().isNull()
    assert "⛔" not in status.error_count.text() + status.ok_text.text()


@pytest.mark.slow
def test_a_selection_shows_its_page_in_the_inspector_without_moving_the_panel(qtbot,
                                                                             tmp_path):
    # issue 26 reversed issue 21's compact empty Inspector: the panel jumped ~300 px between
    # two clicks. The Inspector keeps its height and scrolls what does not fit.
    window = make_window(qtbot, tmp_path, small_layout())
    window.resize(1600, 1000)
    window.editor.select_ids([])
    window.flush()
    qtbot.wait(20)
    panel_top = window.simulation_dock.geometry().top()
    window.editor.select_ids(["switch-1"])
    window.flush()
    qtbot.wait(20)
    assert window.simulation_dock.geometry().top() == panel_top
    assert window.inspector.device_name.isVisible()
    assert window.inspector_dock.height() > 200


@pytest.mark.slow
def test_the_empty_canvas_hint_goes_when_the_first_device_arrives(qtbot, tmp_path):
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtGui import QRegion

    window = make_window(qtbot, tmp_path)
    window.resize(1600, 1000)
    QApplication.processEvents()
    viewport = window.view.viewport()
    window.view.grab()  # the hint is on screen

    class Painted(QObject):
        region = QRegion()

        def eventFilter(self, obj, event):  # Qt override
            if event.type() == QEvent.Type.Paint:
                Painted.region = Painted.region.united(event.region())
            return False

    spy = Painted()
    viewport.installEventFilter(spy)
    center = window.view.mapToScene(viewport.rect().center())
    window.editor.drop_model("tnic", (center.x(), center.y()))  # a drop from the Palette
    QApplication.processEvents()  # the repaint the drop asks for (no later one cleans up)
    viewport.removeEventFilter(spy)
    assert not Painted.region.isEmpty()
    # the whole viewport was repainted, so no part of the hint text is left behind
    assert QRegion(viewport.rect()).subtracted(Painted.region).isEmpty()
