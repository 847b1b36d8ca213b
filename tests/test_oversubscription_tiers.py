"""Issue 38 item 6: oversubscription is reported for the tiers whose uplinks carry the design's
traffic. A 14-rack NVL72 SuperPOD's partial second SU leaves four leaves without NICs; they hang
off the spines like a core tier, but up/down routing never climbs to them, so the spine layer is
not "9:1 oversubscribed" (its bisection is full, like the 8- and 16-rack designs')."""

from __future__ import annotations

import pytest

from rackdesigner.generators import generate
from rackdesigner.simulation import simulate


def _bandwidth(**options):
    return simulate(generate("superpod", **options)).bandwidth


@pytest.mark.slow
def test_a_partial_su_reads_like_full_ones():
    partial = _bandwidth(system="gb200-nvl72", racks=14)
    full = _bandwidth(system="gb200-nvl72", racks=16)
    assert set(partial.oversubscription) == set(full.oversubscription) == {"leaf"}
    assert max(partial.oversubscription.values()) <= 1.0
    assert max(v for v in partial.oversubscription_worst.values() if v is not None) <= 1.0


@pytest.mark.slow
def test_a_tier_whose_uplinks_carry_traffic_is_still_reported():
    layout = generate("rail-optimized", system="dgx-h100", nodes=288, switch="qm9700",
                      oversubscription=2)
    over = simulate(layout).bandwidth.oversubscription
    assert over["leaf"] == pytest.approx(2.0)
    assert "spine" in over  # three tiers: pods meet at the core
