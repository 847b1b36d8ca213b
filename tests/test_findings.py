"""The Problems dock's findings, kept per state and re-checked by what an edit touched, are
the findings of a full check — the same list in the same order — after any edit."""

from __future__ import annotations

import pytest
from random_edits import RandomDesigner

from rackdesigner.model import check_layout
from rackdesigner.model import findings as findings_module
from rackdesigner.model.findings import findings

pytestmark = pytest.mark.slow  # large designs or many random edits


@pytest.mark.parametrize("seed, arrays", [(5, False), (17, False), (23, True)])
def test_rechecked_findings_equal_a_full_check_after_random_edits(catalog, seed, arrays,
                                                                   monkeypatch):
    from rackdesigner.model import index as index_module

    if arrays:  # the large designs' path: the first check reads link columns, not carried links
        monkeypatch.setattr(index_module, "_ARRAY_MIN_LINKS", 0)
    rechecks = []
    real = findings_module.recheck

    def counted(*args):
        rechecks.append(1)
        return real(*args)

    monkeypatch.setattr(findings_module, "recheck", counted)
    designer = RandomDesigner(catalog, seed, check_every=40, max_devices=150)
    layout = designer.layout
    held = None
    for _ in range(160):
        designer.step()
        held = findings(layout)  # held, as the Problems dock's last result holds it
        assert list(held) == check_layout(layout)
    assert len(rechecks) > 60  # most states were re-checked, not checked from nothing


def test_a_move_or_a_fail_keeps_the_findings_of_the_state_before(catalog):
    from rackdesigner.commands import History, MoveDevices
    from rackdesigner.commands.failures import set_status
    from rackdesigner.generators import generate

    layout = generate("superpod", system="dgx-h100", sus=1)
    history = History(layout)
    first = findings(layout)
    leaf = next(d for d in layout.devices() if d.id.startswith("leaf"))
    history.push(MoveDevices({leaf.id: (leaf.pos, (leaf.pos[0] + 50, leaf.pos[1]))}))
    assert findings(layout) is first
    history.push(set_status(layout, [leaf.id], "failed"))
    assert findings(layout) is first
    history.undo()
    history.undo()
    assert findings(layout) is first
