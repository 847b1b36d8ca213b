"""Where the shipped data lives: the one place that finds `resources/`.

In an installed wheel the top-level `resources/` folder is the package `rackdesigner.resources`;
in a source checkout it sits beside the `rackdesigner/` package. Nothing else may build paths to
shipped data.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path


def resources_root() -> Path:
    """Return the folder holding the catalog, examples and icons."""
    spec = importlib.util.find_spec("rackdesigner.resources")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            path = Path(location)
            if (path / "catalog").is_dir():
                return path
    checkout = Path(__file__).resolve().parent.parent / "resources"
    if (checkout / "catalog").is_dir():
        return checkout
    raise FileNotFoundError("RackDesigner's resources folder is missing from this installation")


def catalog_dir() -> Path:
    return resources_root() / "catalog"


def examples_dir() -> Path:
    return resources_root() / "examples"


def example_paths() -> list[Path]:
    """The bundled example layouts, sorted by file name."""
    return sorted(examples_dir().glob("*.yaml"))


def icon_path(name: str = "rackdesigner.svg") -> Path:
    return resources_root() / "icons" / name
