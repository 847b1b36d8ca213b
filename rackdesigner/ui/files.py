"""File handling of the main window: New, Open, Save, Save As, Revert, recent files, the
unsaved-changes prompt, export. Mixed into `MainWindow` (kept apart to keep modules small)."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

log = logging.getLogger(__name__)
YAML_FILTER = "RackDesigner layouts (*.yaml *.yml);;All files (*)"


class FileActions:
    """Needs: self.document, self.catalog, self.settings, self.status_message(), self.scene."""

    # ---- opening ------------------------------------------------------------------------------
    def new_document(self) -> bool:
        if not self.maybe_save():
            return False
        from rackdesigner.model import Layout

        self._set_document(Layout(self.catalog), None)
        self.status_message("New layout")
        return True

    def open_file(self, path: str | Path, ask: bool = True) -> bool:
        """Open a layout; on error show the loader's message and keep the current document."""
        from rackdesigner.io import LayoutFileError
        from rackdesigner.ui.open_progress import OpenProgress

        if ask and not self.maybe_save():
            return False
        try:
            with OpenProgress(self, path) as progress:  # large: read on a worker, with progress
                layout = progress.read(self.catalog)
                self._set_document(layout, Path(path))
        except LayoutFileError as exc:
            log.info("cannot open %s: %s", path, exc)
            self.last_error = str(exc)
            QMessageBox.critical(self, "Cannot open the layout", str(exc))
            return False
        self.open_progress = progress  # what was shown (tests, benchmarks)
        self.settings.add_recent(path)
        self._refresh_recent_menu()
        self.status_message(f"Opened {Path(path).name}")
        return True

    def open_dialog(self) -> bool:
        start = str(self.document.path.parent) if self.document.path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open layout", start, YAML_FILTER)
        return self.open_file(path) if path else False

    def revert(self) -> bool:
        if self.document.path is None or not self.document.is_modified():
            return False
        answer = QMessageBox.question(
            self, "Revert", f"Discard your changes and reload {self.document.path.name}?",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel)
        if answer != QMessageBox.StandardButton.Discard:
            return False
        return self.open_file(self.document.path, ask=False)

    # ---- saving -------------------------------------------------------------------------------
    def save_file(self, path: str | Path) -> bool:
        from rackdesigner.io import save_layout

        path = Path(path)
        try:
            save_layout(self.document.layout, path)
        except OSError as exc:
            QMessageBox.critical(self, "Cannot save", f"{path}: {exc.strerror or exc}")
            return False
        self.document.path = path
        self.document.undo_stack.setClean()
        self.settings.add_recent(path)
        self._refresh_recent_menu()
        self._update_title()
        self.status_message(f"Saved {path.name}")
        return True

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self.save_file(self.document.path)

    def save_as(self) -> bool:
        start = str(self.document.path or "layout.yaml")
        path, _ = QFileDialog.getSaveFileName(self, "Save layout as", start, YAML_FILTER)
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
            self, "Unsaved changes", f"Save your changes to {name}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    # ---- export -------------------------------------------------------------------------------
    def export_image_dialog(self) -> bool:
        from rackdesigner.ui.export import export_image

        stem = self.document.path.stem if self.document.path else "layout"
        path, _ = QFileDialog.getSaveFileName(self, "Export image", f"{stem}.png",
                                              "PNG image (*.png);;SVG drawing (*.svg)")
        if not path:
            return False
        try:
            export_image(self.scene, path, scale=2.0)
        except (OSError, ValueError) as exc:
            QMessageBox.critical(self, "Cannot export", str(exc))
            return False
        self.status_message(f"Exported {Path(path).name}")
        return True

    def export_bom_dialog(self) -> bool:
        stem = self.document.path.stem if self.document.path else "layout"
        path, _ = QFileDialog.getSaveFileName(self, "Export bill of materials",
                                              f"{stem}-bom.csv", "CSV (*.csv)")
        return self.export_bom(path) if path else False

    def export_bom(self, path: str | Path) -> bool:
        """Write the bill of materials as CSV (the same table as `rackdesigner bom --csv`)."""
        from rackdesigner.bom import bill_of_materials, format_csv

        try:
            text = format_csv(bill_of_materials(self.document.layout))
            Path(path).write_text(text, encoding="utf-8")
        except OSError as exc:
            QMessageBox.critical(self, "Cannot export", f"{path}: {exc.strerror or exc}")
            return False
        self.status_message(f"Exported {Path(path).name}")
        return True
