"""GUI side of interop: File ▸ Export To, user models in the Palette, opening a design whose
models are missing."""

from __future__ import annotations

import textwrap

import networkx as nx
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from rackdesigner.catalog import bundled_catalog
from rackdesigner.catalog.user import catalog_with_user
from rackdesigner.generators import generate

SWITCH = textwrap.dedent("""\
    schema: rackdesigner.device/1
    id: acme-x1
    kind: switch
    manufacturer: Acme
    model: X1 800G switch
    u_height: 2
    ports:
      - {name: eth, protocol: ethernet, generation: 800GbE, count: 64, lanes: 8,
         rate_gbps: 800, connector: osfp, source: ds}
    sources:
      ds: {title: Acme X1 datasheet}
    """)


def _window(qtbot, tmp_path, catalog):
    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(catalog=catalog, settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.mark.slow
def test_export_menu_writes_each_format(qtbot, tmp_path, monkeypatch):
    window = _window(qtbot, tmp_path, bundled_catalog())
    window._set_document(generate("single-leaf", system="dgx-h100", nodes=2, switch="qm9700"),
                         None)
    # the File menu by its title (QAction.menu() hands back a deleted wrapper in PySide6
    # before 6.11.2 when an earlier test's menu had the same address)
    file_menu = next(m for m in window.menuBar().findChildren(QMenu) if m.title() == "&File")
    titles = [a.text() for a in file_menu.actions()]
    assert "Export &To" in titles
    target = tmp_path / "design.graphml"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "design"), "GraphML (*.graphml)"))
    window.interop_actions["graphml"].trigger()
    assert not window.export_menu.isEnabled()  # one export at a time
    with qtbot.waitSignal(window.export_job.finished, timeout=60000) as done:
        pass
    assert done.args == [True] and window.export_menu.isEnabled()
    graph = nx.read_graphml(target, force_multigraph=True)
    assert graph.number_of_nodes() == window.document.layout.device_count()
    assert "Exported" in window.statusBar().currentMessage()
    # a folder format asks for a folder
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(tmp_path / "nb"))
    window.interop_actions["netbox"].trigger()
    qtbot.waitUntil(lambda: not window.export_job.running, timeout=60000)
    assert (tmp_path / "nb" / "06-devices.csv").exists()


@pytest.mark.slow
def test_export_that_cannot_be_done_says_why(qtbot, tmp_path, monkeypatch):
    window = _window(qtbot, tmp_path, bundled_catalog())
    window._set_document(generate("dgx-h100"), None)
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: shown.append(text))
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "topology.conf"), ""))
    window.interop_actions["slurm-tree"].trigger()
    qtbot.waitUntil(lambda: not window.export_job.running, timeout=60000)
    assert shown and "no InfiniBand or Ethernet switches" in shown[0]
    assert not (tmp_path / "topology.conf").exists()


def test_palette_marks_user_models(qtbot, tmp_path):
    from rackdesigner.ui.palette import FIGURES_ROLE, MODEL_ROLE, USER_ROLE, PaletteWidget

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "acme-x1.yaml").write_text(SWITCH)
    palette = PaletteWidget(catalog_with_user([folder]))
    qtbot.addWidget(palette)
    items = {}
    for i in range(palette.tree.topLevelItemCount()):
        header = palette.tree.topLevelItem(i)
        for j in range(header.childCount()):
            items[header.child(j).data(0, MODEL_ROLE)] = header.child(j)
    mine, shipped = items["acme-x1"], items["qm9700"]
    assert mine.data(0, USER_ROLE) and not shipped.data(0, USER_ROLE)
    assert mine.data(0, FIGURES_ROLE).startswith("your model")
    assert str(folder / "acme-x1.yaml") in mine.toolTip(0)
    qtbot.keyClicks(palette.search, "user")
    assert palette.entries() == ["acme-x1"]


@pytest.mark.slow
def test_opening_a_design_with_missing_models_marks_them(qtbot, tmp_path):
    design = tmp_path / "d.yaml"
    design.write_text("schema_version: 1\ndevices:\n- {id: sw-1, model: acme-x1}\n"
                      "- {id: leaf-1, model: qm9700}\n")
    window = _window(qtbot, tmp_path, bundled_catalog())
    assert window.open_file(design, ask=False)
    assert window.document.layout.device_count() == 2
    message = window.statusBar().currentMessage()
    assert "not in the catalog (acme-x1)" in message and "marked unknown" in message


@pytest.fixture(autouse=True)
def _no_modal_boxes(monkeypatch):
    monkeypatch.setattr(QMessageBox, "information", lambda *a, **k: None)


@pytest.mark.slow
def test_import_menu_opens_a_live_fabric_as_a_new_document(qtbot, tmp_path, monkeypatch):
    from pathlib import Path

    sample = Path(__file__).parent / "data" / "interop" / "ibnetdiscover-2tier.txt"
    window = _window(qtbot, tmp_path, bundled_catalog())
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(sample), ""))
    window.import_actions["ibnetdiscover"].trigger()
    layout = window.document.layout
    assert layout.device_count() == 12 and layout.link_count() == 13
    assert window.document.path is None  # a new, unsaved design
    assert "4 hosts with 8 HCAs" in window.statusBar().currentMessage()
    # an import is unsaved work: '*' in the title, and replacing it asks (issue 26)
    assert window.document.is_modified() and window.isWindowModified()
    asked = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: asked.append(a[2])
                        or QMessageBox.StandardButton.Cancel)
    assert not window.files.open_file(sample, ask=True)
    assert asked and window.document.layout is layout
    monkeypatch.setattr(QMessageBox, "warning",
                        lambda *a, **k: QMessageBox.StandardButton.Discard)
    # a garbled file: the located error, the open document untouched
    bad = tmp_path / "bad.txt"
    bad.write_text("Switch 4 \"S-0001\"\n[1] what\n")
    errors = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text: errors.append(text))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(bad), ""))
    window.import_actions["ibnetdiscover"].trigger()
    assert errors and errors[0].startswith(f"{bad}:2: expected")
    assert window.document.layout is layout


@pytest.mark.slow
def test_import_device_types_into_my_catalog(qtbot, tmp_path, monkeypatch):
    from pathlib import Path

    from PySide6.QtWidgets import QInputDialog

    from rackdesigner.catalog.user import ENV, read_user_dir

    mine = tmp_path / "mine"
    monkeypatch.setenv(ENV, str(mine))
    source = Path(__file__).parent / "data" / "interop" / "netbox-acme-fabricbox-32.yaml"
    window = _window(qtbot, tmp_path, bundled_catalog())
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(source)], ""))
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: ("ethernet", True))
    monkeypatch.setattr(QInputDialog, "getDouble", lambda *a, **k: (400.0, True))
    window.import_actions["netbox-device-types"].trigger()
    (spec,), problems = read_user_dir(mine)
    assert not problems and spec.port("eth").count == 32 and spec.port("eth").rate_gbps == 400


@pytest.mark.parametrize("fmt", ["slurm-tree", "netbox"])
def test_export_over_the_open_design_is_refused(qtbot, tmp_path, monkeypatch, fmt):
    """Issue 31 §4 in the designer: File ▸ Export To onto the open design's own file (or, for
    a folder format, the folder holding it) says why and leaves the file as it was."""
    from rackdesigner.interop import EXPORTERS
    from rackdesigner.io import save_layout

    window = _window(qtbot, tmp_path, bundled_catalog())
    folder = tmp_path / "project"
    folder.mkdir()
    design = folder / "design.yaml"
    save_layout(generate("single-leaf", system="dgx-h100", nodes=2, switch="qm9700"), design)
    window.open_file(str(design))
    before = design.read_bytes()
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: shown.append(text))
    if EXPORTERS[fmt].suffixes == ("",):
        monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(folder))
    else:
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(design), ""))
    window.interop_actions[fmt].trigger()
    qtbot.waitUntil(lambda: not window.export_job.running, timeout=60000)
    assert shown and "input" in shown[0] and str(design) in shown[0]
    assert design.read_bytes() == before
    assert window.export_menu.isEnabled()
