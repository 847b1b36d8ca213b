"""The license texts a bundle must carry, gathered from the Python that builds it.

RackDesigner is Apache-2.0 (`LICENSE`). The one-folder bundle (packaging/build.sh) also ships
CPython, Qt through PySide6/shiboken6 (LGPL-3.0), NumPy (BSD, with its bundled OpenBLAS and
compiler runtimes), networkx, dask and the rest of the dependency closure, and
PyInstaller's bootloader. Their licenses require the texts to travel with the binaries, so
`write_notices` puts, under the bundle's `share/doc/rackdesigner/`:

    LICENSE                         RackDesigner's own (Apache-2.0)
    THIRD-PARTY-NOTICES.md          what is inside, under which license, where its source is
    licenses/python/LICENSE.txt     CPython's (PSF), from the building interpreter's stdlib
    licenses/<dist>-<version>/...   each bundled distribution's own license files (dist-info)

PySide6-Essentials and shiboken6 wheels carry no license file; for them (and any other
distribution in `FALLBACK`) the texts in packaging/licenses/ are used. A distribution of the
closure without any license text is an error: the build stops rather than ship without it.

Run by build.sh with the build venv's Python: `python packaging/licenses.py BUNDLE_DOC_DIR
BUNDLE` (with BUNDLE, also the licence texts of the build machine's libraries the bundle
carries: packaging/system_libs.py).
packaging/check_bundle.py checks the result (`missing_notices`), and the tests run the
collection against the test environment.
"""

from __future__ import annotations

import re
import shutil
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ROOT = "rackdesigner"
#: distributions that ship no license file of their own: the texts their metadata names
FALLBACK = {
    "pyside6-essentials": ("LGPL-3.0.txt", "GPL-3.0.txt"),
    "shiboken6": ("LGPL-3.0.txt", "GPL-3.0.txt"),
}
#: bundled with the executable though not a runtime dependency (its bootloader)
BUILD_TOOLS = ("pyinstaller",)
LICENSE_NAME = re.compile(r"(licen[cs]e|copying|notice|authors|copyright)", re.IGNORECASE)


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(root: str = ROOT, extras: tuple[str, ...] = ()) -> list[metadata.Distribution]:
    """`root` and every distribution it requires (extras followed), as installed here."""
    from packaging.requirements import Requirement

    found: dict[str, metadata.Distribution] = {}
    todo: list[tuple[str, tuple[str, ...]]] = [(root, extras)]
    while todo:
        name, wanted = todo.pop()
        key = normalize(name)
        if key in found and not wanted:
            continue
        try:
            dist = found.get(key) or metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # an environment marker left it out here
        found[key] = dist
        for text in dist.requires or ():
            req = Requirement(text)
            envs = [{"extra": e} for e in ("", *wanted)]
            if req.marker is not None and not any(req.marker.evaluate(env) for env in envs):
                continue
            todo.append((req.name, tuple(sorted(req.extras))))
    return sorted(found.values(), key=lambda d: normalize(d.metadata["Name"]))


def license_files(dist: metadata.Distribution) -> list[tuple[Path, Path]]:
    """(file, path under the dist-info folder) of the license files a distribution installed
    with it (several bundled libraries' texts may share a name: numpy's do)."""
    out = []
    for file in dist.files or ():
        parts = Path(str(file)).parts
        if parts and parts[0].endswith(".dist-info") and LICENSE_NAME.search(parts[-1]):
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                relative = Path(*parts[1:])
                if relative.parts[0] == "licenses" and len(relative.parts) > 1:
                    relative = Path(*relative.parts[1:])
                out.append((path, relative))
    return out


def license_of(dist: metadata.Distribution) -> str:
    meta = dist.metadata
    text = meta.get("License-Expression") or ", ".join(
        c.rsplit(" :: ", 1)[-1] for c in meta.get_all("Classifier") or ()
        if c.startswith("License ::"))
    if not text:  # some put the whole text in License: its first line
        lines = (meta.get("License") or "").strip().splitlines()
        text = lines[0][:80] if lines else ""
    return text or "see the license files"


def write_notices(doc_dir: Path, tools: tuple[str, ...] = BUILD_TOOLS) -> list[str]:
    """Write LICENSE, the notices and every license text into `doc_dir`; return the
    distributions without any license text (empty when all is well)."""
    doc_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(REPO / "LICENSE", doc_dir / "LICENSE")
    shutil.copyfile(REPO / "THIRD-PARTY-NOTICES.md", doc_dir / "THIRD-PARTY-NOTICES.md")
    target = doc_dir / "licenses"
    python = Path(sysconfig.get_paths()["stdlib"]) / "LICENSE.txt"
    (target / "python").mkdir(parents=True, exist_ok=True)
    if python.is_file():
        shutil.copyfile(python, target / "python" / "LICENSE.txt")
    missing = [] if python.is_file() else ["python"]
    dists = [d for d in closure() if normalize(d.metadata["Name"]) != ROOT]
    for tool in tools:
        try:
            dists.append(metadata.distribution(tool))
        except metadata.PackageNotFoundError:
            continue
    lines = ["distribution\tversion\tlicense\tfiles"]
    for dist in dists:
        name, version = normalize(dist.metadata["Name"]), dist.version
        folder = target / f"{name}-{version}"
        folder.mkdir(parents=True, exist_ok=True)
        files = license_files(dist) or [(HERE / "licenses" / f, Path(f))
                                        for f in FALLBACK.get(name, ())]
        if not files:
            missing.append(name)
        for file, relative in files:
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, folder / relative)
        lines.append(f"{name}\t{version}\t{license_of(dist)}\t"
                     f"{', '.join(sorted(str(r) for _, r in files))}")
    (target / "INDEX.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return missing


def missing_notices(doc_dir: Path) -> list[str]:
    """What a bundle's `share/doc/rackdesigner` lacks (check_bundle.py)."""
    problems = [f"{name} is missing" for name in ("LICENSE", "THIRD-PARTY-NOTICES.md",
                                                   "licenses/python/LICENSE.txt",
                                                   "licenses/INDEX.tsv")
                if not (doc_dir / name).is_file()]
    index = doc_dir / "licenses" / "INDEX.tsv"
    if index.is_file():
        rows = [line.split("\t") for line in index.read_text().splitlines()[1:] if line]
        names = {row[0] for row in rows}
        for row in rows:
            folder = doc_dir / "licenses" / f"{row[0]}-{row[1]}"
            if not folder.is_dir() or not any(folder.iterdir()):
                problems.append(f"no license text for {row[0]} {row[1]}")
        for needed in ("pyside6-essentials", "shiboken6", "numpy"):
            if needed not in names:
                problems.append(f"{needed} is not in licenses/INDEX.tsv")
        lgpl = doc_dir / "licenses"
        if not any(lgpl.glob("pyside6-essentials-*/LGPL-3.0.txt")):
            problems.append("Qt's LGPL-3.0 text (PySide6) is missing")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print("usage: licenses.py BUNDLE_DOC_DIR [BUNDLE]", file=sys.stderr)
        return 2
    missing = write_notices(Path(argv[0]))
    if len(argv) == 2:  # and the texts of the build machine's libraries in the bundle
        from system_libs import library_folder, write_system_notices

        missing += write_system_notices(library_folder(Path(argv[1])), Path(argv[0]))
    if missing:
        print(f"licenses.py: no license text for: {', '.join(missing)} (add one to "
              "packaging/licenses/ and FALLBACK; for a system library install its package's "
              "documentation, or leave it out: system_libs.LEFT_OUT)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
