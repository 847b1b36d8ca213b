"""Every generated reference design is fully priced by the bundled example book (#35)."""

from __future__ import annotations

import json

import pytest

from rackdesigner.cost import design_cost
from rackdesigner.cost.locate import example_book_path, read_price_book
from rackdesigner.generators import default_catalog, generate

REFERENCE_DESIGNS = [
    ("superpod", {"system": "dgx-a100", "sus": 1}),
    ("superpod", {"system": "dgx-h100", "sus": 4}),
    ("superpod", {"system": "dgx-h200", "sus": 1}),
    ("superpod", {"system": "dgx-b200", "sus": 1}),
    ("superpod", {"system": "dgx-b200", "sus": 1, "switch": "sn5600"}),
    ("superpod", {"system": "dgx-b200", "sus": 1, "switch": "q3400"}),
    ("superpod", {"system": "gb200-nvl72", "racks": 8}),
    ("superpod", {"system": "gb200-nvl72", "racks": 8, "switch": "q3400"}),
    ("superpod", {"system": "gb200-nvl72", "racks": 8, "switch": "sn5600"}),
    ("rail-optimized", {"system": "dgx-h200", "nodes": 32, "switch": "qm9700"}),
    ("rail-optimized", {"system": "dgx-b200", "nodes": 64, "switch": "qm9700",
                        "oversubscription": 2}),
    ("fat-tree", {"switch": "qm9700", "levels": 2}),
    ("fat-tree", {"switch": "qm8700", "levels": 2}),
    ("single-leaf", {"system": "dgx-h100", "nodes": 4, "switch": "qm9700"}),
    ("nvl72", {}),
    ("dgx-h200", {}),
]


@pytest.fixture(scope="module")
def book():
    return read_price_book(example_book_path(), default_catalog())


@pytest.mark.parametrize(("template", "options"), REFERENCE_DESIGNS,
                         ids=[f"{t}-{'-'.join(map(str, o.values()))}" for t, o in
                              REFERENCE_DESIGNS])
def test_reference_design_is_completely_priced(book, template, options):
    layout = generate(template, default_catalog(), **options)
    report = json.loads(json.dumps(design_cost(layout, book).to_json()))
    assert report["complete"] is True, report["unpriced"]
    assert report["unpriced_items"] == 0
    assert "without a price" not in report["headline"]
    assert report["capex"] > 0


def test_generators_give_every_network_link_a_cable():
    """The 800G switch-to-switch links of Q3400 and SN5600 fabrics used to have no cable."""
    from rackdesigner.bom import UNSPECIFIED, bill_of_materials

    for switch in ("q3400", "sn5600"):
        layout = generate("superpod", default_catalog(), system="gb200-nvl72", racks=8,
                          switch=switch)
        bom = bill_of_materials(layout)
        assert UNSPECIFIED not in {c.type for c in bom.cables}
        assert "fiber-sm-xdr" in {c.type for c in bom.cables}
    xdr = generate("superpod", default_catalog(), system="gb200-nvl72", racks=8, switch="q3400")
    optics = {t.model for t in bill_of_materials(xdr).transceivers}
    assert "osfp-1.6t-2xdr4" in optics  # XDR twin-port cages take 1.6T transceivers


def test_every_bundled_price_has_source_date_and_basis(book):
    entries = [*book.prices.values(), *book.cloud.values()]
    f = book.facility
    entries += [p for p in (f.build_air, f.build_liquid, f.colocation) if p is not None]
    for price in entries:
        assert price.source in book.sources, price.item
        assert price.date, price.item
        assert price.basis, price.item
        if price.basis == "derived":
            assert price.method.strip(), price.item


def test_headline_says_how_much_is_derived(book):
    layout = generate("superpod", default_catalog(), system="dgx-h200", sus=1)
    report = design_cost(layout, book)
    # the DGX H200 itself is derived: most of this design's money rests on derived prices
    assert report.derived_share > 0.5
    assert "of it derived" in report.headline()
    whole = report.to_json()
    assert whole["derived_share"] == pytest.approx(report.derived_share, abs=1e-4)
    assert whole["derived_capex"] <= whole["capex"]
