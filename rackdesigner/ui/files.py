"""`FileController`: New, Open, Save, Save As, Revert, recent files, the unsaved-changes
prompt and export, as an object with its own state (not a mixin on the window).

It changes the design only through the `Document`: opening a file is
`document.set_layout(layout, path)`, whose `replaced` signal every view follows. It needs a
widget to parent its dialogs to, the catalog to load with, the settings (recent files), and a
scene for image export; it reports outcomes through `message` and `title_changed`.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from rackdesigner.catalog import Catalog
from rackdesigner.ui.document import Document
from rackdesigner.ui.settings import Settings

log = logging.getLogger(__name__)
YAML_FILTER = "RackDesigner layouts (*.yaml *.yml);;All files (*)"


class FileController(QObject):
    message = Signal(str)  # outcome, for the status bar
    title_changed = Signal()  # the path or the clean state changed

    def __init__(self, document: Document, catalog: Catalog, settings: Settings,
                 dialog_parent: QWidget, scene=None) -> None:
        super().__init__(dialog_parent)
        self.document = document
        self.catalog = catalog
        self.settings = settings
        self.dialog_parent = dialog_parent
        self.scene = scene
        self.recent_menu: QMenu | None = None
        self.last_error = ""

    # ---- opening ------------------------------------------------------------------------------
    def new_document(self) -> bool:
        if not self.maybe_save():
            return False
        from rackdesigner.model import Layout

        self.document.set_layout(Layout(self.catalog), None)
        self.message.emit("New layout")
        return True

    def open_file(self, path: str | Path, ask: bool = True) -> bool:
        """Open a layout; on error show the loader's message and keep the current document."""
        from rackdesigner.io import LayoutFileError, load_layout

        if ask and not self.maybe_save():
            return False
        try:
            layout = load_layout(Path(path), catalog=self.catalog)
        except LayoutFileError as exc:
            log.info("cannot open %s: %s", path, exc)
            self.last_error = str(exc)
            QMessageBox.critical(self.dialog_parent, "Cannot open the layout", str(exc))
            return False
        self.document.set_layout(layout, Path(path))
        self.settings.add_recent(path)
        self.refresh_recent_menu()
        self.message.emit(f"Opened {Path(path).name}")
        return True

    def open_dialog(self) -> bool:
        start = str(self.document.path.parent) if self.document.path else ""
        path, _ = QFileDialog.getOpenFileName(self.dialog_parent, "Open layout", start,
                                              YAML_FILTER)
        return self.open_file(path) if path else False

    def revert(self) -> bool:
        if self.document.path is None or not self.document.is_modified():
            return False
        answer = QMessageBox.question(
            self.dialog_parent, "Revert",
            f"Discard your changes and reload {self.document.path.name}?",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel)
        if answer != QMessageBox.StandardButton.Discard:
            return False
        return self.open_file(self.document.path, ask=False)

    # ---- recent files -------------------------------------------------------------------------
    def set_recent_menu(self, menu: QMenu) -> None:
        self.recent_menu = menu
        self.refresh_recent_menu()

    def refresh_recent_menu(self) -> None:
        menu = self.recent_menu
        if menu is None:
            return
        menu.clear()
        recent = self.settings.recent_files()
        for path in recent:
            action = menu.addAction(path)
            action.triggered.connect(lambda checked=False, p=path: self.open_file(p))
        menu.setEnabled(bool(recent))

    # ---- saving -------------------------------------------------------------------------------
    def save_file(self, path: str | Path) -> bool:
        from rackdesigner.io import save_layout

        path = Path(path)
        try:
            save_layout(self.document.layout, path)
        except OSError as exc:
            QMessageBox.critical(self.dialog_parent, "Cannot save",
                                 f"{path}: {exc.strerror or exc}")
            return False
        self.document.path = path
        self.document.undo_stack.setClean()
        self.settings.add_recent(path)
        self.refresh_recent_menu()
        self.title_changed.emit()
        self.message.emit(f"Saved {path.name}")
        return True

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self.save_file(self.document.path)

    def save_as(self) -> bool:
        start = str(self.document.path or "layout.yaml")
        path, _ = QFileDialog.getSaveFileName(self.dialog_parent, "Save layout as", start,
                                              YAML_FILTER)
        if not path:
            return False
        if not path.endswith((".yaml", ".yml")):
            path += ".yaml"
        return self.save_file(path)

    def maybe_save(self) -> bool:
        """Ask about unsaved changes; True when it is fine to discard the current document."""
        if not self.document.is_modified():
            return True
        name = self.document.path.name if self.document.path else "the new layout"
        answer = QMessageBox.warning(
            self.dialog_parent, "Unsaved changes", f"Save your changes to {name}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    # ---- export -------------------------------------------------------------------------------
    def export_image_dialog(self) -> bool:
        from rackdesigner.ui.export import export_image

        stem = self.document.path.stem if self.document.path else "layout"
        path, _ = QFileDialog.getSaveFileName(self.dialog_parent, "Export image", f"{stem}.png",
                                              "PNG image (*.png);;SVG drawing (*.svg)")
        if not path:
            return False
        try:
            export_image(self.scene, path, scale=2.0)
        except (OSError, ValueError) as exc:
            QMessageBox.critical(self.dialog_parent, "Cannot export", str(exc))
            return False
        self.message.emit(f"Exported {Path(path).name}")
        return True

    def export_bom_dialog(self) -> bool:
        stem = self.document.path.stem if self.document.path else "layout"
        path, _ = QFileDialog.getSaveFileName(self.dialog_parent, "Export bill of materials",
                                              f"{stem}-bom.csv", "CSV (*.csv)")
        return self.export_bom(path) if path else False

    def export_bom(self, path: str | Path) -> bool:
        """Write the bill of materials as CSV (the same table as `rackdesigner bom --csv`)."""
        from rackdesigner.bom import bill_of_materials, format_csv

        try:
            text = format_csv(bill_of_materials(self.document.layout))
            Path(path).write_text(text, encoding="utf-8")
        except OSError as exc:
            QMessageBox.critical(self.dialog_parent, "Cannot export",
                                 f"{path}: {exc.strerror or exc}")
            return False
        self.message.emit(f"Exported {Path(path).name}")
        return True
