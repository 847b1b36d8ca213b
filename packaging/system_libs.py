"""The build machine's shared libraries in the bundle: which are left out, and their licences.

PyInstaller copies, beside the Python distributions' own libraries, the shared libraries they
load from the build machine (OpenSSL for `ssl`/`hashlib`, glib and fontconfig for Qt, libffi,
zlib, ...). They sit at the top of the bundle's library folder (`_internal/`), where a
distribution's own ones sit in its folder (`PySide6/Qt/lib`, `numpy.libs`) and are covered by
its licence files (packaging/licenses.py). CPython's licence does not cover the others: each
comes with its own, which the bundle must carry (issue 38 item 21).

Left out (`LEFT_OUT`), so neither they nor their licences travel:
- GNU readline (GPL-3.0; with its libhistory): only Python's interactive prompt uses it, which
  the bundle never shows; the spec excludes the `readline` module that pulls it in;
- Qt's GTK 3 platform theme (`libqgtk3.so`) and the GTK 3 / GDK / ATK libraries only it loads:
  the designer draws its own Fusion style and Qt dialogs, so the theme plugin is not needed.

Every other such library gets the licence text of the Debian package it came from
(`/usr/share/doc/PACKAGE/copyright`, found with `dpkg -S`) under
`share/doc/rackdesigner/licenses/system/PACKAGE/`, listed in `licenses/system/INDEX.tsv`
(library, package); a library whose package or text cannot be found stops the build.
Written by `licenses.py BUNDLE_DOC_DIR BUNDLE` (build.sh); check_bundle.py checks the result
(`system_library_problems`). Standard library only.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

#: library file names left out of the bundle, and why
LEFT_OUT = {
    re.compile(r"^lib(readline|history)\.so"): "GNU readline (GPL-3.0), not used by the app",
    re.compile(r"^libqgtk3\.so"): "Qt's GTK 3 platform theme, not used by the app",
    re.compile(r"^lib(gtk-3|gdk-3|atk-1\.0|atk-bridge-2\.0|atspi)\.so"):
        "GTK 3, loaded only by Qt's GTK 3 platform theme",
}
SHARED = re.compile(r"\.so(\.\d+)*$")
#: CPython's own library: its licence is licenses/python/LICENSE.txt
PYTHON_LIB = re.compile(r"^libpython3")


def left_out(name: str) -> str | None:
    """Why the library file `name` stays out of the bundle, or None when it may go in."""
    return next((why for pattern, why in LEFT_OUT.items() if pattern.match(name)), None)


def library_folder(bundle: Path) -> Path:
    """Where PyInstaller put the libraries: `_internal/` (PyInstaller 6) or the bundle."""
    inner = bundle / "_internal"
    return inner if inner.is_dir() else bundle


def system_libraries(folder: Path) -> list[Path]:
    """The shared libraries copied from the build machine: those at the top of `folder`."""
    return sorted(p for p in folder.iterdir() if p.is_file() and SHARED.search(p.name)
                  and not PYTHON_LIB.match(p.name))


def debian_owner(name: str) -> tuple[str, Path] | None:
    """(package, its copyright file) of the installed library file `name`, from dpkg."""
    if shutil.which("dpkg") is None:
        return None
    done = subprocess.run(["dpkg", "-S", f"*/{name}"], capture_output=True, text=True,
                          timeout=60)
    for line in done.stdout.splitlines():
        package = line.split(":", 1)[0].split(",")[0].strip()
        copyright_file = Path("/usr/share/doc") / package / "copyright"
        if package and copyright_file.is_file():
            return package, copyright_file
    return None


def write_system_notices(folder: Path, doc_dir: Path,
                         owner: Callable[[str], tuple[str, Path] | None] = debian_owner
                         ) -> list[str]:
    """Copy the licence text of every system library in `folder` to
    `doc_dir/licenses/system/`; return the libraries none was found for."""
    target = doc_dir / "licenses" / "system"
    target.mkdir(parents=True, exist_ok=True)
    rows, missing = ["library\tpackage"], []
    for library in system_libraries(folder):
        found = owner(library.name)
        if found is None:
            missing.append(library.name)
            continue
        package, text = found
        (target / package).mkdir(exist_ok=True)
        shutil.copyfile(text, target / package / "copyright")
        rows.append(f"{library.name}\t{package}")
    (target / "INDEX.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return missing


def system_library_problems(folder: Path, doc_dir: Path) -> list[str]:
    """What is wrong with the bundle's system libraries (check_bundle.py): one that should
    have been left out, or one without its licence text."""
    problems = [f"{p.relative_to(folder)} is in the bundle ({why})"
                for p in sorted(folder.rglob("*")) if p.is_file() and (why := left_out(p.name))]
    index = doc_dir / "licenses" / "system" / "INDEX.tsv"
    listed: dict[str, str] = {}
    if index.is_file():
        for line in index.read_text(encoding="utf-8").splitlines()[1:]:
            library, _, package = line.partition("\t")
            listed[library] = package
    for library in system_libraries(folder):
        package = listed.get(library.name)
        if package is None:
            problems.append(f"no licence text for {library.name} (licenses/system/INDEX.tsv)")
        elif not (index.parent / package / "copyright").is_file():
            problems.append(f"licenses/system/{package}/copyright is missing ({library.name})")
    return problems

