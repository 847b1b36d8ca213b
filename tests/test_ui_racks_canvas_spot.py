"""A unit added in the Racks view gets a place of its own on the canvas (issue 38 item 9c): it
sat at (0, 0), over the first SU; now it goes under its rack's other devices, in free space."""

from __future__ import annotations

import pytest
from designer_fixtures import make_catalog, make_window, send_drop
from PySide6.QtCore import QPointF

from rackdesigner.model import Device, Layout, instantiate
from rackdesigner.ui.palette import model_mime

pytest.importorskip("pytestqt")


def _layout() -> Layout:
    """Rack A holds a Test node at U1 (drawn at the origin); rack B, far right, a switch."""
    catalog = make_catalog()
    layout = Layout(catalog)
    layout.add_device(Device("rack-1", "track", "Rack A", (0.0, 0.0)))
    layout.add_device(Device("rack-2", "track", "Rack B", (3000.0, 0.0)))
    parts = instantiate(catalog, "tnode", "node-1", rack="rack-1", u=1)
    layout.add_all(parts.groups, parts.devices, parts.links)
    layout.add_device(Device("switch-9", "tib", "Leaf in B", (3000.0, 300.0), rack="rack-2",
                             u=40))
    return layout


def _drop_into(qtbot, tmp_path, rack: str, u: int):
    window = make_window(qtbot, tmp_path, _layout())
    window.views.setCurrentWidget(window.racks_panel)
    panel = window.racks_panel
    panel.flush()
    panel.view.resetTransform()
    panel.view.centerOn(panel.scene.item_for_rack[rack])
    before = {d.id for d in window.document.layout.devices()}
    point = panel.scene.slot_rect(rack, u, 1).center()
    send_drop(panel.view.viewport(), model_mime("tib"),
              QPointF(panel.view.mapFromScene(point)))
    layout = window.document.layout
    added = [d for d in layout.devices() if d.id not in before]
    assert len(added) == 1, "the drop did not add the switch"
    window.views.setCurrentWidget(window.view)
    window.flush()
    return window, added[0]


def _drawn(window):
    from rackdesigner.ui.canvas.items import DeviceItem, GroupItem

    return [i for i in window.scene.items()
            if isinstance(i, DeviceItem | GroupItem) and i.isVisible()]


@pytest.mark.parametrize(("rack", "u"), [("rack-1", 20), ("rack-2", 10)])
def test_a_unit_added_in_the_racks_view_lands_in_free_space_beside_its_rack(qtbot, tmp_path,
                                                                          rack, u):
    window, added = _drop_into(qtbot, tmp_path, rack, u)
    assert (added.rack, added.u) == (rack, u)
    layout = window.document.layout
    new = window.scene.item_for_device[added.id]
    box = new.sceneBoundingRect()
    hit = [getattr(i, "device_id", getattr(i, "group_id", "?")) for i in _drawn(window)
           if i is not new and i.sceneBoundingRect().intersects(box)]
    assert not hit, f"{added.id} at {added.pos} covers {hit}"
    # beside the rack's other devices, not across the canvas
    mates = [d for d in layout.devices() if d.rack == rack and d.id != added.id]
    nearest = min(abs(added.pos[0] - d.pos[0]) + abs(added.pos[1] - d.pos[1]) for d in mates)
    farthest_rack = max(abs(added.pos[0] - d.pos[0]) for d in layout.devices()
                        if d.rack not in (None, rack) and d.id != added.id)
    assert nearest < farthest_rack
    assert nearest < 1000


def test_one_undo_step_takes_it_away(qtbot, tmp_path):
    window, added = _drop_into(qtbot, tmp_path, "rack-1", 20)
    window.actions_.undo_action.trigger()
    assert not window.document.layout.has_device(added.id)
