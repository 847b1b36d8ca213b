"""Wiring in bulk (issue 13, items 4 and 5): a node dragged onto a switch, Wire Rails… over a
selection of nodes and leaves, a count typed while drawing; every new link gets a cable and a
length, each gesture is one undo step, and the BOM lists no unspecified cable."""

from __future__ import annotations

import pytest
from designer_fixtures import drag, viewport_point
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from rackdesigner.bom import UNSPECIFIED, bill_of_materials
from rackdesigner.commands import add_model
from rackdesigner.model import Layout, natural_key
from rackdesigner.ui.style import HEADER_HEIGHT


def _build(catalog, nodes: int, leaves: int) -> tuple[Layout, list[str], list[str]]:
    layout = Layout(catalog)
    groups, switches = [], []
    for i in range(leaves):
        cmd = add_model(layout, "qm9700", (i * 200.0, -400.0))
        cmd.apply(layout)
        switches.append(cmd.devices[0].id)
    for i in range(nodes):
        cmd = add_model(layout, "dgx-h100", (0.0, i * 1000.0))
        cmd.apply(layout)
        groups.append(cmd.groups[0].id)
    return layout, groups, switches


@pytest.fixture
def open_window(qtbot, tmp_path):
    from rackdesigner.ui import MainWindow

    def make(layout: Layout):
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(catalog=layout.catalog, settings=settings)
        qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
        window._set_document(layout, None)
        window.resize(1600, 1000)
        window.show()
        qtbot.waitExposed(window)
        window.windowHandle().requestActivate()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        window.view.stop_keeping_fitted()
        window.view.set_zoom(0.5)
        window.flush()
        return window

    return make


def _nic_rails(layout: Layout, node: str) -> list[str]:
    return sorted((d for d in layout.group_devices(node) if ".nic" in d
                   and layout.device(d).model == "connectx-7"), key=natural_key)


@pytest.mark.slow
def test_dragging_a_node_onto_a_switch_connects_its_compute_nics(catalog, open_window):
    layout, (node,), (switch,) = _build(catalog, 1, 1)
    window = open_window(layout)
    header = window.scene.item_for_group[node].frame_rect()
    start = (header.left() + 200, header.top() + 6)
    sw = window.scene.item_for_device[switch].center()
    window.view.centerOn((start[0] + sw.x()) / 2, (start[1] + sw.y()) / 2)
    before = window.document.undo_stack.count()
    drag(window.view, start, (sw.x(), sw.y()), Qt.KeyboardModifier.AltModifier)
    dialog = window.editor.bulk_dialog
    assert dialog is not None and dialog.isVisible()
    assert "8 free compute NIC ports" in dialog.summary.text()
    assert "dac-ndr" in dialog.summary.text() or "aoc" in dialog.summary.text()
    QTest.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    window.flush()
    links = layout.links_of(switch)
    assert sorted((lk.other(switch).device for lk in links), key=natural_key) == \
        _nic_rails(layout, node)
    assert all(lk.cable and lk.length_m for lk in links)
    assert window.document.undo_stack.count() == before + 1
    window.actions_.undo_action.trigger()
    assert layout.links_of(switch) == []


@pytest.mark.slow
def test_wire_rails_connects_nic_i_of_every_node_to_leaf_i(catalog, open_window, qtbot):
    layout, nodes, leaves = _build(catalog, 2, 8)
    window = open_window(layout)
    window.editor.select_ids([*nodes, *leaves])
    before = window.document.undo_stack.count()
    QTest.keyClick(window.view, Qt.Key.Key_R,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    dialog = window.editor.bulk_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.summary.text().startswith("16 links: 2 nodes × 8 rails onto 8 leaves")
    assert "16 links" in dialog.count_label.text()
    QTest.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    for node in nodes:
        for rail, nic in enumerate(_nic_rails(layout, node)):
            (link,) = layout.links_of(nic)[-1:]
            assert link.other(nic).device == leaves[rail]
            assert link.cable is not None and link.length_m is not None
    assert window.document.undo_stack.count() == before + 1
    bom = bill_of_materials(layout)
    assert bom.cable_count(UNSPECIFIED) == 0 and bom.cable_count() == 16
    window.actions_.undo_action.trigger()
    assert all(layout.links_of(leaf) == [] for leaf in leaves)


@pytest.mark.slow
def test_wire_rails_without_leaves_says_what_to_select(catalog, open_window):
    layout, nodes, _ = _build(catalog, 1, 1)
    window = open_window(layout)
    window.editor.select_ids(nodes)
    window.actions_.wire_rails_action.trigger()
    assert window.editor.bulk_dialog is None
    assert "leaf switches" in window.statusBar().currentMessage()


@pytest.mark.slow
def test_a_count_typed_while_drawing_sets_the_link_count(catalog, open_window):
    layout, _, (switch,) = _build(catalog, 1, 1)
    window = open_window(layout)
    # a second switch: wire switch to switch with 4 ports typed during the drag
    cmd = add_model(layout, "qm9700", (600.0, -400.0))
    window.document.push(cmd)
    other = cmd.devices[0].id
    window.flush()
    window.view.set_zoom(1.0)
    x, y = layout.device(switch).pos
    row = QPointF(x + 60, y + HEADER_HEIGHT + 6)  # its first port row
    b = window.scene.item_for_device[other].center()
    window.view.centerOn((row + b) / 2)
    view, viewport = window.view, window.view.viewport()
    start, end = viewport_point(view, row.x(), row.y()), viewport_point(view, b.x(), b.y())
    before = window.document.undo_stack.count()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, QPoint((start.x() + end.x()) // 2, start.y()))
    QTest.mouseMove(viewport, end)
    assert window.scene.is_wiring
    QTest.keyClick(view, Qt.Key.Key_4)
    QTest.keyClick(view, Qt.Key.Key_0)
    assert "×40" in window.statusBar().currentMessage()
    QTest.keyClick(view, Qt.Key.Key_Backspace)  # corrects the count, deletes nothing
    assert "×4 " in window.statusBar().currentMessage()
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    (link,) = layout.links_of(other)
    assert link.count == 4 and link.cable is not None
    assert window.document.undo_stack.count() == before + 1
    assert layout.has_device(switch)  # the typed keys never reached the Delete shortcut
    # the Inspector shows the default cable and length, and edits them
    window.editor.select_ids([link.id])
    window.flush()
    inspector = window.inspector
    assert inspector.link_cable.currentData() == link.cable
    assert inspector.link_length.value() == pytest.approx(link.length_m)
