"""Kinds added through the vocabulary registry and catalog data alone, in the designer: each
has its Palette section (with its own figures) and, when it takes rack units, its unit in the
Racks view coloured by its kind."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings

from rackdesigner.catalog import default_catalog
from rackdesigner.model import Device, Layout
from rackdesigner.ui import style
from rackdesigner.ui.palette import FIGURES_ROLE, MODEL_ROLE, PaletteWidget
from rackdesigner.ui.racks.items import role_color


def _palette_items(palette: PaletteWidget) -> dict[str, tuple[str, str]]:
    out = {}
    for i in range(palette.tree.topLevelItemCount()):
        header = palette.tree.topLevelItem(i)
        for j in range(header.childCount()):
            child = header.child(j)
            out[child.data(0, MODEL_ROLE)] = (header.text(0), child.data(0, FIGURES_ROLE))
    return out


def test_new_kinds_have_their_palette_sections_and_figures(qtbot):
    palette = PaletteWidget(default_catalog())
    qtbot.addWidget(palette)
    items = _palette_items(palette)
    assert items["sn2201"][0] == "Management"
    assert items["ai400x2"][0] == "Storage" and "90 GB/s read" in items["ai400x2"][1]
    assert items["ap8886"][0] == "Power & cooling" and "22 kW" in items["ap8886"][1]
    cdu = items["supermicro-inrack-cdu"]
    assert cdu[0] == "Power & cooling" and "100 kW cooling" in cdu[1] and "4U" in cdu[1]
    qtbot.keyClicks(palette.search, "cooling")
    assert "supermicro-inrack-cdu" in palette.entries()


@pytest.mark.slow
def test_new_kinds_are_units_of_the_racks_view(qtbot, tmp_path):
    from rackdesigner.ui import MainWindow

    layout = Layout(default_catalog())
    layout.add_device(Device("rack-1", "rack-42u", "Rack A"))
    layout.add_device(Device("oob-1", "sn2201", rack="rack-1", u=42))
    layout.add_device(Device("store-1", "ai400x2", rack="rack-1", u=20))
    layout.add_device(Device("cdu-1", "supermicro-inrack-cdu", rack="rack-1", u=1))
    layout.add_device(Device("pdu-1", "ap8886", rack="rack-1"))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(catalog=layout.catalog, settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window._set_document(layout, None)
    window.show()
    qtbot.waitExposed(window)
    window.views.setCurrentWidget(window.racks_panel)
    panel = window.racks_panel
    panel.flush()
    for unit in ("oob-1", "store-1", "cdu-1"):
        assert unit in panel.scene.item_for_unit
    assert "pdu-1" not in panel.scene.item_for_unit  # zero-U: no slot of its own
    assert role_color("cdu") == style.KIND_COLORS["cdu"] != style.UNKNOWN_COLOR
