"""One PUE route (#35 item 5): without a PUE of the user's, the simulation's power stage (the
panel's Power tile, `simulate`, `estimate`) and the cost model use the same PUE: the site's
stated one, else the design's cooling mix's; a PUE the user gives wins in both."""

from __future__ import annotations

import pytest

from rackdesigner.cost import Assumptions, design_cost
from rackdesigner.cost.locate import example_book_path, read_price_book
from rackdesigner.generators import default_catalog, generate
from rackdesigner.model.cooling import cooling_report
from rackdesigner.model.items import Site
from rackdesigner.model.pue import design_pue
from rackdesigner.model.site import PUE_AIR, PUE_LIQUID, pue_for_cooling
from rackdesigner.simulation import simulate


@pytest.fixture(scope="module")
def book():
    return read_price_book(example_book_path(), default_catalog())


@pytest.fixture()
def nvl72():
    return generate("superpod", default_catalog(), system="gb200-nvl72", racks=2)


def test_power_tile_and_cost_use_the_cooling_mix_pue(book, nvl72):
    power = simulate(nvl72).power
    cost = design_cost(nvl72, book)
    assert power.pue == pytest.approx(cost.assumptions.pue, abs=1e-4)
    # most of an NVL72's heat goes to liquid: between the liquid and air end points
    assert PUE_LIQUID < power.pue < PUE_AIR
    assert power.facility_w == pytest.approx(power.total_max_w * power.pue)


def test_air_cooled_design_keeps_the_air_pue(book):
    layout = generate("superpod", default_catalog(), system="dgx-h100", sus=1)
    assert simulate(layout).power.pue == pytest.approx(PUE_AIR)
    assert design_cost(layout, book).assumptions.pue == pytest.approx(PUE_AIR)


def test_more_heat_to_liquid_never_raises_the_pue(nvl72):
    c = cooling_report(nvl72)
    base = pue_for_cooling(c.liquid_w, c.air_w)[0]
    assert pue_for_cooling(c.liquid_w + 1000, max(c.air_w - 1000, 0))[0] <= base


def test_site_pue_wins_over_the_cooling_mix_in_both(book, nvl72):
    nvl72.set_meta(site=Site(pue=1.42))
    assert design_pue(nvl72) == (1.42, "stated by the site")
    assert simulate(nvl72).power.pue == pytest.approx(1.42)
    assert design_cost(nvl72, book).assumptions.pue == pytest.approx(1.42)


def test_users_pue_wins_in_both(book, nvl72):
    assert simulate(nvl72, pue=1.5).power.pue == pytest.approx(1.5)
    assert design_cost(nvl72, book, Assumptions(pue=1.5)).assumptions.pue == pytest.approx(1.5)


def test_the_kept_cooling_mix_pue_follows_an_edit_of_the_same_layout(nvl72):
    # design_pue keeps its figure per design state: asking twice gives the kept one; an edit
    # that takes liquid heat away (one rack's GPUs removed) gives the new mix's, not the kept one
    first = design_pue(nvl72)
    assert design_pue(nvl72) == first
    gpus = [d.id for d in nvl72.devices()
            if nvl72.catalog.get(d.model).traits.computes][:72]
    for device_id in gpus:
        for link_id in list(nvl72.state.link_ids_of(device_id)):
            nvl72.remove_link(link_id)
        nvl72.remove_device(device_id)
    after = design_pue(nvl72)
    c = cooling_report(nvl72)
    assert after[0] == pytest.approx(pue_for_cooling(c.liquid_w, c.air_w)[0])
    assert after[0] > first[0]  # less heat to liquid: nearer the air PUE
