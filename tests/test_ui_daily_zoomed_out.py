"""Zoomed fully out, the heat map still shows where the bottleneck is (issue 26, item 7): each
block and collapsed box takes the colour of the hottest link touching it."""

from __future__ import annotations

import pytest
from designer_fixtures import large_design_window
from PySide6.QtCore import Qt

from rackdesigner.generators import generate
from rackdesigner.ui.canvas.view import FAR_ZOOM


@pytest.fixture(scope="module")
def superpod(catalog):
    return generate("superpod", catalog=catalog, system="dgx-h100", sus=2)


def test_blocks_take_their_hottest_links_colour_when_fully_zoomed_out(qtbot, tmp_path,
                                                                       superpod):
    from rackdesigner.analysis.heat import heat_map
    from rackdesigner.ui.canvas.group_item import BLOCK_FILL
    from rackdesigner.ui.canvas.heat import heat_color

    window = large_design_window(qtbot, tmp_path, superpod)
    window.view.set_zoom(FAR_ZOOM * 0.5)  # the zoom a large design opens at, or further
    window.flush()
    scene, layout = window.scene, window.document.layout
    blocks = [item for item in scene.item_for_group.values() if item.block and item.isVisible()]
    assert len(blocks) >= 3  # two SUs and the spine tier
    assert all(b.heat() is None for b in blocks)  # no heat map: plain blocks
    heat = heat_map(layout, "all_to_all", 1 << 30)
    scene.set_heat(heat)
    window.flush()
    for block in blocks:
        inside = set(layout.group_devices(block.group_id))
        expected = max(load.utilisation for key, load in heat.loads.items()
                       if {layout.link(key).a.device, layout.link(key).b.device} & inside)
        assert block.heat() == pytest.approx(expected)
    # and it is what is painted: the middle of the hottest block is in its heat colour
    block = max(blocks, key=lambda b: b.heat())
    view = window.view
    image = view.viewport().grab().toImage()
    point = view.mapFromScene(block.frame_rect().center())
    middle = image.pixelColor(point.x(), point.y())
    assert middle != BLOCK_FILL
    hot = heat_color(block.heat())
    assert abs(middle.hue() - hot.hue()) < 40, (middle.name(), hot.name())
    scene.set_heat(None)
    assert all(b.heat() is None for b in blocks)


def test_a_block_too_small_for_its_name_is_named_beside_it(qtbot, tmp_path, superpod):
    from rackdesigner.ui.canvas.overlay import group_labels

    window = large_design_window(qtbot, tmp_path, superpod)
    window.view.set_zoom(FAR_ZOOM * 0.3)
    window.flush()
    scene, view = window.scene, window.view
    small = [item for item in scene.item_for_group.values() if item.block and item.isVisible()
             and view.mapFromScene(item.frame_rect()).boundingRect().width() < 60]
    assert small, "expected a spine tier block smaller than its name at this zoom"
    labels = group_labels(view)
    for item in small:
        box = view.mapFromScene(item.frame_rect()).boundingRect()
        beside = [rect for rect, text, _kind in labels
                  if abs(rect.center().y() - box.center().y()) <= rect.height()
                  and (rect.left() >= box.right() or rect.right() <= box.left())]
        assert beside, item.label


@pytest.mark.slow
def test_the_heat_legend_covers_no_block_of_a_fitted_design(qtbot, tmp_path, superpod):
    """At 32k GPUs the legend (bottom left of the view) hid the last row of SU names: a design
    kept fitted makes room under it when the heat map is turned on, and gives it back."""
    from PySide6.QtCore import QRect

    from rackdesigner.analysis.heat import heat_map
    from rackdesigner.ui.canvas.heat import legend_height
    from rackdesigner.ui.canvas.overlay import group_labels
    from rackdesigner.ui.canvas.view import LEGEND_MARGIN_PX

    window = large_design_window(qtbot, tmp_path, superpod)
    window.resize(1600, 560)  # a wide window: the design fills the view's height
    window.view.request_fit()  # what opening a file does: fitted until the user zooms
    window.flush()
    scene, view, layout = window.scene, window.view, window.document.layout
    fitted = view.zoom()
    # Ctrl+Shift+H turns it on: its Ctrl and Shift alone reach the view first
    from PySide6.QtTest import QTest
    for key in (Qt.Key.Key_Control, Qt.Key.Key_Shift):
        QTest.keyPress(view, key)
        QTest.keyRelease(view, key)
    scene.set_heat(heat_map(layout, "all_to_all", 1 << 30))
    window.flush()
    height = legend_height(scene.heat_title)
    legend = QRect(int(LEGEND_MARGIN_PX),
                   int(view.viewport().height() - height - LEGEND_MARGIN_PX), 420, int(height))
    design = view.mapFromScene(view.design_rect()).boundingRect()
    assert not legend.intersects(design), (legend, design)
    assert not any(legend.intersects(rect) for rect, _t, _k in group_labels(view))
    scene.set_heat(None)
    window.flush()
    assert view.zoom() == pytest.approx(fitted, rel=0.02)  # the room given back


@pytest.mark.slow
def test_an_su_name_hides_none_of_its_nvl72_racks(qtbot, tmp_path, catalog):
    """Fitted, the 4-rack GB200 NVL72 SuperPOD draws its racks as small boxes along the top
    of the SU's frame: the SU's name, written in the frame's corner, hid two of the four."""
    from rackdesigner.ui.canvas.names import screen_rect
    from rackdesigner.ui.canvas.overlay import group_labels

    layout = generate("superpod", catalog=catalog, system="gb200-nvl72", racks=4)
    window = large_design_window(qtbot, tmp_path, layout)
    window.resize(1180, 750)  # the first window on a 1600 x 1000 screen
    window.view.fit()
    window.flush()
    view, scene = window.view, window.scene
    racks = [g.id for g in layout.groups() if g.template == "gb200-nvl72"]
    boxes = {gid: screen_rect(view, scene.item_for_group[gid].frame_rect()) for gid in racks}
    assert len(boxes) == 4 and all(scene.item_for_group[g].isVisible() for g in racks)
    labels = group_labels(view)
    su = next(g for g in layout.groups() if g.kind == "su")
    assert any(text.splitlines()[0] in (su.label, "SU 1") for _r, text, _k in labels)
    from rackdesigner.ui.canvas.name_forms import short_forms

    for rect, text, _kind in labels:
        for gid, box in boxes.items():
            own = layout.group(gid).label
            if text.splitlines()[0] in (own, *short_forms(own)):
                continue  # a rack's own name on its tile (issue 38 item 8)
            over = rect.intersected(box)
            assert over.width() <= 4 or over.height() <= 4, (text, gid)
