"""The Layout document: mutators keep the graph consistent and emit one event each."""

from __future__ import annotations

import pytest

from rackdesigner.model import (
    Device,
    DeviceAdded,
    DeviceChanged,
    DeviceRemoved,
    Group,
    GroupChanged,
    Layout,
    LayoutError,
    Link,
    LinkAdded,
    LinkRemoved,
    PortRef,
    instantiate,
)


def _pair(layout: Layout) -> Link:
    layout.add_device(Device("gpu-1", "h100-sxm5"))
    layout.add_device(Device("sw-1", "nvswitch-gen3"))
    return layout.add_link(Link("link-1", PortRef("gpu-1", "nvlink"), PortRef("sw-1", "nvlink"), 5))


def test_each_mutation_emits_one_event_after_the_change(catalog):
    layout = Layout(catalog)
    seen = []
    layout.subscribe(lambda e: seen.append((type(e), layout.device_count(), layout.link_count())))
    _pair(layout)
    layout.update_device("gpu-1", pos=(10.0, 20.0))
    layout.remove_link("link-1")
    layout.remove_device("sw-1")
    assert seen == [
        (DeviceAdded, 1, 0),
        (DeviceAdded, 2, 0),
        (LinkAdded, 2, 1),
        (DeviceChanged, 2, 1),
        (LinkRemoved, 2, 0),
        (DeviceRemoved, 1, 0),
    ]
    assert layout.revision == 6


def test_graph_is_the_topology(catalog):
    layout = Layout(catalog)
    link = _pair(layout)
    graph = layout.graph
    assert set(graph.nodes) == {"gpu-1", "sw-1"}
    assert graph.edges["gpu-1", "sw-1", "link-1"]["link"] == link
    assert layout.links_of("sw-1") == [link]
    with pytest.raises(Exception):  # noqa: B017 - networkx's frozen view refuses edits
        graph.add_node("x")


def test_mutators_refuse_inconsistent_changes(catalog):
    layout = Layout(catalog)
    _pair(layout)
    with pytest.raises(LayoutError, match="already used"):
        layout.add_device(Device("gpu-1", "h100-sxm5"))
    with pytest.raises(LayoutError, match="still has links"):
        layout.remove_device("gpu-1")
    with pytest.raises(LayoutError, match="no device"):
        layout.add_link(Link("link-2", PortRef("gpu-1", "nvlink"), PortRef("nope", "nvlink")))
    with pytest.raises(LayoutError, match="invalid device id"):
        layout.add_device(Device("bad id", "h100-sxm5"))
    with pytest.raises(LayoutError, match="no group"):
        layout.update_device("gpu-1", group="missing")


def test_groups_nest_and_refuse_cycles(catalog):
    layout = Layout(catalog)
    layout.add_group(Group("pod-1", kind="pod"))
    layout.add_group(Group("rack-1", kind="rack", parent="pod-1"))
    layout.add_device(Device("gpu-1", "h100-sxm5", group="rack-1"))
    assert layout.group_devices("pod-1") == ["gpu-1"]
    assert layout.group_devices("pod-1", recursive=False) == []
    with pytest.raises(LayoutError, match="inside itself"):
        layout.update_group("pod-1", parent="rack-1")
    with pytest.raises(LayoutError, match="not empty"):
        layout.remove_group("rack-1")
    events = []
    layout.subscribe(events.append)
    layout.update_group("rack-1", collapsed=True)
    assert isinstance(events[0], GroupChanged) and not events[0].affects_simulation


def test_moves_do_not_affect_simulation_but_rack_changes_do(catalog):
    layout = Layout(catalog)
    layout.add_device(Device("gpu-1", "h100-sxm5"))
    events = []
    layout.subscribe(events.append)
    layout.update_device("gpu-1", pos=(5.0, 5.0))
    layout.update_device("gpu-1", name="first GPU")
    layout.update_device("gpu-1", u=3)
    assert [e.affects_simulation for e in events] == [False, False, True]


def test_equality_ignores_insertion_order_and_copy_is_independent(catalog):
    a, b = Layout(catalog), Layout(catalog)
    _pair(a)
    b.add_device(Device("sw-1", "nvswitch-gen3"))
    b.add_device(Device("gpu-1", "h100-sxm5"))
    b.add_link(Link("link-1", PortRef("gpu-1", "nvlink"), PortRef("sw-1", "nvlink"), 5))
    assert a == b
    c = a.copy()
    c.update_link("link-1", count=4)
    assert a.link("link-1").count == 5 and c != a


def test_new_id_is_readable_and_unused(catalog):
    layout = Layout(catalog)
    layout.add_device(Device("gpu-1", "h100-sxm5"))
    assert layout.new_id("gpu") == "gpu-2"
    assert layout.new_id("link") == "link-1"


def test_port_ref_parsing():
    assert PortRef.parse("leaf-1:ib.17") == PortRef("leaf-1", "ib", 17)
    assert str(PortRef.parse("dgx-1.gpu0:nvlink")) == "dgx-1.gpu0:nvlink"
    for bad in ("gpu-1", "gpu-1:", "a:b:c", ":nvlink", "gpu 1:nvlink"):
        with pytest.raises(ValueError, match="device:port"):
            PortRef.parse(bad)


def test_instantiate_dgx_h100_wires_the_published_nvlink_split(catalog):
    parts = instantiate(catalog, "dgx-h100", "dgx-1", origin=(100.0, 50.0))
    layout = Layout(catalog)
    layout.add_all(parts.groups, parts.devices, parts.links)
    gpus = [d.id for d in layout.devices() if layout.spec(d.id).kind == "gpu"]
    assert len(gpus) == 8
    for gpu in gpus:
        per_switch = sorted(lk.count for lk in layout.links_of(gpu)
                            if layout.spec(lk.other(gpu).device).kind == "nvswitch")
        assert per_switch == [4, 4, 5, 5]  # 18 NVLink4 links, split 5+5+4+4
    assert all(d.group == "dgx-1" for d in layout.devices())
    assert layout.group("dgx-1").template == "dgx-h100"


def test_instantiate_refuses_taken_ids(catalog):
    with pytest.raises(ValueError, match="already used"):
        instantiate(catalog, "dgx-h100", "dgx-1", is_taken=lambda i: i == "dgx-1.gpu3")


def _observed(layout: Layout) -> tuple:
    """Everything a reader of `layout` can see, in an order-sensitive form."""
    graph = layout.graph
    return (
        layout.content(),
        [(d, [lk.id for lk in layout.links_of(d)]) for d in sorted(graph.nodes)],
        sorted((u, v, k, data["link"]) for u, v, k, data in graph.edges(keys=True, data=True)),
        {d: graph.degree(d) for d in graph.nodes},
        {g.id: (sorted(layout.group_devices(g.id)), layout.group_children(g.id))
         for g in layout.groups()},
        layout.unresolved_links, layout.link_count(), layout.device_count(), layout.revision,
    )


def _rich_layout(catalog) -> Layout:
    """Groups, a bundle of two links on one device pair, a self-loop and an unresolved link."""
    layout = Layout(catalog)
    layout.add_all(
        groups=[Group("pod"), Group("node-1", parent="pod"), Group("node-2", parent="pod")],
        devices=[Device("gpu-1", "h100-sxm5", group="node-1"),
                 Device("gpu-2", "h100-sxm5", group="node-1"),
                 Device("sw-1", "nvswitch-gen3", group="node-2"),
                 Device("sw-2", "nvswitch-gen3")],
        links=[Link("link-1", PortRef("gpu-1", "nvlink"), PortRef("sw-1", "nvlink"), 5),
               Link("link-2", PortRef("gpu-1", "nvlink"), PortRef("sw-1", "nvlink"), 4),
               Link("link-3", PortRef("gpu-2", "nvlink"), PortRef("sw-1", "nvlink"), 9),
               Link("link-4", PortRef("sw-2", "nvlink"), PortRef("sw-2", "nvlink"), 2)])
    layout.add_unresolved_link(Link("link-x", PortRef("gone", "a"), PortRef("gpu-1", "nvlink")))
    return layout


def _edit_everything(layout: Layout) -> None:
    """Every kind of mutation, including ones inside a shared bundle and on a self-loop."""
    layout.update_link("link-1", count=1, cable="dac")  # a link sharing its pair with link-2
    layout.remove_link("link-2")  # the pair keeps link-1
    layout.remove_link("link-3")  # the pair disappears
    layout.add_link(Link("link-5", PortRef("gpu-1", "nvlink"), PortRef("sw-1", "nvlink")))
    layout.add_link(Link("link-6", PortRef("gpu-2", "nvlink"), PortRef("sw-2", "nvlink")))
    layout.update_link("link-4", count=3)  # the self-loop
    layout.add_link(Link("link-7", PortRef("sw-2", "nvlink"), PortRef("sw-2", "nvlink")))
    layout.remove_link("link-x")
    layout.add_device(Device("gpu-3", "h100-sxm5", group="node-2"))
    layout.update_device("gpu-1", pos=(5.0, 6.0), name="first", group="node-2")
    layout.update_device("sw-2", group="pod")
    layout.remove_device("gpu-3")
    layout.add_device(Device("gpu-4", "h100-sxm5"))
    layout.add_group(Group("node-3", parent="pod"))
    layout.update_group("node-2", name="renamed", parent="node-3")
    layout.update_device("gpu-2", group=None)
    layout.update_group("node-1", parent=None)
    layout.remove_group("node-1")
    layout.set_meta(name="edited")


def test_copy_is_equal_and_keeps_the_order_of_links(catalog):
    layout = _rich_layout(catalog)
    copy = layout.copy()
    assert copy == layout and copy is not layout
    assert _observed(copy) == _observed(layout)
    assert copy.graph.edges["gpu-1", "sw-1", "link-2"]["link"].count == 4


@pytest.mark.parametrize("edited", ["copy", "original"])
def test_edits_on_either_side_of_a_copy_never_show_on_the_other(catalog, edited):
    original = _rich_layout(catalog)
    copy = original.copy()
    second = copy.copy()  # a copy of a copy shares as much and is as independent
    before = _observed(original)
    if edited == "copy":
        target, others = copy, [original, second]
    else:
        target, others = original, [copy, second]
    seen = []
    for other in others:
        other.subscribe(seen.append)
    _edit_everything(target)
    assert not seen  # no events leak to the other documents' listeners either
    for other in others:
        assert _observed(other)[:-1] == before[:-1]  # same content (revision aside)
        assert other == _rich_layout(catalog)
    assert target != others[0]
    # the edited side is consistent: equal to the same edits made on a fresh document
    fresh = _rich_layout(catalog)
    _edit_everything(fresh)
    assert _observed(target)[:-1] == _observed(fresh)[:-1]


def test_a_copy_edited_back_and_forth_stays_independent(catalog):
    original = _rich_layout(catalog)
    copy = original.copy()
    copy.update_link("link-1", count=2)
    original.update_link("link-1", count=3)
    copy.remove_link("link-2")
    original.add_link(Link("link-9", PortRef("gpu-1", "nvlink"), PortRef("sw-1", "nvlink")))
    assert [lk.id for lk in original.links_of("gpu-1")] == ["link-1", "link-2", "link-9"]
    assert [lk.id for lk in copy.links_of("gpu-1")] == ["link-1"]
    assert (original.link("link-1").count, copy.link("link-1").count) == (3, 2)
    assert original.graph.number_of_edges("gpu-1", "sw-1") == 3
    assert copy.graph.number_of_edges("gpu-1", "sw-1") == 1
