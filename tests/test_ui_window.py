"""The main window: files, dirty state and the close prompt, problems, inspector, clipboard,
export, templates, and start-up in a real process."""

from __future__ import annotations

import subprocess
import sys

import pytest
from designer_fixtures import drag_events, make_catalog, make_window, small_layout
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox, QMessageBox

from rackdesigner.commands import AddItems
from rackdesigner.io import load_layout, save_layout
from rackdesigner.model import Link, PortRef


def _saved(tmp_path, name="design.yaml"):
    path = tmp_path / name
    save_layout(small_layout(), path)
    return path


@pytest.mark.slow
def test_window_has_the_docks_and_status(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    titles = {d.windowTitle() for d in (window.palette_dock, window.inspector_dock,
                                        window.problems_dock, window.history_dock,
                                        window.simulation_dock)}
    assert titles == {"Palette", "Inspector", "Problems", "History", "Simulation"}
    assert window.windowTitle() == "Untitled[*] — RackDesigner"
    window._set_document(small_layout(), None)
    assert window.counts_label.text() == "2 GPUs · 1 NVSwitch · 1 switch · 3 links"
    assert window.zoom_label.text().endswith("%")


@pytest.mark.slow
def test_save_and_reopen_gives_an_equal_document(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    assert window.open_file(_saved(tmp_path))
    window.editor.drop_model("tnode", (300, 800))
    window.editor.wire("gpu-2", "nvsw-1")
    out = tmp_path / "out.yaml"
    assert window.save_file(out)
    assert not window.isWindowModified()
    edited = window.document.layout
    assert load_layout(out, catalog=make_catalog()) == edited
    other = make_window(qtbot, tmp_path, show=False)
    assert other.open_file(out)
    assert other.document.layout == edited
    assert other.windowTitle() == "out.yaml[*] — RackDesigner"
    assert str(out.resolve()) in window.settings.recent_files()


@pytest.mark.slow
def test_dirty_state_and_the_close_prompt(qtbot, tmp_path, monkeypatch):
    window = make_window(qtbot, tmp_path)
    window.open_file(_saved(tmp_path))
    assert not window.isWindowModified()
    window.editor.drop_model("tgpu", (0, 600))
    assert window.isWindowModified() and window.document.is_modified()
    asked = []

    def answer(button):
        def fake(*args, **kwargs):
            asked.append(args[2])
            return button
        return fake

    monkeypatch.setattr(QMessageBox, "warning", answer(QMessageBox.StandardButton.Cancel))
    assert not window.close()
    assert window.isVisible() and "design.yaml" in asked[-1]
    # undoing back to the saved state makes the document clean again: no prompt
    window.actions_.undo_action.trigger()
    assert not window.isWindowModified()
    window.actions_.redo_action.trigger()
    monkeypatch.setattr(QMessageBox, "warning", answer(QMessageBox.StandardButton.Discard))
    assert window.close()
    assert len(asked) == 2


@pytest.mark.slow
def test_opening_asks_first_and_a_bad_file_leaves_the_document_alone(qtbot, tmp_path,
                                                                   monkeypatch):
    window = make_window(qtbot, tmp_path)
    window.open_file(_saved(tmp_path))
    window.editor.drop_model("tgpu", (0, 600))
    before = window.document.layout.copy()
    monkeypatch.setattr(QMessageBox, "warning",
                        lambda *a, **k: QMessageBox.StandardButton.Cancel)
    assert not window.open_file(_saved(tmp_path, "other.yaml"))
    assert window.document.layout == before
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema_version: 1\ndevices:\n  - {id: x, modle: tgpu}\n")
    shown = []
    monkeypatch.setattr(QMessageBox, "warning",
                        lambda *a, **k: QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: shown.append(a[2]))
    assert not window.open_file(bad)
    assert shown and "bad.yaml" in shown[0]
    assert window.document.layout == before and window.isWindowModified()


@pytest.mark.slow
def test_problems_follow_the_model(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    problems = window.problems
    problems.flush()
    codes_before = {f.code for f in problems.findings}
    assert "protocol-mismatch" not in codes_before
    bad = Link("link-9", PortRef("gpu-2", "nvlink"), PortRef("switch-1", "ib"))
    window.document.push(AddItems(links=[bad]))
    problems.flush()
    assert any(f.code == "protocol-mismatch" for f in problems.findings)
    row = next(i for i in range(problems.tree.topLevelItemCount())
               if "link-9" in problems.tree.topLevelItem(i).text(1))
    problems.tree.itemClicked.emit(problems.tree.topLevelItem(row), 1)
    assert window.editor.selection()[1] == ["link-9"]  # clicking selects the link's bundle
    assert window.problems_label.errors >= 1 and "errors" in window.problems_label.text()
    window.actions_.undo_action.trigger()
    problems.flush()
    assert not any(f.code == "protocol-mismatch" for f in problems.findings)


@pytest.mark.slow
def test_problems_recompute_is_debounced(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout(), show=False)
    calls = []
    window.problems.findings_changed.connect(lambda e, w: calls.append((e, w)))
    for i in range(5):
        window.editor.drop_model("tgpu", (i * 200, 900))
    assert calls == []
    with qtbot.waitSignal(window.problems.findings_changed, timeout=2000):
        pass
    assert len(calls) == 1


class _GatedChecks:
    """Replaces the Problems dock's `check_layout`: records which thread runs it and, once
    `closed`, holds a worker's run after its snapshot until the test has edited the model."""

    def __init__(self, monkeypatch) -> None:
        import threading

        from rackdesigner.ui import problems as problems_module

        self.threading = threading
        self.on_gui_thread: list[bool] = []
        self.closed = False
        self.snapshot_taken, self.release = threading.Event(), threading.Event()
        self.real = problems_module.check_layout
        monkeypatch.setattr(problems_module, "check_layout", self)

    def __call__(self, layout):
        on_gui = self.threading.current_thread() is self.threading.main_thread()
        self.on_gui_thread.append(on_gui)
        if self.closed and not on_gui:
            self.snapshot_taken.set()
            assert self.release.wait(10)
        return self.real(layout)


@pytest.mark.slow
def test_problems_are_checked_on_a_worker_and_a_stale_result_is_dropped(qtbot, tmp_path,
                                                                        monkeypatch):
    gate = _GatedChecks(monkeypatch)
    window = make_window(qtbot, tmp_path, small_layout(), show=False)
    problems, layout = window.problems, window.document.layout
    qtbot.waitUntil(lambda: not problems.busy)
    assert gate.on_gui_thread and not any(gate.on_gui_thread)  # opening: worker only
    shown = []
    problems.findings_changed.connect(lambda e, w: shown.append(list(problems.findings)))
    runs, dropped = problems.runs, problems.dropped
    gate.closed = True
    problems.set_layout(layout)  # a run starts on the worker at once...
    assert problems.runs == runs + 1 and gate.snapshot_taken.wait(10)
    old_revision = layout.revision
    bad = Link("link-9", PortRef("gpu-2", "nvlink"), PortRef("switch-1", "ib"))
    window.document.push(AddItems(links=[bad]))  # ...and the model changes before it ends
    gate.closed = False
    gate.release.set()
    with qtbot.waitSignal(problems.result_dropped, timeout=5000) as blocker:
        pass
    assert blocker.args[0].revision == old_revision < layout.revision
    assert shown == []  # the stale (clean) findings were never shown
    with qtbot.waitSignal(problems.findings_changed, timeout=5000):
        pass
    assert len(shown) == 1 and any(f.code == "protocol-mismatch" for f in shown[0])
    assert problems.shown_revision == layout.revision and problems.dropped == dropped + 1
    assert not any(gate.on_gui_thread)  # no check ran on the GUI thread
    problems.flush()  # nothing pending: nothing to do
    assert gate.on_gui_thread.count(True) == 0


def test_problems_drop_a_result_for_an_older_revision_even_unasked(qtbot, monkeypatch):
    from rackdesigner.ui.problems import ProblemsWidget

    gate = _GatedChecks(monkeypatch)
    problems = ProblemsWidget()
    qtbot.addWidget(problems, before_close_func=lambda w: w.close_problems())
    layout = small_layout()
    gate.closed = True
    problems.set_layout(layout)
    assert gate.snapshot_taken.wait(10)
    layout.add_link(Link("link-9", PortRef("gpu-2", "nvlink"), PortRef("switch-1", "ib")))
    gate.closed = False  # nobody calls schedule(): the revision alone makes the result stale
    gate.release.set()
    with qtbot.waitSignal(problems.result_dropped, timeout=5000):
        pass
    with qtbot.waitSignal(problems.findings_changed, timeout=5000):  # ran again by itself
        pass
    assert any(f.code == "protocol-mismatch" for f in problems.findings)
    assert problems.shown_revision == layout.revision and problems.runs == 2


@pytest.mark.slow
def test_problems_flush_is_synchronous_while_a_run_is_in_flight(qtbot, tmp_path, monkeypatch):
    gate = _GatedChecks(monkeypatch)
    window = make_window(qtbot, tmp_path, small_layout(), show=False)
    problems, layout = window.problems, window.document.layout
    qtbot.waitUntil(lambda: not problems.busy)
    gate.closed = True
    problems.set_layout(layout)
    assert gate.snapshot_taken.wait(10)
    window.document.push(AddItems(links=[
        Link("link-9", PortRef("gpu-2", "nvlink"), PortRef("switch-1", "ib"))]))
    gate.closed = False
    problems.flush()  # the worker is still held: flush checks on the GUI thread
    assert any(f.code == "protocol-mismatch" for f in problems.findings)
    assert problems.shown_revision == layout.revision and gate.on_gui_thread[-1]
    gate.release.set()
    with qtbot.waitSignal(problems.result_dropped, timeout=5000):
        pass
    assert any(f.code == "protocol-mismatch" for f in problems.findings)


@pytest.mark.slow
def test_inspector_edits_are_commands(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    layout = window.document.layout
    window.editor.select_ids(["gpu-1"])
    inspector = window.inspector
    assert inspector.stack.currentWidget() is inspector.device_page
    assert inspector.device_id.text() == "gpu-1"
    window.actions_.rename_action.trigger()  # F2 focuses the name field
    assert inspector.device_name.hasFocus()
    inspector.device_name.setText("first GPU")
    inspector.device_name.editingFinished.emit()
    assert layout.device("gpu-1").name == "first GPU"
    assert window.scene.item_for_device["gpu-1"].label == "first GPU"
    window.actions_.undo_action.trigger()
    assert layout.device("gpu-1").name == ""
    assert inspector.device_name.text() == ""  # the inspector follows the model
    # rack placement and U (spin-box scrubbing merges into one step)
    inspector.device_rack.activated.emit(inspector.device_rack.findData("rack-1"))
    for u in (3, 4, 5):
        inspector.device_u.setValue(u)
    assert (layout.device("gpu-1").rack, layout.device("gpu-1").u) == ("rack-1", 5)
    assert window.document.undo_stack.count() == 2
    # a link: count and length
    window.editor.select_ids(["link-1"])
    assert inspector.stack.currentWidget() is inspector.link_page
    inspector.link_count.setValue(3)
    assert layout.link("link-1").count == 3


@pytest.mark.slow
def test_copy_paste_through_the_clipboard_and_duplicate(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    layout = window.document.layout
    window.editor.select_ids(["gpu-1", "nvsw-1"])
    assert window.editor.copy()
    text = QApplication.clipboard().text()
    assert "schema_version" in text and "gpu-1" in text
    before = layout.device_count()
    assert window.editor.paste()
    assert layout.device_count() == before + 2
    assert window.document.undo_stack.count() == 1
    pasted = set(window.editor.selection()[0])
    assert len(pasted) == 2 and not pasted & {"gpu-1", "nvsw-1"}
    assert any(lk.a.device in pasted and lk.b.device in pasted for lk in layout.links())
    window.editor.select_ids(["gpu-2"])
    window.actions_.duplicate_action.trigger()
    assert layout.device_count() == before + 3
    window.editor.select_ids(["switch-1"])
    window.actions_.cut_action.trigger()
    assert not layout.has_device("switch-1")
    assert not window.editor.paste_text("not: [a layout")  # refused with a message
    assert "clipboard" in window.statusBar().currentMessage()


@pytest.mark.slow
def test_group_ungroup_and_collapse_from_the_menu(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    layout = window.document.layout
    window.editor.select_ids(["gpu-1", "gpu-2"])
    assert window.editor.group_selection()
    (group,) = list(layout.groups())
    window.editor.select_ids([group.id])
    assert window.editor.toggle_group()
    assert layout.group(group.id).collapsed
    window.editor.select_ids([group.id])
    assert window.editor.ungroup_selection()
    assert list(layout.groups()) == []
    for _ in range(3):
        window.actions_.undo_action.trigger()
    assert list(layout.groups()) == []
    assert layout == small_layout()


@pytest.mark.slow
def test_export_png_and_svg(qtbot, tmp_path):
    from rackdesigner.ui.export import export_image

    window = make_window(qtbot, tmp_path, small_layout(), show=False)
    png = export_image(window.scene, tmp_path / "canvas.png")
    svg = export_image(window.scene, tmp_path / "canvas.svg")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in svg.read_bytes()[:2000]


def test_new_from_template_dialog_builds_a_layout(qtbot):
    from rackdesigner.catalog import default_catalog
    from rackdesigner.ui.template_dialog import TemplateDialog

    dialog = TemplateDialog(default_catalog())
    qtbot.addWidget(dialog)
    dialog.set_values("single-leaf", system="dgx-h100", nodes=2, switch="qm9700")
    dialog.build()
    assert dialog.result_layout is not None
    assert sum(1 for d in dialog.result_layout.devices() if "gpu" in d.id) >= 16
    # model options are drop-downs of the catalog's systems and switches: no typos possible
    dialog.set_values("rail-optimized")
    system, switch = dialog.fields["system"], dialog.fields["switch"]
    assert isinstance(system, QComboBox) and isinstance(switch, QComboBox)
    assert "dgx-b200" in [system.itemData(i) for i in range(system.count())]
    assert {switch.itemData(i) for i in range(switch.count())} >= {"qm9700", "sn5600"}
    with pytest.raises(ValueError, match="no-such-system"):
        dialog.set_values("superpod", system="no-such-system")
    dialog.fields["nodes"].setText("0")
    dialog.build()
    assert dialog.error.text()


def test_settings_remember_recent_files_and_migrate(tmp_path):
    from PySide6.QtCore import QSettings

    from rackdesigner.ui.settings import SETTINGS_VERSION, Settings

    store = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    store.setValue("recent", ["/nowhere.yaml"])  # an unversioned (v0) store
    settings = Settings(store)
    assert int(store.value("settings_version")) == SETTINGS_VERSION
    assert settings.recent_files() == []
    path = _saved(tmp_path)
    settings.add_recent(path)
    settings.add_recent(path)
    assert settings.recent_files() == [str(path.resolve())]


def test_render_verb_draws_headless(tmp_path):
    from rackdesigner.cli import main

    layout_path = tmp_path / "d.yaml"
    from rackdesigner.generators import generate

    save_layout(generate("dgx-h100"), layout_path)
    assert main(["render", str(layout_path), "-o", str(tmp_path / "d.png")]) == 0
    assert (tmp_path / "d.png").stat().st_size > 10_000
    assert main(["render", str(layout_path), "-o", str(tmp_path / "d.gif")]) == 2


@pytest.mark.slow
def test_app_starts_and_quits_in_a_real_process(tmp_path):
    code = ("import sys; from rackdesigner.app import run_app; "
            "sys.exit(run_app(None, quit_after_ms=300))")
    env = {"QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_the_rackdesigner_command_ends_at_once_after_its_window_closed(tmp_path):
    # as `rackdesigner` runs it: the window saves its settings, then the process ends with the
    # app's code without the interpreter's teardown (an atexit hook never runs), a line already
    # printed is out
    code = ("import atexit, sys; from rackdesigner.app import run_app; "
            "atexit.register(lambda: print('torn down', flush=True)); print('started'); "
            "run_app(None, quit_after_ms=300, exit_at_once=True); print('not reached')")
    env = {"QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["started"]
    assert "Traceback" not in result.stderr
    saved = "".join(p.read_text(errors="replace") for p in tmp_path.rglob("*.conf"))
    assert "geometry" in saved.lower()  # the window's settings were written before the exit


def test_main_window_is_importable_from_ui():
    from rackdesigner.ui import MainWindow

    assert MainWindow.__name__ == "MainWindow"
    assert Qt.Key.Key_F2  # keeps the Qt import honest


@pytest.mark.slow
def test_a_yaml_dropped_on_the_window_opens_it(qtbot, tmp_path):
    from PySide6.QtCore import QMimeData, QPointF, QUrl

    window = make_window(qtbot, tmp_path)
    path = _saved(tmp_path)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    enter, _move, drop = drag_events(QPointF(5, 5), mime)
    window.dragEnterEvent(enter)
    assert enter.isAccepted()
    window.dropEvent(drop)
    assert window.document.path == path
    assert window.document.layout == small_layout()


@pytest.mark.slow
def test_window_layout_persists_between_runs(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    window.history_dock.raise_()
    window.palette_dock.hide()
    assert window.close()
    again = make_window(qtbot, tmp_path)
    assert again.palette_dock.isHidden()
    assert again.settings.store.value("window/state") is not None


@pytest.mark.slow
def test_export_bill_of_materials_csv(qtbot, tmp_path):
    from rackdesigner.generators import generate

    window = make_window(qtbot, tmp_path, show=False)
    window.catalog = generate("dgx-h100").catalog
    window._set_document(generate("dgx-h100"), None)
    out = tmp_path / "bom.csv"
    assert window.export_bom(out)
    text = out.read_text()
    assert "dgx-h100" in text.lower() and text.count("\n") > 3


@pytest.mark.slow
def test_inspector_sets_cable_and_length_on_a_whole_bundle(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout())
    layout = window.document.layout
    window.editor.wire("gpu-1", "nvsw-1")  # a second link in the gpu-1/nvsw-1 bundle
    bundle = window.scene.bundles[frozenset(("gpu-1", "nvsw-1"))]
    window.scene.clearSelection()
    bundle.setSelected(True)
    window.flush()
    inspector = window.inspector
    assert inspector.stack.currentWidget() is inspector.link_page
    assert inspector.link_id.text() == "2 links" and not inspector.link_count.isEnabled()
    steps = window.document.undo_stack.count()
    for metres in (1.0, 1.5, 2.0):
        inspector.link_length.setValue(metres)
    assert all(layout.link(k).length_m == 2.0 for k in bundle.link_ids)
    assert window.document.undo_stack.count() == steps + 1  # scrubbing merged
    window.actions_.undo_action.trigger()
    assert all(layout.link(k).length_m is None for k in bundle.link_ids)


@pytest.mark.slow
def test_palette_search_and_keyboard_placement(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path)
    palette = window.palette
    assert palette.entries()[:1] == ["tnode"]  # systems first
    assert "tchassis" not in palette.entries()  # chassis are parts of systems, not entries
    palette.search.setText("nvswitch")
    assert palette.entries() == ["tnvsw"]
    palette.search.setText("infiniband switch")  # words match the category and the name
    assert palette.entries() == ["tib"]
    palette.search.clear()
    item = palette.tree.findItems("Test NIC", Qt.MatchFlag.MatchRecursive)[0]
    palette.tree.itemActivated.emit(item, 0)  # Enter or double-click
    (device,) = list(window.document.layout.devices())
    assert device.model == "tnic" and window.document.undo_stack.count() == 1
    window.grab()  # paints the canvas, including the empty-design hint before the drop


@pytest.mark.slow
def test_revert_and_open_recent(qtbot, tmp_path, monkeypatch):
    window = make_window(qtbot, tmp_path)
    path = _saved(tmp_path)
    window.open_file(path)
    selections = []
    window.selection_changed.connect(selections.append)
    window.editor.select_ids(["gpu-1"])
    assert selections[-1] == (["gpu-1"], [], [])
    window.editor.delete_selection()
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Discard)
    assert window.revert()
    assert window.document.layout == small_layout() and not window.isWindowModified()
    other = _saved(tmp_path, "other.yaml")
    window.open_file(other)
    recent = [a.text() for a in window.actions_.recent_menu.actions()]
    assert recent[:2] == [str(other.resolve()), str(path.resolve())]
    window.actions_.recent_menu.actions()[1].trigger()
    assert window.document.path == path.resolve() or window.document.path == path


@pytest.mark.slow
def test_every_shipped_system_drops_as_a_wired_group(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings)  # the shipped catalog
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    systems = [s.id for s in window.catalog.of_kind("system")]
    assert {"dgx-h100", "gb200-nvl72"} <= set(systems)
    for k, model in enumerate(systems):
        assert model in window.palette.entries()
        assert window.editor.drop_model(model, (k * 3000.0, 0.0))
    layout = window.document.layout
    roots = [g for g in layout.groups() if g.parent is None]
    assert sorted(g.template for g in roots) == sorted(systems)
    assert window.document.undo_stack.count() == len(systems)
    window.scene.flush()
    assert all(window.scene.item_for_group[g.id].isVisible() for g in roots)


@pytest.mark.slow
def test_editing_keys_in_text_fields_do_not_edit_the_design(qtbot, tmp_path):
    from PySide6.QtTest import QTest

    window = make_window(qtbot, tmp_path, small_layout())
    window.editor.select_ids(["gpu-1"])
    name = window.inspector.device_name
    name.setFocus()
    name.setText("abc")
    name.setCursorPosition(0)
    for key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
        QTest.keyClick(name, key)
    QTest.keyClick(name, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert window.document.layout.has_device("gpu-1")
    assert name.text() == "bc"
    assert window.document.undo_stack.count() == 0


def test_render_verb_overview_svg_and_bad_input(tmp_path, capsys):
    from rackdesigner.cli import main
    from rackdesigner.generators import generate

    layout_path = tmp_path / "pod.yaml"
    save_layout(generate("single-leaf", system="dgx-h100", nodes=2, switch="qm9700"),
                layout_path)
    out = tmp_path / "pod.svg"
    assert main(["render", str(layout_path), "-o", str(out), "--overview"]) == 0
    assert b"<svg" in out.read_bytes()[:2000]
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema_version: 99\n")
    assert main(["render", str(bad), "-o", str(tmp_path / "x.png")]) == 2
    assert "bad.yaml" in capsys.readouterr().err


@pytest.mark.slow
def test_bulk_edits_and_selections_refresh_the_panels_once(qtbot, tmp_path, monkeypatch):
    from rackdesigner.commands import MoveDevices, add_model

    layout = small_layout()
    for k in range(6):
        add_model(layout, "tnode", (k * 900.0, 1000.0)).apply(layout)
    window = make_window(qtbot, tmp_path, layout, show=False)
    window.editor.select_ids(["switch-1"])
    calls = {"inspector": 0, "selection": 0}
    real_refresh = window.inspector.refresh
    real_show = window.inspector.show_selection

    def counting_refresh(*args):
        calls["inspector"] += 1
        real_refresh(*args)

    def counting_show(*args):
        calls["selection"] += 1
        real_show(*args)

    monkeypatch.setattr(window.inspector, "refresh", counting_refresh)
    monkeypatch.setattr(window.inspector, "show_selection", counting_show)
    moves = {d.id: (d.pos, (d.pos[0] + 10, d.pos[1])) for d in layout.devices()
             if d.id != "switch-1"}
    window.document.push(MoveDevices(moves))  # 50+ events, none about switch-1
    window.flush()
    assert calls["inspector"] <= 1
    window.editor.select_all()  # one selectionChanged per item, handled once
    assert calls["selection"] == 1


@pytest.mark.slow
def test_choosing_the_current_value_adds_no_undo_step(qtbot, tmp_path):
    window = make_window(qtbot, tmp_path, small_layout(), show=False)
    window.editor.select_ids(["switch-1"])
    combo = window.inspector.device_rack
    combo.activated.emit(combo.currentIndex())  # rack-1 again
    assert window.document.undo_stack.count() == 0 and not window.isWindowModified()


@pytest.mark.slow
def test_paste_into_another_window_through_the_clipboard(qtbot, tmp_path):
    source = make_window(qtbot, tmp_path, small_layout(), show=False)
    target = make_window(qtbot, tmp_path, show=False)
    source.editor.select_ids(["gpu-1", "nvsw-1"])
    source.actions_.copy_action.trigger()
    target.actions_.paste_action.trigger()
    layout = target.document.layout
    assert sorted(d.id for d in layout.devices()) == ["gpu-1", "nvsw-1"]  # ids were free
    assert layout.link("link-1").count == 2
    assert target.isWindowModified() and not source.isWindowModified()


@pytest.mark.slow
def test_wire_mode_drags_from_the_device_body(qtbot, tmp_path):
    from designer_fixtures import drag

    window = make_window(qtbot, tmp_path, small_layout())
    window.actions_.wire_mode_action.trigger()
    assert window.scene.wire_mode
    x, y = window.document.layout.device("gpu-2").pos
    target = window.scene.item_for_device["nvsw-1"].center()
    drag(window.view, (x + 20, y + 8), (target.x(), target.y()))
    assert len(window.document.layout.links_of("gpu-2")) == 1
    window.actions_.wire_mode_action.trigger()
    assert not window.scene.wire_mode


@pytest.mark.slow
def test_the_simulation_dock_takes_a_real_panel(qtbot, tmp_path):
    from PySide6.QtWidgets import QLabel

    from rackdesigner.ui.panel import SimulationPanel

    window = make_window(qtbot, tmp_path, show=False)
    assert window.simulation_dock.widget() is window.simulation_panel
    assert isinstance(window.simulation_panel, SimulationPanel)
    panel = QLabel("live")
    window.set_simulation_panel(panel)
    assert window.simulation_dock.widget() is panel
