"""Checked contracts: the layer contract (import-linter) and mypy on the core packages, both
configured in pyproject.toml and run here because CI runs exactly the README's test command.
The layer contract runs in the inner loop (`-m "not slow"`, a few seconds); mypy, whose cold
run takes half a minute, in the slow tier."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rackdesigner

PACKAGE_DIR = Path(rackdesigner.__file__).resolve().parent
REPO = PACKAGE_DIR.parent

pytestmark = [
    pytest.mark.skipif(not (REPO / "pyproject.toml").exists(), reason="needs the source tree"),
]


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    pytest.importorskip("importlinter")
    code = ("import sys; from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True))")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={"PYTHONPATH": str(cwd), "PATH": ""})


def test_layer_contract_is_kept():
    result = _lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr


def test_layer_contract_catches_an_upward_import(tmp_path):
    """The contract can fail: the model importing the simulation breaks it."""
    shutil.copytree(PACKAGE_DIR, tmp_path / "rackdesigner",
                    ignore=shutil.ignore_patterns("__pycache__", "resources"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    model_init = tmp_path / "rackdesigner" / "model" / "__init__.py"
    model_init.write_text(model_init.read_text() + "\nimport rackdesigner.simulation.engine\n")
    result = _lint_imports(tmp_path)
    assert result.returncode != 0
    assert "rackdesigner.model -> rackdesigner.simulation" in result.stdout


@pytest.mark.slow
def test_mypy_is_clean_on_the_core(monkeypatch):
    api = pytest.importorskip("mypy.api")
    monkeypatch.chdir(REPO)  # the configured `files` are relative to the tree
    stdout, stderr, status = api.run(["--config-file", str(REPO / "pyproject.toml"),
                                      "--cache-dir", str(REPO / ".mypy_cache")])
    assert status == 0, stdout + stderr


def test_mypy_covers_every_qt_free_package():
    """mypy checks everything Qt-free: each package and module under rackdesigner/ but ui/ and
    the app entry is in pyproject's mypy `files`, so a new package cannot slip past it."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    checked = {Path(f).name for f in config["tool"]["mypy"]["files"]}
    qt = {"ui", "app.py"}
    present = {p.name for p in PACKAGE_DIR.iterdir()
               if (p.is_dir() and (p / "__init__.py").exists()) or p.suffix == ".py"}
    assert present - qt - checked == set(), "add these to [tool.mypy] files in pyproject.toml"
    assert not checked & qt, "ui/ and app.py import Qt; mypy runs without it"


#: ruff's SLF001 (a module reaching into another object's `_private` parts) at most this many
#: times (issue 34: 122 before; the rest are Qt widgets' own parts and openpyxl's cell value).
PRIVATE_ACCESS_CEILING = 24


def test_private_access_stays_under_its_ceiling():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("needs ruff")
    result = subprocess.run([ruff, "check", "--select", "SLF001", "--output-format", "concise",
                             "--no-cache", str(PACKAGE_DIR)], capture_output=True, text=True,
                            timeout=120, cwd=REPO)
    found = [line for line in result.stdout.splitlines() if "SLF001" in line]
    assert len(found) <= PRIVATE_ACCESS_CEILING, (
        "give the engine a public accessor instead of reaching into its privates:\n"
        + "\n".join(found))
