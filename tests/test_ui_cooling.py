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


def test_the_inspector_sets_an_air_limit_and_the_racks_a_cdu_serves(qtbot, tmp_path):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from rackdesigner.generators import generate
    from rackdesigner.model import Device
    from rackdesigner.model.cooling import AIR_PROP, SERVES_PROP

    layout = generate("nvl72")
    rack = next(d.id for d in layout.devices() if d.model == "rack-48u")
    layout.add_device(Device("cdu-1", "supermicro-inrack-cdu"))
    window = _window(qtbot, tmp_path, layout)
    window.views.setCurrentWidget(window.view)  # select on the canvas, as a user would
    rows = window.inspector.cooling_rows
    form = window.inspector.device_form
    window.editor.select_ids(["cdu-1"])
    qtbot.waitUntil(lambda: form.isRowVisible(rows.serves), timeout=5000)
    assert not form.isRowVisible(rows.air)
    rows.serves.setFocus()
    QTest.keyClicks(rows.serves, f"{rack}, rack-99")
    QTest.keyClick(rows.serves, Qt.Key.Key_Return)
    assert form.isRowVisible(rows.error) and "rack-99: no such rack" in rows.error.text()
    assert SERVES_PROP not in dict(layout.device("cdu-1").props)  # refused, nothing changed
    name = layout.device(rack).name
    assert name and name != rack
    rows.serves.setText(name)  # by the name the screen shows
    rows.serves.setModified(True)
    QTest.keyClick(rows.serves, Qt.Key.Key_Return)
    assert dict(layout.device("cdu-1").props)[SERVES_PROP] == (rack,)
    assert not form.isRowVisible(rows.error)
    window.inspector.show_selection(["cdu-1"], [], [])
    qtbot.waitUntil(lambda: rows.serves.text() == f"{name} ({rack})", timeout=5000)
    # the NVL72's rack is drawn inside its collapsed system on the canvas: show it directly
    window.inspector.show_selection([rack], [], [])
    qtbot.waitUntil(lambda: form.isRowVisible(rows.air), timeout=5000)
    assert "none stated" in rows.air.specialValueText()
    rows.air.setValue(15.0)
    assert dict(layout.device(rack).props)[AIR_PROP] == 15000
    qtbot.waitUntil(lambda: "rack-air-limit" in _codes(window), timeout=10_000)
    stack = window.document.undo_stack
    stack.undo()
    assert AIR_PROP not in dict(layout.device(rack).props)


def test_the_inspector_sets_the_rack_a_rear_door_serves_and_its_air_heat_falls(qtbot, tmp_path):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from rackdesigner.generators import generate
    from rackdesigner.model import Device
    from rackdesigner.model.cooling import SERVES_PROP, cooling_report

    layout = generate("dgx-b200")
    rack = next(d.id for d in layout.devices() if layout.catalog.get(d.model).rack is not None)
    layout.add_device(Device("rdhx-1", "ibm-rdhx"))
    before = cooling_report(layout).racks[rack].air_w
    window = _window(qtbot, tmp_path, layout)
    rows = window.inspector.cooling_rows
    form = window.inspector.device_form
    window.inspector.show_selection(["rdhx-1"], [], [])
    qtbot.waitUntil(lambda: form.isRowVisible(rows.serves), timeout=5000)
    assert "rear door" in rows.serves.toolTip() and "17.6 kW" in rows.serves.toolTip()
    rows.serves.setFocus()
    QTest.keyClicks(rows.serves, rack)
    QTest.keyClick(rows.serves, Qt.Key.Key_Return)
    assert dict(layout.device("rdhx-1").props)[SERVES_PROP] == (rack,)
    assert cooling_report(layout).racks[rack].air_w < before
    assert "serves-not-cdu" not in _codes(window)
    window.document.undo_stack.undo()  # one edit, one undo step
    assert SERVES_PROP not in dict(layout.device("rdhx-1").props)


def test_edit_gives_every_liquid_rack_its_cdu_in_one_undo_step(qtbot, tmp_path):
    from rackdesigner.generators import generate
    from rackdesigner.model.cooling import cooling_report

    layout = generate("mixed", systems="gb200-nvl72:2,dgx-b200:2")
    window = _window(qtbot, tmp_path, layout)
    layout = window.document.layout
    unserved = cooling_report(layout).unserved
    assert len(unserved) == 2  # the NVL72 racks; the DGX racks are air-cooled
    qtbot.waitUntil(lambda: "rack-no-cdu" in _codes(window), timeout=10_000)  # from the start
    stack = window.document.undo_stack
    before = stack.count()
    window.actions_.give_cdus_action.trigger()
    assert stack.count() == before + 1
    report = cooling_report(layout)
    assert report.unserved == () and not report.cdus_over_capacity
    assert {r for c in report.cdus for r in c.serves} == set(unserved)
    qtbot.waitUntil(lambda: "rack-no-cdu" not in _codes(window), timeout=10_000)
    stack.undo()
    assert cooling_report(layout).unserved == unserved


def test_the_racks_view_says_the_loop_and_the_feed_and_marks_an_over_pdu(qtbot, tmp_path):
    from rackdesigner.generators import generate
    from rackdesigner.model import Site
    from rackdesigner.model.cooling import cooling_report
    from rackdesigner.model.items import PowerNode

    layout = generate("superpod", system="gb200-nvl72", racks=2)
    racks = [d.id for d in layout.devices() if d.model == "rack-48u"]
    others = [d.id for d in layout.devices()
              if layout.catalog.get(d.model).rack is not None and d.id not in racks]
    use = cooling_report(layout).site
    tree = (PowerNode("feed-a", "feed", 10_000),
            PowerNode("pdu-1", "pdu", 50, parent="feed-a", racks=tuple(racks)),
            PowerNode("pdu-2", "pdu", 1_000, parent="feed-a", racks=tuple(others)))
    layout.set_meta(site=Site(liquid_kw=use.liquid_w / 1000 / 2,
                              facility_power_kw=use.facility_w / 1000 * 2, power=tree))
    window = _window(qtbot, tmp_path, layout)
    panel = window.racks_panel
    for rack in racks:  # the PDU over its capacity marks the racks it feeds
        assert "site-power-node" in panel.scene.rack_codes[rack]
    text = panel.site_label.text()
    assert "liquid loop" in text and "c62828" in panel.site_label.styleSheet()
    qtbot.waitUntil(lambda: {"site-liquid", "site-power-node"} <= _codes(window),
                    timeout=10_000)
    assert "site-facility-power" not in _codes(window)
