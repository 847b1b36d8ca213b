"""The Cost tab as a place to decide (#35): facility, PUE and renting, the capex chart in
money with its shares, the sensitivity tornado, the unpriced and derived lines readable at the
default dock size, and the user's price book remembered between sessions."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from designer_fixtures import cost_panel

PARTIAL = """\
schema_version: 1
currency: USD
date: 2025-01-01
sources: {s: {title: t}}
prices:
  gb200-nvl72: {price: 3000000, source: s, date: 2025, basis: derived, method: per GPU of a sibling}
"""


@pytest.fixture
def panel(qtbot, monkeypatch, tmp_path):
    return cost_panel(qtbot, monkeypatch, tmp_path, "gb200-nvl72.yaml")


def test_facility_pue_and_renting_are_shown(panel):
    tab = panel.cost_tab
    report = tab.report()
    text = tab.bill.text()
    assert "Facility: build, hybrid-cooled" in text  # NVL72: liquid plus the air-cooled rest
    assert f"PUE {report.assumptions.pue:.3g}: from the cooling mix" in text
    assert report.assumptions.pue < 1.3  # mostly liquid-cooled
    assert "Renting the same GPU-hours" in text and "breaks even after" in text


def test_capex_chart_is_in_money_with_shares(panel):
    tab = panel.cost_tab
    report = tab.report()
    heights = list(tab.bars.opts["height"])
    assert sum(heights) == pytest.approx(report.capex.total / 1e6, rel=1e-6)
    assert all(label.endswith("%") for label in tab.axis.labels)
    assert tab.axis.labels[0].startswith("compute")


def test_tornado_ranks_the_inputs_around_the_base(panel):
    tab = panel.cost_tab
    data = tab.tornado.current
    base = tab.report().usd_per_gpu_hour
    assert data.base == pytest.approx(base)
    assert len(tab.tornado.axis.labels) == 6
    # drawn largest swing on top (the last row of the plot)
    from rackdesigner.ui.panel.cost_more import SHORT

    assert tab.tornado.axis.labels[-1] == SHORT[data.rows[0].factor]
    lows = list(tab.tornado.low_bars.opts["x1"])
    highs = list(tab.tornado.high_bars.opts["x1"])
    assert any(v < base for v in lows) and any(v > base for v in highs)


def test_unpriced_and_derived_lines_are_readable_at_the_dock_size(panel, tmp_path):
    tab = panel.cost_tab
    book = tmp_path / "partial.yaml"
    book.write_text(PARTIAL)
    tab.use_book(str(book))
    tab.flush()
    rows = [tab.unpriced.topLevelItem(i) for i in range(tab.unpriced.topLevelItemCount())]
    assert rows and tab.unpriced.isVisible()
    whys = [r.text(3) for r in rows]
    assert any(w.startswith("no price") for w in whys)
    assert any(w.startswith("derived: per GPU of a sibling") for w in whys)
    # at the panel's size the list shows several rows, not a 2-row scroll box
    row_height = tab.unpriced.sizeHintForRow(0) or 18
    assert tab.unpriced.viewport().height() >= 4 * row_height


def test_the_chosen_price_book_is_remembered_between_sessions(qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings

    from rackdesigner.ui import MainWindow

    monkeypatch.delenv("RACKDESIGNER_PRICES", raising=False)
    book = tmp_path / "mine.yaml"
    book.write_text(PARTIAL)
    store = str(tmp_path / "settings.ini")
    first = MainWindow(settings=QSettings(store, QSettings.Format.IniFormat))
    qtbot.addWidget(first, before_close_func=lambda w: w.document.undo_stack.setClean())
    first.simulation_panel.cost_tab.use_book(str(book))
    first.settings.sync()
    second = MainWindow(settings=QSettings(store, QSettings.Format.IniFormat))
    qtbot.addWidget(second, before_close_func=lambda w: w.document.undo_stack.setClean())
    assert second.simulation_panel.cost_tab.live.book_path == str(book.resolve())
    second.simulation_panel.cost_tab.use_book(None)  # back to the default book: forgotten
    second.settings.sync()
    third = MainWindow(settings=QSettings(store, QSettings.Format.IniFormat))
    qtbot.addWidget(third, before_close_func=lambda w: w.document.undo_stack.setClean())
    assert third.simulation_panel.cost_tab.live.book_path is None


def test_the_facility_can_be_chosen_in_the_tab(panel):
    tab = panel.cost_tab
    built = tab.report()
    tab.facility_combo.setCurrentIndex(tab.facility_combo.findData("colocation"))
    tab.flush()
    colo = tab.report()
    assert colo.facility.basis == "colocation" and "Facility: colocation" in tab.bill.text()
    tab.facility_combo.setCurrentIndex(tab.facility_combo.findData("none"))
    tab.flush()
    assert tab.report().facility is None and "Facility" not in tab.bill.text()
    assert tab.report().tco < min(built.tco, colo.tco)  # a building only adds to the bill
