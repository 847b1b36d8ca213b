"""Installed packages extend the tables (`rackdesigner.plugins`, docs/plugins.md).

The example plugin (tests/plugins/rd_ocs_plugin: an optical circuit switch kind, a catalog pack
with one model of it, a link-list export) is found through its entry points and used end to end
by the CLI — from a hand-made installation (not slow) and from a wheel built and installed with
pip (slow). Registration refuses a duplicate name or id and an unknown role or trait, naming the
plugin; the CLI says so and exits 2.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rackdesigner
from rackdesigner import vocabulary
from rackdesigner.vocabulary import kinds as kinds_module

ROOT = Path(rackdesigner.__file__).resolve().parent.parent
PLUGIN = ROOT / "tests" / "plugins" / "rd_ocs_plugin"
EXAMPLES = ROOT / "resources" / "examples"
ENTRY_POINTS = """[rackdesigner.catalogs]
ocs = rd_ocs_plugin:catalog_folder

[rackdesigner.exporters]
link-list = rd_ocs_plugin:EXPORTERS

[rackdesigner.kinds]
ocs = rd_ocs_plugin:KINDS
"""


def _install(site: Path, name: str, package: Path | None, entry_points: str) -> None:
    """`package` (a folder) and a dist-info declaring `entry_points` under `site`: what pip
    leaves behind for an installed distribution."""
    if package is not None:
        shutil.copytree(package, site / package.name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    info = site / f"{name.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(entry_points)


def _cli(site: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(site), str(ROOT))),
           "QT_QPA_PLATFORM": "offscreen"}
    env.pop("RACKDESIGNER_CATALOG", None)
    return subprocess.run([sys.executable, "-m", "rackdesigner", *args], capture_output=True,
                          text=True, env=env, timeout=120, cwd=site)


def _ocs_design(folder: Path) -> Path:
    text = (EXAMPLES / "fat-tree-2tier.yaml").read_text(encoding="utf-8")
    assert "model: qm9700" in text
    path = folder / "ocs.yaml"
    path.write_text(text.replace("model: qm9700", "model: ocs-64"), encoding="utf-8")
    return path


def _use_the_plugin(site: Path, tmp: Path) -> None:
    """What a user of the installed example plugin does, checked."""
    listed = _cli(site, "catalog")
    assert listed.returncode == 0, listed.stderr
    assert "ocs-64" in listed.stdout and "optical_circuit_switch" in listed.stdout
    only = _cli(site, "catalog", "--kind", "optical_circuit_switch")
    assert only.returncode == 0 and "ocs-64" in only.stdout and "qm9700" not in only.stdout
    design = _ocs_design(tmp)
    mine = _cli(site, "simulate", str(design), "--json")
    theirs = _cli(site, "simulate", str(EXAMPLES / "fat-tree-2tier.yaml"), "--json")
    assert mine.returncode == 0, mine.stderr
    ours, packet = json.loads(mine.stdout), json.loads(theirs.stdout)
    assert ours["bandwidth"]["per_gpu_scale_out_GBps"] > 0
    assert ours["bandwidth"] == packet["bandwidth"]
    assert ours["collectives"] == packet["collectives"]
    assert "link-list" in _cli(site, "export", "--help").stdout
    out = tmp / "links.txt"
    done = _cli(site, "export", str(design), "-f", "link-list", "-o", str(out))
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    assert lines[0] == "a\tb\tprotocol\tcount" and len(lines) == 1 + 528
    assert any("ocs-64" not in line and "infiniband" in line for line in lines)
    whatif = _cli(site, "whatif", str(design), "--each", "spine", "--json")
    assert whatif.returncode == 0, whatif.stderr
    assert json.loads(whatif.stdout)["scenarios"]  # its spines are switches to what-if
    checked = _cli(site, "validate", str(design))
    assert "gpus-unreachable" not in checked.stdout + checked.stderr


def test_the_example_plugin_is_found_by_its_entry_points_and_used_end_to_end(tmp_path):
    site = tmp_path / "site"
    _install(site, "rd-ocs-plugin", PLUGIN / "rd_ocs_plugin", ENTRY_POINTS)
    _use_the_plugin(site, tmp_path)


@pytest.mark.slow
def test_the_example_plugin_works_from_an_installed_wheel(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns("__pycache__", "build",
                                                                  "*.egg-info"))
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w",
                    str(tmp_path / "dist"), str(source)], check=True, timeout=300)
    wheel = next((tmp_path / "dist").glob("rd_ocs_plugin-*.whl"))
    site = tmp_path / "site"
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", str(site),
                    str(wheel)], check=True, timeout=300)
    _use_the_plugin(site, tmp_path)


@pytest.mark.parametrize(("plugin", "words"), [
    ("from rackdesigner.vocabulary import KINDS\nVALUE = [KINDS['switch']]\n",
     "kind 'switch' is already registered"),
    ("from rackdesigner.vocabulary import Kind\n"
     "VALUE = Kind('x', 'x', 'xs', 'X', None, None, 'router', 'other', 'x')\n",
     "unknown role 'router'"),
    ("from rackdesigner.vocabulary import Kind, Traits\n"
     "VALUE = Kind('x', 'x', 'xs', 'X', None, None, 'switch', 'other', 'x',\n"
     "             traits=Traits(forwards=True, fabric='backend'))\n",
     "unknown fabric 'backend'"),
    ("from rackdesigner.vocabulary import Kind, Traits\n"
     "VALUE = Kind('x', 'x', 'xs', 'X', None, None, 'switch', 'other', 'x',\n"
     "             traits=Traits(teleports=True))\n",
     "teleports"),
    ("raise ImportError('no module named photonics')\n", "no module named photonics"),
])
def test_a_refused_plugin_is_named_and_the_cli_exits_2(tmp_path, plugin, words):
    site = tmp_path / "site"
    (site / "rd_bad").mkdir(parents=True)
    (site / "rd_bad" / "__init__.py").write_text(plugin)
    _install(site, "rd-bad", None, "[rackdesigner.kinds]\nbad = rd_bad:VALUE\n")
    done = _cli(site, "catalog")
    assert done.returncode == 2
    assert "plugin rd-bad:bad" in done.stderr and words in done.stderr
    assert "Traceback" not in done.stderr


# ---- registration, in this process ---------------------------------------------------------------
@pytest.fixture
def tables(monkeypatch):
    """The tables as they are now, put back after the test (registration rebinds them)."""
    from rackdesigner import interop
    from rackdesigner.catalog import catalog as catalog_module
    from rackdesigner.interop import base

    for module in (kinds_module, vocabulary):
        for name in ("KINDS", "KIND_NAMES", "COOLING_KINDS"):
            monkeypatch.setattr(module, name, getattr(module, name))
    for module in (base, interop):
        monkeypatch.setattr(module, "EXPORTERS", module.EXPORTERS)
    monkeypatch.setattr(catalog_module, "_PLUGIN_FOLDERS", [])
    yield
    catalog_module.bundled_catalog.cache_clear()
    catalog_module.default_catalog.cache_clear()


def test_registered_tables_stay_immutable_and_refuse_duplicates(tables):
    from rackdesigner.interop import base

    ocs = dataclasses.replace(vocabulary.KINDS["switch"], name="ocs_test")
    assert vocabulary.register_kinds([ocs], "test:ocs") == ("ocs_test",)
    assert vocabulary.KINDS["ocs_test"].traits.fabric_switch
    assert vocabulary.traits_of("ocs_test").fabric_switch
    with pytest.raises(TypeError):
        vocabulary.KINDS["y"] = ocs  # type: ignore[index]
    with pytest.raises(vocabulary.RegistrationError, match="plugin test:again: kind 'ocs_test'"):
        vocabulary.register_kinds([ocs], "test:again")
    with pytest.raises(vocabulary.RegistrationError, match="unknown Palette section"):
        vocabulary.register_kinds([dataclasses.replace(ocs, name="z", palette="Toys")], "t:z")
    with pytest.raises(vocabulary.RegistrationError, match="must be a rackdesigner"):
        vocabulary.register_kinds(["switch"], "t:s")
    mine = base.Exporter("mine", "my_plugin.out", "mine", (".txt",), "Mine (*.txt)")
    assert base.register_exporters([mine], "test:mine") == ("mine",)
    with pytest.raises(TypeError):
        base.EXPORTERS["x"] = mine  # type: ignore[index]
    with pytest.raises(vocabulary.RegistrationError, match="'netbox' is already registered"):
        base.register_exporters([dataclasses.replace(mine, name="netbox")], "test:nb")
    with pytest.raises(vocabulary.RegistrationError, match="the plugin's own dotted module"):
        base.register_exporters([dataclasses.replace(mine, name="m2", module="slurm")], "t:m")
    with pytest.raises(vocabulary.RegistrationError, match="suffixes"):
        base.register_exporters([dataclasses.replace(mine, name="m3", suffixes=("txt",))],
                                "t:m")


def test_a_catalog_pack_that_repeats_a_shipped_id_is_refused_naming_the_plugin(tables,
                                                                            tmp_path):
    from rackdesigner.catalog import CatalogError
    from rackdesigner.catalog.catalog import bundled_catalog, register_catalog_folder

    text = (ROOT / "resources" / "catalog" / "switch" / "qm9700.yaml").read_text()
    (tmp_path / "pack").mkdir()
    (tmp_path / "pack" / "qm9700.yaml").write_text(text.replace("aliases: [qm9790]\n", ""))
    register_catalog_folder(tmp_path / "pack", "rd-copy:pack")
    with pytest.raises(CatalogError) as caught:
        bundled_catalog()
    assert "plugin rd-copy:pack" in str(caught.value) and "duplicate id 'qm9700'" in str(
        caught.value)
