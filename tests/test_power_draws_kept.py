"""The whole design's draws are worked out once per state (`RackPower.draws`, kept in the
state's memo for the next `RackPower` of that state): the kept figures are those of a fresh
count, an edit's new state counts again, and a `RackPower` that read its devices from an
earlier state neither takes nor leaves the kept figures of another state."""

from __future__ import annotations

from rackdesigner.generators import generate
from rackdesigner.model.power import RackPower


def _fresh(layout):
    """The same state's draws counted from nothing (no kept figures)."""
    layout.state.memo.pop("draws", None)
    return RackPower(layout).draws()


def _powered(layout):
    """A racked device with a published maximum draw."""
    table = RackPower(layout).device_table()
    return next(layout.device(d) for d, (spec, rack, _) in table.items()
                if rack is not None and spec is not None and spec.traits.draws_power
                and (spec.power.max_w or 0) > 0)


def test_the_kept_draws_are_a_fresh_count_and_an_edit_counts_again():
    layout = generate("superpod", system="dgx-h100", sus=1)
    first = RackPower(layout).draws()
    assert RackPower(layout).draws() is first  # the second reader of the state takes it
    assert _fresh(layout) == first
    node = _powered(layout)
    for link_id in layout.state.link_ids_of(node.id):
        layout.remove_link(link_id)
    layout.remove_device(node.id)
    after = RackPower(layout).draws()
    assert after is not first
    assert after.by_rack[node.rack][1] < first.by_rack[node.rack][1]  # the node's draw is gone
    assert _fresh(layout) == after


def test_a_reader_of_an_earlier_state_keeps_to_its_own_count():
    layout = generate("superpod", system="dgx-h100", sus=1)
    early = RackPower(layout)
    early.device_table()  # read from this state
    node = _powered(layout)
    for link_id in layout.state.link_ids_of(node.id):
        layout.remove_link(link_id)
    layout.remove_device(node.id)
    RackPower(layout).draws()
    kept = layout.state.memo["draws"][1]
    stale = early.draws()  # its table is the earlier state's: counted, not the kept one
    assert stale is not kept
    assert layout.state.memo["draws"][1] is kept
