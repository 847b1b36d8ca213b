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
    # the full reference architectures: storage appliances and out-of-band switches priced
    ("superpod", {"system": "dgx-a100", "sus": 1, "fabrics": "compute,storage,oob"}),
    ("superpod", {"system": "dgx-h100", "sus": 4, "fabrics": "compute,storage,oob"}),
    ("superpod", {"system": "dgx-h200", "sus": 1, "fabrics": "compute,storage,oob"}),
    ("superpod", {"system": "dgx-b200", "sus": 1, "fabrics": "compute,storage,oob"}),
    ("superpod", {"system": "gb200-nvl72", "racks": 8, "fabrics": "compute,storage"}),
    ("superpod", {"system": "gb200-nvl72", "racks": 8, "fabrics": "compute,storage,oob"}),
    ("nvl72", {"fabrics": "oob"}),
    # liquid racks with their CDUs, in-rack and in-row
    ("nvl72", {"cdus": 1}),
    ("mixed", {"systems": "gb200-nvl72:8", "cdus": 1, "cdu": "vertiv-xdu1350"}),
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


@pytest.mark.parametrize("cdu", ["supermicro-inrack-cdu", "vertiv-xdu1350"])
def test_a_cdu_is_counted_once_with_a_built_hall(book, cdu):
    """A built liquid-cooled hall's premium pays for its CDUs: pricing the CDUs in the bill
    lowers the building by as much (never below the air-cooled hall), so the total capex with
    the building stays what it was without CDUs, while colocation (no building) gains them."""
    from rackdesigner.cost import Assumptions

    bare = generate("nvl72", default_catalog())
    cooled = generate("nvl72", default_catalog(), cdus=1, cdu=cdu)
    built = [design_cost(x, book, Assumptions(facility="build")) for x in (bare, cooled)]
    cdus = sum(line.total for line in built[1].capex.lines if line.model == cdu)
    assert cdus > 0
    air_hall = built[0].facility.it_kw * book.facility.build_air.unit / 1000
    premium = built[0].facility.capex - air_hall
    assert built[1].facility.cdus_deducted == pytest.approx(min(cdus, premium))
    assert "less the CDUs in the bill" in built[1].facility.describe()  # the text says so
    assert "less the CDUs" not in built[0].facility.describe()
    whole = [r.capex.total + r.facility.capex for r in built]
    assert whole[1] >= whole[0] - 1e-6  # never cheaper for adding a part
    assert whole[1] - whole[0] <= cdus * 1.2  # spares on the CDU only, not the CDU twice
    rented = [design_cost(x, book, Assumptions(facility="colocation")) for x in (bare, cooled)]
    assert rented[1].capex.total > rented[0].capex.total + cdus * 0.99
