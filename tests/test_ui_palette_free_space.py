"""A system double-clicked in the Palette lands in free space, wires included (issue 38 item
12): the view centre was checked for devices and groups only, so a new system could sit on
top of the wires running through the middle of the view."""

from __future__ import annotations

import pytest
from designer_fixtures import make_catalog, make_window
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from rackdesigner.model import Device, Layout, Link, PortRef
from rackdesigner.ui.palette import MODEL_ROLE

pytest.importorskip("pytestqt")


def _wired_far_apart() -> Layout:
    """A NIC and an IB switch 3,000 units apart, one wire between them over empty canvas."""
    layout = Layout(make_catalog())
    layout.add_all(devices=[Device("nic-1", "tnic", "", (0.0, 0.0)),
                            Device("switch-1", "tib", "", (3000.0, 0.0))],
                   links=[Link("link-1", PortRef("nic-1", "ib"), PortRef("switch-1", "ib"))])
    return layout


def _palette_item(palette, model: str):
    tree = palette.tree
    for i in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(i)
        for j in range(top.childCount()):
            if top.child(j).data(0, MODEL_ROLE) == model:
                return top.child(j)
    raise AssertionError(f"{model} is not in the Palette")


def test_a_double_clicked_system_does_not_land_on_a_wire(qtbot, tmp_path):
    from rackdesigner.ui.canvas.bundle_item import BundleItem

    window = make_window(qtbot, tmp_path, _wired_far_apart())
    window.flush()
    scene, view = window.scene, window.view
    wires = [i for i in scene.items() if isinstance(i, BundleItem) and i.isVisible()]
    assert len(wires) == 1
    wire = wires[0]
    middle = wire.shape().boundingRect().center()
    view.set_zoom(0.6)
    view.centerOn(middle)
    window.flush()
    before = {g.id for g in window.document.layout.groups()}
    tree = window.palette.tree
    item = _palette_item(window.palette, "tnode")
    tree.scrollToItem(item)
    point = tree.visualItemRect(item).center()
    QTest.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=point)
    QTest.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=point)
    window.flush()
    layout = window.document.layout
    added = {g.id for g in layout.groups() if g.parent is None} - before
    assert len(added) == 1, "the double-click placed nothing"
    box = scene.item_for_group[added.pop()].sceneBoundingRect()
    assert not wire.shape().intersects(wire.mapRectFromScene(box)), (box, middle)
    assert view.visible_scene_rect().intersects(box)  # still where the user looks
