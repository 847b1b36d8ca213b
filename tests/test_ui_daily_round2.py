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
    from rackdesigner.generators.systems import NVL72

    assert set(SUPERPOD_SYSTEMS) == set(PRESETS) | {NVL72}
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
