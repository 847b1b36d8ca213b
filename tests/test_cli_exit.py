"""How `rackdesigner VERB` ends (issue 38 item 19): after a verb that loads a whole design the
process skips the interpreter's teardown (freeing a large design object by object through the
modules' caches took 1 s of a 32k-GPU `validate`), and still delivers all of its output, its
exit status and its `atexit` handlers; every other verb ends the usual way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from rackdesigner._resources import example_paths

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = str(next(p for p in example_paths() if p.name == "dgx-h100.yaml"))

#: run `entry()` as the installed script does, with an atexit handler and a module-level object
#: whose finaliser runs only in the interpreter's teardown
SCRIPT = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("atexit ran\\n"))
class Witness:
    def __del__(self):
        sys.stderr.write("teardown ran\\n")
witness = Witness()
sys.argv = ["rackdesigner", *sys.argv[1:]]
from rackdesigner.cli import entry
entry()
"""


def _entry(*args: str, stdout=subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run([sys.executable, "-c", SCRIPT, *args], cwd=REPO, stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=180,
                          env={**env, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"})


def test_a_design_verb_skips_the_teardown_but_keeps_output_status_and_atexit(tmp_path):
    out = tmp_path / "sim.json"
    with open(out, "w") as handle:  # a file: block-buffered, so the flush must happen
        result = _entry("simulate", "--json", EXAMPLE, stdout=handle)
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["scope"]  # the whole document, parseable
    assert "atexit ran" in result.stderr
    assert "teardown ran" not in result.stderr


def test_the_exit_status_of_a_design_verb_is_kept(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("not: [a layout\n")
    result = _entry("validate", str(broken))
    assert result.returncode == 2
    assert "broken.yaml" in result.stderr


def test_other_verbs_end_the_usual_way():
    result = _entry("--version")
    assert result.returncode == 0 and result.stdout.startswith("rackdesigner ")
    assert "teardown ran" in result.stderr and "atexit ran" in result.stderr


def test_the_installed_script_and_python_m_use_the_entry():
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["rackdesigner"] == "rackdesigner.cli:entry"
    assert "entry()" in (REPO / "rackdesigner" / "__main__.py").read_text()
    assert "entry()" in (REPO / "packaging" / "launcher.py").read_text()
