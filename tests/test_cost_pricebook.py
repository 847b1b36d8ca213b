"""Price book: format, located errors, warnings, where the book comes from, the example book."""

from __future__ import annotations

import os
import textwrap

import pytest

from rackdesigner.cost import PriceBookError, parse_price_book, read_price_book
from rackdesigner.cost.locate import ENV, example_book_path, find_price_book, with_embedded
from rackdesigner.generators import generate

GOOD = """\
schema_version: 1
name: test book
currency: USD
date: 2025-03-01
sources:
  q: {title: Quote 114}
prices:
  dgx-h100: {price: 300000, source: q, date: 2025-02-10, basis: quote}
  fiber-mm-ndr: {per_m: 2.5, fixed: 40, source: q, date: 2025-02}
  dac-ndr:
    by_length: [{up_to_m: 1, price: 100}, {up_to_m: 2, price: 130}]
    source: q
    date: 2025
installation_per_rack: {price: 6000, source: q, date: 2025-02-10}
support_percent_per_year: {value: 12, source: q, date: 2025-02-10}
spares_percent: {value: 3, source: q, date: 2025-02-10}
"""


def book(text: str = GOOD, **kw):
    return parse_price_book(textwrap.dedent(text), "book.yaml", **kw)


def test_a_good_book_reads_every_form_of_price():
    b = book()
    assert (b.currency, b.date, b.name) == ("USD", "2025-03-01", "test book")
    assert b.price("dgx-h100").for_length(None) == 300000
    assert b.price("fiber-mm-ndr").for_length(10) == pytest.approx(65.0)
    assert b.price("fiber-mm-ndr").for_length(None) is None  # length needed, not known
    dac = b.price("dac-ndr")
    assert (dac.for_length(0.5), dac.for_length(1), dac.for_length(1.5)) == (100, 100, 130)
    assert dac.for_length(3) is None  # beyond the longest bucket: never guessed
    assert b.installation_per_rack.unit == 6000
    assert (b.support_percent_per_year.value, b.spares_percent.value) == (12, 3)


@pytest.mark.parametrize("change, line, words", [
    ("price: 300000", 8, "must not be negative"),
    ("price: 300000", 8, "expected a number"),
    ("price: 300000", 8, "finite"),
    ("date: 2025-02-10, basis: quote", 8, "basis: expected one of"),
    ("source: q, date: 2025-02-10, basis", 8, "not defined under 'sources'"),
    ("currency: USD", 3, "unknown currency"),
    ("price: 300000", 8, "priced in EUR but the book is in USD"),
    ("value: 12", 15, "at most 100"),
])
def test_bad_values_are_located(change, line, words):
    replacement = {
        "must not be negative": "price: -5",
        "expected a number": "price: lots",
        "finite": "price: .inf",
        "basis: expected one of": "date: 2025-02-10, basis: rumour",
        "not defined under 'sources'": "source: qq, date: 2025-02-10, basis",
        "unknown currency": "currency: USB",
        "priced in EUR but the book is in USD": "price: 300000, currency: EUR",
        "at most 100": "value: 120",
    }[words]
    text = GOOD.replace(change, replacement, 1)
    with pytest.raises(PriceBookError) as err:
        book(text)
    message = str(err.value)
    assert message.startswith(f"book.yaml:{line}:"), message
    assert words in message


@pytest.mark.parametrize("text, words", [
    ("", "empty"),
    ("[1, 2]", "expected a mapping"),
    ("schema_version: 1\ncurrency: USD\ndate: 2025-01-01\n", "missing 'prices'"),
    ("schema_version: 9\ncurrency: USD\ndate: 2025-01-01\nprices: {}\n", "newer RackDesigner"),
    (GOOD.replace("  dgx-h100: {price: 300000, source: q, date: 2025-02-10, basis: quote}\n",
                  "  dgx-h100: {price: 300000, date: 2025-02-10}\n"), "missing 'source'"),
    (GOOD.replace("name: test book", "nmae: test book"), "did you mean 'name'"),
    (GOOD.replace("per_m: 2.5, fixed: 40", "per_m: 2.5, price: 40"), "one of 'price'"),
    ("schema_version: 1\ncurrency: USD\ndate: 2025-01-01\nsources: &s {a: {title: t}}\n"
     "prices: {x: {price: 1, source: a, date: 2025}}\nnote: *s\n", "anchors and aliases"),
    ("schema_version: 1\ncurrency: USD\ndate: 2025-01-01\nprices: " + "[" * 100 + "]" * 100,
     "nested more than 32 levels"),
    ("schema_version: 1\ncurrency: USD\ndate: someday\nprices: {}\n", "expected a date"),
    ("a: [\n", "expected a YAML price book"),
])
def test_bad_books_are_refused_with_a_reason(text, words):
    with pytest.raises(PriceBookError) as err:
        book(text)
    assert words in str(err.value)


def test_an_id_not_in_the_catalog_is_a_warning_not_an_error(catalog):
    text = GOOD.replace("dgx-h100:", "dgx-h10:")
    b = book(text, known=catalog.__contains__, suggest=catalog.ids())
    assert len(b.warnings) == 1
    assert "book.yaml:8: prices.dgx-h10: no catalog model" in b.warnings[0]
    assert "did you mean 'dgx-h100'" in b.warnings[0]


def test_the_file_reader_refuses_what_is_not_a_regular_small_file(tmp_path):
    with pytest.raises(PriceBookError, match="is a folder"):
        read_price_book(tmp_path)
    with pytest.raises(PriceBookError, match="no such file"):
        read_price_book(tmp_path / "missing.yaml")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(PriceBookError, match="not a price book"):
        read_price_book(fifo)  # refused at once, never waited on
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * (3 * 2**20))
    with pytest.raises(PriceBookError, match="too large"):
        read_price_book(big)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"name: caf\xe9\n")
    with pytest.raises(PriceBookError, match="not UTF-8"):
        read_price_book(latin)


def test_the_example_book_cites_every_price(catalog):
    b = read_price_book(example_book_path(), catalog)
    assert b.example and b.currency == "USD" and not b.warnings
    assert b.prices, "the example book prices something"
    for price in b.prices.values():
        assert price.source in b.sources and price.date and price.basis, price.item
        assert b.sources[price.source].url.startswith("https://")
    for extra in (b.support_percent_per_year, b.spares_percent):
        if extra is not None:
            assert extra.source in b.sources and extra.date


def test_the_example_book_prices_a_superpods_network_and_says_what_it_derived(catalog):
    from rackdesigner.cost.capex import price_design

    b = read_price_book(example_book_path(), catalog)
    for price in b.prices.values():  # a derivation always spells out its method
        assert price.basis != "derived" or price.method, price.item
        assert price.basis != "estimate", price.item
    layout = generate("superpod", system="dgx-h100", sus=1)
    capex = price_design(layout, b)
    assert not capex.unpriced  # every part of a reference SuperPOD has a price (#35)
    optics = [line for line in capex.lines if line.kind == "transceiver"]
    assert optics and all(line.priced for line in optics)
    # the network's money is its switches, the NICs bought on their own and the optics
    assert capex.by_category()["network"] == pytest.approx(sum(
        line.total for line in capex.lines
        if line.kind in ("switch", "nic", "transceiver", "cable")))
    assert sum(line.total for line in optics) > 0.2 * capex.by_category()["network"]


def test_where_the_book_comes_from(tmp_path, monkeypatch):
    layout = generate("dgx-h100")
    mine = tmp_path / "mine.yaml"
    mine.write_text(GOOD)
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "nodata"))
    assert find_price_book(layout).example  # nothing set: the bundled example
    embedded = tmp_path / "embedded.yaml"
    embedded.write_text(GOOD.replace("test book", "embedded book"))
    layout.set_meta(**{"extra": with_embedded(layout.meta, embedded).extra})
    assert find_price_book(layout).name == "embedded book"
    data = tmp_path / "data" / "rackdesigner"
    data.mkdir(parents=True)
    (data / "prices.yaml").write_text(GOOD.replace("test book", "data book"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert find_price_book(layout).name == "data book"
    monkeypatch.setenv(ENV, str(mine))
    assert find_price_book(layout).name == "test book"
    other = tmp_path / "other.yaml"
    other.write_text(GOOD.replace("test book", "flag book"))
    found = find_price_book(layout, other)  # the Cost tab's pick: the design's words
    assert found.name == "flag book" and found.origin == f"file {other}"
    assert find_price_book(layout, other, chosen_as="--prices x").origin == "--prices x"


def test_an_embedded_book_travels_with_the_file_and_its_errors_are_located(tmp_path):
    from rackdesigner.io import load_layout, save_layout

    layout = generate("dgx-h100")
    src = tmp_path / "book.yaml"
    src.write_text(GOOD)
    layout.set_meta(extra=with_embedded(layout.meta, src).extra)
    path = tmp_path / "design.yaml"
    save_layout(layout, path)
    text = path.read_text()
    assert "x-rackdesigner-prices:\n  currency: USD\n" in text  # a block: diffs well
    again = load_layout(path)
    save_layout(again, tmp_path / "again.yaml")
    assert (tmp_path / "again.yaml").read_text() == text  # deterministic
    assert find_price_book(again, None).name == "test book" or os.environ.get(ENV)
    broken = text.replace("price: 300000", "price: -1")
    path.write_text(broken)
    bad = load_layout(path)
    from rackdesigner.cost.locate import embedded_book

    with pytest.raises(PriceBookError) as err:
        embedded_book(bad)
    line = next(n for n, t in enumerate(broken.splitlines(), 1) if "price: -1" in t)
    assert str(err.value).startswith(f"{path}:{line}:"), str(err.value)
    assert "must not be negative" in str(err.value)


def test_embedding_refuses_a_bad_book_and_changes_nothing(tmp_path):
    layout = generate("dgx-h100")
    before = layout.meta
    bad = tmp_path / "bad.yaml"
    bad.write_text(GOOD.replace("price: 300000", "price: -3"))
    with pytest.raises(PriceBookError):
        with_embedded(layout.meta, bad)
    assert layout.meta == before
