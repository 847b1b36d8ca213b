"""Help → About: version, licence, the catalog's size and where its figures come from."""

from __future__ import annotations

from collections import Counter

from PySide6.QtWidgets import QMessageBox, QWidget

LICENSE = "Apache-2.0"  # pyproject.toml [project] license


def about_text(catalog) -> str:
    from PySide6 import __version__ as pyside_version

    from rackdesigner import __version__

    kinds = Counter(spec.kind for spec in catalog)
    parts = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in
                      sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    return (f"<h3>RackDesigner {__version__}</h3>"
            "<p>Design GPU clusters and see their bandwidth, latency and power.</p>"
            f"<p>Licence: {LICENSE}<br>"
            f"Catalog: {sum(kinds.values())} device models ({parts}), every figure "
            "with its public source<br>"
            f"Qt for Python (PySide6) {pyside_version}</p>")


def show_about(parent: QWidget) -> QMessageBox:
    """Open the About box (non-blocking, so tests can read and close it)."""
    box = QMessageBox(QMessageBox.Icon.NoIcon, "About RackDesigner",
                      about_text(parent.catalog), QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("about-box")
    box.open()
    parent.about_box = box
    return box


__all__ = ["about_text", "show_about"]
