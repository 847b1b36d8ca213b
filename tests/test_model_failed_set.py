"""The state's own set of failed ids: what every view's failure closure starts from."""

from __future__ import annotations

from rackdesigner.io import dump_layout_text, parse_layout_text
from rackdesigner.model import Device, Group, Layout, Link, PortRef
from rackdesigner.model.failures import closure, marked_failed


def _scan(layout: Layout) -> tuple[str, ...]:
    """The definition: every object whose own status is failed, groups, devices, links."""
    return tuple([g.id for g in layout.groups() if g.status == "failed"]
                 + [d.id for d in layout.devices() if d.status == "failed"]
                 + [k.id for k in layout.links() if k.status == "failed"])


def _design(catalog) -> Layout:
    layout = Layout(catalog)
    layout.add_group(Group("node-1", kind="node"))
    for i in range(1, 7):
        layout.add_device(Device(f"gpu-{i}", "h100-sxm5", group="node-1" if i < 4 else None))
    for i in range(1, 6):
        layout.add_link(Link(f"l-{i}", PortRef(f"gpu-{i}", "nvlink"),
                             PortRef(f"gpu-{i + 1}", "nvlink")))
    return layout


def test_failing_and_restoring_keeps_the_set_in_document_order(catalog):
    layout = _design(catalog)
    assert marked_failed(layout) == ()
    layout.update_link("l-4", status="failed")
    layout.update_device("gpu-5", status="failed")
    layout.update_device("gpu-2", status="failed")
    layout.update_group("node-1", status="failed")
    assert marked_failed(layout) == _scan(layout) == ("node-1", "gpu-2", "gpu-5", "l-4")
    down = closure(layout)
    assert down.devices == {"gpu-1", "gpu-2", "gpu-3", "gpu-5"}
    assert down.links == {"l-1", "l-2", "l-3", "l-4", "l-5"}  # every link of a failed device
    layout.update_device("gpu-2", status="active")
    layout.remove_link("l-4")
    assert marked_failed(layout) == _scan(layout) == ("node-1", "gpu-5")


def test_undoing_a_failure_and_reloading_give_the_same_set(catalog):
    layout = _design(catalog)
    with layout.transaction() as tx:
        layout.update_device("gpu-6", status="failed")
        layout.update_link("l-1", status="failed")
    assert marked_failed(layout) == ("gpu-6", "l-1")
    reloaded = parse_layout_text(dump_layout_text(layout))
    assert marked_failed(reloaded) == ("gpu-6", "l-1")
    layout.replay(tx, forward=False)
    assert marked_failed(layout) == () and not closure(layout)
    layout.replay(tx, forward=True)
    assert marked_failed(layout) == _scan(layout) == ("gpu-6", "l-1")


def test_a_move_carries_the_failure_closure_over_instead_of_recomputing_it(catalog):
    """Moves change no failure: the moved state's index starts from its predecessor's closure
    (model/index.py `_MOVE_PROOF`); it used to be reset right after being carried over."""
    layout = _design(catalog)
    layout.update_device("gpu-5", status="failed")
    before = layout.index()
    down = closure(layout)
    layout.update_device("gpu-1", pos=(40.0, 80.0))
    after = layout.index()
    assert after is not before
    assert after.failed(lambda: None) is down  # carried: the compute function is not called
    layout.update_device("gpu-2", status="failed")  # not a move: computed afresh
    assert closure(layout).devices == {"gpu-2", "gpu-5"}
