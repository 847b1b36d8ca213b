"""Writing the panel's output: plots as PNG, results as CSV or JSON (`simulate --json` shape).

Writes are atomic (temporary file, then `os.replace`) so a failed export never leaves half a
file where a good one was.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from rackdesigner.io.atomic import write_bytes
from rackdesigner.io.jsonout import json_text
from rackdesigner.simulation import SimulationResult
from rackdesigner.ui.panel.figures import DEFAULT_REFERENCE, result_csv

EXPORT_KINDS = {
    "bandwidth": ("Bandwidth plot", "PNG image (*.png)", ".png"),
    "latency": ("Latency plots", "PNG image (*.png)", ".png"),
    "power": ("Power plot", "PNG image (*.png)", ".png"),
    "csv": ("Results", "CSV (*.csv)", ".csv"),
    "json": ("Results", "JSON (*.json)", ".json"),
}


def _write_atomic(path: Path, data: bytes) -> None:
    write_bytes(path, data)  # the project's one atomic writer (through symlinks, mode kept)


def result_json(result: SimulationResult) -> str:
    return json_text(result.to_dict(), newline=True)


def write_result(result: SimulationResult, path: str | Path, fmt: str,
                 reference: int = DEFAULT_REFERENCE) -> Path:
    """Write `result` as "csv" or "json"."""
    text = result_csv(result, reference) if fmt == "csv" else result_json(result)
    _write_atomic(Path(path), text.encode("utf-8"))
    return Path(path)


def write_png(widget: QWidget, path: str | Path) -> Path:
    """Render `widget` (a plot with its read-out) to PNG as it shows on screen.

    `grab()` rather than `render()` into a painter: rendering a QGraphicsView into a
    foreign painter crashed PySide6 6.11 offscreen.
    """
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    pixmap = widget.grab()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if pixmap.isNull() or not pixmap.save(buffer, "PNG"):
        raise OSError(f"could not render {Path(path).name} as PNG")
    buffer.close()
    _write_atomic(Path(path), bytes(data.data()))
    return Path(path)


class PanelExport:
    """Exports of `SimulationPanel` (a mixin: `self` is the panel): a plot as PNG or the
    results as CSV or JSON, from its Export menu or a script; the outcome goes to `message`."""

    def export_to(self, kind: str, path: str | Path) -> Path:
        """Write one export ("bandwidth", "latency", "power", "csv", "json") to `path`."""
        if kind in ("csv", "json"):
            result = self.current.result if self.current is not None else None
            if result is None:
                raise ValueError("there are no results to export")
            return write_result(result, path, kind, self.reference)
        widget = {"bandwidth": self.bandwidth, "latency": self.latency, "power": self.power}[kind]
        if not widget.isVisible():  # a hidden tab has no size yet: lay it out first
            self.show_tab(kind)
        return write_png(widget, path)

    def export_dialog(self, kind: str) -> None:
        title, file_filter, ext = EXPORT_KINDS[kind]
        path, _ = QFileDialog.getSaveFileName(self, f"Export {title.lower()}",
                                              self.compare.beside(f"simulation-{kind}{ext}"),
                                              file_filter)
        if path:
            self._report(lambda: self.export_to(kind, path), f"Exported {title.lower()} to "
                                                             f"{path}")

    def _report(self, action, done: str) -> None:
        try:
            action()
        except (OSError, ValueError) as exc:
            self.message.emit(f"Cannot export: {exc}")
            return
        self.message.emit(done)
