"""The Racks tab driven with real drag-and-drop and mouse events: drop into a slot, refused
overlap, undo, move between racks, selection sync with the canvas, Place unracked."""

from __future__ import annotations

import pytest
from designer_fixtures import drag, make_catalog, make_window, send_drop
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox

from rackdesigner.commands.racks import mount
from rackdesigner.model import Device, Layout, instantiate
from rackdesigner.model.racks import RackIndex
from rackdesigner.ui.palette import model_mime


def _rack_layout() -> Layout:
    """Two 42U racks; a Test node (8U) in rack-1 at U1; a Test IB switch (1U) unracked."""
    catalog = make_catalog()
    layout = Layout(catalog)
    layout.add_device(Device("rack-1", "track", "Rack A", (0.0, 0.0)))
    layout.add_device(Device("rack-2", "track", "Rack B", (400.0, 0.0)))
    parts = instantiate(catalog, "tnode", "node-1", rack="rack-1", u=1)
    layout.add_all(parts.groups, parts.devices, parts.links)
    layout.add_device(Device("switch-1", "tib", "Leaf 1", (0.0, 600.0)))
    return layout


def _racks_window(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, _rack_layout())
    window.views.setCurrentWidget(window.racks_panel)
    panel = window.racks_panel
    panel.flush()
    panel.view.resetTransform()
    panel.view.centerOn(panel.scene.item_for_rack["rack-1"])
    return window, panel


def _slot_point(panel, rack: str, u: int) -> QPointF:
    return panel.scene.slot_rect(rack, u, 1).center()


def _send_drop(view, mime, scene_point: QPointF) -> None:
    send_drop(view.viewport(), mime, QPointF(view.mapFromScene(scene_point)))


@pytest.mark.slow
def test_drop_from_palette_into_a_slot_then_undo(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    before = layout.device_count()
    _send_drop(panel.view, model_mime("tib"), _slot_point(panel, "rack-1", 20))
    assert layout.device_count() == before + 1
    added = next(d for d in layout.devices() if d.model == "tib" and d.id != "switch-1")
    assert (added.rack, added.u) == ("rack-1", 20)  # snapped to the U under the pointer
    panel.flush()
    assert added.id in panel.scene.item_for_unit  # drawn in the elevation
    assert "Rack A U20" in window.actions_.undo_action.text()
    window.actions_.undo_action.trigger()
    panel.flush()
    assert not layout.has_device(added.id) and added.id not in panel.scene.item_for_unit


@pytest.mark.slow
def test_a_drop_on_an_occupied_slot_is_refused_with_the_reason(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    before, steps = layout.device_count(), window.document.undo_stack.count()
    _send_drop(panel.view, model_mime("tib"), _slot_point(panel, "rack-1", 5))  # the node: U1-8
    assert layout.device_count() == before and window.document.undo_stack.count() == steps
    assert "overlaps" in panel.view.last_refusal and "U1–U8" in panel.view.last_refusal
    assert "Cannot place here" in window.statusBar().currentMessage()
    # a GPU has no rack height: refused with why, not dropped somewhere odd
    _send_drop(panel.view, model_mime("tgpu"), _slot_point(panel, "rack-1", 30))
    assert "no rack height" in panel.view.last_refusal
    assert layout.device_count() == before


@pytest.mark.slow
def test_drag_a_unit_to_another_rack_is_one_undo_step(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    panel.view.centerOn(QPointF((panel.scene.item_for_rack["rack-1"].x()
                                 + panel.scene.item_for_rack["rack-2"].x()) / 2, 300))
    steps = window.document.undo_stack.count()
    start = _slot_point(panel, "rack-1", 4)  # grab the node by its middle
    end = _slot_point(panel, "rack-2", 13)
    drag(panel.view, (start.x(), start.y()), (end.x(), end.y()))
    unit = RackIndex(layout).units["node-1"]
    assert (unit.rack, unit.u) == ("rack-2", 10)  # kept the grab offset: U4 -> U13 is +9
    assert {layout.device(m).rack for m in unit.members} == {"rack-2"}
    assert window.document.undo_stack.count() == steps + 1
    window.actions_.undo_action.trigger()
    unit = RackIndex(layout).units["node-1"]
    assert (unit.rack, unit.u) == ("rack-1", 1)


@pytest.mark.slow
def test_a_drag_onto_the_top_of_the_rack_is_refused(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    steps = window.document.undo_stack.count()
    start = _slot_point(panel, "rack-1", 1)
    end = _slot_point(panel, "rack-1", 40)  # U40-47 does not fit a 42U rack
    drag(panel.view, (start.x(), start.y()), (end.x(), end.y()))
    assert window.document.undo_stack.count() == steps
    assert RackIndex(layout).units["node-1"].u == 1
    assert "free" in panel.view.last_refusal or "beyond" in panel.view.last_refusal


@pytest.mark.slow
def test_selection_follows_between_racks_and_canvas(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    point = panel.view.mapFromScene(_slot_point(panel, "rack-1", 3))
    QTest.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    window.flush()
    _devices, _links, groups = window.editor.selection()
    assert "node-1" in groups  # the system's group is selected on the canvas
    assert window.scene.item_for_group["node-1"].isSelected()
    # and the other way: select the leaf switch from the canvas side
    window.editor.select_ids(["switch-1"])
    window.flush()
    assert panel.selected_ids() == []  # switch-1 is unracked: nothing in the elevations
    window.document.push(mount(window.document.layout, {"switch-1": ("rack-2", 1, "front")}))
    window.flush()
    window.editor.select_ids(["switch-1"])
    window.flush()
    assert panel.selected_ids() == ["switch-1"]


@pytest.mark.slow
def test_place_unracked_from_the_dialog(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    assert panel.unracked.count() == 1  # the leaf switch
    seen: list[str] = []

    def answer() -> None:
        widget = QApplication.activeModalWidget()
        if isinstance(widget, QMessageBox):
            seen.append(widget.text())
            widget.accept()
            return
        if isinstance(widget, QDialog):
            # keep only Rack B checked
            for i in range(widget.list.count()):
                item = widget.list.item(i)
                item.setCheckState(Qt.CheckState.Checked if item.data(Qt.ItemDataRole.UserRole)
                                   == "rack-2" else Qt.CheckState.Unchecked)
            widget.buttons.button(widget.buttons.StandardButton.Ok).click()
        QTimer.singleShot(10, answer)

    QTimer.singleShot(10, answer)
    report = panel.place_unracked_dialog()
    assert report is not None and report.startswith("1 unit placed:")
    # where it went, not only how many (issue 26)
    assert "→ Rack B, U1" in report.splitlines()[1]
    assert seen and seen[0] == report
    device = layout.device("switch-1")
    assert (device.rack, device.u) == ("rack-2", 1)
    panel.flush()
    assert panel.unracked.count() == 0
    window.actions_.undo_action.trigger()
    panel.flush()
    assert layout.device("switch-1").rack is None and panel.unracked.count() == 1


@pytest.mark.slow
def test_rear_face_shows_what_is_mounted_at_the_back(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    window.document.push(mount(layout, {"switch-1": ("rack-2", 40, "front")}))
    panel.flush()
    assert panel.set_face_of(["switch-1"], "rear")
    assert ("face", "rear") in layout.device("switch-1").props
    panel.flush()
    assert "switch-1" not in panel.scene.item_for_unit  # the front shows it as an outline only
    QTest.mouseClick(panel.rear_button, Qt.MouseButton.LeftButton)  # the tool bar's button
    assert "switch-1" in panel.scene.item_for_unit and "node-1" not in panel.scene.item_for_unit
    # at the rear, U40 of rack-2 is taken; a drop there is refused
    _send_drop(panel.view, model_mime("tib"), _slot_point(panel, "rack-2", 40))
    assert "overlaps" in panel.view.last_refusal


@pytest.mark.slow
def test_dragging_a_rack_on_the_floor_moves_it_and_its_cables_follow(qtbot, tmp_path, catalog):
    from rackdesigner.generators.cabling import floor_spots
    from rackdesigner.model import Link, PortRef

    layout = Layout(catalog)  # the shipped catalog: real cables to choose from
    layout.add_device(Device("rack-1", "rack-42u", "Rack A", (0.0, 0.0)))
    layout.add_device(Device("rack-2", "rack-42u", "Rack B", (400.0, 0.0)))
    layout.add_device(Device("switch-1", "qm9700", "Leaf 1", rack="rack-1", u=20))
    layout.add_device(Device("switch-2", "qm9700", "Leaf 2", rack="rack-2", u=1))
    layout.add_link(Link("link-ib", PortRef("switch-1", "ib"), PortRef("switch-2", "ib"),
                         cable="fiber-mm-ndr", length_m=3.0))
    window = make_window(qtbot, tmp_path, layout)
    window.views.setCurrentWidget(window.racks_panel)
    panel = window.racks_panel
    panel.tabs.setCurrentWidget(panel.floor_view)
    panel.flush()
    view = panel.floor_view
    view.resetTransform()
    view.scale(0.5, 0.5)
    start = view.rack_point("rack-2")
    view.centerOn(start)
    before = floor_spots(layout)["rack-2"]
    end = QPointF(start.x() + 600, start.y() + 300)  # 6 m along the row, 3 m across (x 0.5)
    drag(view, (start.x(), start.y()), (end.x(), end.y()))
    after = floor_spots(window.document.layout)["rack-2"]
    assert after.x_m - before.x_m == pytest.approx(6.0, abs=0.2)
    assert after.y_m - before.y_m == pytest.approx(3.0, abs=0.2)
    link = window.document.layout.link("link-ib")
    assert link.cable is not None and link.length_m is not None and link.length_m >= 10
    window.actions_.undo_action.trigger()
    assert floor_spots(window.document.layout)["rack-2"] == before


@pytest.mark.slow
def test_a_rule_broken_in_a_rack_is_marked_in_the_view_and_listed_in_problems(qtbot, tmp_path):
    layout = _rack_layout()
    layout.update_device("switch-1", rack="rack-1", u=3)  # inside the node's U1-U8 (a file)
    window = make_window(qtbot, tmp_path, layout)
    window.views.setCurrentWidget(window.racks_panel)
    panel = window.racks_panel
    panel.flush()
    assert panel.scene.item_for_unit["switch-1"].problem
    assert panel.scene.item_for_unit["node-1"].problem
    assert panel.scene.item_for_rack["rack-1"].problems
    assert not panel.scene.item_for_rack["rack-2"].problems
    qtbot.waitUntil(lambda: any(f.code == "rack-overlap" for f in window.problems.findings))


@pytest.mark.slow
def test_render_racks_to_pdf_svg_and_png_headless(tmp_path, capsys):
    from rackdesigner.cli import main
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout

    path = tmp_path / "sp.yaml"
    save_layout(generate("superpod", system="dgx-h100", sus=1), path)  # 10 racks
    pdf = tmp_path / "racks.pdf"
    assert main(["render", str(path), "--view", "racks", "-o", str(pdf), "--per-page", "4"]) == 0
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF")
    assert data.count(b"/Type /Page") - data.count(b"/Type /Pages") == 3  # 4 racks a page
    svg = tmp_path / "racks.svg"
    assert main(["render", str(path), "--view", "racks", "--face", "rear", "-o", str(svg)]) == 0
    text = svg.read_text(encoding="utf-8")
    assert "SU1 compute rack 1" in text and "rear" in text  # names and the face in the title
    png = tmp_path / "racks.png"
    assert main(["render", str(path), "--view", "racks", "-o", str(png)]) == 0
    assert png.stat().st_size > 10_000
    capsys.readouterr()
    assert main(["render", str(path), "--view", "racks", "-o", str(tmp_path / "r.gif")]) == 2
    assert ".pdf" in capsys.readouterr().err
    bare = tmp_path / "bare.yaml"
    save_layout(Layout(make_catalog()), bare)
    assert main(["render", str(bare), "--view", "racks", "-o", str(pdf)]) == 2
    assert "no racks" in capsys.readouterr().err
    assert pdf.read_bytes() == data  # a refused render leaves the old file alone


@pytest.mark.slow
def test_moving_several_units_keeps_their_spacing(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    window.document.push(mount(layout, {"switch-1": ("rack-1", 12, "front")}))  # 3U above
    panel.flush()
    view = panel.view
    node = view.mapFromScene(_slot_point(panel, "rack-1", 2))
    switch = view.mapFromScene(_slot_point(panel, "rack-1", 12))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=node)
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.ControlModifier, switch)
    assert panel.selected_ids() == ["node-1", "switch-1"]
    steps = window.document.undo_stack.count()
    start, end = _slot_point(panel, "rack-1", 2), _slot_point(panel, "rack-1", 22)
    drag(view, (start.x(), start.y()), (end.x(), end.y()))
    index = RackIndex(layout)
    assert index.units["node-1"].u == 21 and index.units["switch-1"].u == 32  # both +20
    assert window.document.undo_stack.count() == steps + 1
    assert "2 units" in window.actions_.undo_action.text()


@pytest.mark.slow
def test_a_rack_dropped_on_the_elevations_joins_the_last_row(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    _send_drop(panel.view, model_mime("track"), _slot_point(panel, "rack-1", 10))
    panel.flush()
    assert panel.scene.rack_order[:2] == ["rack-1", "rack-2"] and len(panel.scene.rack_order) == 3
    new = panel.scene.rack_order[2]
    assert layout.spec(new).id == "track"
    assert panel.scene.item_for_rack[new].x() > panel.scene.item_for_rack["rack-2"].x()
    # and units can go into it: drag the unracked switch from the Unracked list into U1
    item = panel.unracked.item(0)
    _send_drop(panel.view, panel.unracked.mimeData([item]), _slot_point(panel, new, 1))
    assert (layout.device("switch-1").rack, layout.device("switch-1").u) == (new, 1)
    window.actions_.undo_action.trigger()
    window.actions_.undo_action.trigger()
    panel.flush()
    assert len(panel.scene.rack_order) == 2


@pytest.mark.slow
def test_arrow_keys_move_the_selected_unit_one_u_and_stop_at_the_bottom(qtbot, tmp_path):
    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    view = panel.view
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     pos=view.mapFromScene(_slot_point(panel, "rack-1", 3)))
    view.setFocus()
    QTest.keyClick(view, Qt.Key.Key_Up)
    assert RackIndex(layout).units["node-1"].u == 2
    panel.flush()
    QTest.keyClick(view, Qt.Key.Key_Down)
    QTest.keyClick(view, Qt.Key.Key_Down)  # below U1: refused
    assert RackIndex(layout).units["node-1"].u == 1
    assert "below U1" in view.last_refusal


@pytest.mark.slow
def test_the_inspectors_u_of_a_system_part_moves_the_whole_system(qtbot, tmp_path):
    window, _panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    inspector = window.inspector
    window.editor.select_ids(["node-1.gpu0"])  # a GPU of the node (its group is expanded)
    window.flush()
    assert inspector.device_id.text() == "node-1.gpu0"
    steps = window.document.undo_stack.count()
    for u in (2, 3, 4):  # spin-box scrubbing: one undo step
        inspector.device_u.setValue(u)
    assert {layout.device(m).u for m in RackIndex(layout).units["node-1"].members} == {4}
    assert window.document.undo_stack.count() == steps + 1
    inspector.device_rack.activated.emit(inspector.device_rack.findData("rack-2"))
    assert {layout.device(m).rack for m in RackIndex(layout).units["node-1"].members} == {
        "rack-2"}
    window.actions_.undo_action.trigger()
    window.actions_.undo_action.trigger()
    assert {layout.device(m).u for m in RackIndex(layout).units["node-1"].members} == {1}


@pytest.mark.slow
def test_a_rack_dropped_on_the_floor_plan_stands_where_it_was_dropped(qtbot, tmp_path):
    from rackdesigner.generators.cabling import floor_spots

    window, panel = _racks_window(qtbot, tmp_path)
    panel.tabs.setCurrentWidget(panel.floor_view)
    view = panel.floor_view
    view.resetTransform()
    view.centerOn(QPointF(300, 300))
    _send_drop(view, model_mime("track"), QPointF(240, 600))  # 2.4 m along, 6 m across
    layout = window.document.layout
    spots = floor_spots(layout)
    (new,) = [r for r in spots if r not in ("rack-1", "rack-2")]
    assert (spots[new].x_m, spots[new].y_m) == pytest.approx((2.4, 6.0), abs=0.11)
    assert new in panel.floor_scene.item_for_rack


@pytest.mark.slow
def test_a_failed_unit_is_greyed_in_the_elevation_and_restore_brings_it_back(qtbot, tmp_path):
    from PySide6.QtGui import QImage, QPainter

    from rackdesigner.commands.failures import set_status

    def picture() -> QImage:
        rect = panel.scene.item_for_unit["node-1"].sceneBoundingRect()
        image = QImage(int(rect.width()) * 2, int(rect.height()) * 2, QImage.Format.Format_RGB32)
        painter = QPainter(image)
        panel.scene.render(painter, source=rect)
        painter.end()
        return image

    window, panel = _racks_window(qtbot, tmp_path)
    layout = window.document.layout
    assert not panel.scene.item_for_unit["node-1"].failed
    intact = picture()
    window.document.push(set_status(layout, ["node-1"], "failed"))  # the node's group
    panel.flush()
    item = panel.scene.item_for_unit["node-1"]
    assert item.failed and "FAILED" in item.toolTip()
    assert picture() != intact  # greyed and hatched where it is mounted
    window.actions_.restore_all_action.trigger()
    panel.flush()
    assert not panel.scene.item_for_unit["node-1"].failed
    assert picture() == intact


@pytest.mark.slow
def test_the_elevations_redraw_only_for_edits_they_show(qtbot, tmp_path):
    """A move on the canvas leaves the elevations as they are; Fail re-marks the unit in place;
    a unit mounted elsewhere moves its own item only (and its racks' headers)."""
    from rackdesigner.commands import MoveDevices
    from rackdesigner.commands.failures import set_status

    window, panel = _racks_window(qtbot, tmp_path)
    doc, layout = window.document, window.document.layout
    unit = panel.scene.item_for_unit["node-1"]
    switch = layout.device("switch-1")
    doc.push(MoveDevices({"switch-1": (switch.pos, (switch.pos[0] + 80.0, switch.pos[1]))}))
    assert not panel._timer.isActive()  # nothing to redraw
    panel.flush()
    assert panel.scene.item_for_unit["node-1"] is unit
    doc.push(set_status(layout, ["node-1"], "failed"))
    panel.flush()
    assert panel.scene.item_for_unit["node-1"] is unit and unit.failed
    doc.undo_stack.undo()
    panel.flush()
    assert panel.scene.item_for_unit["node-1"] is unit and not unit.failed
    doc.push(mount(layout, {"switch-1": ("rack-2", 1, "front")}, panel.scene.index))
    panel.flush()
    assert panel.scene.item_for_unit["node-1"] is unit  # another unit moved: not rebuilt
    assert panel.scene.item_for_unit["switch-1"].unit.rack == "rack-2"
    _assert_units_as_rebuilt(panel)


@pytest.mark.slow
def test_a_cable_changes_only_the_power_of_the_racks_at_its_ends(qtbot, tmp_path, catalog):
    """Optics draw in the racks of both ends: the headers and budget marks follow a cable
    added, changed or removed as a full rebuild would show them, without one."""
    from PySide6.QtCore import QSettings

    from rackdesigner.commands import AddItems, RemoveItems
    from rackdesigner.commands.edits import change_link
    from rackdesigner.model import Link, PortRef
    from rackdesigner.ui import MainWindow

    layout = Layout(catalog)
    for i in (1, 2):
        layout.add_device(Device(f"rack-{i}", "rack-42u", props=(("power_budget_w", 1700.0),)))
        layout.add_device(Device(f"leaf-{i}", "qm9700", rack=f"rack-{i}", u=1))
    window = MainWindow(catalog=catalog, settings=QSettings(str(tmp_path / "s.ini"),
                                                            QSettings.Format.IniFormat))
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window._set_document(layout, None)
    window.show()
    window.views.setCurrentWidget(window.racks_panel)
    panel, doc = window.racks_panel, window.document
    panel.flush()
    unit = panel.scene.item_for_unit["leaf-1"]
    before = panel.scene.item_for_rack["rack-1"].summary.typical_w
    cable = Link("cable-1", PortRef("leaf-1", "ib"), PortRef("leaf-2", "ib"), 32, "fiber-mm-ndr")
    doc.push(AddItems(links=[cable]))
    panel.flush()
    assert panel.scene.item_for_unit["leaf-1"] is unit  # not rebuilt
    assert panel.scene.item_for_rack["rack-1"].summary.typical_w > before  # the optics
    _assert_as_rebuilt(panel)
    unit = panel.scene.item_for_unit["leaf-1"]
    doc.push(change_link("cable-1", count=1))
    panel.flush()
    assert panel.scene.item_for_unit["leaf-1"] is unit
    _assert_as_rebuilt(panel)
    unit = panel.scene.item_for_unit["leaf-1"]
    doc.push(RemoveItems(links=["cable-1"]))
    panel.flush()
    assert panel.scene.item_for_unit["leaf-1"] is unit
    assert panel.scene.item_for_rack["rack-1"].summary.typical_w == pytest.approx(before)
    _assert_as_rebuilt(panel)


def _assert_as_rebuilt(panel) -> None:
    """The racks' headers (power, budget marks) are what a full rebuild would show."""
    shown = {r: (i.summary.typical_w, i.summary.max_w, i.problems)
             for r, i in panel.scene.item_for_rack.items()}
    panel.refresh()
    rebuilt = {r: (i.summary.typical_w, i.summary.max_w, i.problems)
               for r, i in panel.scene.item_for_rack.items()}
    assert shown.keys() == rebuilt.keys()
    for rack, (typical, peak, problems) in rebuilt.items():
        assert shown[rack] == (pytest.approx(typical), pytest.approx(peak), problems)


def _elevations(panel) -> dict:
    scene = panel.scene
    return {
        "racks": {r: (i.summary.units, i.summary.used_u, i.summary.typical_w, i.summary.max_w,
                      i.problems, i.heat, i.pos().x(), i.pos().y())
                  for r, i in scene.item_for_rack.items()},
        "units": {u: (i.unit, i.problem, i.ghost, i.failed, i.pos().x(), i.pos().y())
                  for u, i in scene._unit_items.items()},
        "unracked": [panel.unracked.item(i).text() for i in range(panel.unracked.count())],
    }


def _assert_units_as_rebuilt(panel) -> None:
    """Units, racks' headers, marks and the Unracked list are what a rebuild would show."""
    shown = _elevations(panel)
    panel.refresh()
    assert shown == _elevations(panel)


def test_units_moved_in_the_racks_tab_update_in_place_as_a_rebuild_would_show(qtbot, tmp_path):
    """Mount, move to the other rack, to the rear, unrack and undo: each updates the units it
    moved and their racks (no rebuild: 2.4 s at 32k GPUs), and the elevations, marks and the
    Unracked list equal a rebuild's after each."""
    window, panel = _racks_window(qtbot, tmp_path)
    doc, layout = window.document, window.document.layout
    rack_2 = panel.scene.item_for_rack["rack-2"]
    steps = [{"switch-1": ("rack-2", 3, "front")}, {"node-1": ("rack-2", 10, "front")},
             {"switch-1": ("rack-2", 3, "rear")}, {"node-1": ("rack-1", 40, "front")},
             {"switch-1": (None, None, "front")}]
    for placements in steps:
        doc.push(mount(layout, placements, panel.scene.index))
        panel.flush()
        assert panel.scene.item_for_rack["rack-2"] is rack_2  # updated, not rebuilt
        _assert_units_as_rebuilt(panel)
        rack_2 = panel.scene.item_for_rack["rack-2"]
    while doc.undo_stack.canUndo():
        doc.undo_stack.undo()
        panel.flush()
        _assert_units_as_rebuilt(panel)
