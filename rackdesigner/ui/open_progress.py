"""Opening a large layout with progress shown: the file is read on a worker thread while a
progress dialog names the stage and the seconds spent, then the scene is built.

Why: a 32,000-GPU design takes seconds to read; a window that freezes without a word looks
hung. Reading is pure Python on a worker (the GUI thread still gets its share of the GIL, so the
dialog keeps painting and counting); building the scene has to happen on the GUI thread and is
announced as its own stage. Small files (under `PROGRESS_ABOVE_BYTES`) open as before, without a
dialog flashing by. The caller stays synchronous: `read()` returns the layout or raises the
loader's `LayoutFileError`, exactly as `load_layout` does.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QEventLoop, QObject, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QApplication, QProgressDialog, QWidget

from rackdesigner.catalog import Catalog
from rackdesigner.model import Layout

#: Files at least this large are read with the progress dialog (~2,000 GPUs in the plain form).
PROGRESS_ABOVE_BYTES = 2_000_000


class _Relay(QObject):
    """Lives on the GUI thread; the worker emits through it, so the result arrives queued."""

    finished = Signal(object)  # the Layout, or the exception the loader raised

    def __init__(self, loop: QEventLoop) -> None:
        super().__init__()
        self.loop = loop
        self.outcome: list[object] = []
        self.finished.connect(self._on_finished)

    def _on_finished(self, value: object) -> None:
        self.outcome.append(value)
        self.loop.quit()


class OpenProgress:
    """`with OpenProgress(parent, path) as progress: layout = progress.read(catalog); ...`"""

    def __init__(self, parent: QWidget | None, path: str | Path,
                 threshold: int | None = None) -> None:
        self.parent = parent
        self.path = Path(path)
        try:
            self.size = self.path.stat().st_size
        except OSError:
            self.size = 0  # the loader reports what is wrong with the path
        limit = PROGRESS_ABOVE_BYTES if threshold is None else threshold
        self.shown = self.size >= limit
        self.stages: list[str] = []
        self.read_in_worker = False
        self._dialog: QProgressDialog | None = None
        self._timer: QTimer | None = None
        self._stage = ""
        self._start = time.monotonic()

    def __enter__(self) -> OpenProgress:
        if self.shown:
            dialog = QProgressDialog(self.parent)
            dialog.setWindowTitle("Opening")
            dialog.setCancelButton(None)
            dialog.setRange(0, 0)  # busy: the reader does not report how far it is
            dialog.setMinimumDuration(0)
            dialog.setWindowModality(Qt.WindowModality.WindowModal)
            dialog.setMinimumWidth(420)
            self._dialog = dialog
            self._timer = QTimer(dialog)
            self._timer.setInterval(250)
            self._timer.timeout.connect(self._refresh)
            self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Take the dialog down (before an error message, or when done)."""
        if self._timer is not None:
            self._timer.stop()
        if self._dialog is not None:
            self._dialog.reset()
            self._dialog.deleteLater()
            self._dialog = None

    def stage(self, text: str) -> None:
        """Name what happens next (shown with the seconds since opening began)."""
        self.stages.append(text)
        self._stage = text
        self._refresh()
        if self._dialog is not None:
            QApplication.processEvents()

    def _refresh(self) -> None:
        if self._dialog is not None:
            self._dialog.setLabelText(f"{self.path.name}: {self._stage} "
                                      f"({time.monotonic() - self._start:.0f} s)")

    def read(self, catalog: Catalog | None) -> Layout:
        """The layout, read on a worker thread when the dialog is shown."""
        from rackdesigner.io import load_layout

        self.stage(f"reading {self.size / 1e6:.0f} MB…" if self.size >= 1e6 else "reading…")
        if not self.shown:
            return load_layout(self.path, catalog=catalog)
        loop = QEventLoop()
        relay = _Relay(loop)
        path = self.path

        def job() -> None:
            try:
                value: object = load_layout(path, catalog=catalog)
            except Exception as exc:  # handed back to the GUI thread and raised there
                value = exc
            relay.finished.emit(value)

        self.read_in_worker = True
        pool = QThreadPool.globalInstance()
        pool.start(job)
        while not relay.outcome:
            loop.exec()
        value = relay.outcome[0]
        if isinstance(value, BaseException):
            raise value
        assert isinstance(value, Layout)
        self.stage(f"drawing {value.device_count():,} devices and {value.link_count():,} "
                   "links…")
        return value
