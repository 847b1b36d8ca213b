"""What a release carries besides the code (issue 26, items 15-17): the README's set-up that
works on a distribution's own Python, the license and third-party notices, and an sdist that
can run its own tests."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGING = REPO / "packaging"

pytestmark = pytest.mark.skipif(not PACKAGING.is_dir(), reason="needs the source tree")


def _licenses_module():
    spec = importlib.util.spec_from_file_location("rd_licenses", PACKAGING / "licenses.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _setup_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```\n(.*?)```", section, re.S)
    return [b.strip() for b in blocks if "pip install" in b]


def test_readme_has_two_setup_commands_that_need_no_system_pip():
    commands = _setup_commands()
    assert len(commands) == 2, commands
    for command in commands:
        assert len(command.splitlines()) == 1
        # Debian/Ubuntu's own python3 refuses `pip install` outside a venv (PEP 668)
        assert command.startswith("python3 -m venv .venv && .venv/bin/python -m pip install ")
    run_app, run_tests = commands
    assert run_app.endswith("&& .venv/bin/rackdesigner")
    assert '".[test]"' in run_tests and run_tests.endswith(".venv/bin/python -m pytest")
    ci = (REPO / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == run_tests, "CI runs exactly the README's test command"
    assert ".venv/" in (REPO / ".gitignore").read_text().split()


def test_license_is_the_apache_license_pyproject_names():
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    pyproject = (REPO / "pyproject.toml").read_text()
    assert 'license = "Apache-2.0"' in pyproject
    assert '"LICENSE"' in pyproject and '"THIRD-PARTY-NOTICES.md"' in pyproject
    notices = (REPO / "THIRD-PARTY-NOTICES.md").read_text(encoding="utf-8")
    for name in ("CPython", "Qt", "LGPL", "NumPy", "PyInstaller"):
        assert name in notices


def test_every_bundled_distribution_gets_its_license_text(tmp_path):
    """The collection build.sh runs, on this environment's packages (the bundle's are the
    same closure): every dependency of rackdesigner has a license text, Qt's LGPL
    included, and check_bundle's check accepts the result and refuses a gap."""
    licenses = _licenses_module()
    doc = tmp_path / "doc"
    assert licenses.write_notices(doc) == []
    assert licenses.missing_notices(doc) == []
    index = (doc / "licenses" / "INDEX.tsv").read_text().splitlines()
    names = {row.split("\t")[0] for row in index[1:]}
    from importlib import metadata

    requires = metadata.distribution("rackdesigner").requires or []
    direct = {licenses.normalize(re.split(r"[ ;<>=!\[]", r, maxsplit=1)[0]) for r in requires
              if "extra ==" not in r}
    assert direct <= names, direct - names
    assert (doc / "licenses" / "python" / "LICENSE.txt").read_text().count("PYTHON") > 0
    lgpl = next((doc / "licenses").glob("pyside6-essentials-*/LGPL-3.0.txt"))
    assert "GNU LESSER GENERAL PUBLIC LICENSE" in lgpl.read_text()
    # a bundle without them fails check_bundle.py
    for path in next((doc / "licenses").glob("networkx-*")).iterdir():
        path.unlink()
    (doc / "LICENSE").unlink()
    problems = licenses.missing_notices(doc)
    assert "LICENSE is missing" in problems
    assert any(p.startswith("no license text for networkx") for p in problems)


def test_sdist_carries_what_its_tests_need(tmp_path):
    """`python -m build --sdist` uses setuptools' sdist with MANIFEST.in; the same command,
    run directly, must pack conftest, the helper modules, tests/data, docs, benchmarks'
    data and packaging/ (issue 26: the sdist could not run its tests)."""
    result = subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path)],
                            cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    archive = next(tmp_path.glob("rackdesigner-*.tar.gz"))
    with tarfile.open(archive) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    tracked = subprocess.run(["git", "ls-files", "tests", "docs", "benchmarks", "packaging",
                              "resources", ".ci", "LICENSE", "THIRD-PARTY-NOTICES.md"],
                             cwd=REPO, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    wanted = set(tracked.stdout.split())
    assert wanted, "git listed nothing"
    assert not wanted - names, sorted(wanted - names)[:10]
    for needed in ("tests/conftest.py", "tests/designer_fixtures.py", "LICENSE", ".gitignore",
                   "packaging/check_bundle.py", "docs/file-format.md", ".ci/lowest"):
        assert needed in names
    assert not any("__pycache__" in n for n in names)


def test_the_lowest_versions_checked_are_the_bounds_pyproject_declares():
    """`.ci/lowest` runs the suite on .ci/lowest-constraints.txt (issue 26: PySide6 6.8.0
    and pyqtgraph 0.13.7 were declared but never tested); each pin is its bound."""
    import tomllib

    pins = {}
    for line in (REPO / ".ci" / "lowest-constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.strip().lower()] = version.strip()
    with (REPO / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)["project"]
    declared = {}
    for requirement in project["dependencies"]:
        m = re.match(r"([A-Za-z0-9_.-]+)(?:\[[^]]*\])?\s*>=\s*([0-9.]+)", requirement)
        assert m, f"{requirement!r} has no lower bound"
        declared[m.group(1).lower()] = m.group(2)
    for name, bound in declared.items():
        assert name in pins, f"{name} is not pinned in .ci/lowest-constraints.txt"
        pinned = [int(p) for p in pins[name].split(".")]
        wanted = [int(p) for p in bound.split(".")]
        wanted += [0] * (len(pinned) - len(wanted))
        assert pinned == wanted, f"{name}: pinned {pins[name]}, declared >= {bound}"
    assert pins["shiboken6"] == pins["pyside6-essentials"]
    script = (REPO / ".ci" / "lowest").read_text()
    assert "-c .ci/lowest-constraints.txt" in script and "pytest" in script


def test_the_newest_versions_script_upgrades_everything_on_the_newest_python():
    """`.ci/newest` (issue 38 item 20): the suite on the newest CPython found and the newest
    dependency releases, beside `.ci/lowest`; its venv is ignored by git."""
    script = (REPO / ".ci" / "newest").read_text()
    assert "--upgrade-strategy eager" in script and "-m pytest" in script
    assert "for version in 3.14 3.13 3.12 3.11" in script  # newest first
    assert ".venv-newest/" in (REPO / ".gitignore").read_text().splitlines()
    assert os.access(REPO / ".ci" / "newest", os.X_OK)


def test_the_readme_links_work_on_a_package_index_page_and_point_at_files_that_exist():
    """The README is the package's long description: a relative link (`docs/cost.md`) breaks
    on a package index page (issue 38 item 22). Every link is absolute, and every one into this
    repository names a file the checkout has."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert targets
    relative = [t for t in targets if not t.startswith(("https://", "http://", "#"))]
    assert not relative, relative
    ours = ("https://github.com/rackdesigner/rackdesigner/blob/main/",
            "https://raw.githubusercontent.com/rackdesigner/rackdesigner/main/")
    for target in targets:
        for prefix in ours:
            if target.startswith(prefix):
                path = target[len(prefix):].split("#", 1)[0]
                assert (REPO / path).is_file(), target


# ---- the build machine's libraries in the bundle (issue 38 item 21) ---------------------------
def _packaging_module(name: str):
    sys.path.insert(0, str(PACKAGING))  # check_bundle imports its neighbours
    try:
        spec = importlib.util.spec_from_file_location(f"rd_{name}", PACKAGING / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(PACKAGING))
        sys.modules.pop(f"rd_{name}", None)


def _fake_bundle(root: Path, *names: str) -> Path:
    """A bundle's library folder as PyInstaller 6 lays it out, with empty files."""
    internal = root / "rackdesigner" / "_internal"
    for name in names:
        (internal / name).parent.mkdir(parents=True, exist_ok=True)
        (internal / name).write_bytes(b"\x7fELF")
    return internal


def test_readline_and_the_gtk_theme_are_left_out_and_the_rest_may_go_in():
    libs = _packaging_module("system_libs")
    for name in ("libreadline.so.8", "libhistory.so.8.2", "libqgtk3.so", "libgtk-3.so.0",
                 "libgdk-3.so.0"):
        assert libs.left_out(name), name
    for name in ("libssl.so.3", "libcrypto.so.3", "libglib-2.0.so.0", "libffi.so.8",
                 "libpython3.11.so.1.0", "libQt6Core.so.6"):
        assert libs.left_out(name) is None, name
    spec = (PACKAGING / "rackdesigner.spec").read_text()
    assert '"readline",' in spec and "left_out(Path(entry[0]).name) is None" in spec
    build = (PACKAGING / "build.sh").read_text()
    assert 'licenses.py" "$bundle/share/doc/rackdesigner" \\\n    "$bundle"' in build


def test_every_system_library_gets_its_licence_text_and_the_check_accepts_it(tmp_path):
    libs = _packaging_module("system_libs")
    internal = _fake_bundle(tmp_path, "libssl.so.3", "libcrypto.so.3", "libglib-2.0.so.0",
                            "libpython3.11.so.1.0", "PySide6/Qt/lib/libQt6Core.so.6",
                            "numpy.libs/libopenblas.so")
    texts = tmp_path / "texts"
    texts.mkdir()
    owners = {"libssl.so.3": "libssl3", "libcrypto.so.3": "libssl3",
              "libglib-2.0.so.0": "libglib2.0-0"}
    for package in set(owners.values()):
        (texts / package).write_text(f"{package}: the licence\n")
    doc = tmp_path / "doc"
    missing = libs.write_system_notices(
        internal, doc, owner=lambda n: (owners[n], texts / owners[n]) if n in owners else None)
    assert missing == []  # libpython is CPython's; a distribution's own libraries are its own
    assert libs.system_library_problems(internal, doc) == []
    index = (doc / "licenses" / "system" / "INDEX.tsv").read_text().splitlines()
    assert set(index[1:]) == {f"{lib}\t{pkg}" for lib, pkg in owners.items()}
    assert (doc / "licenses/system/libglib2.0-0/copyright").read_text().endswith("licence\n")
    # a library without a known package is named, and stops the build (main's exit 1)
    (internal / "libmystery.so.1").write_bytes(b"")
    assert libs.write_system_notices(internal, doc, owner=lambda n: None) == [
        "libcrypto.so.3", "libglib-2.0.so.0", "libmystery.so.1", "libssl.so.3"]


def test_the_bundle_check_refuses_readline_gtk_and_libraries_without_a_licence(tmp_path):
    libs = _packaging_module("system_libs")
    internal = _fake_bundle(tmp_path, "libssl.so.3", "libreadline.so.8",
                            "PySide6/Qt/plugins/platformthemes/libqgtk3.so")
    doc = tmp_path / "doc"
    (doc / "licenses" / "system").mkdir(parents=True)
    problems = libs.system_library_problems(internal, doc)
    assert any("libreadline.so.8 is in the bundle" in p for p in problems)
    assert any("libqgtk3.so is in the bundle" in p for p in problems)
    assert any("no licence text for libssl.so.3" in p for p in problems)
    (doc / "licenses" / "system" / "INDEX.tsv").write_text("library\tpackage\n"
                                                           "libssl.so.3\tlibssl3\n")
    assert any("libssl3/copyright is missing" in p
               for p in libs.system_library_problems(internal, doc))


@pytest.mark.skipif(not Path("/usr/share/doc").is_dir() or not shutil.which("dpkg"),
                    reason="a Debian-style system (dpkg, /usr/share/doc)")
def test_the_licence_of_a_real_system_library_is_found_with_dpkg():
    libs = _packaging_module("system_libs")
    package, text = libs.debian_owner("libc.so.6")
    assert package.startswith("libc6") and text.is_file()


def test_a_bundle_built_by_the_system_python_may_open_the_systems_files():
    """check_bundle.py forbade all of /usr when the bundle was built with /usr/bin/python3,
    so the traced runs failed on the C library and the fonts: 2 false failures."""
    check = _packaging_module("check_bundle")
    folders = ["/usr/lib/python3.11", "/usr/lib/python3.11/lib-dynload",
               "/usr/local/lib/python3.11/dist-packages", "/usr/lib/python3/dist-packages",
               "/home/me/src/packaging"]
    system = check.build_python_paths("/usr", "/usr", folders, [Path("/home/me/src")])
    assert Path("/usr") not in system and Path("/usr/local") not in system
    assert Path("/usr/lib/python3.11").resolve() in system
    assert Path("/usr/lib/python3/dist-packages").resolve() in system
    assert Path("/home/me/src") in system
    # a Python of its own (a venv, /opt/python) is forbidden whole, as before
    venv = check.build_python_paths("/opt/python3.11", "/opt/build-venv", folders, [])
    assert {Path("/opt/python3.11").resolve(), Path("/opt/build-venv").resolve()} <= set(venv)
    assert Path("/usr/lib/python3.11").resolve() not in venv


def test_the_build_stops_on_a_bundled_library_without_a_licence(tmp_path, capsys):
    """build.sh runs `licenses.py DOC BUNDLE`: a library whose package (hence licence) is not
    found makes it exit 1 naming the library, so the archive is never made."""
    licenses = _packaging_module("licenses")
    _fake_bundle(tmp_path, "libmystery-not-a-package.so.1")
    sys.path.insert(0, str(PACKAGING))  # licenses.main imports its neighbour
    try:
        status = licenses.main([str(tmp_path / "doc"), str(tmp_path / "rackdesigner")])
    finally:
        sys.path.remove(str(PACKAGING))
    assert status == 1
    assert "libmystery-not-a-package.so.1" in capsys.readouterr().err
