"""Issue 26 item 8: the smaller things a new user hit in the first days."""

from __future__ import annotations

import pytest
from designer_fixtures import make_window, small_layout
from PySide6.QtCore import QSettings, Qt


def test_counts_say_one_device_not_one_devices():
    from rackdesigner.ui.canvas.cells import BlockStats, count

    assert count(1, "device") == "1 device" and count(2, "device") == "2 devices"
    assert count(1, "switch", "switches") == "1 switch"
    assert count(3, "switch", "switches") == "3 switches"
    assert count(1200, "GPU") == "1,200 GPUs"
    assert BlockStats(devices=1).text() == "1 device"
    assert BlockStats(devices=9, gpus=1).text() == "1 GPU · 9 devices"


def test_the_palette_is_never_left_a_sliver(qtbot, tmp_path):
    from rackdesigner.ui.palette import MIN_WIDTH

    window = make_window(qtbot, tmp_path, small_layout())
    window.resize(700, 500)  # a window made small
    window.resizeDocks([window.palette_dock], [40], Qt.Orientation.Horizontal)
    qtbot.wait(20)
    assert window.palette.width() >= MIN_WIDTH
    window.close()
    # the next start restores the saved state: still readable
    from designer_fixtures import make_catalog
    from PySide6.QtWidgets import QApplication

    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    again = MainWindow(catalog=make_catalog(), settings=settings)
    qtbot.addWidget(again, before_close_func=lambda w: w.document.undo_stack.setClean())
    again.show()
    qtbot.waitExposed(again)
    QApplication.processEvents()
    assert again.palette.width() >= MIN_WIDTH


def test_heat_table_first_columns_are_not_cut(qtbot, tmp_path):
    from rackdesigner.analysis.heat import heat_map
    from rackdesigner.generators import generate

    layout = generate("superpod", system="dgx-h100", sus=1)
    window = make_window(qtbot, tmp_path, show=False)
    tab = window.simulation_panel.heat_tab
    tab.resize(300, 400)
    heat = heat_map(layout, "all_to_all", 1 << 28)
    tab.enabled_check.setChecked(True)
    tab.show_heat(heat)
    table = tab.table
    metrics = table.fontMetrics()
    for column in (0, 1):
        widest = max(metrics.horizontalAdvance(table.topLevelItem(i).text(column))
                     for i in range(table.topLevelItemCount()))
        assert table.columnWidth(column) >= widest


def test_ctrl_shift_drag_wires_where_alt_drag_is_the_window_managers(qtbot, tmp_path):
    from designer_fixtures import drag

    window = make_window(qtbot, tmp_path, small_layout())
    layout = window.document.layout
    links = layout.link_count()
    gpu = window.scene.item_for_device["gpu-2"].sceneBoundingRect()
    nvsw = window.scene.item_for_device["nvsw-1"].sceneBoundingRect()
    # from the device's title (not a port row), as Alt+drag does
    start = (gpu.center().x(), gpu.top() + 8)
    drag(window.view, start, (nvsw.center().x(), nvsw.center().y()),
         Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert layout.link_count() == links + 1
    new = layout.links_of("gpu-2")[-1]
    assert {new.a.device, new.b.device} == {"gpu-2", "nvsw-1"}


def test_the_workload_tab_opens_on_a_job_that_fits_and_manual_keeps_its_layout(qtbot,
                                                                                tmp_path):
    from rackdesigner.generators import generate
    from rackdesigner.ui.panel import SimulationPanel
    from rackdesigner.ui.panel.workload import default_batch

    assert default_batch(8) == 256 and default_batch(992) == 372
    assert default_batch(72) == 261 and default_batch(5) == 260
    layout = generate("superpod", system="dgx-h100", sus=4)
    panel = SimulationPanel(debounce_ms=0)
    qtbot.addWidget(panel)
    panel.set_layout(layout, "superpod.yaml")
    tab = panel.workload
    gpus = layout.index().counts()[0]["gpu"]
    assert tab.gbs.value() == default_batch(gpus) and tab.gbs.value() % (gpus // 8) == 0
    outcome = tab.flush()
    assert outcome is not None and outcome.estimate is not None, outcome.error
    assert not outcome.error
    found = outcome.estimate.job
    tab.layout_combo.setCurrentText("manual")
    assert (tab.tp.value(), tab.pp.value()) == (found.tp, found.pp)
    manual = tab.flush()
    assert manual.estimate is not None and manual.estimate.job.tp == found.tp
    # a batch the user chose stays when another design opens
    tab.gbs.setValue(512)
    panel.set_layout(generate("dgx-h100"), "one.yaml")
    assert tab.gbs.value() == 512


@pytest.mark.slow
def test_unsaved_changes_to_an_example_name_the_example(qtbot, tmp_path, monkeypatch):
    """The bundled example, edited, then File ▸ Open: "Save your changes to the new layout?"
    read as if some other, new design were meant (issue 26, re-tried as a new user)."""
    from PySide6.QtWidgets import QMessageBox

    window = make_window(qtbot, tmp_path, small_layout())
    window.files.mark_untitled_copy("example", "dgx-h100")
    asked = []

    def warning(parent, title, text, *args):
        asked.append(text)
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "warning", warning)
    window.editor.select_ids(["gpu-1"])
    window.editor.delete_selection()
    assert window.document.is_modified()
    assert not window.files.maybe_save()  # cancelled: the design stays
    assert asked == [f"Save your changes to {window.document.untitled_title}?"]
    assert "example" in asked[0]


def test_a_batch_changed_for_the_design_says_so_next_to_the_field(qtbot):
    """Issue 38 item 3: the Workload tab's batch went from 256 to 378 when the 14-rack NVL72
    SuperPOD opened, unseen, and Compare ran that batch. The tab now says why, beside the
    field; a batch the user set is kept and needs no note."""
    from rackdesigner.generators import generate
    from rackdesigner.ui.panel import SimulationPanel

    panel = SimulationPanel(debounce_ms=0)
    qtbot.addWidget(panel)
    panel.show()
    tab = panel.workload
    panel.set_layout(generate("dgx-b200"), "one.yaml")
    assert tab.gbs.value() == 256 and tab.batch_note.isHidden()
    panel.set_layout(generate("superpod", system="gb200-nvl72", racks=14), "nvl72.yaml")
    assert tab.gbs.value() == 378
    assert not tab.batch_note.isHidden()
    note = tab.batch_note.text()
    assert "378" in note and "was 256" in note and "126 nodes" in note and "Compare" in note
    tab.gbs.setValue(512)  # the user's own batch: kept on the next design, no note
    assert tab.batch_note.isHidden()
    panel.set_layout(generate("dgx-b200"), "one.yaml")
    assert tab.gbs.value() == 512 and tab.batch_note.isHidden()
