"""`rackdesigner` on a machine where Qt's platform plugin cannot load says what to do, in one
line, with the offscreen escape, instead of Qt's abort (issue 13, item 8)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rackdesigner.ui.qt_platform import XCB_PACKAGES, explain, missing_packages

REPO = Path(__file__).resolve().parent.parent


def _start(tmp_path, **env_extra) -> subprocess.CompletedProcess:
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
           "XDG_RUNTIME_DIR": str(tmp_path), **env_extra}
    return subprocess.run([sys.executable, "-m", "rackdesigner"], capture_output=True,
                          text=True, timeout=120, env=env, cwd=REPO)


@pytest.mark.slow
@pytest.mark.parametrize(("env", "names"), [
    ({"QT_QPA_PLATFORM": "xcb"}, "neither DISPLAY nor WAYLAND_DISPLAY is set"),
    # a Wayland session Qt cannot use is not "DISPLAY is unset" (issue 26)
    ({"WAYLAND_DISPLAY": "wayland-77"}, "Wayland display 'wayland-77'"),
    ({"QT_QPA_PLATFORM": "nosuchplatform"}, "'nosuchplatform'"),
])
def test_a_platform_that_cannot_load_gives_one_clear_line(tmp_path, env, names):
    result = _start(tmp_path, **env)
    assert result.returncode == 2, result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith("rackdesigner: cannot start the designer")
    assert names in first and "QT_QPA_PLATFORM=offscreen" in first
    assert "Traceback" not in result.stderr
    assert "core dumped" not in result.stderr.lower()


def test_a_full_stderr_still_exits_2_not_abort(tmp_path):
    # `rackdesigner 2>/dev/full` aborted with 134: the message's write failed inside Qt's
    # message handler, so the exit after it never ran
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
           "XDG_RUNTIME_DIR": str(tmp_path), "QT_QPA_PLATFORM": "xcb"}
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "rackdesigner"], stderr=full,
                                stdout=subprocess.DEVNULL, timeout=120, env=env, cwd=REPO)
    assert result.returncode == 2


def test_no_display_does_not_repeat_qts_libxcb_cursor_hint(tmp_path):
    result = _start(tmp_path, QT_QPA_PLATFORM="xcb")
    assert result.returncode == 2
    assert "Reinstalling" not in result.stderr  # Qt's advice: the app is not the cause
    if "libxcb-cursor0" not in missing_packages():
        assert "libxcb-cursor0" not in result.stderr


def test_an_unreachable_x_display_is_named():
    line = explain(["qt.qpa.xcb: could not connect to display :77"], None, ":77", None, [])
    assert "cannot connect to the X display ':77'" in line and "apt-get" not in line


def test_only_the_missing_libraries_are_named():
    failed = ['Could not load the Qt platform plugin "xcb" in "" even though it was found.']
    line = explain(failed, None, ":0", None, ["libxcb-icccm4", "libxcb-keysyms1"])
    assert "apt-get install libxcb-icccm4 libxcb-keysyms1)" in line
    assert "libxcb-cursor0" not in line
    line = explain(failed, None, ":0", None, [])
    assert "installed" in line and "apt-get" not in line and "QT_DEBUG_PLUGINS" in line


def test_the_missing_library_case_names_the_xcb_packages():
    line = explain(['Could not load the Qt platform plugin "xcb" in "" even though it was '
                    'found.'], None, ":0", None, list(XCB_PACKAGES))
    assert "libxcb-icccm4" in line and "libxcb-keysyms1" in line and "libxcb-cursor0" in line
    assert "QT_QPA_PLATFORM=offscreen" in line
    assert len(line.splitlines()) == 1
    assert set(XCB_PACKAGES) >= {"libxcb-icccm4", "libxcb-keysyms1"}
