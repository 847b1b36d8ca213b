"""Writing the panel's output: plots as PNG, results as CSV or JSON (`simulate --json` shape).

Writes are atomic (temporary file, then `os.replace`) so a failed export never leaves half a
file where a good one was.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget

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
