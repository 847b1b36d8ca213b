"""Big designs readable at a glance (issue 13, item 6): group names at screen size when zoomed
out, a selection outline at any zoom, the overview map, a click at overview zoom selects the
group under the cursor, and a delete there asks first."""

from __future__ import annotations

import pytest
from designer_fixtures import large_design_window
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from rackdesigner.generators import generate
from rackdesigner.ui import style
from rackdesigner.ui.canvas.overlay import group_labels


@pytest.fixture(scope="module")
def superpod(catalog):
    return generate("superpod", catalog=catalog, system="dgx-h100", nodes=8)


@pytest.fixture
def window(qtbot, tmp_path, superpod):
    return large_design_window(qtbot, tmp_path, superpod, activate=True)


def _labels(window) -> dict[str, str]:
    return {text: kind for _rect, text, kind in group_labels(window.view)}


@pytest.mark.slow
def test_names_readable_at_each_zoom_level(window):
    view = window.view
    layout = window.document.layout
    assert view.zoom() < style.LOD_BOXES  # fitted: far out
    far = _labels(window)
    assert "su" in far.values()  # the scalable units are named
    assert "node" not in far.values()  # nodes are specks: no name drawn over them
    view.set_zoom(0.4)
    node = next(g for g in layout.groups() if g.kind == "node")
    view.centerOn(window.scene.item_for_group[node.id].frame_rect().center())
    window.flush()
    near = _labels(window)
    assert any(kind in ("node", "rack") for kind in near.values())
    rects = [r for r, _t, _k in group_labels(view)]
    assert all(not a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])
    image = view.viewport().grab()  # the overlay paints without error
    assert not image.isNull()


@pytest.mark.slow
def test_a_click_at_overview_zoom_selects_the_group_under_the_cursor(window):
    view = window.view
    layout = window.document.layout
    node = next(g for g in layout.groups() if g.kind == "node")
    item = window.scene.item_for_group[node.id]
    point = view.mapFromScene(item.frame_rect().center())
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.NoModifier, point)
    window.flush()
    _devices, links, groups = window.editor.selection()
    assert groups and not links  # a group, never an invisible cable
    selected = groups[0]
    assert selected == node.id or node.id in [g.id for g in layout.groups()
                                              if g.parent == selected]


@pytest.mark.slow
def test_delete_at_overview_asks_before_removing_many(window, qtbot):
    layout = window.document.layout
    su = next(g for g in layout.groups() if g.kind == "su")
    before = layout.device_count()
    window.editor.select_ids([su.id])
    QTest.keyClick(window.view, Qt.Key.Key_Delete)
    box = window.editor.confirm_box
    assert box is not None and box.isVisible()
    assert "devices" in box.text() and su.label in box.text()
    QTest.mouseClick(box.button(QMessageBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    assert layout.device_count() == before
    window.editor.select_ids([su.id])
    QTest.keyClick(window.view, Qt.Key.Key_Delete)
    box = window.editor.confirm_box
    QTest.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    assert layout.device_count() < before and not layout.has_group(su.id)
    window.actions_.undo_action.trigger()
    assert layout.device_count() == before


@pytest.mark.slow
def test_the_overview_map_shows_where_the_view_is_and_moves_it(window):
    view = window.view
    minimap = view.minimap
    minimap.flush()
    assert not minimap.isVisible()  # the whole design is on screen: no map
    view.set_zoom(0.5)
    layout = window.document.layout
    first = next(g for g in layout.groups() if g.kind == "su")
    view.centerOn(window.scene.item_for_group[first.id].frame_rect().topLeft())
    minimap.flush()
    assert minimap.isVisible()
    frame = minimap.view_rect()
    assert frame.width() < minimap.width() / 2  # a small part of the design
    # a click on the map's far corner moves the view there
    target = minimap._target()
    corner = QPoint(int(target.right()) - 3, int(target.bottom()) - 3)
    QTest.mouseClick(minimap, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, corner)
    minimap.flush()
    moved = minimap.view_rect()
    assert moved.center().x() > frame.center().x() and moved.center().y() > frame.center().y()
    window.actions_.minimap_action.trigger()  # View → Overview Map off
    assert not minimap.isVisible()
