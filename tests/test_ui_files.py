"""The window's files under faults (issues 12 and 13): another program changing the open file,
read-only files and folders, examples opened as untitled copies, opens that fail, settings that
cannot be read. Real widgets: the File actions, and the message boxes' own buttons."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from rackdesigner._resources import example_paths
from rackdesigner.io import load_layout

REPO = Path(__file__).resolve().parent.parent


def _example(name: str) -> Path:
    return next(p for p in example_paths() if p.name == name)


def _window(qtbot, tmp_path, path=None):
    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(path, settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    return window


def _answer_next_box(button: str, seen: list[str]) -> None:
    """Click `button` on the next modal message box once it is shown (polled by a timer)."""
    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, click)
            return
        seen.append(f"{box.windowTitle()}|{box.text()}|{box.informativeText()}")
        for candidate in box.buttons():
            if candidate.text().replace("&", "") == button:
                candidate.click()
                return
        raise AssertionError(f"no button {button!r} in {[b.text() for b in box.buttons()]}")
    QTimer.singleShot(0, click)


def _colleague_writes(path: Path, source: Path) -> None:
    """Another process replaces the file, as a colleague's save or a git pull would."""
    subprocess.run([sys.executable, "-c", "import shutil, sys; shutil.copy(sys.argv[1], "
                    "sys.argv[2] + '.new'); import os; os.replace(sys.argv[2] + '.new', "
                    "sys.argv[2])", str(source), str(path)], check=True, timeout=60)


EDITED = "dgx-1.gpu0"


def _edit(window) -> None:
    from rackdesigner.commands import ChangeItem

    assert window.document.push(ChangeItem("device", EDITED, {"name": "my edit"}))
    assert window.document.is_modified()


def _edited_name(path: Path) -> str:
    return load_layout(path).device(EDITED).name


@pytest.fixture
def design(tmp_path) -> Path:
    path = tmp_path / "design.yaml"
    path.write_bytes(_example("dgx-h100.yaml").read_bytes())
    return path


# ---- issue 12 item 2: the open file changes on disk -----------------------------------------

@pytest.mark.slow
def test_a_changed_file_is_offered_for_reload_with_what_differs(qtbot, tmp_path, design):
    window = _window(qtbot, tmp_path, design)
    devices_before = window.document.layout.device_count()
    with qtbot.waitSignal(window.file_watch.changed_on_disk, timeout=20000):
        _colleague_writes(design, _example("dgx-h100-2node-ib.yaml"))
    box = window.file_prompt
    assert box is not None and box.isVisible()
    assert "design.yaml was changed on disk" in box.text()
    assert "devices added" in box.informativeText() and "links added" in box.informativeText()
    qtbot.mouseClick(box.reload_button, Qt.MouseButton.LeftButton)
    assert window.file_prompt is None
    assert window.document.layout.device_count() > devices_before
    assert window.document.layout == load_layout(design, window.catalog)
    assert not window.document.is_modified()


@pytest.mark.slow
def test_keep_mine_keeps_the_edits_and_saving_then_replaces_the_disk(qtbot, tmp_path, design):
    window = _window(qtbot, tmp_path, design)
    _edit(window)
    with qtbot.waitSignal(window.file_watch.changed_on_disk, timeout=20000):
        _colleague_writes(design, _example("dgx-h100-2node-ib.yaml"))
    box = window.file_prompt
    assert "unsaved changes are lost if you reload" in box.informativeText()
    assert box.defaultButton() is box.keep_button
    qtbot.mouseClick(box.keep_button, Qt.MouseButton.LeftButton)
    assert window.document.layout.device(EDITED).name == "my edit"
    assert window.document.is_modified()
    window.actions_.save_action.trigger()  # chosen already: no second question
    assert _edited_name(design) == "my edit"
    assert not window.document.is_modified()


@pytest.mark.slow
def test_save_over_a_file_changed_on_disk_asks_first(qtbot, tmp_path, design):
    window = _window(qtbot, tmp_path, design)
    _edit(window)
    window.file_watch.blockSignals(True)  # Save pressed before the notice arrives
    _colleague_writes(design, _example("dgx-h100-2node-ib.yaml"))
    theirs = design.read_bytes()
    seen: list[str] = []
    _answer_next_box("Cancel", seen)
    window.actions_.save_action.trigger()
    assert "changed on disk since you opened it" in seen[0] and "devices added" in seen[0]
    assert design.read_bytes() == theirs and window.document.is_modified()
    _answer_next_box("Overwrite", seen)
    window.actions_.save_action.trigger()
    assert _edited_name(design) == "my edit"
    assert not window.document.is_modified()


@pytest.mark.slow
def test_own_saves_are_not_reported_as_changes(qtbot, tmp_path, design):
    window = _window(qtbot, tmp_path, design)
    _edit(window)
    window.actions_.save_action.trigger()
    window.file_watch.flush()
    assert not window.file_watch.check()
    assert window.file_prompt is None


def test_the_digest_taken_beside_the_reading_is_the_file_as_followed(qtbot, tmp_path, design):
    """Opening takes the file's digest on a thread beside the reading (`prefetch`); a file
    that changed between that and the window following it is taken as it is then, so neither
    a change is missed nor a stale one reported."""
    window = _window(qtbot, tmp_path)
    watch = window.file_watch
    assert window.open_file(design, ask=False)
    assert not watch.changed_since_known()
    design.write_bytes(design.read_bytes().replace(b"DGX", b"DGx", 1))
    assert watch.changed_since_known()  # a change after the open is seen
    watch.prefetch(design)
    design.write_bytes(design.read_bytes() + b"# later\n")  # changed after the prefetch
    watch.follow(design)
    assert not watch.changed_since_known()  # the known version is the file as followed
    design.write_bytes(design.read_bytes()[:-8])
    assert watch.changed_since_known()


# ---- issue 12 item 3, issue 13 item 1: read-only files and folders --------------------------

@pytest.mark.slow
def test_a_read_only_file_is_saved_only_when_confirmed(qtbot, tmp_path, design):
    design.chmod(0o444)
    window = _window(qtbot, tmp_path, design)
    _edit(window)
    before = design.read_bytes()
    seen: list[str] = []
    _answer_next_box("Cancel", seen)
    window.actions_.save_action.trigger()
    assert "design.yaml is read-only" in seen[0]
    assert design.read_bytes() == before and window.document.is_modified()
    _answer_next_box("Save anyway", seen)
    window.actions_.save_action.trigger()
    assert _edited_name(design) == "my edit"
    assert design.stat().st_mode & 0o777 == 0o444


@pytest.fixture
def unwritable_folder(tmp_path) -> Path:
    """A folder where no new file can be made: a locked one, or (as root, who ignores modes)
    /sys, which refuses new files."""
    if os.geteuid() != 0:
        folder = tmp_path / "locked"
        folder.mkdir()
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    try:
        Path("/sys/rackdesigner-probe.tmp").write_text("x")
    except OSError:
        yield Path("/sys")
        return
    Path("/sys/rackdesigner-probe.tmp").unlink()
    pytest.skip("no folder this user cannot write to")


@pytest.mark.slow
def test_saving_where_nothing_can_be_written_says_so_and_stays_unsaved(
        qtbot, tmp_path, unwritable_folder, monkeypatch):
    window = _window(qtbot, tmp_path)
    window.open_file(_example("dgx-h100.yaml"), ask=False)
    target = unwritable_folder / "mine.yaml"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    seen: list[str] = []
    _answer_next_box("OK", seen)
    window.actions_.save_action.trigger()
    assert seen and seen[0].startswith("Cannot save|")
    assert f"{target} could not be saved" in seen[0] and "Save As" in seen[0]
    assert window.document.path is None and window.windowTitle().startswith("DGX H100 (example)")
    assert not target.exists()


# ---- issue 13 item 1: examples open as untitled copies --------------------------------------

@pytest.mark.slow
def test_an_example_opens_as_an_untitled_copy_and_save_asks_where(qtbot, tmp_path,
                                                                   monkeypatch):
    example = _example("dgx-h100.yaml")
    original = example.read_bytes()
    window = _window(qtbot, tmp_path)
    assert window.open_file(example, ask=False)
    assert window.document.path is None
    assert window.windowTitle().startswith("DGX H100 (example)")
    asked: list[str] = []
    chosen = tmp_path / "my-cluster.yaml"

    def dialog(parent, caption, start, filters):
        asked.append(start)
        return str(chosen), ""

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    window.actions_.save_action.trigger()
    assert asked == [str(tmp_path / "dgx-h100.yaml")]  # next to the user, not site-packages
    assert example.read_bytes() == original
    assert window.document.path == chosen and chosen.exists()
    assert window.windowTitle().startswith("my-cluster.yaml")
    assert str(example.resolve()) not in window.settings.recent_files()


@pytest.mark.slow
def test_first_start_says_which_example_it_shows(qtbot, tmp_path):
    from rackdesigner.app import open_start_window

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = open_start_window(None, settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    assert window.document.path is None
    title = window.document.untitled_title
    assert title.endswith("(example)")
    assert window.windowTitle().startswith(title)
    message = window.statusBar().currentMessage()
    assert f"this is the example {title}" in message and "Save asks where" in message


@pytest.mark.slow
def test_a_template_opens_as_an_untitled_copy(qtbot, tmp_path, monkeypatch):
    from rackdesigner.ui.template_dialog import TemplateDialog

    window = _window(qtbot, tmp_path)

    def click_ok(dialog):  # instead of a nested event loop: the user presses OK at once
        from PySide6.QtWidgets import QDialogButtonBox

        buttons = dialog.findChild(QDialogButtonBox)
        buttons.button(QDialogButtonBox.StandardButton.Ok).click()
        return dialog.result()

    monkeypatch.setattr(TemplateDialog, "exec", click_ok)
    assert window.new_from_template()
    assert window.document.path is None
    assert window.document.untitled_title.endswith("(template)")
    assert window.windowTitle().startswith(window.document.untitled_title)


# ---- issue 12 items 5 and 6: opening never breaks the open design -----------------------------

@pytest.mark.slow
def test_failed_opens_leave_the_open_design_intact(qtbot, tmp_path, design, monkeypatch):
    window = _window(qtbot, tmp_path, design)
    _edit(window)
    before = window.document.layout
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    deep = tmp_path / "deep.yaml"
    deep.write_text("schema_version: 1\ngroups:\n- {id: g-0}\n" + "".join(
        f"- {{id: g-{i}, parent: g-{i - 1}}}\n" for i in range(1, 1200)))
    seen: list[str] = []
    for path in (fifo, deep):
        _answer_next_box("OK", seen)
        assert not window.open_file(path, ask=False)  # the FIFO: at once, not blocking
    assert "FIFO" in seen[0] and "nested" in seen[1]
    # a failure past loading (a view that cannot show the design) is caught as well
    monkeypatch.setattr(window.scene, "set_layout", _fail_once(window.scene.set_layout))
    _answer_next_box("OK", seen)
    assert not window.open_file(_example("dgx-h100-2node-ib.yaml"), ask=False)
    assert "cannot be shown" in seen[2]
    assert window.document.layout is before and window.document.path == design
    assert window.document.is_modified() and window.isWindowModified()
    assert before.device(EDITED).name == "my edit"
    assert set(window.scene.item_for_device) == {d.id for d in before.devices()}


@pytest.mark.slow
def test_the_deepest_allowed_nesting_opens_and_draws(qtbot, tmp_path):
    from rackdesigner.io.reader import MAX_GROUP_DEPTH

    path = tmp_path / "deep.yaml"
    path.write_text("schema_version: 1\ngroups:\n- {id: g-1}\n" + "".join(
        f"- {{id: g-{i}, parent: g-{i - 1}}}\n" for i in range(2, MAX_GROUP_DEPTH + 1))
        + f"devices:\n- {{id: gpu-1, model: h100-sxm5, group: g-{MAX_GROUP_DEPTH}}}\n")
    window = _window(qtbot, tmp_path)
    assert window.open_file(path, ask=False)
    window.flush()
    assert set(window.scene.item_for_group) >= {"g-1", f"g-{MAX_GROUP_DEPTH}"}


def _fail_once(real):
    calls = []

    def set_layout(layout):
        calls.append(layout)
        if len(calls) == 1:
            raise RecursionError("maximum recursion depth exceeded")
        return real(layout)
    return set_layout


@pytest.mark.slow
def test_export_bom_failure_is_a_message_and_success_is_complete(qtbot, tmp_path, design,
                                                                 unwritable_folder):
    window = _window(qtbot, tmp_path, design)
    seen: list[str] = []
    _answer_next_box("OK", seen)
    assert not window.export_bom(unwritable_folder / "bom.csv")
    assert seen and seen[0].startswith("Cannot export|")
    out = tmp_path / "bom.csv"
    assert window.export_bom(out)
    assert out.read_text().startswith("section,model,kind,length_m,count,in_systems\n")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".bom.csv")] == []


# ---- issue 12 item 7: settings that cannot be read ----------------------------------------------

def test_damaged_settings_are_reset_with_a_backup_and_one_line(qtbot, tmp_path):
    from rackdesigner.ui.settings import Settings

    ini = tmp_path / "settings.ini"
    ini.write_text("[General]\nsettings_version=abc\nrecent=/x\n")
    settings = Settings(QSettings(str(ini), QSettings.Format.IniFormat))
    backups = list(tmp_path.glob("settings.ini.bad-*"))
    assert len(backups) == 1 and "settings_version=abc" in backups[0].read_text()
    assert "settings_version='abc' is not a number" in settings.reset_notice
    assert str(backups[0]) in settings.reset_notice
    assert settings.store.value("settings_version") in (1, "1")


@pytest.mark.slow
def test_the_app_starts_with_a_damaged_settings_file(tmp_path):
    config = tmp_path / "config" / "RackDesigner"
    config.mkdir(parents=True)
    (config / "RackDesigner.conf").write_text("[General]\nsettings_version=abc\n")
    script = textwrap.dedent("""
        import sys
        from rackdesigner.app import run_app
        sys.exit(run_app(None, quit_after_ms=0))
    """)
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                            text=True, timeout=180,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen",
                                 "XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "Settings reset" in line]
    assert len(lines) == 1 and "settings_version='abc'" in lines[0]
    assert "Traceback" not in result.stderr
    assert len(list(config.glob("RackDesigner.conf.bad-*"))) == 1
