"""Cooling in the designer: an undersized CDU, an air-cooled rack over its air limit and a
design over its site power are flagged in the Racks view (rack marks, heat bars, the site line)
and listed in Problems; the floor plan shows each rack's liquid/air split."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")
pytestmark = pytest.mark.slow  # window-level GUI


def _window(qtbot, tmp_path, layout):
    from PySide6.QtCore import QSettings

    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(catalog=layout.catalog, settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window._set_document(layout, None)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    window.views.setCurrentWidget(window.racks_panel)
    window.racks_panel.flush()
    return window


def _codes(window):
    return {f.code for f in window.problems.findings}


def test_an_undersized_cdu_and_a_design_over_its_site_power_are_flagged(qtbot, tmp_path):
    from rackdesigner.generators import generate
    from rackdesigner.model import Device, Site

    layout = generate("superpod", system="gb200-nvl72", racks=2)
    racks = [d.id for d in layout.devices() if d.model == "rack-48u"]
    layout.add_device(Device("cdu-1", "supermicro-inrack-cdu",
                             props=(("serves", tuple(racks)),)))
    layout.set_meta(site=Site(power_kw=100))
    window = _window(qtbot, tmp_path, layout)
    panel = window.racks_panel
    for rack in racks:
        item = panel.scene.item_for_rack[rack]
        assert item.problems and "cdu-capacity" in panel.scene.rack_codes[rack]
        assert item.heat.liquid_w > 90_000 and item.heat.air_w > 10_000
    label = panel.site_label
    assert label.isVisible() and "c62828" in label.styleSheet()
    assert "CDUs over capacity: cdu-1" in label.text()
    assert "of the site's 100 kW" in label.text()
    image = panel.grab()  # the heat bars paint
    assert not image.isNull()
    qtbot.waitUntil(lambda: {"cdu-capacity", "site-power"} <= _codes(window), timeout=10_000)
    panel.tabs.setCurrentWidget(panel.floor_view)
    panel.floor_scene.rebuild()
    floor = panel.floor_scene.item_for_rack[racks[0]]
    assert floor.heat is not None and floor.heat.liquid_w > 90_000
    assert "kW liquid" in floor.toolTip()


def test_an_air_cooled_rack_over_its_air_limit_is_marked(qtbot, tmp_path):
    from rackdesigner.generators import generate
    from rackdesigner.model.cooling import AIR_PROP

    layout = generate("dgx-b200")
    rack = next(d.id for d in layout.devices() if d.model == "rack-42u")
    layout.update_device(rack, props=((AIR_PROP, 10_000),))
    window = _window(qtbot, tmp_path, layout)
    panel = window.racks_panel
    item = panel.scene.item_for_rack[rack]
    assert item.problems and item.heat.over_air_limit
    assert "rack-air-limit" in panel.scene.rack_codes[rack]
    assert "OVER" in item.toolTip() and "set on the rack" in item.toolTip()
    assert f"over their air limit: {rack}" in panel.site_label.text()
    qtbot.waitUntil(lambda: "rack-air-limit" in _codes(window), timeout=10_000)
