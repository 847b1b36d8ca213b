"""File ▸ Export To / Import From: other tools' formats (rackdesigner.interop) in the GUI.

One action per format of `EXPORTERS`; a file format asks for a file name, a folder format
(NetBox, ASTRA-sim) for a folder. The export runs on a worker thread on a copy of the document
(ExportJob), so the window stays responsive and nothing the user does meanwhile changes what is
written; notes (cables without a type, a design Slurm's block plugin gains nothing from...) are
shown after it ran.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QMessageBox

from rackdesigner.interop import EXPORTERS, ExportError, ExportReport, export
from rackdesigner.ui.plain_text import plain
from rackdesigner.vocabulary.wording import counted

if TYPE_CHECKING:
    from rackdesigner.ui.main_window import MainWindow

log = logging.getLogger(__name__)


def add_export_menu(window: MainWindow, file_menu: QMenu) -> QMenu:
    """Add the 'Export To' sub-menu; its actions are in `window.interop_actions` by format."""
    menu = file_menu.addMenu("Export &To")
    window.export_menu = menu
    window.export_job = None
    window.interop_actions = {}
    for exporter in EXPORTERS.values():
        action = menu.addAction(f"{exporter.title or exporter.name}…")
        action.setStatusTip(exporter.description)
        action.setToolTip(plain(exporter.description))
        action.triggered.connect(
            lambda checked=False, name=exporter.name: export_dialog(window, name))
        window.interop_actions[exporter.name] = action
    return menu


def export_dialog(window: MainWindow, fmt: str) -> bool:
    exporter = EXPORTERS[fmt]
    stem = window.document.path.stem if window.document.path else "layout"
    start = str(window.document.path.parent / stem) if window.document.path else stem
    if exporter.suffixes == ("",):
        path = QFileDialog.getExistingDirectory(window, f"Export {fmt} into folder",
                                                str(Path(start).parent))
    else:
        path, _ = QFileDialog.getSaveFileName(window, f"Export {fmt}",
                                              f"{start}{exporter.suffixes[0]}",
                                              exporter.file_filter)
        if path and Path(path).suffix.lower() not in exporter.suffixes:
            path += exporter.suffixes[0]
    if not path:
        return False
    export_to(window, fmt, path)
    return True


class ExportJob(QObject):
    """One export on a worker thread (a big design's cabling plan or GraphML takes seconds):
    the design is copied first, so editing meanwhile changes nothing; the Export To menu is
    disabled and the status bar says what runs until it ends. `finished(ok)` is emitted on the
    GUI thread."""

    finished = Signal(bool)
    _done = Signal(object, str)  # report or None, error text

    def __init__(self, window: MainWindow, fmt: str, path: Path) -> None:
        super().__init__(window)
        self.window, self.fmt, self.path = window, fmt, path
        self.running = False
        self.ok = False
        self._done.connect(self._on_worker_done)

    def start(self) -> None:
        layout = self.window.document.layout.copy()
        self.running = True
        self.window.export_menu.setEnabled(False)
        self.window.status_message(f"Exporting {self.fmt} to {self.path.name}…")
        QApplication.setOverrideCursor(Qt.CursorShape.BusyCursor)
        refusal = self._over_design()
        if refusal is not None:  # reported as a failed export, after `start` returned
            QTimer.singleShot(0, lambda: self._done.emit(None, refusal))
            return
        QThreadPool.globalInstance().start(lambda: self._work(layout))

    def _over_design(self) -> str | None:
        """Why the export may not write `path`: it is the open design's file (or, for a
        folder export, holds it), as the command line refuses (`io/overlap.py`)."""
        from rackdesigner.io.overlap import input_under_output, output_over_input_message

        source = self.window.document.path
        folder = EXPORTERS[self.fmt].suffixes == ("",)
        if source is None or input_under_output(self.path, [source], folder=folder) is None:
            return None
        return output_over_input_message(self.path, source, f"{self.fmt} export")

    def _work(self, layout) -> None:  # worker thread: no widgets here
        try:
            result: tuple = (export(layout, self.fmt, self.path), "")
        except ExportError as exc:
            result = (None, str(exc))
        except OSError as exc:
            result = (None, f"{self.path}: {exc.strerror or exc}")
        except Exception as exc:  # a bug must not kill the app silently
            log.exception("export %s failed", self.fmt)
            result = (None, f"unexpected error: {exc}")
        try:
            self._done.emit(*result)
        except RuntimeError:  # the window was closed meanwhile: nobody to tell
            log.info("export %s finished after its window closed", self.fmt)

    def _on_worker_done(self, report: ExportReport | None, error: str) -> None:
        QApplication.restoreOverrideCursor()
        self.window.export_menu.setEnabled(True)
        self.running = False
        if report is None:
            self.window.last_error = error
            self.window.status_message(f"Cannot export as {self.fmt}")
            QMessageBox.warning(self.window, f"Cannot export as {self.fmt}", plain(error))
        else:
            self.ok = True
            log.info("exported %s: %s", self.fmt, report.summary)
            self.window.status_message(f"Exported {report.summary}")
            if report.messages:
                QMessageBox.information(self.window, f"Exported as {self.fmt}", plain("\n\n".join(
                    [report.summary, *report.messages])))
        self.finished.emit(self.ok)


def export_to(window: MainWindow, fmt: str, path: str | Path) -> ExportJob:
    """Start exporting the open design (see ExportJob); `window.export_job` is the last one."""
    job = ExportJob(window, fmt, Path(path))
    window.export_job = job
    job.start()
    return job


# ---- imports -------------------------------------------------------------------------------
IMPORTS = (
    ("ibnetdiscover", "&InfiniBand Fabric (ibnetdiscover output)…",
     "ibnetdiscover output (*.txt *.out *.log);;All files (*)"),
    ("graphml", "&GraphML…", "GraphML (*.graphml);;All files (*)"),
    ("netbox", "&NetBox Import Files (folder)…", ""),
)


def add_import_menu(window: MainWindow, file_menu: QMenu) -> QMenu:
    """Add 'Import From': designs from other tools (opened as a new, unsaved document) and
    NetBox device types into the user's catalog folder."""
    menu = file_menu.addMenu("&Import From")
    window.import_actions = {}
    for source, title, _ in IMPORTS:
        action = menu.addAction(title)
        action.triggered.connect(lambda checked=False, s=source: import_dialog(window, s))
        window.import_actions[source] = action
    menu.addSeparator()
    action = menu.addAction("NetBox &Device Types into My Catalog…")
    action.triggered.connect(lambda checked=False: import_device_types_dialog(window))
    window.import_actions["netbox-device-types"] = action
    return menu


def import_dialog(window: MainWindow, source: str) -> bool:
    if not window.maybe_save():
        return False
    title, file_filter = next((t, f) for s, t, f in IMPORTS if s == source)
    if source == "netbox":
        path = QFileDialog.getExistingDirectory(window, "Import NetBox files from folder")
    else:
        path, _ = QFileDialog.getOpenFileName(window, title.replace("&", "").rstrip("…"), "",
                                              file_filter)
    return import_from(window, source, path) if path else False


def import_from(window: MainWindow, source: str, path: str | Path) -> bool:
    """Read a design from another tool's output into a new, unsaved document (asking first
    whether to save the open one; the import itself is unsaved: '*', Open asks)."""
    if not window.maybe_save():
        return False
    notes: list[str] = []
    try:
        if source == "ibnetdiscover":
            from rackdesigner.interop.ibnetdiscover import import_file

            report = import_file(path, window.catalog)
            layout = report.layout
            notes = [f"No catalog model for {d!r} ({', '.join(n)}): kept as an unknown model."
                     for d, n in sorted(report.unmatched.items())] + report.messages
            summary = (f"{counted(report.switches, 'switch', 'switches')}, "
                       f"{counted(report.hosts, 'host')} with {counted(report.hcas, 'HCA')}, "
                       f"{counted(report.links, 'link')}")
        elif source == "graphml":
            from rackdesigner.interop.graphml import read

            layout = read(path, window.catalog)
            summary = (f"{counted(layout.device_count(), 'device')}, "
                       f"{counted(layout.link_count(), 'link')}")
        else:
            from rackdesigner.interop.netbox_design import read_folder

            result = read_folder(path, window.catalog)
            layout = result.layout
            notes = [f"Device type {t!r} is not in the catalog: {counted(len(n), 'device')} "
                     "left out."
                     for t, n in sorted(result.skipped.items())] + result.notes
            summary = f"{counted(result.devices, 'device')}, {counted(result.cables, 'cable')}"
    except ValueError as exc:  # every importer's error is a located ValueError
        window.last_error = str(exc)
        QMessageBox.critical(window, "Cannot import", plain(str(exc)))
        return False
    except Exception as exc:  # a bug or the system (memory): a dialog, never a dead window
        log.exception("import %s from %s failed", source, path)
        window.last_error = f"{path}: cannot import: {type(exc).__name__}: {exc}"
        QMessageBox.critical(window, "Cannot import", plain(window.last_error))
        return False
    window._set_document(layout, None)
    window.files.mark_untitled_copy("imported", Path(path).stem)
    window.document.undo_stack.resetClean()  # nothing saved yet: '*' and Open/Quit ask
    window.files._update_title()
    window.status_message(f"Imported {Path(path).name}: {summary}")
    if notes:
        QMessageBox.information(window, "Imported", plain("\n\n".join([summary, *notes])))
    return True


def import_device_types_dialog(window: MainWindow) -> int:
    """Convert NetBox device types into models in the user's catalog folder; asks for what the
    device types leave open. Returns how many models were written."""
    from PySide6.QtWidgets import QInputDialog

    from rackdesigner.catalog import KINDS
    from rackdesigner.catalog.user import platform_catalog_dir, user_catalog_dirs
    from rackdesigner.interop.base import write_atomic
    from rackdesigner.interop.netbox_import import (
        NetboxTypeError,
        dump,
        read_device_type,
        to_catalog_data,
        unanswered,
    )
    from rackdesigner.interop.netbox_types import PortFacts
    from rackdesigner.io.names import UnsafeNameError, path_inside

    files, _ = QFileDialog.getOpenFileNames(window, "NetBox device types", "",
                                            "NetBox device types (*.yaml *.yml)")
    if not files:
        return 0
    folder = (user_catalog_dirs() or [platform_catalog_dir()])[0]
    written = []
    warnings: list[str] = []
    for name in files:
        path = Path(name)
        try:
            data = read_device_type(path)
            answers = {}
            for itype, ports in unanswered(path, data):
                protocol, ok = QInputDialog.getItem(
                    window, "Port protocol", plain(f"{path.name}: interface type '{itype}' "
                                                   f"({len(ports)} ports) does not say its "
                                                   "protocol:"),
                    ["ethernet", "infiniband"], 0, False)
                if not ok:
                    return len(written)
                rate, ok = QInputDialog.getDouble(window, "Port rate",
                                                  plain(f"{path.name}: rate of one '{itype}' "
                                                        "port in Gb/s:"), 400, 1, 3200)
                if not ok:
                    return len(written)
                gen = f"{rate:g}GbE" if protocol == "ethernet" else "custom"
                answers[itype] = PortFacts(protocol, gen, rate, 4, "unspecified")
            try:
                model = to_catalog_data(path, data, answers, warnings=warnings)
            except NetboxTypeError as exc:
                if exc.option != "kind":
                    raise
                kind, ok = QInputDialog.getItem(window, "Kind of device",
                                                plain(f"{path.name}: what kind of device "
                                                      "is it?"),
                                                list(KINDS), KINDS.index("switch"), False)
                if not ok:
                    return len(written)
                model = to_catalog_data(path, data, answers, kind, warnings=warnings)
        except NetboxTypeError as exc:
            QMessageBox.critical(window, "Cannot import the device type", plain(str(exc)))
            return len(written)
        except Exception as exc:  # never a dead window
            log.exception("device type import of %s failed", path)
            QMessageBox.critical(window, "Cannot import the device type",
                                 plain(f"{path}: {type(exc).__name__}: {exc}"))
            return len(written)
        try:
            target = path_inside(folder, model["id"], ".yaml")
        except UnsafeNameError as exc:
            QMessageBox.critical(window, "Cannot import the device type",
                                 plain(f"{path}: slug: {exc}"))
            return len(written)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            write_atomic(target, dump(model))
        except OSError as exc:
            QMessageBox.critical(window, "Cannot write the model",
                                 plain(f"{target}: {exc.strerror or exc}"))
            return len(written)
        written.append(target)
    QMessageBox.information(
        window, "Device types imported",
        plain(f"{counted(len(written), 'model')} written to {folder}:\n"
              + "\n".join(f"  {p.name}" for p in written)
              + "".join(f"\n\n{NetboxTypeError.in_design_words(w)}" for w in warnings)
              + "\n\nThey appear in the Palette the next time RackDesigner starts."))
    window.status_message(f"{counted(len(written), 'model')} written to {folder}")
    return len(written)
