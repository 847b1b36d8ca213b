"""Issue 38 (daily use, round two): the template dialog offers what `generate` builds and
remembers the last template; Save As starts in the last folder."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QComboBox, QFileDialog

from rackdesigner.catalog import default_catalog
from rackdesigner.generators import SUPERPOD_SYSTEMS, TEMPLATES, generate
from rackdesigner.ui.settings import Settings
from rackdesigner.ui.template_dialog import TemplateDialog


def test_the_superpod_systems_the_dialog_offers_are_the_generators_own():
    from rackdesigner.generators.superpod import PRESETS
    from rackdesigner.generators.systems import NVL72_SYSTEMS

    assert set(SUPERPOD_SYSTEMS) == set(PRESETS) | set(NVL72_SYSTEMS)
    option = next(o for o in TEMPLATES["superpod"].options if o.name == "system")
    assert option.offers == SUPERPOD_SYSTEMS


def test_new_from_template_offers_and_builds_a_gb200_nvl72_superpod(qtbot):
    """Item 2: the racks field named gb200-nvl72 but the system list did not offer it."""
    dialog = TemplateDialog(default_catalog())
    qtbot.addWidget(dialog)
    dialog.set_values("superpod")
    system = dialog.fields["system"]
    assert isinstance(system, QComboBox)
    offered = {system.itemData(i) for i in range(system.count())}
    assert offered == set(SUPERPOD_SYSTEMS)
    dialog.set_values("superpod", system="gb200-nvl72", racks=2)
    dialog.build()
    assert not dialog.error.text()
    built = dialog.result_layout
    expected = generate("superpod", system="gb200-nvl72", racks=2)
    assert built is not None and built.device_count() == expected.device_count()


def test_the_dialog_opens_on_the_template_built_last_with_its_values(qtbot, tmp_path):
    """Item 12: the template dialog forgot the last template."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    first = TemplateDialog(default_catalog(), settings=settings)
    qtbot.addWidget(first)
    first.set_values("single-leaf", system="dgx-b200", nodes=2, switch="qm9700")
    first.build()
    assert first.result_layout is not None
    second = TemplateDialog(default_catalog(), settings=settings)
    qtbot.addWidget(second)
    assert second.template.currentData() == "single-leaf"
    assert (second.value_of("system"), second.value_of("nodes")) == ("dgx-b200", "2")
    # a dialog closed without building remembers nothing new; damage is passed over
    settings.store.setValue("template/last", "{not json")
    third = TemplateDialog(default_catalog(), settings=settings)
    qtbot.addWidget(third)
    assert third.template.currentData() == next(iter(TEMPLATES))


@pytest.mark.slow
def test_save_as_of_an_untitled_design_starts_in_the_last_folder(qtbot, tmp_path, monkeypatch):
    """Item 12: the Save dialog opened in the working directory, not the last folder."""
    from designer_fixtures import make_window, small_layout

    from rackdesigner.io import save_layout

    window = make_window(qtbot, tmp_path, show=False)
    projects = tmp_path / "projects"
    projects.mkdir()
    save_layout(small_layout(), projects / "earlier.yaml")
    assert window.open_file(projects / "earlier.yaml", ask=False)
    window.document.set_layout(small_layout(), None)  # a new, untitled design
    asked: list[str] = []
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda parent, caption, start, filters: (asked.append(start), ("", ""))[1])
    window.files.save_as()
    assert asked and asked[0].startswith(str(projects))


@pytest.mark.slow
def test_the_workload_tabs_job_dialogs_start_beside_the_design_then_the_last_job(
        qtbot, tmp_path, monkeypatch):
    """Item 12, found again in the round-4 walk: Save Job… and Load Job… opened in the working
    directory the app was started from, not the design's folder; after a job is saved they
    start where it went."""
    from designer_fixtures import make_window, small_layout

    from rackdesigner.io import save_layout
    from rackdesigner.ui.panel import workload_jobfile

    window = make_window(qtbot, tmp_path, show=False)
    projects, jobs = tmp_path / "projects", tmp_path / "jobs"
    projects.mkdir()
    jobs.mkdir()
    save_layout(small_layout(), projects / "earlier.yaml")
    assert window.open_file(projects / "earlier.yaml", ask=False)
    window.document.set_layout(small_layout(), None)  # a new, untitled design
    tab = window.simulation_panel.workload
    tab.layout_combo.setCurrentText("manual")
    asked: list[str] = []

    def dialog(parent, caption, start, filters):
        asked.append(start)
        return str(jobs / "mine.yaml") if "Save" in caption else "", ""

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", dialog)
    assert workload_jobfile.save_job_dialog(tab)
    assert (jobs / "mine.yaml").is_file()
    workload_jobfile.load_job_dialog(tab)
    assert asked[0] == str(projects / "job.yaml")
    assert asked[1] == str(jobs)


def test_every_user_guide_the_help_menu_names_exists():
    from pathlib import Path

    from rackdesigner.ui.help_menu import GUIDES

    docs = Path(__file__).resolve().parent.parent / "docs"
    assert {name for _, name, _ in GUIDES} <= {p.name for p in docs.glob("*.md")}


@pytest.mark.slow
def test_open_example_and_the_user_guides_are_in_the_menus(qtbot, tmp_path, monkeypatch):
    """Item 11: the examples were reachable only by typing a site-packages path and Help had
    no link to the guides; a 1,024-GPU B200 example ships."""
    from designer_fixtures import make_window
    from PySide6.QtGui import QDesktopServices

    from rackdesigner._resources import example_paths
    from rackdesigner.catalog import default_catalog
    from rackdesigner.ui.help_menu import GUIDES

    window = make_window(qtbot, tmp_path, show=False)
    window.catalog = default_catalog()
    window.files.catalog = window.catalog
    actions = window.actions_.example_actions
    assert len(actions) == len(example_paths())
    texts = [a.text() for a in actions]
    assert "DGX SuperPOD, 128 x DGX B200 (4 SU, 1024 GPUs)" in texts
    b200 = actions[texts.index("DGX SuperPOD, 128 x DGX B200 (4 SU, 1024 GPUs)")]
    b200.trigger()
    assert window.document.path is None  # an untitled copy, as the first-start example
    assert window.document.untitled_title.endswith("(example)")
    gpus = sum(1 for d in window.document.layout.devices()
               if window.document.layout.spec(d.id).kind == "gpu")
    assert gpus == 1024
    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    guides = window.actions_.guide_actions
    assert [a.data() for a in guides] == [name for _, name, _ in GUIDES]
    guides[3].trigger()
    assert opened and opened[0].toLocalFile().endswith("docs/cost.md")
