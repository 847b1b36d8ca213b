"""`FileController`: New, Open, Save, Save As, Revert, recent files, the unsaved-changes
prompt, export, and watching the open file — an object with its own state (not a mixin on the
window).

It changes the design only through the `Document`: opening a file is
`document.set_layout(layout, path)`, whose `replaced` signal every view follows. It needs a
widget to parent its dialogs to, the catalog to load with, the settings (recent files), and the
scene for image export; it reports through `message` and `title_changed`.

Watching the open file and the questions before an overwrite live in `file_watch`; untitled
copies of examples and templates in `untitled`. A failed open leaves the open design as it was;
a failed save leaves it unsaved (dirty) and says why.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from rackdesigner.catalog import Catalog
from rackdesigner.ui import file_watch, untitled
from rackdesigner.ui.document import Document
from rackdesigner.ui.plain_text import plain
from rackdesigner.ui.settings import Settings
from rackdesigner.vocabulary.wording import counted

log = logging.getLogger(__name__)
YAML_FILTER = "RackDesigner layouts (*.yaml *.yml);;All files (*)"


class FileController(QObject):
    message = Signal(str)  # outcome, for the status bar
    title_changed = Signal()  # the path, the untitled title or the clean state changed
    untitled_copy_marked = Signal(str)  # the open design is an untitled copy with this title

    def __init__(self, document: Document, catalog: Catalog, settings: Settings,
                 dialog_parent: QWidget, scene=None) -> None:
        super().__init__(dialog_parent)
        self.document = document
        self.catalog = catalog
        self.settings = settings
        self.owner = dialog_parent
        self.scene = scene
        self.recent_menu: QMenu | None = None
        self.last_error = ""
        self.settling: threading.Thread | None = None  # settle_later of the last open
        self.file_watch = file_watch.FileWatch(self)
        self.file_prompt: QMessageBox | None = None
        self.file_watch.changed_on_disk.connect(self._on_file_watch_changed_on_disk)
        document.replaced.connect(lambda layout: self.file_watch.follow(self.document.path))

    def status_message(self, text: str) -> None:
        self.message.emit(text)

    def _update_title(self) -> None:
        self.title_changed.emit()

    def _set_document(self, layout, path) -> None:
        self.document.set_layout(layout, path)

    # ---- opening ------------------------------------------------------------------------------
    def new_document(self) -> bool:
        if not self.maybe_save():
            return False
        from rackdesigner.model import Layout

        self._set_document(Layout(self.catalog), None)
        self.status_message("New layout")
        return True

    def open_file(self, path: str | Path, ask: bool = True) -> bool:
        """Open a layout; on any error show why and keep the current document as it was.

        A bundled example opens as an untitled copy ("DGX H100 (example)"): Save asks where.
        """
        from rackdesigner.io import LayoutFileError, ReadCancelled
        from rackdesigner.ui.open_progress import OpenProgress, settle_later

        if ask and not self.maybe_save():
            return False
        # a large file is read on a worker while a dialog shows the stage (open_progress.py)
        self.file_watch.prefetch(path)  # the known version's digest, beside the reading
        progress = self.open_progress = OpenProgress(self.owner, path)
        with progress:
            try:
                layout = progress.read(self.catalog)
            except ReadCancelled:  # Cancel in the progress dialog: the open design stays
                progress.close()
                self.status_message(f"Opening {Path(path).name} cancelled")
                return False
            except LayoutFileError as exc:
                progress.close()
                return self._open_failed(path, str(exc))
            except Exception as exc:  # whatever breaks, the open design stays
                log.exception("cannot open %s", path)
                progress.close()
                return self._open_failed(path, f"{path}: unexpected error while reading: "
                                         f"{exc!r}")
            doc = self.document
            previous = (doc.layout, doc.path, doc.untitled_title, doc.suggested_name,
                        doc.is_modified())
            example = untitled.is_bundled_example(path)
            try:
                self._set_document(layout, None if example else Path(path))
            except Exception as exc:  # e.g. a view that cannot show it
                log.exception("cannot show %s", path)
                self._set_document(previous[0], previous[1])  # its undo history is gone, not it
                doc.untitled_title, doc.suggested_name = previous[2], previous[3]
                if previous[4]:
                    doc.undo_stack.resetClean()
                self._update_title()
                progress.close()
                return self._open_failed(path, f"{path}: the design cannot be shown: {exc!r}")
        if progress.read_in_worker:  # a large design: ready its first edit once it is drawn
            # (from the event loop: after the canvas's first paint, which it would slow)
            self.settling = None
            QTimer.singleShot(0, lambda: setattr(self, "settling", settle_later(layout)))
        if example:
            self.mark_untitled_copy("example", Path(path).stem)
            self.status_message(f"Opened the example {self.document.untitled_title} as an "
                                "untitled copy: Save asks where to keep it")
            return True
        self.settings.add_recent(path)
        self.refresh_recent_menu()
        missing = sorted(m for m in layout.index().models() if m not in layout.catalog)
        if missing:  # e.g. someone's own models: the devices stay, marked unknown
            self.status_message(
                f"Opened {Path(path).name}: {counted(len(missing), 'model')} not in the catalog "
                f"({', '.join(missing[:3])}); their devices are marked unknown (see Problems)")
        else:
            self.status_message(f"Opened {Path(path).name}")
        return True

    def last_folder(self) -> Path | None:
        """The folder of the open design, or of the design opened or saved last (where the
        window's file dialogs start: the Workload tab's job files too)."""
        if self.document.path is not None:
            return self.document.path.parent
        recent = self.settings.recent_files()
        return Path(recent[0]).parent if recent else None

    def _beside_design(self, name: str) -> str:
        """A file dialog's start: `name` next to the open design (or the last opened one),
        not the working directory the app was started from."""
        return str((self.last_folder() or Path.home()) / name)

    def _open_failed(self, path: str | Path, message: str) -> bool:
        log.info("cannot open %s: %s", path, message)
        self.last_error = message
        QMessageBox.critical(self.owner, "Cannot open the layout", plain(message))
        return False

    def mark_untitled_copy(self, kind: str, name: str) -> None:
        """Make the open design an untitled copy of an example or template called `name`."""
        self.document.untitled_title = untitled.copy_title(self.document.layout, kind, name)
        self.document.suggested_name = name
        self._update_title()
        # a baseline pinned now is labelled with the title the user sees
        self.untitled_copy_marked.emit(self.document.untitled_title)

    def open_dialog(self) -> bool:
        start = self._beside_design("")
        path, _ = QFileDialog.getOpenFileName(self.owner, "Open layout", start, YAML_FILTER)
        return self.open_file(path) if path else False

    def revert(self) -> bool:
        if self.document.path is None or not self.document.is_modified():
            return False
        answer = QMessageBox.question(
            self.owner, "Revert",
            plain(f"Discard your changes and reload {self.document.path.name}?"),
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
        """Save to `path`, asking first before replacing a file that changed on disk since it
        was opened or a read-only one; on failure the design stays unsaved and says why."""
        from rackdesigner.io import ReadOnlyFileError, save_layout

        path = Path(path)
        if (self._same_file(path) and self.file_watch.changed_since_known()
                and not file_watch.ask_overwrite_changed(self.owner, path,
                                                         self._disk_summary(path))):
            self.status_message(f"Not saved: {path.name} changed on disk")
            return False
        try:
            try:
                save_layout(self.document.layout, path)
            except ReadOnlyFileError:
                if not file_watch.ask_overwrite_read_only(self.owner, path):
                    self.status_message(f"Not saved: {path.name} is read-only")
                    return False
                save_layout(self.document.layout, path, allow_read_only=True)
        except OSError as exc:
            self.last_error = f"{path}: {exc.strerror or exc}"
            QMessageBox.critical(self.owner, "Cannot save", plain(f"{path} could not be saved: "
                                 f"{exc.strerror or exc}.\n\nYour changes are still here, "
                                 "unsaved. Use File ▸ Save As… to save them in a folder you "
                                 "can write to."))
            self.status_message(f"Cannot save {path.name}: {exc.strerror or exc}")
            return False
        except Exception as exc:  # a value the writer refuses (or a bug): say so, keep the design
            log.exception("cannot save %s", path)
            self.last_error = f"{path}: {exc}"
            QMessageBox.critical(self.owner, "Cannot save", plain(f"{path} could not be saved: "
                                 f"{exc}.\n\nNothing was written; your changes are still here, "
                                 "unsaved."))
            self.status_message(f"Cannot save {path.name}: {exc}")
            return False
        self.document.path = path
        self.document.untitled_title = ""
        self.document.undo_stack.setClean()
        self.file_watch.follow(path)
        self.settings.add_recent(path)
        self.refresh_recent_menu()
        self._update_title()
        self.status_message(f"Saved {path.name}")
        return True

    def _same_file(self, path: Path) -> bool:
        current = self.document.path
        return current is not None and (path == current or path.resolve() == current.resolve())

    def _disk_summary(self, path: Path) -> str:
        from rackdesigner.io import LayoutFileError, load_layout
        from rackdesigner.io.diff import change_summary

        try:
            return change_summary(self.document.layout, load_layout(path, self.catalog))
        except LayoutFileError as exc:
            return f"it cannot be read ({exc.message})"

    # ---- the open file changing on disk --------------------------------------------------------
    def _on_file_watch_changed_on_disk(self) -> None:
        """Offer to reload the file another program changed, or to keep this version."""
        from rackdesigner.io import LayoutFileError, load_layout
        from rackdesigner.io.diff import change_summary

        path = self.document.path
        if path is None:
            return
        from rackdesigner.model.gcpause import gc_paused

        try:
            with gc_paused():  # a whole design read: no heap walks meanwhile
                theirs = load_layout(path, self.catalog)
            summary, readable = change_summary(self.document.layout, theirs), True
        except LayoutFileError as exc:
            theirs, summary, readable = None, exc.message, False
        if self.file_prompt is not None:
            self.file_prompt.close()
        box = file_watch.reload_prompt(self.owner, path, summary, self.document.is_modified(),
                                       readable)

        def answered() -> None:
            self.file_prompt = None
            if box.clickedButton() is box.reload_button and theirs is not None:
                self._set_document(theirs, path)
                self.status_message(f"Reloaded {path.name} from disk")
            else:
                self.file_watch.keep_mine()
                self.document.undo_stack.resetClean()  # differs from the disk: unsaved
                self.status_message(f"Kept your version; saving replaces {path.name} on disk")

        box.finished.connect(answered)
        self.file_prompt = box
        box.open()

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self.save_file(self.document.path)

    def save_as(self) -> bool:
        start = str(self.document.path or untitled.suggested_save_path(
            self.document.suggested_name or "layout", self.last_folder()))
        path, _ = QFileDialog.getSaveFileName(self.owner, "Save layout as", start, YAML_FILTER)
        if not path:
            return False
        if not path.endswith((".yaml", ".yml")):
            path += ".yaml"
        return self.save_file(path)

    def maybe_save(self) -> bool:
        """Ask about unsaved changes; True when it is fine to discard the current document."""
        if not self.document.is_modified():
            return True
        doc = self.document  # an example's copy by its title ("DGX H100 (example)")
        name = doc.path.name if doc.path else doc.untitled_title or "the new layout"
        answer = QMessageBox.warning(
            self.owner, "Unsaved changes", plain(f"Save your changes to {name}?"),
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    # ---- export -------------------------------------------------------------------------------
    def export_image_dialog(self) -> bool:
        from rackdesigner.ui.export import export_image, image_level, render_layout

        stem = self.document.path.stem if self.document.path else "layout"
        path, _ = QFileDialog.getSaveFileName(self.owner, "Export image",
                                              self._beside_design(f"{stem}.png"),
                                              "PNG image (*.png);;SVG drawing (*.svg)")
        if not path:
            return False
        try:
            layout = self.document.layout
            if (self.scene.level != "far" and not self.scene.failed_set.devices
                    and image_level(layout, "detail") == "far"):
                # too large to read device by device: the far zoom's blocks, named and counted
                render_layout(layout, path, scale=2.0, heat=self.scene.heat, level="far")
            else:
                export_image(self.scene, path, scale=2.0)
        except (OSError, ValueError) as exc:
            QMessageBox.critical(self.owner, "Cannot export", plain(str(exc)))
            return False
        self.status_message(f"Exported {Path(path).name}")
        return True

    def export_racks_dialog(self) -> bool:
        stem = self.document.path.stem if self.document.path else "layout"
        path, _ = QFileDialog.getSaveFileName(
            self.owner, "Export rack elevations", self._beside_design(f"{stem}-racks.pdf"),
            "PDF, several racks per page (*.pdf);;SVG drawing (*.svg);;PNG image (*.png)")
        return self.export_racks(path) if path else False

    def export_racks(self, path: str | Path) -> bool:
        """Rack elevations of the face the Racks tab shows (as `render --view racks`)."""
        from rackdesigner.ui.racks.export import render_racks

        racks_panel = getattr(self.owner, "racks_panel", None)
        face = racks_panel.scene.face if racks_panel is not None else "front"
        try:
            render_racks(self.document.layout, path, face=face)
        except (OSError, ValueError) as exc:
            QMessageBox.critical(self.owner, "Cannot export", plain(str(exc)))
            return False
        self.status_message(f"Exported {Path(path).name}")
        return True

    def export_bom_dialog(self) -> bool:
        stem = self.document.path.stem if self.document.path else "layout"
        path, _ = QFileDialog.getSaveFileName(self.owner, "Export bill of materials",
                                              self._beside_design(f"{stem}-bom.csv"),
                                              "CSV (*.csv)")
        return self.export_bom(path) if path else False

    def export_bom(self, path: str | Path) -> bool:
        """Write the bill of materials as CSV (the same table as `rackdesigner bom --csv`)."""
        from rackdesigner.bom import bill_of_materials, format_csv
        from rackdesigner.io import write_text

        try:
            text = format_csv(bill_of_materials(self.document.layout))
            write_text(path, text)
        except OSError as exc:
            QMessageBox.critical(self.owner, "Cannot export",
                                 plain(f"{path}: {exc.strerror or exc}"))
            return False
        self.status_message(f"Exported {Path(path).name}")
        return True
