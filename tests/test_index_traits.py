"""The design index's trait column read per model (`DesignIndex._traits_by_model`) is the
plain facet's (`TRAITS.plain`, a spec asked per device): every device, the same traits, in the
same order — on generated designs, on broken ones (unknown models, failed devices) and after
edits; and an index that has filed some device's spec first takes the plain pass (whose order
then starts with those devices)."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.model import Device
from rackdesigner.model.facets.traits import TRAITS
from rackdesigner.model.index import DesignIndex
from tests.test_linktable import _broken

DESIGNS = {
    "superpod": lambda c: generate("superpod", system="dgx-h100", nodes=8, catalog=c),
    "gb200": lambda c: generate("superpod", system="gb200-nvl72", racks=2, catalog=c),
    "rail": lambda c: generate("rail-optimized", system="dgx-b200", nodes=4, switch="q3400",
                               catalog=c),
    "broken": lambda c: _broken(c, 2),
}


def _edited(catalog):
    """A design edited after it was made: a device removed, one re-added (at the end of the
    order), one of an unknown model, one changed to another model."""
    layout = generate("superpod", system="dgx-h100", nodes=4, catalog=catalog)
    first = next(d for d in layout.devices() if d.model == "h100-sxm5")
    for link in layout.links_of(first.id):
        layout.remove_link(link.id)
    layout.remove_device(first.id)
    layout.add_device(Device(first.id, first.model))
    layout.add_device(Device("mystery-2", "no-such-model"))
    nic = next(d for d in layout.devices() if d.model == "connectx-7")
    layout.update_device(nic.id, status="failed")
    return layout


@pytest.mark.parametrize("design", [*sorted(DESIGNS), "edited"])
def test_per_model_column_equals_the_plain_one(catalog, design):
    layout = _edited(catalog) if design == "edited" else DESIGNS[design](catalog)
    fresh = DesignIndex(layout.state, catalog)
    got = fresh.traits()
    plain = TRAITS.plain(DesignIndex(layout.state, catalog))
    assert list(got.items()) == list(plain.items())
    if design in ("broken", "edited"):
        assert any(d.model not in catalog for d in layout.devices())
        assert len(got) < len(layout.state.devices)  # unknown models have no traits


def test_an_index_that_filed_a_spec_first_takes_the_plain_order(catalog):
    """`spec` files a device's spec before the others: the plain pass lists it first, and so
    does the index's column (it then takes that pass)."""
    layout = generate("superpod", system="dgx-h100", nodes=4, catalog=catalog)
    last = list(layout.state.devices)[-1]
    index = DesignIndex(layout.state, catalog)
    index.spec(last)
    got = list(index.traits())
    other = DesignIndex(layout.state, catalog)
    other.spec(last)
    assert got == list(TRAITS.plain(other))
    assert got[0] == last


def test_the_per_model_column_is_taken_on_a_fresh_index(catalog, monkeypatch):
    layout = generate("superpod", system="dgx-h100", nodes=4, catalog=catalog)
    calls = []
    monkeypatch.setattr(TRAITS, "plain", lambda index: calls.append(index) or {})
    assert DesignIndex(layout.state, catalog).traits()
    assert not calls
