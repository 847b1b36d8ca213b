"""The application packaging (packaging/, resources/icons/) is consistent with the project.

Building the bundle takes minutes and hundreds of MB, so CI does not do it (see README, "Install
as an application"; `python3 packaging/check_bundle.py` does). These cheap checks catch what
usually breaks it: a renamed command or icon, a version bump that missed the metainfo, an icon
size added in one place only, and the GUI smoke-test switch that the bundle check relies on.
"""

from __future__ import annotations

import configparser
import importlib.util
import os
import re
import shutil
import struct
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import rackdesigner
from rackdesigner._resources import example_paths, icon_path
from rackdesigner.cli import VERB_MODULES

REPO = Path(__file__).resolve().parent.parent
PACKAGING = REPO / "packaging"
ICONS = REPO / "resources" / "icons"
APP_ID = "io.github.rackdesigner.RackDesigner"
METAINFO = PACKAGING / f"{APP_ID}.metainfo.xml"
DESKTOP = PACKAGING / "io.github.rackdesigner.RackDesigner.desktop"

pytestmark = pytest.mark.skipif(not PACKAGING.is_dir(), reason="needs the source tree")


def pyproject() -> dict:
    with (REPO / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)


def desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    return parser["Desktop Entry"]


def render_icons_module():
    spec = importlib.util.spec_from_file_location("render_icons", PACKAGING / "render_icons.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # imports no Qt at module level
    return module


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_desktop_entry_names_the_command_and_icon():
    entry = desktop_entry()
    command = next(iter(pyproject()["project"]["scripts"]))
    assert entry["Type"] == "Application"
    assert entry["Name"] == "RackDesigner"
    assert entry["Exec"].split()[0] == command
    assert entry["TryExec"] == command
    # desktop stores (Flathub, AppStream) want the icon named for the app id; build.sh
    # installs resources/icons/rackdesigner.svg and its PNGs under that name (issue 38 item 22)
    assert entry["Icon"] == APP_ID
    build = (PACKAGING / "build.sh").read_text()
    assert f"scalable/apps/{APP_ID}.svg" in build and f"apps/{APP_ID}.png" in build
    assert "$icon.svg" in (PACKAGING / "install.sh").read_text()
    assert (ICONS / "rackdesigner.svg").is_file()
    assert entry["Categories"].endswith(";")


def test_metainfo_matches_project_and_desktop_entry():
    root = ET.parse(METAINFO).getroot()
    project = pyproject()["project"]
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.findtext("name") == desktop_entry()["Name"]
    assert root.findtext("project_license") == project["license"]
    launchable = root.find("launchable")
    assert launchable.get("type") == "desktop-id"
    assert (PACKAGING / launchable.text).resolve() == DESKTOP.resolve()
    # AppStream ties the component to its desktop entry by name: <id>.desktop (issue 26)
    assert launchable.text == f"{APP_ID}.desktop"
    assert root.findtext("icon") == desktop_entry()["Icon"]
    assert root.findtext("provides/binary") == next(iter(project["scripts"]))
    newest = root.find("releases/release")
    assert newest.get("version") == rackdesigner.__version__ == project["version"], (
        "add a <release> for the new version at the top of the metainfo's <releases>")


def test_metainfo_and_pyproject_say_where_the_project_lives():
    root = ET.parse(METAINFO).getroot()
    urls = {u.get("type"): u.text for u in root.findall("url")}
    homepage = pyproject()["project"]["urls"]["Homepage"]
    assert urls["homepage"] == homepage and homepage.startswith("https://")
    assert urls["bugtracker"].startswith(homepage)
    shots = root.findall("screenshots/screenshot")
    assert shots and shots[0].get("type") == "default"
    for shot in shots:
        assert shot.findtext("caption")
        image = shot.findtext("image")
        assert image.startswith("https://")
        assert (REPO / "docs" / image.rsplit("/", 1)[1]).is_file(), image


def test_icon_svg_and_pngs_agree():
    svg = ET.parse(ICONS / "rackdesigner.svg").getroot()
    view_box = [float(v) for v in svg.get("viewBox").split()]
    assert view_box[2] == view_box[3], "the icon must be square"
    sizes = render_icons_module().SIZES
    for size in sizes:
        assert png_size(ICONS / f"rackdesigner-{size}.png") == (size, size)
    rendered = {int(m.group(1)) for p in ICONS.glob("rackdesigner-*.png")
                if (m := re.fullmatch(r"rackdesigner-(\d+)\.png", p.name))}
    assert rendered == set(sizes)
    installed = re.search(r'^sizes="([\d ]+)"', (PACKAGING / "install.sh").read_text(), re.M)
    assert {int(s) for s in installed.group(1).split()} == set(sizes)


def test_window_icon_is_the_shipped_one():
    assert icon_path().name == "rackdesigner.svg"  # what rackdesigner.app sets on the window
    assert icon_path().is_file()
    package_data = pyproject()["tool"]["setuptools"]["package-data"]["rackdesigner.resources"]
    assert "**/*.svg" in package_data and "**/*.png" in package_data


def test_spec_collects_verbs_data_and_entry():
    spec = (PACKAGING / "rackdesigner.spec").read_text()
    assert 'collect_submodules("rackdesigner")' in spec
    assert 'collect_data_files("rackdesigner.resources"' in spec
    assert '"launcher.py"' in spec and (PACKAGING / "launcher.py").is_file()
    assert 'name="rackdesigner"' in spec
    # collect_submodules("rackdesigner") covers the verbs only while they live in the package
    assert all(name.startswith("rackdesigner.cli.") for name in VERB_MODULES)
    build = (PACKAGING / "build.sh").read_text()
    assert "rackdesigner-$version-linux-$arch.tar.gz" in build


@pytest.mark.parametrize("script", ["build.sh", "install.sh", "check_bare_system.sh"])
def test_shell_scripts_parse(script):
    result = subprocess.run(["bash", "-n", str(PACKAGING / script)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_packaging_python_is_ruff_clean():
    ruff = shutil.which("ruff")
    command = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    result = subprocess.run([*command, "check", "packaging"], cwd=REPO, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(("tool", "args", "path"), [
    ("desktop-file-validate", [], DESKTOP),
    ("appstreamcli", ["validate", "--no-net"], METAINFO),
])
def test_files_pass_the_freedesktop_validators(tool, args, path):
    exe = shutil.which(tool)
    if exe is None:
        pytest.skip(f"{tool} is not installed")
    result = subprocess.run([exe, *args, str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def launcher(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", **env}
    return subprocess.run([sys.executable, str(PACKAGING / "launcher.py"), *args],
                          capture_output=True, text=True, timeout=180, env=full_env,
                          stdin=subprocess.DEVNULL)


@pytest.mark.slow
def test_launcher_runs_the_cli():
    result = launcher("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"rackdesigner {rackdesigner.__version__}"


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("rackdesigner.app") is None,
                    reason="the GUI is not in this tree yet")
def test_launcher_smoke_test_quits_after_first_frame(tmp_path):
    """The switch the bundle check uses: start the GUI, quit after one frame, report the time."""
    shot = tmp_path / "first-frame.png"
    args = [str(example_paths()[0])] if example_paths() else []
    result = launcher(*args, RACKDESIGNER_SMOKE_TEST="1", RACKDESIGNER_SMOKE_TIMEOUT="120",
                      RACKDESIGNER_SMOKE_SCREENSHOT=str(shot))
    assert result.returncode == 0, result.stderr
    assert re.search(r"rackdesigner-smoke: first frame after \d+ ms", result.stderr)
    assert "icon set" in result.stderr, "the main window shows no application icon"
    width, height = png_size(shot)
    assert width > 200 and height > 200


def check_bundle_module():
    spec = importlib.util.spec_from_file_location("check_bundle", PACKAGING / "check_bundle.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_check_script_reads_verbs_and_render_options(tmp_path):
    """The bundle check finds the verbs in `--help` and adapts to `render`'s output option."""
    from rackdesigner.cli import build_parser

    check = check_bundle_module()
    verbs = check.verbs_from_help(build_parser().format_help())
    assert {"catalog", "validate", "examples"} <= verbs
    assert "-h" not in verbs and "options" not in verbs
    example = tmp_path / "x.yaml"
    assert check.render_args("  -o OUTPUT, --output OUTPUT  image", example, tmp_path) == [
        "render", str(example), "--output", str(tmp_path / "render.png")]
    assert check.render_args("usage: render FILE", example, tmp_path) == ["render", str(example)]


def spec_guard_module():
    spec = importlib.util.spec_from_file_location("spec_guard", PACKAGING / "spec_guard.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_spec_guard_accepts_the_default_build_venv_and_refuses_the_checkout():
    """build.sh's documented default (a venv in build/bundle-venv, inside the checkout) must
    pass the spec's guard, and importing the checkout's own package must not (issue 12)."""
    guard = spec_guard_module()
    build = (PACKAGING / "build.sh").read_text()
    default = re.search(r'venv="\$\{RACKDESIGNER_BUILD_VENV:-\$root/([^}]+)\}"', build)
    assert default is not None, "build.sh no longer names its default build venv"
    spec = (PACKAGING / "rackdesigner.spec").read_text()
    assert "source_tree_problem(Path(rackdesigner.__file__).parent, repo)" in spec
    python = f"python{sys.version_info.major}.{sys.version_info.minor}"
    installed = REPO / default.group(1) / "lib" / python / "site-packages" / "rackdesigner"
    assert guard.source_tree_problem(installed, REPO) is None
    assert guard.source_tree_problem(Path("/opt/venv/lib") / python / "site-packages", REPO) \
        is None
    problem = guard.source_tree_problem(REPO / "rackdesigner", REPO)
    assert problem is not None and "source tree" in problem


def _fake_bundle_archive(tmp_path: Path, version: str) -> Path:
    """A tiny stand-in for the built archive: a shell-script "executable" plus the real
    install.sh, desktop entry, metainfo and icons, laid out as build.sh lays them out."""
    bundle = tmp_path / "dist" / "rackdesigner"
    (bundle / "share" / "applications").mkdir(parents=True)
    exe = bundle / "rackdesigner"
    exe.write_text(f"#!/bin/sh\necho 'rackdesigner {version}'\n")
    exe.chmod(0o755)
    shutil.copy(PACKAGING / "install.sh", bundle / "install.sh")
    shutil.copy(DESKTOP, bundle / "share" / "applications" / DESKTOP.name)
    (bundle / "share" / "metainfo").mkdir()
    shutil.copy(METAINFO, bundle / "share" / "metainfo" / METAINFO.name)
    for png in ICONS.glob("rackdesigner-*.png"):
        size = png.stem.split("-")[-1]
        target = bundle / "share" / "icons" / "hicolor" / f"{size}x{size}" / "apps"
        target.mkdir(parents=True)
        shutil.copy(png, target / f"{APP_ID}.png")  # as build.sh installs it
    scalable = bundle / "share" / "icons" / "hicolor" / "scalable" / "apps"
    scalable.mkdir(parents=True)
    shutil.copy(ICONS / "rackdesigner.svg", scalable / f"{APP_ID}.svg")
    archive = tmp_path / "dist" / f"rackdesigner-{version}-linux-x.tar.gz"
    subprocess.run(["tar", "-C", str(bundle.parent), "-czf", str(archive), "rackdesigner"],
                   check=True, timeout=60)
    return archive


def test_bundle_check_skips_missing_optional_validators_by_name(tmp_path, monkeypatch,
                                                                 capsys):
    """README: the desktop-file/appstream validations run only where the tools are installed;
    without them the install check passes and each validation is reported as skipped."""
    check = check_bundle_module()
    version = rackdesigner.__version__
    archive = _fake_bundle_archive(tmp_path, version)
    real_which = shutil.which
    monkeypatch.setattr(check.shutil, "which", lambda tool: None if tool in (
        "desktop-file-validate", "appstreamcli") else real_which(tool))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    checker = check.Checker(scratch)
    check.check_install(checker, version, archive)
    by_name = {r.name: r for r in checker.results}
    assert by_name["install.sh"].ok and not by_name["install.sh"].skipped, \
        by_name["install.sh"].detail
    for tool in ("desktop-file-validate", "appstreamcli"):
        assert by_name[f"install.sh: {tool}"].skipped
    assert check.summarize(checker, None) == 0
    assert "0 failed, 2 skipped" in capsys.readouterr().out
