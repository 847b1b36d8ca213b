"""File ▸ Compare With… on real widgets (issue 38 item 10): the facility rows in the table, and
the dialog opens with the files and option it was left with — after Close, and in the next
session (QSettings)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")


def _open_window(qtbot, settings_file, layout):
    from PySide6.QtCore import QSettings

    from rackdesigner.ui import MainWindow

    settings = QSettings(str(settings_file), QSettings.Format.IniFormat)
    w = MainWindow(catalog=layout.catalog, settings=settings)
    qtbot.addWidget(w, before_close_func=lambda x: x.document.undo_stack.setClean())
    w._set_document(layout, None)
    w.show()
    qtbot.waitExposed(w)
    return w


def _design(nodes: int, site=None):
    from rackdesigner.generators import generate

    layout = generate("rail-optimized", system="dgx-b200", nodes=nodes, switch="qm9700")
    if site is not None:
        layout.set_meta(site=site)
    return layout


@pytest.fixture
def saved(tmp_path, monkeypatch):
    from rackdesigner.io import save_layout
    from rackdesigner.model.items import Site

    monkeypatch.delenv("RACKDESIGNER_PRICES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "nodata"))
    path = tmp_path / "bigger.yaml"
    save_layout(_design(16, Site(power_kw=400, cooling_kw=450, rack_positions=20)), path)
    return path


def test_the_table_has_the_facility_rows(qtbot, tmp_path, saved):
    from rackdesigner.model.items import Site

    window = _open_window(qtbot, tmp_path / "s.ini",
                          _design(8, Site(power_kw=400, cooling_kw=450, rack_positions=20)))
    window.actions_.compare_action.trigger()
    dialog = window.compare_dialog
    dialog.add_paths([str(saved)])
    dialog.run()
    comparison = dialog.flush()
    assert comparison is not None, dialog.status.text()
    labels = [dialog.table.verticalHeaderItem(r).text() for r in range(dialog.table.rowCount())]
    for label in ("racks", "of the floor's rack positions", "of the site's IT power",
                  "of the site's cooling", "capex per GPU", "design-rule errors",
                  "design-rule warnings"):
        assert label in labels, label
    power = labels.index("of the site's IT power")
    shown = [dialog.table.item(power, c).text() for c in range(2)]
    assert all(text.endswith("%") for text in shown), shown
    # the bigger design takes more of the same site
    values = [float(t.rstrip(" %").replace(",", "")) for t in shown]
    assert values[1] > values[0]


def test_the_dialog_remembers_its_files_and_option(qtbot, tmp_path, saved):
    from rackdesigner.ui.compare_dialog import open_compare_dialog

    settings_file = tmp_path / "s.ini"
    window = _open_window(qtbot, settings_file, _design(8))
    dialog = open_compare_dialog(window)
    assert dialog.paths() == []
    dialog.add_paths([str(saved)])
    dialog.job_check.setChecked(True)
    dialog.close()
    again = open_compare_dialog(window)  # after Close the dialog is built anew
    assert again is not dialog
    assert again.paths() == [str(saved)] and again.job_check.isChecked()
    again.files.setCurrentRow(0)
    again.remove_button.click()
    again.job_check.setChecked(False)
    again.add_paths([str(saved)])
    again.close()
    window.close()
    # the next session
    later = _open_window(qtbot, settings_file, _design(8))
    reopened = open_compare_dialog(later)
    assert reopened.paths() == [str(saved)] and not reopened.job_check.isChecked()


def test_a_remembered_file_that_is_gone_is_left_out(qtbot, tmp_path, saved):
    from rackdesigner.ui.compare_dialog import open_compare_dialog

    settings_file = tmp_path / "s.ini"
    window = _open_window(qtbot, settings_file, _design(8))
    dialog = open_compare_dialog(window, [str(saved)])
    dialog.close()
    saved.unlink()
    assert open_compare_dialog(window).paths() == []
