"""House rules that keep the codebase healthy: a Qt-free core and a ruff-clean tree."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import rackdesigner

PACKAGE_DIR = Path(rackdesigner.__file__).resolve().parent
REPO = PACKAGE_DIR.parent

BLOCK_QT = textwrap.dedent(
    """
    import importlib, pkgutil, sys

    class BlockQt:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6"):
                raise ImportError(f"Qt is blocked in this test: {name}")
            return None

    sys.meta_path.insert(0, BlockQt())
    import rackdesigner
    skipped = ("rackdesigner.ui", "rackdesigner.app", "rackdesigner.__main__")
    names = [m.name for m in pkgutil.walk_packages(rackdesigner.__path__, "rackdesigner.")
             if not m.name.startswith(skipped)]
    for name in names:
        importlib.import_module(name)
    from rackdesigner.catalog import default_catalog
    default_catalog()
    print(len(names))
    """
)


@pytest.mark.slow
def test_core_imports_without_qt():
    """Everything but ui/ and the app entry must work where Qt cannot be imported."""
    result = subprocess.run([sys.executable, "-c", BLOCK_QT], capture_output=True, text=True,
                            cwd=REPO, timeout=300)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) >= 10  # catalog, model, io, cli... were all imported


@pytest.mark.skipif(not (REPO / "pyproject.toml").exists(), reason="needs the source tree")
def test_ruff_is_clean():
    ruff = shutil.which("ruff")
    command = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    result = subprocess.run([*command, "check", "rackdesigner", "tests"], cwd=REPO,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_script_points_qt_settings_at_the_null_device():
    # Qt saves settings atomically (a temporary file renamed over the target): settings at
    # /dev/null replace the machine's null device with a regular file, breaking every later
    # `> /dev/null` and subprocess.DEVNULL on the box (it happened, from two benchmarks)
    offenders = []
    for folder in ("rackdesigner", "tests", "benchmarks", "packaging"):
        for path in (REPO / folder).rglob("*.py"):
            if path.resolve() == Path(__file__).resolve():
                continue  # this test names both words
            text = path.read_text(encoding="utf-8")
            for line_no, line in enumerate(text.splitlines(), 1):
                if "QSettings(" in line and ("devnull" in line or "/dev/null" in line):
                    offenders.append(f"{path.relative_to(REPO)}:{line_no}")
    assert not offenders, "QSettings on the null device: " + ", ".join(offenders)
