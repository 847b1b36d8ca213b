"""The command line imports only what a verb needs (issue 27: `rackdesigner --version` in well
under 0.1 s, `simulate` of a 1k-GPU design in under 0.3 s, most of which was imports).

Each check runs in a fresh interpreter and lists the heavy packages it ended up importing."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rackdesigner.cli import VERBS

#: never needed before a verb asks for them (the GUI, plots, sweeps, graph tools)
HEAVY = ("networkx", "scipy", "numpy", "PySide6", "pyqtgraph", "dask", "distributed", "yaml",
         "openpyxl")


def _imported_by(code: str) -> list[str]:
    probe = (f"{code}\nimport json, sys\n"
             f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _after_main(argv: list[str]) -> str:
    return ("import contextlib, io\nfrom rackdesigner.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    try:\n        main({argv!r})\n    except SystemExit:\n        pass")


def test_importing_the_cli_imports_nothing_heavy():
    assert _imported_by("import rackdesigner.cli") == []


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["examples"]])
def test_version_help_and_examples_import_nothing_heavy(argv):
    assert _imported_by(_after_main(argv)) == []


@pytest.mark.slow
def test_simulate_imports_the_engine_only(tmp_path: Path, monkeypatch):
    """A whole report: no graph library, no compiled max-flow, no GUI, no Dask; YAML only
    while the shipped data files are not yet in the parsed-file cache (its first start), then
    nothing heavy at all: a saved layout is read without it (`io/fastread.py`)."""
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout

    monkeypatch.setenv("RACKDESIGNER_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "pod.yaml"
    save_layout(generate("superpod", system="dgx-h100", sus=1), path)
    assert _imported_by(_after_main(["simulate", str(path), "--json"])) == ["yaml"]
    assert _imported_by(_after_main(["simulate", str(path), "--json"])) == []
    assert _imported_by(_after_main(["validate", str(path)])) == []


def test_each_verb_row_is_the_verb_its_module_registers():
    """The table's name and help line (shown by `--help` without importing the module) are
    the ones the module registers in full."""
    for verb in VERBS:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        importlib.import_module(verb.module).register(sub)
        (choice,) = [a for a in sub._choices_actions if a.dest == verb.name]
        assert choice.help == verb.help, verb.name


def test_a_verb_parses_its_options_with_only_its_module():
    """`rackdesigner VERB --help` shows the verb's own options (its module, registered)."""
    out = subprocess.run([sys.executable, "-m", "rackdesigner", "simulate", "--help"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
    assert "--collective" in out.stdout
    top = subprocess.run([sys.executable, "-m", "rackdesigner", "--help"],
                         capture_output=True, text=True, timeout=120)
    assert all(verb.name in top.stdout for verb in VERBS)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
@pytest.mark.parametrize("preset", [None, "2"])
def test_a_verb_keeps_numpy_to_one_thread_unless_told(preset, monkeypatch):
    """A verb that reads a large design imports NumPy, whose OpenBLAS would start and spin a
    worker thread per core (0.1 s of CPU per process); no verb does linear algebra, so the
    command line asks for one, unless the user said otherwise."""
    import os

    if preset is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", preset)
    probe = (_after_main(["examples"]) + "\nimport os, numpy\n"
             "print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    setting, threads = out.stdout.split()
    assert setting == (preset or "1")
    if preset is None:
        assert int(threads) == 1


@pytest.mark.slow
def test_estimate_imports_neither_the_gui_nor_the_exporters_nor_graph_tools(tmp_path: Path,
                                                                            monkeypatch):
    """`estimate` (issue 38 item 19): the engine and the workload model only — no Qt, no
    exporters or importers, no sweeps, no graph library or numpy; YAML only for the model and
    profile files (read as YAML nodes, for errors located by line), the design without it."""
    from rackdesigner.generators import generate
    from rackdesigner.io import save_layout

    monkeypatch.setenv("RACKDESIGNER_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "pod.yaml"
    save_layout(generate("superpod", system="dgx-h100", sus=1), path)
    argv = ["estimate", str(path), "--model", "llama3-70b", "--tp", "8", "--pp", "4",
            "--gbs", "256", "--json"]
    _imported_by(_after_main(argv))  # the first start fills the cache
    assert _imported_by(_after_main(argv)) == ["yaml"]
    probe = (_after_main(argv) + "\nimport json, sys\nprint(json.dumps(sorted(m for m in "
             "sys.modules if m.startswith(('rackdesigner.ui', 'rackdesigner.interop', "
             "'rackdesigner.sweep', 'rackdesigner.generators', 'rackdesigner.analysis')))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
