"""Opening a large layout with progress shown: the file is read on a worker thread while a
progress dialog shows the stage, how far it is and the seconds spent, with Cancel.

Why: a 32,000-GPU design takes seconds to read; a window that freezes without a word looks
hung, and a user who picked the wrong file should not have to wait for it. Reading is pure
Python on a worker; the reader reports its stages (`rackdesigner.io.Progress`: reading the
lines, checking the objects, building the design) every few thousand lines, and Cancel makes
the next report raise `ReadCancelled` in the worker, so the open design stays as it was.
Between reports the GUI thread still gets its share of the GIL, so the dialog keeps painting
and counting. The views following the new design (the last stage, "drawing") run on the GUI
thread and cannot be cancelled any more. Small files (under `PROGRESS_ABOVE_BYTES`) open as
before, without a dialog flashing by. The caller stays synchronous: `read()` returns the layout
or raises the loader's `LayoutFileError` (or `ReadCancelled`), as `load_layout` does.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from PySide6.QtCore import QEventLoop, QObject, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QApplication, QProgressDialog, QPushButton, QWidget

from rackdesigner.catalog import Catalog
from rackdesigner.io import ReadCancelled
from rackdesigner.model import Layout
from rackdesigner.ui.plain_text import plain

#: Files at least this large are read with the progress dialog (~2,000 GPUs in the plain form).
PROGRESS_ABOVE_BYTES = 2_000_000
#: Where each of the reader's stages sits on the dialog's 0–100 bar (from, to), and its words.
_STAGES = {"reading": (0, 60, "reading"), "expanding": (60, 70, "expanding node templates"),
           "checking": (60, 75, "checking"), "building": (75, 85, "building the design")}
DRAWING_AT = 85  # the views follow the new design (GUI thread) from here to the end
log = logging.getLogger(__name__)


class _Relay(QObject):
    """Lives on the GUI thread; the worker emits through it, so everything arrives queued."""

    finished = Signal(object)  # the Layout, or the exception the loader raised
    progressed = Signal(str, float)  # the reader's stage and how far it is (0..1)

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
        self.values: list[int] = []  # every value the bar showed, in order (tests read it)
        self.read_in_worker = False
        self.drawing = False  # the views follow the new design: no cancelling any more
        self.cancelled = threading.Event()
        self.dialog: QProgressDialog | None = None
        self.cancel_button: QPushButton | None = None
        self._timer: QTimer | None = None
        self._stage = ""
        self._reader_stage = "reading"
        self._start = time.monotonic()

    def __enter__(self) -> OpenProgress:
        if self.shown:
            dialog = QProgressDialog(self.parent)
            dialog.setWindowTitle("Opening")
            self.cancel_button = QPushButton("Cancel", dialog)
            # Enter must not cancel a long open (a focused auto-default button takes Return):
            # Cancel is a click or Escape, never the key that confirmed the file dialog
            self.cancel_button.setAutoDefault(False)
            self.cancel_button.setDefault(False)
            dialog.setCancelButton(self.cancel_button)
            dialog.setRange(0, 100)
            dialog.setAutoReset(False)
            dialog.setAutoClose(False)
            dialog.setMinimumDuration(0)
            dialog.setWindowModality(Qt.WindowModality.WindowModal)
            dialog.setMinimumWidth(420)
            dialog.canceled.connect(self.cancel)
            self.dialog = dialog
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
        if self.dialog is not None:
            self.dialog.canceled.disconnect(self.cancel)
            self.dialog.reset()
            self.dialog.deleteLater()
            self.dialog = None

    def cancel(self) -> None:
        """Stop reading (Cancel): the worker stops at its next progress report."""
        if not self.cancelled.is_set() and not self.drawing:  # Escape while drawing: too late
            self.cancelled.set()
            self.stage("cancelling…")

    def stage(self, text: str, value: int | None = None) -> None:
        """Name what happens next (shown with the seconds since opening began)."""
        self.stages.append(text)
        self._stage = text
        self._set_value(value)
        self._refresh()
        if self.dialog is not None:
            QApplication.processEvents()

    def _set_value(self, value: int | None) -> None:
        if value is not None and self.dialog is not None and value != self.dialog.value():
            self.values.append(value)
            self.dialog.setValue(value)

    def _refresh(self) -> None:
        if self.dialog is not None:
            self.dialog.setLabelText(plain(f"{self.path.name}: {self._stage} "
                                           f"({time.monotonic() - self._start:.0f} s)"))

    def _on_relay_progressed(self, stage: str, fraction: float) -> None:
        if self.cancelled.is_set():
            return
        low, high, words = _STAGES.get(stage, (0, DRAWING_AT, stage))
        if stage != self._reader_stage:  # a new stage: named once
            self._reader_stage = stage
            if stage != "reading":  # read() named the reading already
                self.stages.append(f"{words}…")
                self._stage = f"{words}…"
        self._set_value(round(low + (high - low) * min(max(fraction, 0.0), 1.0)))
        self._refresh()

    def read(self, catalog: Catalog | None) -> Layout:
        """The layout, read on a worker thread when the dialog is shown; `ReadCancelled` when
        the user cancelled it."""
        from rackdesigner.io import load_layout

        self.stage(f"reading {self.size / 1e6:.0f} MB…" if self.size >= 1e6 else "reading…", 0)
        if not self.shown:
            return load_layout(self.path, catalog=catalog)
        loop = QEventLoop()
        relay = _Relay(loop)
        relay.progressed.connect(self._on_relay_progressed)
        path, cancelled = self.path, self.cancelled

        def report(stage: str, fraction: float) -> None:  # on the worker
            if cancelled.is_set():
                raise ReadCancelled
            relay.progressed.emit(stage, fraction)

        def job() -> None:
            from rackdesigner.model.gcpause import gc_paused

            try:
                # frozen at the end, on the worker: otherwise the collector's first walk of
                # the new design (1-2 s at 16k-32k GPUs) falls on whichever thread allocates
                # next, the GUI thread (ui/heap.py refreezes it once the views follow)
                # Only what the window needs to show the design: `settle_later` prepares the
                # first edit once the canvas is drawn (0.9 s CPU at 32k GPUs, which stood
                # between the read and a usable canvas)
                with gc_paused(freeze=True):
                    value: object = load_layout(path, catalog=catalog, progress=report)
                    value.index().counts()  # what the status bar and the open message read
                    state = value.state  # and what the canvas reads first: the lists of
                    state.device_list(), state.link_list()  # devices and links in order,
                    state.group_members  # noqa: B018 the groups' members
            except Exception as exc:  # handed back to the GUI thread and raised there
                value = exc
            relay.finished.emit(value)

        self.read_in_worker = True
        if self.cancelled.is_set():  # cancelled before the worker started
            raise ReadCancelled
        QThreadPool.globalInstance().start(job)
        while not relay.outcome:
            loop.exec()
        value = relay.outcome[0]
        if self.cancelled.is_set():  # even when the read finished meanwhile: the user said no
            raise ReadCancelled
        if isinstance(value, BaseException):
            raise value
        assert isinstance(value, Layout)
        self.drawing = True
        if self.cancel_button is not None:
            self.cancel_button.setEnabled(False)  # the views follow on this thread from here
        self.stage(f"drawing {value.device_count():,} devices and {value.link_count():,} "
                   "links…", DRAWING_AT)
        return value


def settle_later(layout: Layout) -> threading.Thread:
    """Prepare the design just opened for its first edit (`Layout.settle`: its derived maps and
    the tries of its dict-backed maps) on a worker thread, once the window shows it.

    Why not in the read: at 32k GPUs it is 0.9 s of CPU that the window waited for before it
    drew anything, though the canvas needs none of it. Made now, while the user looks at the
    design, the first edit still finds it ready (else the GUI thread makes it: 0.3 s). It is a
    cache of an immutable state (the snapshot `layout.copy()` shares it; an edit meanwhile
    swaps a new state into `layout` and leaves this one as it was), each piece made and kept
    whole, so a view or a worker reading the state meanwhile sees it either made or not yet.
    Returns the thread (tests join it)."""
    from rackdesigner.model.gcpause import gc_paused

    snapshot = layout.copy()

    def run() -> None:
        try:
            with gc_paused(freeze=True):  # the tries live as long as the design (ui/heap.py)
                snapshot.settle()
        except Exception:  # a cache only: the first edit makes what is missing
            log.exception("preparing the opened design for editing failed")

    thread = threading.Thread(target=run, name="settle-opened-design", daemon=True)
    thread.start()
    return thread
