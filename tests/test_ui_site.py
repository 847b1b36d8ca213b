"""The site limits on real widgets: the dialog edits the new limits, keeps the power hierarchy,
and one edit is one undo step; the Cost tab and Racks view headline says the shares used."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from designer_fixtures import cost_panel

from rackdesigner.model import Site
from rackdesigner.model.items import PowerNode


@pytest.fixture
def panel(qtbot, monkeypatch, tmp_path):
    return cost_panel(qtbot, monkeypatch, tmp_path, "dgx-h100-2node-ib.yaml")


def test_the_site_dialog_sets_facility_and_loop_and_keeps_the_hierarchy(panel, qtbot):
    from rackdesigner.ui.panel.site_dialog import SiteDialog

    tab = panel.cost_tab
    layout = tab.live.layout
    tree = (PowerNode("feed-a", "feed", 1000),)
    layout.set_meta(site=Site(power=tree))
    dialog = SiteDialog(None, layout.meta.site)
    qtbot.addWidget(dialog)
    dialog.facility.setValue(10)
    dialog.liquid.setValue(5)
    dialog.positions.setValue(1)
    from rackdesigner.commands.history import run

    pushed = []
    panel.command_sink = lambda command: pushed.append(run(layout, command))
    tab.set_site(**dialog.values())
    site = layout.meta.site
    assert site.facility_power_kw == 10 and site.liquid_kw == 5 and site.rack_positions == 1
    assert site.power == tree and site.power_kw is None  # the hierarchy is kept
    assert len(pushed) == 1
    panel.flush()
    tab.flush()
    assert "of facility power (10 kW)" in tab.cooling.text()
    pushed[0].undo(layout)
    assert layout.meta.site == Site(power=tree)  # one undo step gives the site back
