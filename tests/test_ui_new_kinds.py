"""Kinds added through the vocabulary registry and catalog data alone, in the designer: each
has its Palette section (with its own figures); one that takes rack units drops from the
Palette into a slot of the Racks view as a unit coloured by its kind, and a 0U vertical PDU
stands in the rack's rear side channel as a strip with its name and capacity — selectable,
dropped there from the Palette or the Unracked list, dragged to another rack."""

from __future__ import annotations

import pytest
from designer_fixtures import send_drop
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt
from PySide6.QtTest import QTest

from rackdesigner.catalog import default_catalog
from rackdesigner.model import Device, Layout
from rackdesigner.ui import style
from rackdesigner.ui.palette import FIGURES_ROLE, MODEL_ROLE, PaletteWidget, model_mime
from rackdesigner.ui.racks.items import power_text, role_color
from rackdesigner.ui.racks.view import UNIT_MIME


def _palette_items(palette: PaletteWidget) -> dict[str, tuple[str, str]]:
    out = {}
    for i in range(palette.tree.topLevelItemCount()):
        header = palette.tree.topLevelItem(i)
        for j in range(header.childCount()):
            child = header.child(j)
            out[child.data(0, MODEL_ROLE)] = (header.text(0), child.data(0, FIGURES_ROLE))
    return out


def test_new_kinds_have_their_palette_sections_and_figures(qtbot):
    palette = PaletteWidget(default_catalog())
    qtbot.addWidget(palette)
    items = _palette_items(palette)
    assert items["sn2201"][0] == "Management"
    assert items["ai400x2"][0] == "Storage" and "90 GB/s read" in items["ai400x2"][1]
    assert items["ap8886"][0] == "Power & cooling" and "22 kW" in items["ap8886"][1]
    cdu = items["supermicro-inrack-cdu"]
    assert cdu[0] == "Power & cooling" and "100 kW cooling" in cdu[1] and "4U" in cdu[1]
    qtbot.keyClicks(palette.search, "cooling")
    assert "supermicro-inrack-cdu" in palette.entries()


def _racks_window(qtbot, tmp_path):
    """The designer on a shipped-catalog design: two racks, a vertical PDU in Rack A's side
    channel, one unracked, the Racks tab shown at the rear."""
    from rackdesigner.ui import MainWindow

    layout = Layout(default_catalog())
    layout.add_device(Device("rack-1", "rack-42u", "Rack A", (0.0, 0.0)))
    layout.add_device(Device("rack-2", "rack-42u", "Rack B", (400.0, 0.0)))
    layout.add_device(Device("pdu-1", "ap8886", rack="rack-1"))
    layout.add_device(Device("pdu-2", "ap8886", pos=(0.0, 600.0)))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(catalog=layout.catalog, settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window._set_document(layout, None)
    window.show()
    qtbot.waitExposed(window)
    window.views.setCurrentWidget(window.racks_panel)
    panel = window.racks_panel
    panel.flush()
    panel.view.resetTransform()
    panel.view.centerOn(panel.scene.item_for_rack["rack-1"])
    return window, panel


def _drop(view, mime, scene_point: QPointF) -> None:
    send_drop(view.viewport(), mime, QPointF(view.mapFromScene(scene_point)))


def _strips(panel) -> dict:
    """What the elevations show of the side channels: every strip, selectable or outline."""
    return {d: (i.device, i.ghost, i.failed, i.pos().x(), i.pos().y(), i.boundingRect())
            for d, i in panel.scene._side_items.items()}


@pytest.mark.slow
def test_a_pdu_stands_in_the_racks_rear_side_channel_named_with_its_capacity(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    assert "pdu-1" not in panel.scene.item_for_unit  # zero-U: no slot of its own
    # from the front the PDU hangs at the back: an outline, not selectable
    assert "pdu-1" not in panel.scene.item_for_side
    assert panel.scene._side_items["pdu-1"].ghost
    QTest.mouseClick(panel.rear_button, Qt.MouseButton.LeftButton)
    strip = panel.scene.item_for_side["pdu-1"]
    rack = panel.scene.item_for_rack["rack-1"]
    # upright beside the rack's frame, outside the 19-inch mounting width, most of its height
    shape = strip.mapRectToScene(strip.boundingRect())
    frame = rack.mapRectToScene(rack.frame_rect())
    assert shape.left() >= frame.right() and shape.height() > 0.8 * frame.height()
    assert shape.height() > 5 * shape.width()
    assert strip.text() == "pdu-1 · 22 kW" and "22 kW" in strip.toolTip()
    # the Unracked list offers the other one
    listed = [panel.unracked.item(i).text() for i in range(panel.unracked.count())]
    assert "pdu-2 · 0U" in listed
    # a click on the strip selects the PDU, and the canvas follows
    QTest.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton,
                     pos=panel.view.mapFromScene(shape.center()))
    assert panel.selected_ids() == ["pdu-1"]
    assert window.editor.selection()[0] == ["pdu-1"]  # the canvas follows
    # selected on the canvas: selected in the side channel
    panel.scene.clearSelection()
    panel.select_ids(["pdu-1"], [])
    assert strip.isSelected()


@pytest.mark.slow
def test_a_pdu_from_the_palette_goes_in_a_racks_side_channel_in_one_undo_step(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    before = layout.device_count()
    # dropped anywhere on Rack B's elevation (a PDU has no U): its side channel
    _drop(panel.view, model_mime("ap8886"), panel.scene.slot_rect("rack-2", 20, 1).center())
    assert layout.device_count() == before + 1
    added = next(d for d in layout.devices() if d.model == "ap8886"
                 and d.id not in ("pdu-1", "pdu-2"))
    assert (added.rack, added.u) == ("rack-2", None)
    assert "side channel of Rack B" in window.actions_.undo_action.text()
    panel.flush()
    assert added.id in panel.scene._side_items
    # the rack's power header counts it (no published draw: a unit without a figure is not
    # claimed; the PDU's own draw is not in its data)
    window.actions_.undo_action.trigger()
    panel.flush()
    assert not layout.has_device(added.id) and added.id not in panel.scene._side_items


@pytest.mark.slow
def test_a_pdu_strip_dragged_to_another_rack_moves_as_a_rebuild_would_show(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    QTest.mouseClick(panel.rear_button, Qt.MouseButton.LeftButton)
    strip = panel.scene.item_for_side["pdu-1"]
    start = panel.view.mapFromScene(strip.mapRectToScene(strip.boundingRect()).center())
    end = panel.view.mapFromScene(panel.scene.slot_rect("rack-2", 20, 1).center())
    QTest.mousePress(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    QTest.mouseMove(panel.view.viewport(), end)
    QTest.mouseRelease(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=end)
    assert layout.device("pdu-1").rack == "rack-2"
    rack_b = panel.scene.item_for_rack["rack-2"]
    panel.flush()
    assert panel.scene.item_for_rack["rack-2"] is rack_b  # updated in place, not rebuilt
    shown = _strips(panel)
    panel.refresh()
    assert shown == _strips(panel)
    # the unracked one, dragged from the Unracked list onto Rack A
    mime = QMimeData()
    mime.setData(UNIT_MIME, b"pdu-2")
    _drop(panel.view, mime, panel.scene.slot_rect("rack-1", 5, 1).center())
    assert layout.device("pdu-2").rack == "rack-1"
    panel.flush()
    assert panel.scene.item_for_side["pdu-2"].device.side == "right"  # the channel's first
    window.document.undo_stack.undo()
    window.document.undo_stack.undo()
    panel.flush()
    assert layout.device("pdu-1").rack == "rack-1" and layout.device("pdu-2").rack is None
    shown = _strips(panel)
    panel.refresh()
    assert shown == _strips(panel)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["sn2201", "ai400x2", "supermicro-inrack-cdu"])
def test_the_other_new_kinds_drop_from_the_palette_into_a_slot(qtbot, tmp_path, model):
    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    _drop(panel.view, model_mime(model), panel.scene.slot_rect("rack-2", 10, 1).center())
    added = next(d for d in layout.devices() if d.model == model)
    spec = layout.spec(added.id)
    height = int(spec.u_height)
    assert added.rack == "rack-2" and added.u == 10 - height // 2
    panel.flush()
    unit = panel.scene.item_for_unit[added.id]
    assert unit.unit.role == spec.kind and unit.unit.height_u == height
    assert role_color(spec.kind) == style.KIND_COLORS[spec.kind] != style.UNKNOWN_COLOR
    header = panel.scene.item_for_rack["rack-2"].summary
    assert header.used_u["front"] == height
    if spec.power.typical_or_max_w:  # a published or labelled-estimate draw counts in the rack
        assert header.power_missing == 0 and header.max_w >= spec.power.typical_or_max_w
    else:  # no figure: counted as a unit without a figure, never as 0 W
        assert header.power_missing == 1
        assert "without a figure" in power_text(header)
