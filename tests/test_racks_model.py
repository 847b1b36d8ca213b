"""Rack occupancy, slot refusals, Place unracked, rack rules and the floor, without Qt."""

from __future__ import annotations

import pytest

from rackdesigner.bom import bill_of_materials
from rackdesigner.commands.history import History
from rackdesigner.commands.racks import mount, move_racks_on_floor, place_unracked
from rackdesigner.generators import generate
from rackdesigner.io import LayoutFileError, dump_layout_text, parse_layout_text
from rackdesigner.model import Device, Group, Layout, check_layout, instantiate
from rackdesigner.model.racks import RackIndex
from rackdesigner.model.rules import check_racks


def _dgx(layout: Layout, prefix: str, **kw) -> None:
    parts = instantiate(layout.catalog, "dgx-h100", prefix, **kw)
    layout.add_all(parts.groups, parts.devices, parts.links)


def _rack(layout: Layout, rack_id: str, model: str = "rack-42u", **kw) -> None:
    layout.add_device(Device(rack_id, model, **kw))


def test_a_system_is_one_unit_and_slots_are_refused_with_the_reason(catalog):
    layout = Layout(catalog)
    _rack(layout, "rack-1", name="Rack A")
    _dgx(layout, "dgx-1", rack="rack-1", u=1)
    _dgx(layout, "dgx-2", rack="rack-1", u=30)
    index = RackIndex(layout)
    unit = index.units["dgx-1"]
    assert (unit.height_u, unit.rack, unit.u, unit.role) == (8, "rack-1", 1, "compute")
    assert len(unit.members) > 20 and "dgx-1.chassis" in unit.members  # parts move together
    assert index.check_slot(8, "rack-1", 9) is None
    overlap = index.check_slot(8, "rack-1", 5)
    assert "overlaps dgx-1" in overlap and "U1–U8" in overlap
    assert "beyond the top" in index.check_slot(1, "rack-1", 43)
    taller = index.check_slot(8, "rack-1", 38)  # U38-45 in a 42U rack: 5U free up there
    assert "5U free" in taller
    assert "overlaps" in index.check_slot(8, "rack-1", 25)  # would reach into dgx-2 at U30
    assert index.check_slot(8, "rack-1", 1, ignore=["dgx-1"]) is None  # moving it in place
    summary = index.summaries()["rack-1"]
    assert summary.used_u["front"] == 16 and summary.free_u == 26
    assert abs(summary.max_w - 2 * 10200) < 1 and summary.heat_btu_h[1] > 2 * 10200 * 3.4
    assert summary.weight_missing == 2  # no published DGX weight in the catalog: said so


def test_place_unracked_keeps_systems_whole_and_respects_power_and_height(catalog):
    layout = Layout(catalog)
    _rack(layout, "rack-1", props=(("power_budget_w", 45000),))  # room for 4 x 10.2 kW
    _rack(layout, "rack-2")
    for i in range(7):
        _dgx(layout, f"dgx-{i + 1}")
    command, report = place_unracked(layout, ["rack-1", "rack-2"])
    assert command is not None
    command.apply(layout)
    index = RackIndex(layout)
    in_1 = sorted(u.u for u in index.by_rack["rack-1"])
    in_2 = sorted(u.u for u in index.by_rack["rack-2"])
    assert in_1 == [1, 9, 17, 25]  # first fit from the bottom, stopped by the 45 kW budget
    assert in_2 == [1, 9, 17]
    assert not index.unracked()
    for unit in index.units.values():  # every part of a system went with it
        assert {layout.device(m).rack for m in unit.members} == {unit.rack}
    assert check_racks(layout) == []  # no rack rule broken (the nodes are not wired: not asked)
    # one more than fits: told which and why
    _dgx(layout, "dgx-8")
    _dgx(layout, "dgx-9")
    _dgx(layout, "dgx-10")
    command, report = place_unracked(layout, ["rack-1", "rack-2"])
    assert "did not fit" in report and "power budget" in report
    assert "no 8U gap" in report or "power budget" in report


def test_rack_rules_cooling_slot_and_overlap_per_face(catalog):
    layout = Layout(catalog)
    _rack(layout, "rack-1")
    layout.add_group(Group("rack-1.group", "Rack 1", "rack"))
    parts = instantiate(catalog, "gb200-compute-tray", "tray-1", rack="rack-1", u=5)
    layout.add_all(parts.groups, parts.devices, parts.links)
    _dgx(layout, "dgx-1")
    layout.update_group("dgx-1", parent="rack-1.group")
    findings = {f.code: f for f in check_layout(layout)}
    assert "liquid-cooled" in findings["liquid-in-air-rack"].message
    assert "tray-1" in findings["liquid-in-air-rack"].objects
    assert "no slot" in findings["no-rack-slot"].message
    # a unit at the rear does not collide with one at the front
    layout2 = Layout(catalog)
    _rack(layout2, "rack-1")
    layout2.add_device(Device("sw-1", "qm9700", rack="rack-1", u=3))
    layout2.add_device(Device("sw-2", "qm9700", rack="rack-1", u=3, props=(("face", "rear"),)))
    assert "rack-overlap" not in {f.code for f in check_layout(layout2)}
    layout2.add_device(Device("sw-3", "qm9700", rack="rack-1", u=3))
    assert "rack-overlap" in {f.code for f in check_layout(layout2)}


def test_mount_is_one_step_and_unmount_lists_the_unit_as_unracked(catalog):
    layout = Layout(catalog)
    _rack(layout, "rack-1")
    _rack(layout, "rack-2")
    _dgx(layout, "dgx-1", rack="rack-1", u=1)
    before = layout.content()
    history = History(layout)
    history.push(mount(layout, {"dgx-1": ("rack-2", 9, "front")}))
    assert RackIndex(layout).units["dgx-1"].rack == "rack-2"
    assert {layout.device(d).u for d in RackIndex(layout).units["dgx-1"].members} == {9}
    history.undo()
    assert layout.content() == before
    mount(layout, {"dgx-1": (None, None, "front")}).apply(layout)
    assert [u.id for u in RackIndex(layout).unracked()] == ["dgx-1"]


def test_moving_a_rack_on_the_floor_changes_the_bom_and_undo_restores_it(catalog):
    layout = generate("superpod", catalog, system="dgx-h100", sus=1)
    bom_before = bill_of_materials(layout).cables
    before = layout.content()
    history = History(layout)
    history.push(move_racks_on_floor(layout, {"rack-1": (40.0, 30.0)}))  # far down the hall
    after = bill_of_materials(layout).cables
    assert after != bom_before
    longest = max(c.length_m or 0 for c in after)
    assert longest > max(c.length_m or 0 for c in bom_before)  # 70 m away: longer optics
    history.undo()
    assert layout.content() == before
    # the floor position is saved and read back
    history.redo()
    again = parse_layout_text(dump_layout_text(layout), catalog=catalog)
    assert again.device("rack-1").props == layout.device("rack-1").props


def test_face_and_floor_keys_round_trip_and_bad_values_are_located(catalog):
    text = ("schema_version: 1\ndevices:\n"
            "- {id: rack-1, model: rack-42u, floor: [1.2, 3]}\n"
            "- {id: sw-1, model: qm9700, rack: rack-1, u: 3, face: rear}\n")
    layout = parse_layout_text(text, catalog=catalog)
    assert ("face", "rear") in layout.device("sw-1").props
    written = dump_layout_text(layout)
    assert "face: rear" in written and "floor: [1.2, 3]" in written
    with pytest.raises(LayoutFileError) as info:
        parse_layout_text(text.replace("face: rear", "face: side"), catalog=catalog)
    assert str(info.value).startswith("<text>:4: device sw-1")  # the line of sw-1
    assert "front or rear" in str(info.value)


def test_place_unracked_puts_liquid_cooled_trays_only_in_a_liquid_cooled_rack(catalog):
    layout = Layout(catalog)
    _rack(layout, "air-1")  # rack-42u: air-cooled
    _rack(layout, "liquid-1", "rack-48u")
    for i in range(3):
        parts = instantiate(catalog, "gb200-compute-tray", f"tray-{i}")
        layout.add_all(parts.groups, parts.devices, parts.links)
    command, report = place_unracked(layout, ["air-1", "liquid-1"])
    command.apply(layout)
    index = RackIndex(layout)
    assert {u.rack for u in index.units.values()} == {"liquid-1"}
    assert sorted(u.u for u in index.units.values()) == [1, 2, 3]
    _, report = place_unracked(layout, ["air-1"], units=["tray-0"])
    assert "air-cooled" in report and "did not fit" in report
