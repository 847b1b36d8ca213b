"""The live panel's Cost tab on real widgets: headline and tiles, breakdown chart, unpriced
list, baseline deltas, the price book menu, embedding a book and site limits as undoable edits,
and a bad book said without touching the design."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from designer_fixtures import cost_panel

GOOD = """\
schema_version: 1
currency: EUR
date: 2025-01-01
sources: {s: {title: t}}
prices:
  dgx-h100: {price: 300000, source: s, date: 2025}
  qm9700: {price: 40000, source: s, date: 2025}
  rack-42u: {price: 2000, source: s, date: 2025}
  dac-ndr: {per_m: 100, source: s, date: 2025}
"""


PARTIAL = """\
schema_version: 1
currency: USD
date: 2025-01-01
sources: {s: {title: t}}
prices:
  dgx-h100: {price: 270000, source: s, date: 2025}
  qm9700: {price: 36000, source: s, date: 2025}
"""


@pytest.fixture
def panel(qtbot, monkeypatch, tmp_path):
    return cost_panel(qtbot, monkeypatch, tmp_path, "dgx-h100-2node-ib.yaml")


def _flush(panel):
    panel.flush()
    panel.cost_tab.flush()


@pytest.mark.slow
def test_the_cost_tab_shows_capex_what_is_unpriced_and_where_the_money_goes(panel, tmp_path):
    tab = panel.cost_tab
    # the example book prices every part (#35) and says how much of it is derived
    assert "Capex $577,760, under 1 % of it derived" in tab.summary.text()
    assert "example" in tab.book_label.text()
    rows = [tab.unpriced.topLevelItem(i) for i in range(tab.unpriced.topLevelItemCount())]
    assert rows and all(r.text(3).startswith("derived: ") for r in rows)  # only derived ones
    book = tmp_path / "partial.yaml"
    book.write_text(PARTIAL)  # no racks, no cables: a lower bound
    tab.use_book(str(book))
    tab.flush()
    assert "Capex ≥ $576,000, 17 items without a price" in tab.summary.text()
    assert "per GPU-hour" in tab.summary.text()
    models = {tab.unpriced.topLevelItem(i).text(1) for i in range(tab.unpriced.topLevelItemCount())}
    assert {"rack-42u", "dac-ndr 1 m", "dac-ndr 1.5 m"} <= models
    bars = dict(tab.breakdown())
    assert set(bars) == {"compute", "network"} and bars["compute"] == 540000
    assert len(tab.bars.opts["height"]) == 2
    assert "kW to air" in tab.cooling.text()
    assert panel.headline.text_of("capex") == "≥ $576,000"  # beside the bandwidth tiles
    tab.view_combo.setCurrentIndex(1)  # by kind
    assert dict(tab.breakdown()) == {"system": 540000, "switch": 36000}


@pytest.mark.slow
def test_a_pinned_baseline_shows_the_cost_change(panel, qtbot):
    from rackdesigner.commands import RemoveItems

    assert panel.pin_baseline()
    layout = panel.live.layout
    RemoveItems(groups=("dgx-2",)).apply(layout)
    _flush(panel)
    text = panel.cost_tab.summary.text()
    assert "−$270,448 (−47 %) vs baseline" in text
    tile = panel.headline.tiles["capex"]
    assert tile.delta.isVisible() and tile.delta.text().startswith("−47%")


@pytest.mark.slow
def test_a_price_book_file_is_used_and_a_bad_one_is_said(panel, tmp_path):
    tab = panel.cost_tab
    book = tmp_path / "book.yaml"
    book.write_text(GOOD)
    tab.use_book(str(book))
    tab.flush()
    assert "€" in tab.summary.text() and "items without a price" not in tab.summary.text()
    assert not tab.unpriced.isVisible() and not tab.error.isVisible()
    bad = tmp_path / "bad.yaml"
    bad.write_text(GOOD.replace("price: 40000", "price: -1"))
    before = panel.live.layout.state
    tab.use_book(str(bad))
    tab.flush()
    assert tab.error.isVisible() and f"{bad}:7: prices.qm9700.price: must not be negative" \
        in tab.error.text()
    assert panel.live.layout.state is before  # nothing changed
    assert panel.headline.text_of("capex") == "—"  # no figure rather than a stale one
    tab.use_book(None)
    tab.flush()
    assert not tab.error.isVisible() and "example" in tab.book_label.text()


@pytest.mark.slow
def test_embedding_a_book_and_site_limits_are_undoable_design_edits(panel, tmp_path):
    from rackdesigner.commands.history import run
    from rackdesigner.cost.locate import EMBED_KEY
    from rackdesigner.model import Site

    pushed = []

    def sink(command):  # what the window's Document.push does, minus the Qt undo stack
        pushed.append(run(panel.live.layout, command))

    panel.command_sink = sink
    tab = panel.cost_tab
    layout = panel.live.layout
    book = tmp_path / "book.yaml"
    book.write_text(GOOD)
    assert tab.embed_book(book)
    assert EMBED_KEY in dict(layout.meta.extra) and len(pushed) == 1
    tab.flush()
    assert "embedded in the design" in tab.book_label.text()
    pushed[0].undo(layout)
    assert EMBED_KEY not in dict(layout.meta.extra)
    bad = tmp_path / "bad.yaml"
    bad.write_text(GOOD.replace("currency: EUR", "currency: EURO"))
    assert not tab.embed_book(bad) and len(pushed) == 1  # refused, nothing pushed
    tab.set_site(10, None)
    assert layout.meta.site == Site(10, None) and len(pushed) == 2
    _flush(panel)
    assert "uses 221 % of the site's 10 kW" in tab.cooling.text()
    pushed[1].undo(layout)
    assert layout.meta.site == Site()


@pytest.mark.slow
def test_assumptions_move_the_running_cost(panel):
    tab = panel.cost_tab
    before = tab.report().tco
    tab.kwh_spin.setValue(0.2)
    tab.flush()
    assert tab.report().tco > before
    assert tab.report().assumptions.kwh_price == 0.2
    panel.pue_spin.setValue(1.5)
    tab.flush()
    assert tab.report().assumptions.pue == 1.5


@pytest.mark.slow
def test_a_large_design_is_priced_when_the_tab_is_shown(panel, monkeypatch):
    from rackdesigner.commands import RemoveItems
    from rackdesigner.ui.panel import cost_tab

    monkeypatch.setattr(cost_tab, "LAZY_DEVICES", 10)  # this design counts as large
    panel.show_tab("bandwidth")
    tab = panel.cost_tab
    runs = tab.live.job.runs
    RemoveItems(groups=("dgx-2",)).apply(panel.live.layout)
    panel.flush()
    assert tab.stale and tab.live.job.runs == runs  # nothing priced while hidden
    assert panel.headline.text_of("capex") == "—"  # no stale figure
    panel.show_tab("cost")
    tab.flush()
    assert not tab.stale and "Capex $307,312" in tab.summary.text()
