"""Analyze ▸ Fit to Site… on real widgets: the search runs in the worker thread, the plot shows
the front marked by the limit that binds each point, and a double-clicked row opens that
point's design with the site set."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings

from rackdesigner.fit import search as fit_search
from rackdesigner.model import Site

SITE = "facility_power_kw: 600\nliquid_kw: 250\n"
JOB = "model: llama3-8b\ngbs: 256\n"


@pytest.fixture
def window(qtbot, tmp_path):
    from rackdesigner.catalog import default_catalog
    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(catalog=default_catalog(), settings=settings)
    qtbot.addWidget(win, before_close_func=lambda w: w.document.undo_stack.setClean())
    return win


def test_fit_to_site_runs_plots_the_front_and_opens_a_point(window, qtbot, tmp_path,
                                                           monkeypatch):
    from rackdesigner.ui.fit_dialog import open_fit_dialog

    monkeypatch.setattr(fit_search, "COUNTS_PER_TYPE", 3)
    (tmp_path / "SITE.yaml").write_text(SITE)
    (tmp_path / "job.yaml").write_text(JOB)
    window.actions_.fit_action.trigger()  # Analyze > Fit to Site...
    dialog = window.fit_dialog
    assert open_fit_dialog(window) is dialog  # one per window
    dialog.switches.setText("qm9700")
    dialog.site_edit.setText(str(tmp_path / "SITE.yaml"))
    dialog.job_edit.setText(str(tmp_path / "job.yaml"))
    dialog.scheduler.setCurrentText("synchronous")
    with qtbot.waitSignal(dialog.run_finished, timeout=240_000):
        assert dialog.start()
    result = dialog.result
    assert result is not None and result.front, dialog.status.text()
    assert dialog.table.rowCount() == len(result.front)
    binding = dialog.table.item(0, 8).text()
    assert binding in fit_search.LIMITS
    names = [item.name() for item in dialog.plot.getPlotItem().listDataItems() if item.name()]
    assert "within the limits" in names and any(n.startswith("front, ") for n in names)
    assert "mixed" in dialog.status.text()
    window.document.undo_stack.setClean()
    dialog.open_point(len(result.front) - 1)
    layout = window.document.layout
    assert layout.meta.site == Site(facility_power_kw=600, liquid_kw=250)
    assert layout.device_count() > 0


def test_a_bad_site_file_is_said_in_the_dialog(window, qtbot, tmp_path):
    from rackdesigner.ui.fit_dialog import FitDialog

    dialog = FitDialog(window, Site())
    qtbot.addWidget(dialog)
    (tmp_path / "SITE.yaml").write_text("liquid_kw: -1\n")
    dialog.site_edit.setText(str(tmp_path / "SITE.yaml"))
    assert not dialog.start()
    assert "SITE.yaml:1" in dialog.status.text() and "positive" in dialog.status.text()


def test_the_template_dialog_builds_a_mixed_design_with_its_cdus(qtbot):
    from rackdesigner.catalog import default_catalog
    from rackdesigner.model.cooling import cooling_report
    from rackdesigner.ui.template_dialog import TemplateDialog

    dialog = TemplateDialog(default_catalog())
    qtbot.addWidget(dialog)
    dialog.set_values("mixed", systems="gb200-nvl72:1,dgx-b200:2", cdus=1)
    dialog.build()
    layout = dialog.result_layout
    assert layout is not None, dialog.error.text()
    ids = [d.id for d in layout.devices()]
    assert any(i.startswith("nvl72-1.") for i in ids) and any(i.startswith("dgx-") for i in ids)
    report = cooling_report(layout)
    assert report.cdus and report.unserved == ()
