"""The PyInstaller spec's guard: the bundle must be built from an *installed* rackdesigner.

Run from a source checkout, `import rackdesigner` would find the checkout's package folder, whose
`resources/` is not the package `rackdesigner.resources` a wheel installs: the bundle would then
miss its data. An installed copy lives in a `site-packages` (or `dist-packages`) folder, even when
that folder is inside the checkout, as it is for build.sh's default build venv
(`build/bundle-venv`). Kept apart from the spec so a fast test can run it against the default
paths (tests/test_packaging_files.py).
"""

from __future__ import annotations

from pathlib import Path

INSTALL_DIRS = ("site-packages", "dist-packages")


def source_tree_problem(installed_at: Path, repo: Path) -> str | None:
    """Why `installed_at` (the imported package's folder) is not an installed copy, or None."""
    installed_at = Path(installed_at).resolve()
    repo = Path(repo).resolve()
    if not installed_at.is_relative_to(repo):
        return None
    if any(part in INSTALL_DIRS for part in installed_at.relative_to(repo).parts):
        return None  # a venv inside the checkout, e.g. build/bundle-venv
    return (f"rackdesigner is imported from the source tree ({installed_at}); build with "
            "packaging/build.sh, which installs the wheel into a build venv and runs elsewhere")
