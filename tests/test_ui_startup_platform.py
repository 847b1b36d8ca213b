"""`rackdesigner` on a machine where Qt's platform plugin cannot load says what to do, in one
line, with the offscreen escape, instead of Qt's abort (issue 13, item 8)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rackdesigner.ui.qt_platform import XCB_PACKAGES, explain

REPO = Path(__file__).resolve().parent.parent


def _start(tmp_path, **env_extra) -> subprocess.CompletedProcess:
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
           "XDG_RUNTIME_DIR": str(tmp_path), **env_extra}
    return subprocess.run([sys.executable, "-m", "rackdesigner"], capture_output=True,
                          text=True, timeout=120, env=env, cwd=REPO)


@pytest.mark.slow
@pytest.mark.parametrize(("env", "names"), [
    ({"QT_QPA_PLATFORM": "xcb"}, "DISPLAY is unset"),
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


def test_the_missing_library_case_names_the_xcb_packages():
    line = explain(['Could not load the Qt platform plugin "xcb" in "" even though it was '
                    'found.'], None, ":0")
    assert "libxcb-icccm4" in line and "libxcb-keysyms1" in line and "libxcb-cursor0" in line
    assert "QT_QPA_PLATFORM=offscreen" in line
    assert len(line.splitlines()) == 1
    assert set(XCB_PACKAGES) >= {"libxcb-icccm4", "libxcb-keysyms1"}
