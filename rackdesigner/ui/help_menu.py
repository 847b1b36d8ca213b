"""Getting started: File ▸ Open Example and Help ▸ the user guides.

Open Example lists the bundled example layouts (`_resources.example_paths`) by their design
names, each opening as an untitled copy like the first-start example. The guides are the
project's docs: the local file when the docs sit beside the package (a source checkout or
sdist), else the project's documentation pages, under the source address the installed
package's metadata gives (pyproject's `[project.urls] Source`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import QMenu

if TYPE_CHECKING:
    from rackdesigner.ui.main_window import MainWindow

#: the user guides, in menu order: (menu text, file under docs/, status tip)
GUIDES = (
    ("&Designer and Racks View", "designer.md", "The canvas, keys, zoom levels, racks, floor"),
    ("&Simulation Figures", "simulation.md", "How busbw, bisection, latency and power are "
     "computed, and how they compare with published runs"),
    ("&Training Estimates", "workload.md", "Step time, MFU, memory and the layout search"),
    ("&Cost and Compare", "cost.md", "Prices, capex, TCO, $/GPU-hour, cost to train, compare"),
    ("S&weeps", "sweeps.md", "Design-space sweeps on local processes or a Dask cluster"),
    ("&Exports and Imports", "interop.md", "Slurm, NetBox, cabling plans, graphs, ASTRA-sim"),
    ("&Large Designs", "large-designs.md", "Designs of 10,000 to 100,000 GPUs"),
    ("&File Format", "file-format.md", "The layout YAML, its compact form and site block"),
)
#: where the docs are published when they are not beside the package
FALLBACK_DOCS = "https://github.com/rackdesigner/rackdesigner/blob/main/docs/"


def docs_url(name: str) -> QUrl:
    """The guide `name` (a file under docs/): local when present, else on the project's site."""
    local = Path(__file__).resolve().parents[2] / "docs" / name
    if local.is_file():
        return QUrl.fromLocalFile(str(local))
    return QUrl(_docs_base() + name)


def _docs_base() -> str:
    from importlib import metadata

    try:
        urls = metadata.metadata("rackdesigner").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return FALLBACK_DOCS
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "source" and url.strip().startswith("https://"):
            return url.strip().rstrip("/") + "/blob/main/docs/"
    return FALLBACK_DOCS


def example_title(path: Path) -> str:
    """A menu entry for an example file: the design's name from its header (`name:` is among
    the first lines the writer puts out), else the file's stem."""
    from rackdesigner.inputs import load_yaml

    try:
        with path.open(encoding="utf-8") as handle:
            for _, line in zip(range(8), handle, strict=False):
                if line.startswith("name:"):
                    name = load_yaml(line, path).get("name")
                    if isinstance(name, str) and name.strip():
                        return name.strip()
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        pass
    return path.stem


def build_examples_menu(window: MainWindow, menu: QMenu) -> list[QAction]:
    """One entry per bundled example; each opens it as an untitled copy."""
    from rackdesigner._resources import example_paths

    actions = []
    try:
        paths = example_paths()
    except FileNotFoundError:
        paths = []
    for path in paths:
        action = menu.addAction(example_title(path).replace("&", "&&"))
        action.setStatusTip(str(path))
        action.triggered.connect(lambda checked=False, p=path: window.files.open_file(p))
        actions.append(action)
    menu.setEnabled(bool(actions))
    return actions


def build_guides_menu(window: MainWindow, menu: QMenu) -> list[QAction]:
    """One entry per guide; each opens it in the desktop's viewer or browser."""
    actions = []
    for text, name, tip in GUIDES:
        action = menu.addAction(text)
        action.setStatusTip(tip)
        action.setData(name)
        action.triggered.connect(lambda checked=False, n=name: open_guide(window, n))
        actions.append(action)
    return actions


def open_guide(window: MainWindow, name: str) -> bool:
    url = docs_url(name)
    if QDesktopServices.openUrl(url):
        window.status_message(f"Opened {url.toDisplayString()}")
        return True
    window.status_message(f"No program could open {url.toDisplayString()}")
    return False


__all__ = ["GUIDES", "build_examples_menu", "build_guides_menu", "docs_url", "example_title",
           "open_guide"]
