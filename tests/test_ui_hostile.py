"""The designer under hostile input (issue 24): every import or save failure ends in a dialog
that names the cause; no input reaches the canvas with a position it cannot draw; a file
rewritten behind the designer's back is noticed at Save even with its old size and mtime; a
settings file that is a FIFO does not stop the app from starting."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from rackdesigner.catalog import bundled_catalog
from rackdesigner.generators import generate
from rackdesigner.interop import export


def _window(qtbot, tmp_path):
    from rackdesigner.ui import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(catalog=bundled_catalog(), settings=settings)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.fixture
def dialogs(monkeypatch):
    """Every critical dialog's (title, text), shown without blocking."""
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(QMessageBox, "critical",
                        lambda parent, title, text, *a, **k: shown.append((title, text)))
    monkeypatch.setattr(QMessageBox, "information", lambda *a, **k: None)
    return shown


@pytest.mark.slow
@pytest.mark.parametrize("value", ["nan", "inf", "1e309", "-1.7e308"])
def test_graphml_with_a_position_the_canvas_cannot_draw_is_refused(value, qtbot, tmp_path,
                                                                    dialogs):
    from rackdesigner.ui.interop_menu import import_from

    window = _window(qtbot, tmp_path)
    before = window.document.layout
    path = tmp_path / "bad.graphml"
    export(generate("dgx-h100"), "graphml", path)
    text = path.read_text()
    kid = text.split('attr.name="x"')[0].rsplit('<key id="', 1)[1].split('"')[0]
    path.write_text(_set_first(text, kid, value))
    assert import_from(window, "graphml", path) is False
    assert dialogs and dialogs[-1][0] == "Cannot import"
    assert str(path) in dialogs[-1][1] and "'x'" in dialogs[-1][1]
    assert window.document.layout is before  # the open design stays
    window.grab()  # the canvas and the minimap still paint


def _set_first(text: str, kid: str, value: str) -> str:
    start = text.index(f'<data key="{kid}">') + len(f'<data key="{kid}">')
    end = text.index("</data>", start)
    return text[:start] + value + text[end:]


@pytest.mark.slow
def test_an_unexpected_import_failure_is_a_dialog_not_a_dead_window(qtbot, tmp_path, dialogs,
                                                                   monkeypatch):
    from rackdesigner.interop import graphml
    from rackdesigner.ui.interop_menu import import_from

    window = _window(qtbot, tmp_path)

    def broken(*_a, **_k):
        raise MemoryError("the machine ran out of memory")

    monkeypatch.setattr(graphml, "read", broken)
    assert import_from(window, "graphml", tmp_path / "x.graphml") is False
    assert dialogs[-1][0] == "Cannot import"
    assert "MemoryError" in dialogs[-1][1] and "x.graphml" in dialogs[-1][1]


@pytest.mark.slow
def test_a_save_the_writer_refuses_is_a_dialog(qtbot, tmp_path, dialogs, monkeypatch):
    import rackdesigner.io as rio

    window = _window(qtbot, tmp_path)
    window._set_document(generate("dgx-h100"), None)
    target = tmp_path / "d.yaml"

    def refusing(*_a, **_k):
        raise ValueError("device gpu-1: 'pos' cannot be written")

    monkeypatch.setattr(rio, "save_layout", refusing)
    assert window.files.save_file(target) is False
    assert dialogs[-1][0] == "Cannot save" and "cannot be written" in dialogs[-1][1]
    assert not target.exists()


@pytest.mark.slow
def test_in_place_rewrite_with_old_size_and_mtime_is_noticed_at_save(qtbot, tmp_path):
    window = _window(qtbot, tmp_path)
    path = tmp_path / "d.yaml"
    from rackdesigner.io import save_layout

    save_layout(generate("dgx-h100"), path)
    assert window.open_file(path, ask=False)
    info = os.stat(path)
    data = bytearray(path.read_bytes())
    i = data.index(b"DGX H100")
    data[i:i + 8] = b"DGX H666"  # same size
    with open(path, "r+b") as handle:  # in place: same inode
        handle.write(data)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert os.stat(path).st_size == info.st_size
    assert os.stat(path).st_mtime_ns == info.st_mtime_ns
    assert window.file_watch.changed_since_known()


@pytest.mark.slow
def test_a_fifo_settings_file_does_not_stop_the_app(tmp_path):
    """QSettings blocks for ever opening a FIFO: it is moved aside before Qt sees it."""
    config = tmp_path / "config"
    (config / "RackDesigner").mkdir(parents=True)
    os.mkfifo(config / "RackDesigner" / "RackDesigner.conf")
    code = textwrap.dedent("""
        from PySide6.QtWidgets import QApplication
        app = QApplication([])
        from rackdesigner.ui.settings import Settings
        s = Settings()
        s.add_recent(__file__ if '__file__' in dir() else 'x')
        s.sync()
        print(s.reset_notice)
        """)
    env = {**os.environ, "XDG_CONFIG_HOME": str(config), "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60, env=env, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert "FIFO" in result.stdout and "moved to" in result.stdout
    assert (config / "RackDesigner" / "RackDesigner.conf").is_file()
