"""Double-click on a far-zoom block zooms into it (issue 38 item 12): it only selected the
block, and the way into a 4-SU SuperPOD's SU was the mouse wheel."""

from __future__ import annotations

import pytest
from designer_fixtures import large_design_window
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from rackdesigner.generators import generate

pytest.importorskip("pytestqt")


@pytest.fixture
def far(qtbot, tmp_path, catalog):
    layout = generate("superpod", catalog=catalog, system="dgx-b200", sus=4)
    window = large_design_window(qtbot, tmp_path, layout)
    assert window.scene.level == "far"
    return window


def _su_block(window):
    scene = window.scene
    for group in window.document.layout.groups():
        item = scene.item_for_group.get(group.id)
        if group.kind == "su" and item is not None and item.isVisible() and item.block:
            return group.id, item
    raise AssertionError("no SU block at fit")


def test_double_click_on_a_block_zooms_into_it_and_opens_it(far):
    view, scene = far.view, far.scene
    gid, item = _su_block(far)
    rect = item.frame_rect()
    before = view.zoom()
    point = view.mapFromScene(rect.center())
    QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(point))
    far.flush()
    assert view.zoom() > before
    shown = view.visible_scene_rect()
    assert shown.contains(rect.center())  # where the double-click was
    # the block fills most of the view: width or height at least 70 % of it
    covered = rect.intersected(shown)
    assert covered.width() >= 0.7 * shown.width() or covered.height() >= 0.7 * shown.height()
    # and it is open: what it holds is drawn, not one block
    assert scene.level != "far"
    assert not (scene.item_for_group[gid].isVisible() and scene.item_for_group[gid].block)


def test_double_click_on_empty_canvas_changes_no_zoom(far):
    view = far.view
    before = view.zoom()
    QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(3, 3))
    far.flush()
    assert view.zoom() == pytest.approx(before)
