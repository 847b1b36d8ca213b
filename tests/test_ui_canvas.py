"""The canvas driven with real mouse and key events: drop, wire, move, delete, undo."""

from __future__ import annotations

import pytest
from designer_fixtures import drag, make_window, send_drop, small_layout, viewport_point
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from rackdesigner.commands import MoveDevices as MoveDevicesCommand
from rackdesigner.ui.canvas.items import BundleItem, DeviceItem
from rackdesigner.ui.palette import model_mime
from rackdesigner.ui.style import HEADER_HEIGHT, PORT_ROW_HEIGHT


def _send_drop(view, mime: QMimeData, scene_point: tuple[float, float]) -> None:
    send_drop(view.viewport(), mime, QPointF(viewport_point(view, *scene_point)))


@pytest.mark.slow
def test_drop_from_palette_places_a_device_on_the_grid(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    assert "tgpu" in window.palette.entries()
    before = window.document.layout.device_count()
    # the palette's own drag payload, dropped with real drag-and-drop events
    _send_drop(window.view, window.palette.tree.mimeData(
        [window.palette.tree.findItems("Test GPU", Qt.MatchFlag.MatchRecursive)[0]]), (403, 307))
    layout = window.document.layout
    assert layout.device_count() == before + 1
    device = layout.device("gpu-3")
    assert device.pos[0] % 10 == 0 and device.pos[1] % 10 == 0
    assert abs(device.pos[0] + 75 - 403) <= 10
    assert "gpu-3" in window.scene.item_for_device
    assert window.actions_.undo_action.text() == "&Undo Add Test GPU"
    window.actions_.undo_action.trigger()
    assert not layout.has_device("gpu-3") and "gpu-3" not in window.scene.item_for_device


@pytest.mark.slow
def test_drop_a_system_creates_a_wired_group(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    _send_drop(window.view, model_mime("tnode"), (200, 700))
    layout = window.document.layout
    (group,) = list(layout.groups())
    assert group.template == "tnode"
    assert len(layout.group_devices(group.id)) == 9
    assert group.collapsed  # a system arrives as one block (issue 26)
    assert window.document.undo_stack.count() == 1  # the drop is one undo step
    window.editor.toggle_group(group.id)
    window.scene.flush()
    assert window.scene.item_for_group[group.id].isVisible()
    # parallel links between a GPU and an NVSwitch draw as one bundle with their count
    bundle = window.scene.bundles[frozenset((f"{group.id}.gpu0", f"{group.id}.nvsw0"))]
    assert bundle.count == 2


def _port_row(window, device_id: str, row: int) -> tuple[float, float]:
    x, y = window.document.layout.device(device_id).pos
    return (x + 60, y + HEADER_HEIGHT + PORT_ROW_HEIGHT * row + 6)


def _center(window, device_id: str) -> tuple[float, float]:
    c = window.scene.item_for_device[device_id].center()
    return (c.x(), c.y())


@pytest.mark.slow
def test_wire_compatible_devices_by_dragging_from_a_port(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    layout = window.document.layout
    links_before = layout.link_count()
    drag(window.view, _port_row(window, "gpu-2", 0), _center(window, "nvsw-1"))
    assert layout.link_count() == links_before + 1
    link = layout.links_of("gpu-2")[0]
    assert {str(link.a), str(link.b)} == {"gpu-2:nvlink", "nvsw-1:nvlink"}
    assert window.scene.item_for_device["gpu-2"].usage == {"nvlink": 1}
    assert "Wired" in window.statusBar().currentMessage()
    assert not window.scene.is_wiring
    assert all(i.wire_state is None for i in window.scene.item_for_device.values())


@pytest.mark.slow
def test_wire_incompatible_devices_is_refused_with_the_reason(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    layout = window.document.layout
    before = layout.copy()
    # Alt+drag from the body of a GPU onto the InfiniBand switch
    header = (window.document.layout.device("gpu-2").pos[0] + 20, 8)
    drag(window.view, header, _center(window, "switch-1"), Qt.KeyboardModifier.AltModifier)
    assert layout == before
    message = window.statusBar().currentMessage()
    assert "Cannot wire gpu-2 to switch-1" in message and "no common protocol" in message
    assert window.document.undo_stack.count() == 0


@pytest.mark.slow
def test_wire_feedback_while_dragging(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    scene = window.scene
    messages = []
    scene.wire_feedback.connect(messages.append)
    view = window.view
    start = viewport_point(view, *_port_row(window, "gpu-2", 0))
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     start)
    assert scene.is_wiring
    assert scene.item_for_device["nvsw-1"].wire_state == "ok"  # compatible target highlighted
    assert scene.item_for_device["switch-1"].wire_state is None
    QTest.mouseMove(view.viewport(), viewport_point(view, *_center(window, "switch-1")))
    assert scene.item_for_device["switch-1"].wire_state == "refused"
    assert any("Cannot wire" in m and "NVLink" in m for m in messages)
    QTest.keyClick(view, Qt.Key.Key_Escape)
    assert not scene.is_wiring
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton)


@pytest.mark.slow
def test_move_with_the_mouse_then_undo_redo_to_equal_documents(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    layout = window.document.layout
    original = layout.copy()
    drag(window.view, (20, 8), (153, 71))  # grab gpu-1 by its header
    moved = layout.copy()
    assert layout.device("gpu-1").pos == (130.0, 60.0)  # snapped to the grid
    assert window.document.undo_stack.count() == 1
    item = window.scene.item_for_device["gpu-1"]
    assert (item.pos().x(), item.pos().y()) == (130.0, 60.0)
    window.actions_.undo_action.trigger()
    assert layout == original
    assert (item.pos().x(), item.pos().y()) == (0.0, 0.0)
    window.actions_.redo_action.trigger()
    assert layout == moved


@pytest.mark.slow
def test_moving_many_devices_is_one_undo_step(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    layout = window.document.layout
    original = layout.copy()
    window.editor.select_ids(["gpu-1", "gpu-2", "nvsw-1"])
    drag(window.view, (20, 8), (60, 48))
    assert window.document.undo_stack.count() == 1
    assert layout.device("gpu-2").pos == (240.0, 40.0)
    window.actions_.undo_action.trigger()
    assert layout == original


@pytest.mark.slow
def test_arrow_key_nudges_merge_into_one_step(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    layout = window.document.layout
    window.editor.select_ids(["gpu-1"])
    window.view.setFocus()
    for _ in range(3):
        QTest.keyClick(window.view, Qt.Key.Key_Right)
    QTest.keyClick(window.view, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    assert layout.device("gpu-1").pos == (30.0, 1.0)
    assert window.document.undo_stack.count() == 1  # nudges of one selection merge
    assert window.actions_.undo_action.text() == "&Undo Move gpu-1"
    window.actions_.undo_action.trigger()
    assert layout.device("gpu-1").pos == (0.0, 0.0)


@pytest.mark.slow
def test_delete_cascades_links_and_undo_restores(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    layout = window.document.layout
    original = layout.copy()
    QTest.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.NoModifier,
                     viewport_point(window.view, *_center(window, "nvsw-1")))
    assert window.editor.selection()[0] == ["nvsw-1"]
    window.view.setFocus()
    QTest.keyClick(window.view, Qt.Key.Key_Delete)
    assert not layout.has_device("nvsw-1") and not layout.has_link("link-1")
    assert "nvsw-1" not in window.scene.item_for_device
    assert not any(isinstance(i, BundleItem) and "nvsw-1" in i.key for i in window.scene.items())
    assert window.scene.item_for_device["gpu-1"].usage == {}
    window.actions_.undo_action.trigger()
    assert layout == original
    assert window.scene.item_for_device["gpu-1"].usage == {"nvlink": 2}
    assert frozenset(("gpu-1", "nvsw-1")) in window.scene.bundles


@pytest.mark.slow
def test_select_all_rubber_band_and_bundle_selection(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    window.editor.select_all()
    devices, links, _ = window.editor.selection()
    assert len(devices) == 6 and sorted(links) == ["link-1", "link-2"]
    window.scene.clearSelection()
    drag(window.view, (-30, -30), (380, 120))  # rubber band over both GPUs
    assert window.editor.selection()[0] == ["gpu-1", "gpu-2"]


@pytest.mark.slow
def test_collapse_group_shows_one_box_and_rebundles(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    window.editor.drop_model("tnode", (200, 700), collapsed=False)
    layout = window.document.layout
    gid = next(layout.groups()).id
    window.editor.wire(f"{gid}.nic0", "switch-1")  # a link leaving the group
    assert window.editor.toggle_group(gid)
    scene = window.scene
    assert layout.group(gid).collapsed
    box = scene.item_for_group[gid]
    assert box.collapsed and box.isVisible()
    assert not scene.shows(f"{gid}.gpu0")
    assert frozenset((gid, "switch-1")) in scene.bundles
    assert not any(f"{gid}.gpu0" in key for key in scene.bundles)
    assert ("infiniband", 1, 2) in box.summary  # 2 NICs with one IB port each, 1 used
    window.actions_.undo_action.trigger()
    assert scene.shows(f"{gid}.gpu0")
    assert frozenset((f"{gid}.nic0", "switch-1")) in scene.bundles


@pytest.mark.slow
def test_item_types_know_ids_not_the_document(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout(), show=False)
    item = window.scene.item_for_device["gpu-1"]
    assert isinstance(item, DeviceItem) and item.spec.id == "tgpu"
    assert not hasattr(item, "layout")


def _node_window(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    window.editor.drop_model("tnode", (200, 700), collapsed=False)
    gid = next(window.document.layout.groups()).id
    window.scene.flush()
    return window, gid


@pytest.mark.slow
def test_dragging_a_group_header_moves_its_members_in_one_step(qtbot, tmp_path):
    window, gid = _node_window(qtbot, tmp_path)
    layout = window.document.layout
    original = layout.copy()
    steps = window.document.undo_stack.count()
    frame = window.scene.item_for_group[gid].frame_rect()
    start = (frame.left() + 60, frame.top() + 8)
    drag(window.view, start, (start[0] + 100, start[1] + 50))
    assert window.document.undo_stack.count() == steps + 1
    for device_id in layout.group_devices(gid):
        x0, y0 = original.device(device_id).pos
        assert layout.device(device_id).pos == (x0 + 100, y0 + 50)
    window.scene.flush()
    moved_frame = window.scene.item_for_group[gid].frame_rect()
    assert moved_frame.topLeft() == frame.topLeft() + QPointF(100, 50)
    window.actions_.undo_action.trigger()
    assert layout == original
    window.scene.flush()
    assert window.scene.item_for_group[gid].frame_rect() == frame


@pytest.mark.slow
def test_dragging_a_collapsed_group_moves_its_members(qtbot, tmp_path):
    window, gid = _node_window(qtbot, tmp_path)
    layout = window.document.layout
    window.editor.toggle_group(gid)
    original = layout.copy()
    box = window.scene.item_for_group[gid]
    start = (box.pos().x() + 100, box.pos().y() + 40)
    drag(window.view, start, (start[0] - 60, start[1] + 30))
    member = f"{gid}.gpu1"
    x0, y0 = original.device(member).pos
    assert layout.device(member).pos == (x0 - 60, y0 + 30)
    window.scene.flush()
    assert (box.pos().x(), box.pos().y()) == (start[0] - 100 - 60, start[1] - 40 + 30)


@pytest.mark.slow
def test_wires_follow_a_moved_device(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    drag(window.view, (20, 8), (120, 48))
    bundle = window.scene.bundles[frozenset(("gpu-1", "nvsw-1"))]
    ends = [bundle._line.p1(), bundle._line.p2()]
    assert window.scene.item_for_device["gpu-1"].center() in ends


@pytest.mark.slow
def test_small_edits_do_not_rebuild_the_scene(qtbot, tmp_path):
    window, _ = _node_window(qtbot, tmp_path)
    scene = window.scene
    devices = dict(scene.item_for_device)
    groups = dict(scene.item_for_group)
    bundles = dict(scene.bundles)
    window.editor.wire("gpu-2", "nvsw-1")
    window.editor.drop_model("tgpu", (900, 900))
    window.actions_.undo_action.trigger()
    window.actions_.undo_action.trigger()
    assert all(scene.item_for_device[k] is v for k, v in devices.items())
    assert all(scene.item_for_group[k] is v for k, v in groups.items())
    assert all(scene.bundles[k] is v for k, v in bundles.items())


@pytest.mark.slow
def test_zooming_far_out_switches_to_the_overview(qtbot, tmp_path):
    from rackdesigner.commands import add_model

    layout = small_layout()
    for k in range(30):
        add_model(layout, "tnode", ((k % 6) * 900.0, 1000.0 + (k // 6) * 500.0)).apply(layout)
    window = make_window(qtbot, tmp_path, layout)
    scene, view = window.scene, window.view
    view.set_zoom(1.0)
    assert not scene.overview
    detailed_bundles = len(scene.bundles)
    view.set_zoom(0.05)
    assert scene.overview
    node = next(g for g in layout.groups())
    assert scene.item_for_group[node.id].collapsed
    assert not scene.shows(f"{node.id}.gpu0")
    assert len(scene.bundles) < detailed_bundles / 5
    assert not node.collapsed  # the overview is a view setting: the document is unchanged
    QTest.keyClick(view, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)  # fit
    assert scene.overview == (view.zoom() < 0.18)
    view.set_zoom(1.0)
    assert not scene.overview and scene.shows(f"{node.id}.gpu0")


@pytest.mark.slow
def test_zoom_keys(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    view = window.view
    view.set_zoom(1.0)
    QTest.keyClick(view, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom() < 1.0
    assert window.zoom_label.text() == f"{view.zoom() * 100:.0f}%"
    QTest.keyClick(view, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert abs(view.zoom() - 1.0) < 1e-6


@pytest.mark.slow
def test_wiring_onto_a_collapsed_group_picks_a_free_compatible_member(qtbot, tmp_path):
    window, gid = _node_window(qtbot, tmp_path)
    layout = window.document.layout
    window.editor.toggle_group(gid)
    box = window.scene.item_for_group[gid]
    onto = (box.pos().x() + 100, box.pos().y() + 40)
    for expected in (f"{gid}.nic0", f"{gid}.nic1"):
        drag(window.view, _port_row(window, "switch-1", 0), onto)
        link = layout.links_of(expected)[-1]
        assert {str(link.a), str(link.b)} == {"switch-1:ib", f"{expected}:ib"}
    steps = window.document.undo_stack.count()
    drag(window.view, _port_row(window, "switch-1", 0), onto)  # both NIC ports are taken now
    assert window.document.undo_stack.count() == steps
    assert "no device inside" in window.statusBar().currentMessage()
    assert box.wire_state is None


@pytest.mark.slow
def test_long_aligned_bundles_draw_as_arcs(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout(), show=False)
    scene = window.scene
    assert not scene.bundles[frozenset(("gpu-1", "nvsw-1"))].is_arc()  # short and diagonal
    window.document.push(MoveDevicesCommand({"nvsw-1": ((100.0, 200.0), (0.0, 900.0))}))
    bundle = scene.bundles[frozenset(("gpu-1", "nvsw-1"))]
    assert bundle.is_arc()  # stacked in a column: the wire bulges to the side
    assert bundle.midpoint().x() > bundle._line.center().x() + 50


@pytest.mark.slow
def test_pan_with_the_middle_button_and_space_drag(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    view = window.view
    view.set_zoom(2.0)
    viewport = view.viewport()
    before = view.mapToScene(viewport.rect().center())
    start = viewport.rect().center()
    QTest.mousePress(viewport, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, start + QPoint(-80, -40))
    QTest.mouseRelease(viewport, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier,
                       start + QPoint(-80, -40))
    after = view.mapToScene(viewport.rect().center())
    assert after.x() > before.x() + 20 and after.y() > before.y() + 10
    assert window.document.undo_stack.count() == 0  # panning edits nothing
    QTest.keyPress(view, Qt.Key.Key_Space)
    assert view.dragMode() == view.DragMode.ScrollHandDrag
    QTest.keyRelease(view, Qt.Key.Key_Space)
    assert view.dragMode() == view.DragMode.RubberBandDrag


@pytest.mark.slow
def test_wires_follow_while_dragging(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    view, viewport = window.view, window.view.viewport()
    start = viewport_point(view, 20, 8)
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(viewport, start + QPoint(40, 30))
    QTest.mouseMove(viewport, start + QPoint(80, 60))
    item = window.scene.item_for_device["gpu-1"]
    assert item.pos() != QPointF(0, 0)
    bundle = window.scene.bundles[frozenset(("gpu-1", "nvsw-1"))]
    assert item.center() in (bundle._line.p1(), bundle._line.p2())
    assert window.document.undo_stack.count() == 0  # nothing is pushed before release
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       start + QPoint(80, 60))
    assert window.document.undo_stack.count() == 1


@pytest.mark.slow
def test_wiring_from_a_collapsed_group(qtbot, tmp_path):
    window, gid = _node_window(qtbot, tmp_path)
    layout = window.document.layout
    window.editor.toggle_group(gid)
    box = window.scene.item_for_group[gid]
    start = (box.pos().x() + 100, box.pos().y() + 40)
    # from a node onto a switch: the dialog offers all its free compute NIC ports (issue 13)
    drag(window.view, start, _center(window, "switch-1"), Qt.KeyboardModifier.AltModifier)
    dialog = window.editor.bulk_dialog
    assert dialog is not None and dialog.isVisible()
    QTest.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    ends = {frozenset((str(lk.a), str(lk.b))) for lk in layout.links_of("switch-1")}
    assert {frozenset(("switch-1:ib", f"{gid}.nic{i}:ib")) for i in (0, 1)} <= ends
    assert layout.group(gid).collapsed and window.document.undo_stack.count() == 3
    # nothing in the node speaks to the rack: refused with the reason
    drag(window.view, start, _center(window, "rack-1"), Qt.KeyboardModifier.AltModifier)
    assert window.document.undo_stack.count() == 3
    assert "Cannot wire" in window.statusBar().currentMessage()
