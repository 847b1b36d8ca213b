"""The device page's Rack and Group choices stay right across edits (they are listed again
only after edits that can change them)."""

from __future__ import annotations

import pytest
from designer_fixtures import make_window

from rackdesigner.commands import AddItems, MoveDevices
from rackdesigner.commands.edits import change_group
from rackdesigner.model import Device, Group, Layout


def _choices(combo) -> list[tuple[str, str | None]]:
    return [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())]


@pytest.mark.slow
def test_racks_and_groups_offered_follow_the_design(qtbot, tmp_path):
    from designer_fixtures import make_catalog

    layout = Layout(make_catalog())
    layout.add_group(Group("pod-1", "Pod one", "pod"))
    layout.add_device(Device("rack-1", "track", "Rack A"))
    layout.add_device(Device("gpu-1", "tgpu", group="pod-1"))
    window = make_window(qtbot, tmp_path, layout)
    window.editor.select_ids(["gpu-1"])
    window.flush()
    inspector = window.inspector
    assert ("Rack A", "rack-1") in _choices(inspector.device_rack)
    doc = window.document
    doc.push(MoveDevices({"gpu-1": ((0.0, 0.0), (40.0, 0.0))}))
    window.flush()
    assert inspector.device_pos.text() == "40, 0"
    doc.push(AddItems(devices=[Device("rack-2", "track", "Rack B")]))
    doc.push(change_group("pod-1", name="Pod 1 (north hall)"))
    window.editor.select_ids(["gpu-1"])
    window.flush()
    racks = _choices(inspector.device_rack)
    assert ("Rack A", "rack-1") in racks and ("Rack B", "rack-2") in racks
    assert ("Pod 1 (north hall)", "pod-1") in _choices(inspector.device_group)
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    window.flush()
    assert ("Rack B", "rack-2") not in _choices(inspector.device_rack)
    assert ("Pod one", "pod-1") in _choices(inspector.device_group)
