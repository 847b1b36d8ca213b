"""File ▸ Export To: the design in other tools' formats (rackdesigner.interop), from the GUI.

One action per format of `EXPORTERS`; a file format asks for a file name, a folder format
(NetBox, ASTRA-sim) for a folder. The export runs on a copy of the document, so nothing the user
does meanwhile changes what is written; notes (cables without a type, a design Slurm's block
plugin gains nothing from...) are shown after it ran.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from rackdesigner.interop import EXPORTERS, ExportError, ExportReport, export

if TYPE_CHECKING:
    from rackdesigner.ui.main_window import MainWindow

log = logging.getLogger(__name__)


def add_export_menu(window: MainWindow, file_menu: QMenu) -> QMenu:
    """Add the 'Export To' sub-menu; its actions are in `window.interop_actions` by format."""
    menu = file_menu.addMenu("Export &To")
    window.interop_actions = {}
    for exporter in EXPORTERS.values():
        action = menu.addAction(f"{exporter.title or exporter.name}…")
        action.setStatusTip(exporter.description)
        action.setToolTip(exporter.description)
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
    return export_to(window, fmt, path) if path else False


def export_to(window: MainWindow, fmt: str, path: str | Path) -> bool:
    """Export the open design; errors and notes in message boxes, the summary in the status
    bar. Returns whether the files were written."""
    try:
        report: ExportReport = export(window.document.layout.copy(), fmt, Path(path))
    except ExportError as exc:
        QMessageBox.warning(window, f"Cannot export as {fmt}", str(exc))
        return False
    except OSError as exc:
        QMessageBox.critical(window, "Cannot export", f"{path}: {exc.strerror or exc}")
        return False
    log.info("exported %s: %s", fmt, report.summary)
    window.status_message(f"Exported {report.summary}")
    if report.messages:
        QMessageBox.information(window, f"Exported as {fmt}", "\n\n".join(
            [report.summary, *report.messages]))
    return True
