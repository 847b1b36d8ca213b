"""Commands are plain Python: run, undone and redone through the history (the one undo
mechanism: replaying what the transaction recorded) they give back equal documents."""

from __future__ import annotations

import pytest
from designer_fixtures import make_catalog, small_layout

from rackdesigner.commands import (
    AddItems,
    Macro,
    MoveDevices,
    Refusal,
    RemoveItems,
    add_model,
    change_device,
    change_group,
    change_link,
    extract,
    group_devices,
    paste,
    plan_wire,
    port_usage,
    snap,
    ungroup,
    wire,
)
from rackdesigner.commands.history import History
from rackdesigner.model import Device, LayoutError


@pytest.fixture
def layout():
    return small_layout()


def roundtrip(layout, command):
    """Run, undo, redo; the document after the command and the history (after the redo)."""
    history = History(layout)
    before = layout.copy()
    assert history.push(command)
    after = layout.copy()
    history.undo()
    assert layout == before
    history.redo()
    assert layout == after
    return after, history


def test_add_model_places_a_device_snapped(layout):
    command = add_model(layout, "tgpu", (123.0, 47.0))
    roundtrip(layout, command)
    (device,) = command.devices
    assert device.id == "gpu-3" and device.pos == (120.0, 50.0)
    assert layout.device("gpu-3").model == "tgpu"


def test_add_system_creates_a_wired_group(layout):
    command = add_model(layout, "tnode", (0.0, 1000.0))
    roundtrip(layout, command)
    (group,) = [g for g in command.groups if g.parent is None]
    members = layout.group_devices(group.id)
    assert len(members) == 1 + 4 + 2 + 2  # chassis, GPUs, NVSwitches, NICs
    assert len(command.links) == 4 * 2 + 2
    assert command.text == "Add Test node"


def test_remove_device_cascades_links_and_rack_and_undo_restores(layout):
    command = RemoveItems(devices=["nvsw-1", "rack-1"])
    after, history = roundtrip(layout, command)
    assert not after.has_link("link-1")
    assert after.device("switch-1").rack is None
    history.undo()
    assert layout.device("switch-1").rack == "rack-1"
    assert layout.link("link-1").count == 2


def test_remove_group_takes_members(layout):
    add = add_model(layout, "tnode", (0.0, 1000.0))
    add.apply(layout)
    group_id = add.groups[0].id
    before = layout.copy()
    history = History(layout)
    history.push(RemoveItems(groups=[group_id]))
    assert not layout.has_group(group_id)
    assert layout.device_count() == before.device_count() - 9
    history.undo()
    assert layout == before


def test_move_merges_nudges(layout):
    first = MoveDevices({"gpu-1": ((0.0, 0.0), (10.0, 0.0))}, nudge=True)
    second = MoveDevices({"gpu-1": ((10.0, 0.0), (20.0, 0.0))}, nudge=True)
    history = History(layout)
    history.push(first)
    history.push(second)
    assert first.merge_key() == second.merge_key()
    assert len(history.steps) == 1  # merged into one step
    history.undo()
    assert layout.device("gpu-1").pos == (0.0, 0.0)
    assert MoveDevices({"gpu-1": ((0, 0), (1, 1))}).merge_key() is None


def test_change_item_roundtrip_and_merge(layout):
    a = change_device("gpu-1", name="first", mergeable=True)
    b = change_device("gpu-1", name="second", mergeable=True)
    before = layout.copy()
    history = History(layout)
    history.push(a)
    history.push(b)
    assert len(history.steps) == 1  # merged into one step
    assert layout.device("gpu-1").name == "second"
    history.undo()
    assert layout == before
    with pytest.raises(LayoutError):
        change_device("gpu-1", colour="red").apply(layout)


def test_macro_is_transactional(layout):
    before = layout.copy()
    bad = Macro("bad", [change_device("gpu-1", name="x"),
                        AddItems(devices=[Device("gpu-2", "tgpu")])])  # duplicate id
    with pytest.raises(LayoutError):
        bad.apply(layout)
    assert layout == before


def test_group_and_ungroup(layout):
    command = group_devices(layout, ["gpu-1", "gpu-2"], name="pair")
    after, _ = roundtrip(layout, command)
    (group,) = list(after.groups())
    assert sorted(after.group_devices(group.id)) == ["gpu-1", "gpu-2"]
    back = ungroup(layout, group.id)
    _, history = roundtrip(layout, back)
    assert list(layout.groups()) == []
    collapse = change_group(group.id, collapsed=True)
    history.undo()
    roundtrip(layout, collapse)


def test_wire_compatible_uses_first_free_ports(layout):
    command = wire(layout, "gpu-2", "nvsw-1")
    assert isinstance(command, AddItems)
    roundtrip(layout, command)
    (link,) = command.links
    assert (str(link.a), str(link.b)) == ("gpu-2:nvlink", "nvsw-1:nvlink")
    assert port_usage(layout, "nvsw-1") == {"nvlink": 3}
    plan = plan_wire(layout, "gpu-1", "nic-1")
    assert plan and plan.protocol == "pcie"


def test_wire_refusals_say_why(layout):
    refusal = plan_wire(layout, "gpu-1", "switch-1")
    assert isinstance(refusal, Refusal) and not refusal
    assert "no common protocol" in refusal.reason and "NVLink" in refusal.reason
    assert "InfiniBand" in refusal.reason
    assert "itself" in plan_wire(layout, "gpu-1", "gpu-1").reason
    assert "no ports" in plan_wire(layout, "gpu-1", "rack-1").reason
    assert "has no InfiniBand port" in plan_wire(layout, "switch-1", "gpu-1", "ib").reason
    # exhaust the NIC's single IB port: a second IB link is refused with the count
    full = plan_wire(layout, "nic-1", "switch-1")
    assert isinstance(full, Refusal) and "in use (1 of 1)" in full.reason
    assert isinstance(wire(layout, "nic-1", "switch-1"), Refusal)


def test_copy_paste_gives_fresh_ids_and_keeps_internal_links(layout):
    add = add_model(layout, "tnode", (0.0, 1000.0))
    add.apply(layout)
    group_id = add.groups[0].id
    clip = extract(layout, ["gpu-1", "nvsw-1", "nic-1"], [group_id])
    assert clip.has_link("link-1") and not clip.has_link("link-2")
    command = paste(layout, clip, offset=(40.0, 40.0))
    roundtrip(layout, command)
    ids = {d.id for d in command.devices}
    assert not ids & {d.id for d in clip.devices()}
    pasted_group = next(g for g in command.groups if g.parent is None)
    assert all(d.startswith(pasted_group.id + ".") for d in layout.group_devices(pasted_group.id))
    gpu = next(d for d in command.devices if d.model == "tgpu" and d.group is None)
    assert gpu.pos == (40.0, 40.0)
    assert len(command.links) == clip.link_count()


def test_remove_link_only(layout):
    command = RemoveItems(links=["link-2"])
    after, _ = roundtrip(layout, command)
    assert after.device_count() == layout.device_count()
    assert command.text == "Delete 1 link"


def test_snap():
    assert snap((14.0, -16.0)) == (10.0, -20.0)
    assert make_catalog().get("tnode").system is not None


def test_macros_with_a_key_merge_their_children(layout):
    first = Macro("len", [change_link("link-1", mergeable=True, length_m=1.0),
                          change_link("link-2", mergeable=True, length_m=1.0)], key="k")
    second = Macro("len", [change_link("link-1", mergeable=True, length_m=3.0),
                           change_link("link-2", mergeable=True, length_m=3.0)], key="k")
    before = layout.copy()
    history = History(layout)
    history.push(first)
    history.push(second)
    assert len(history.steps) == 1  # merged into one step
    assert layout.link("link-2").length_m == 3.0
    history.undo()
    assert layout == before
    assert not Macro("x", [], key=None).merge(Macro("x", [], key=None))


def test_nudges_far_apart_in_time_do_not_merge(layout):
    first = MoveDevices({"gpu-1": ((0.0, 0.0), (10.0, 0.0))}, nudge=True)
    later = MoveDevices({"gpu-1": ((10.0, 0.0), (20.0, 0.0))}, nudge=True)
    later.stamp = first.stamp + 60.0
    assert not first.merge(later)
