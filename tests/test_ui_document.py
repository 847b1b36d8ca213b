"""The document's edit contract: refusals change nothing, bugs surface without damage, undo is
exact (order included)."""

from __future__ import annotations

import logging

from designer_fixtures import small_layout

from rackdesigner.commands import Command, MoveDevices, RemoveItems, add_model
from rackdesigner.io import dump_layout_text
from rackdesigner.model import Layout
from rackdesigner.ui.document import Document


def _order(layout):
    return {d.id: [lk.id for lk in layout.links_of(d.id)] for d in layout.devices()}


def test_a_refused_move_moves_nothing_and_records_nothing(qtbot):
    layout = small_layout()
    doc = Document(layout)
    first = next(layout.devices())
    before = dump_layout_text(layout)
    messages = []
    doc.message.connect(messages.append)
    moves = {first.id: (first.pos, (500.0, 500.0)), "no-such-device": ((0, 0), (10.0, 10.0))}
    assert not doc.push(MoveDevices(moves))
    assert dump_layout_text(layout) == before
    assert layout.device(first.id).pos == first.pos
    assert doc.undo_stack.count() == 0 and not doc.is_modified()
    assert "refused" in messages[-1] and "no-such-device" in messages[-1]


class _Buggy(Command):
    """Changes the design, then trips over a bug (not a refusal)."""

    text = "Buggy edit"

    def apply(self, layout):
        device = next(layout.devices())
        layout.update_device(device.id, name="half-done")
        return {}["missing key"]  # a KeyError that is a bug, not a refusal


def test_a_bug_in_a_command_is_logged_told_and_leaves_the_design_unchanged(qtbot, caplog):
    layout = small_layout()
    doc = Document(layout)
    state = layout.state
    seen = []
    doc.changed.connect(seen.append)
    with qtbot.waitSignal(doc.failed) as failed, caplog.at_level(logging.ERROR):
        assert not doc.push(_Buggy())
    assert layout.state is state  # the exact state, not just equal content
    assert "bug" in failed.args[0] and "KeyError" in failed.args[0]
    assert any(r.exc_info and "Buggy edit failed" in r.getMessage() for r in caplog.records)
    assert doc.undo_stack.count() == 0 and not doc.is_modified()
    # the views saw the change and its rollback: they end where the design is
    assert [type(e).__name__ for e in seen] == ["DeviceChanged", "DeviceChanged"]
    assert seen[-1].new == next(layout.devices())


def test_undo_of_a_delete_restores_the_order_of_links(qtbot, catalog):
    layout = Layout(catalog)
    add_model(layout, "dgx-h100", (0.0, 0.0)).apply(layout)
    doc = Document(layout)
    busiest = max(layout.devices(), key=lambda d: len(layout.links_of(d.id)))
    links = [lk.id for lk in layout.links_of(busiest.id)]
    assert len(links) >= 3
    before, order, state = dump_layout_text(layout), _order(layout), layout.state
    assert doc.push(RemoveItems(links=[links[0], links[len(links) // 2]]))
    doc.undo_stack.undo()
    assert _order(layout) == order  # not "put back at the end"
    assert layout.state is state and dump_layout_text(layout) == before
    doc.undo_stack.redo()
    assert [lk.id for lk in layout.links_of(busiest.id)] == [
        k for k in links if k not in (links[0], links[len(links) // 2])]
