"""A state's RackIndex evolved from the previous state's (`model/facets/rack_index.py`, the
rack-index facet; `model/racks_evolve.py` is its old import path) equals one built from
nothing: units, their racks, and every rack's power to the last bit."""

from __future__ import annotations

import pytest
from random_edits import RandomDesigner

from rackdesigner.model.facets import rack_index as racks_evolve
from rackdesigner.model.racks import RackIndex
from rackdesigner.model.racks_evolve import rack_index

pytestmark = pytest.mark.slow  # large designs or many random edits


def _facts(index: RackIndex) -> dict:
    return {
        "units": list(index.units.items()),
        "unit_of": index.unit_of,
        "by_rack": {r: units for r, units in index.by_rack.items() if units},
        "racks": index.racks,
        "power": index.power_by_rack(),
        "members": index.members(),
    }


@pytest.mark.parametrize("seed", [2, 9])
def test_an_evolved_rack_index_equals_one_built_from_nothing(catalog, seed, monkeypatch):
    evolved = []
    real = racks_evolve._evolved

    def counted(*args):
        out = real(*args)
        evolved.append(out is not None)
        return out

    monkeypatch.setattr(racks_evolve, "_evolved", counted)
    designer = RandomDesigner(catalog, seed, check_every=40, max_devices=150)
    layout = designer.layout
    held = None
    for _ in range(160):
        designer.step()
        held = rack_index(layout)
        assert _facts(held) == _facts(RackIndex(layout))
    assert sum(evolved) > 40  # most edits evolved the index rather than rebuilt it
