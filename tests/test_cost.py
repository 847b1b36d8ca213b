"""Cost of a design: totals equal the sum of priced parts, unpriced parts are said, running
cost follows its stated assumptions, and a training job has days, dollars and energy."""

from __future__ import annotations

import textwrap

import pytest

from rackdesigner._resources import example_paths
from rackdesigner.cost import Assumptions, design_cost, parse_price_book
from rackdesigner.cost.assumptions import HOURS_PER_YEAR
from rackdesigner.cost.locate import example_book_path, read_price_book
from rackdesigner.generators import generate
from rackdesigner.io import load_layout

TWO_NODE = next(p for p in example_paths() if p.name == "dgx-h100-2node-ib.yaml")
#: Every generator template at a small size (the reference designs).
REFERENCE = [
    ("dgx-a100", {}), ("dgx-h100", {}), ("dgx-h200", {}), ("dgx-b200", {}), ("nvl72", {}),
    ("superpod", {"system": "dgx-h100", "sus": 1}),
    ("superpod", {"system": "dgx-b200", "sus": 1}),
    ("superpod", {"system": "gb200-nvl72", "racks": 2}),
    ("superpod", {"system": "dgx-b200", "sus": 1, "switch": "sn5600"}),
    ("fat-tree", {"switch": "qm9700", "levels": 2, "endpoints": 64}),
    ("fat-tree", {"switch": "qm9700", "levels": 2, "endpoints": 64, "oversubscription": 2}),
    ("rail-optimized", {"system": "dgx-h100", "nodes": 4, "switch": "qm9700"}),
    ("single-leaf", {"system": "dgx-h100", "nodes": 2, "switch": "qm9700"}),
]


def _book(text: str):
    return parse_price_book(textwrap.dedent(text), "test.yaml")


@pytest.fixture(scope="module")
def example_book(catalog):
    return read_price_book(example_book_path(), catalog)


def _designs():
    for path in example_paths():
        yield path.name, lambda p=path: load_layout(p)
    for template, options in REFERENCE:
        label = template + "".join(f" {k}={v}" for k, v in options.items())
        yield label, lambda t=template, o=options: generate(t, **o)


@pytest.mark.slow
@pytest.mark.parametrize("name, make", list(_designs()), ids=[n for n, _ in _designs()])
def test_totals_are_the_sum_of_priced_parts(name, make, example_book):
    report = design_cost(make(), example_book)
    cap = report.capex
    priced = [line for line in cap.lines if line.priced]
    assert cap.total == pytest.approx(sum(line.total for line in priced))
    assert sum(cap.by_group.values()) == pytest.approx(cap.total)
    assert sum(cap.by_category().values()) == pytest.approx(cap.total)
    assert cap.unpriced_items == sum(line.count for line in cap.unpriced)
    assert report.complete == (cap.unpriced_items == 0)
    data = report.to_json()
    for key in ("capex", "opex_per_year", "tco", "usd_per_gpu_hour", "breakdown", "unpriced",
                "complete", "cooling"):
        assert key in data
    assert set(data["cooling"]) >= {"liquid_kw", "air_kw", "racks_over_air_limit",
                                    "cdus_over_capacity"}
    if not report.complete:
        assert report.headline().startswith("≥ ")
        assert f"{cap.unpriced_items:,} item" in report.headline()
    # heat to liquid and air add up to the design's maximum draw
    c = report.cooling
    assert c.liquid_w + c.air_w == pytest.approx(report.it_max_w, rel=1e-9, abs=1e-6)


FULL = """\
schema_version: 1
currency: EUR
date: 2025-01-01
sources: {s: {title: t}}
prices:
  dgx-h100: {price: 300000, source: s, date: 2025}
  h100-sxm5: {price: 30000, source: s, date: 2025}
  qm9700: {price: 40000, source: s, date: 2025}
  rack-42u: {price: 2000, source: s, date: 2025}
  dac-ndr: {per_m: 100, fixed: 50, source: s, date: 2025}
installation_per_rack: {price: 1000, source: s, date: 2025}
spares_percent: {value: 10, source: s, date: 2025}
support_percent_per_year: {value: 10, source: s, date: 2025}
"""


def test_a_fully_priced_design_is_complete_and_parts_of_systems_are_not_bought_twice():
    layout = load_layout(TWO_NODE)
    report = design_cost(layout, _book(FULL))
    cap = report.capex
    assert report.complete and not report.headline().startswith("≥")
    assert report.headline().startswith("€")
    # two DGX, one switch, one rack; the H100s come with the DGX (not priced again)
    cables = sum(line.total for line in cap.lines if line.section == "cable")
    lengths = [(line.length_m, line.count) for line in cap.lines if line.section == "cable"]
    assert cables == pytest.approx(sum((50 + 100 * m) * n for m, n in lengths))
    hardware = 2 * 300000 + 40000 + 2000 + cables
    assert cap.hardware == pytest.approx(hardware)
    assert cap.installation == 1000 and cap.spares == pytest.approx(0.1 * hardware)
    assert report.support_per_year == pytest.approx(0.1 * hardware)


def test_removing_a_priced_part_lowers_capex_by_its_price():
    layout = load_layout(TWO_NODE)
    book = _book(FULL.replace("spares_percent: {value: 10, source: s, date: 2025}\n", ""))
    before = design_cost(layout, book).capex.total
    switch = next(d.id for d in layout.devices() if d.model == "qm9700")
    for link in list(layout.links_of(switch)):
        layout.remove_link(link.id)
    layout.remove_device(switch)
    after = design_cost(layout, book)
    cables_before = 16 * 50 + 100 * (8 * 1 + 8 * 1.5)
    assert before - after.capex.total == pytest.approx(40000 + cables_before)


def test_an_unpriced_length_is_never_guessed():
    layout = load_layout(TWO_NODE)
    short = FULL.replace("dac-ndr: {per_m: 100, fixed: 50,",
                         "dac-ndr: {by_length: [{up_to_m: 1, price: 80}],")
    report = design_cost(layout, _book(short))
    missing = [line for line in report.capex.unpriced if line.model == "dac-ndr"]
    assert missing and all(line.length_m > 1 for line in missing)
    assert "longer than the book's longest" in missing[0].reason
    assert not report.complete


def test_running_cost_follows_the_stated_assumptions():
    layout = generate("dgx-b200")
    book = _book(FULL)
    base = design_cost(layout, book, Assumptions(years=4, kwh_price=0.1, pue=1.2,
                                                 utilisation=0.5))
    expected_kwh = base.it_w / 1000 * 0.5 * 1.2 * HOURS_PER_YEAR
    assert base.energy_kwh_per_year == pytest.approx(expected_kwh)
    dearer = design_cost(layout, book, Assumptions(years=4, kwh_price=0.2, pue=1.2,
                                                   utilisation=0.5))
    assert dearer.tco - base.tco == pytest.approx(4 * base.energy_per_year)
    assert base.tco == pytest.approx(base.capex.total + 4 * base.opex_per_year)
    assert base.usd_per_gpu_hour == pytest.approx(base.tco / (8 * 4 * HOURS_PER_YEAR))
    peak = design_cost(layout, book, Assumptions(power_basis="max"))
    assert peak.it_w >= design_cost(layout, book).it_w
    with pytest.raises(ValueError, match="utilisation"):
        Assumptions(utilisation=1.5)
    with pytest.raises(ValueError, match="PUE"):
        Assumptions(pue=0.5)


@pytest.mark.slow
def test_a_training_job_costs_days_dollars_and_energy(example_book):
    from rackdesigner.workload.jobfile import parse_job

    layout = generate("superpod", system="dgx-h100", sus=1)
    job = parse_job("model: llama3-8b\ngpus: 240\ntp: 2\ngbs: 480\n", "job.yaml")
    report = design_cost(layout, example_book, job=job, tokens=1e12)
    t = report.training
    assert t is not None and t.tokens_per_s and t.gpus == 240
    days = report.training.days()
    assert days == pytest.approx(1e12 / t.tokens_per_s / 86400)
    cost = report.cost_to_train()
    assert cost == pytest.approx(report.usd_per_gpu_hour * t.gpus * days * 24)
    assert report.tokens_per_usd() * cost == pytest.approx(1e12, rel=1e-9)
    assert report.energy_per_token_j() == pytest.approx(t.facility_w / t.tokens_per_s)
    data = report.to_json()
    assert {"time_to_train_days", "cost_to_train", "tokens_per_usd"} <= set(data)
    with pytest.raises(ValueError, match="tokens"):
        design_cost(layout, example_book, job=job)  # no tokens anywhere
