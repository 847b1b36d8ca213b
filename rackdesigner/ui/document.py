"""The open document: its Layout, file path and undo stack, and the model→Qt bridge.

The Layout is plain Python and knows nothing of Qt; `Document` subscribes to it and re-emits
each event as the `changed` signal. Replacing the layout (New, Open, Revert) emits `replaced`
with the new Layout; if a view fails to follow it, `set_layout` raises that view's exception
after every view had its turn (the file controller then reopens the previous design). These
two signals are the one route by which views learn about the design: every view connects to
them (`follow_document`) and to nothing else.

`push` runs a command transactionally (`commands.history.run`): a `LayoutError` is a refusal,
said in the status bar; any other exception is a bug: its traceback is logged, the user is told
(`failed`), and the design is unchanged. Undo and redo replay the recorded transaction
(`ui/undo.py`), which restores the exact previous state.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from rackdesigner.commands import Command, run
from rackdesigner.model import Event, Layout, LayoutError
from rackdesigner.ui.undo import UndoAdapter

log = logging.getLogger(__name__)


class Document(QObject):
    changed = Signal(object)  # one model event, after the change
    replaced = Signal(object)  # the new Layout: a different design is now open
    message = Signal(str)  # outcome of the last action, for the status bar
    failed = Signal(str)  # an edit failed on a bug (logged with its traceback); design unchanged

    def __init__(self, layout: Layout | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self.path: Path | None = None
        #: For an untitled copy (an example, a template): its title and a file name to suggest.
        self.untitled_title = ""
        self.suggested_name = ""
        self.layout = layout if layout is not None else Layout()
        self._unsubscribe = self.layout.subscribe(self._on_layout_event)

    def _on_layout_event(self, event: Event) -> None:
        self.changed.emit(event)

    def set_layout(self, layout: Layout, path: str | Path | None) -> None:
        """Open another layout: history is cleared and the document is clean."""
        self._unsubscribe()
        self.layout = layout
        self.path = Path(path) if path is not None else None
        self.untitled_title = self.suggested_name = ""
        self._unsubscribe = self.layout.subscribe(self._on_layout_event)
        self.undo_stack.clear()
        self.undo_stack.setClean()
        failures = _emit_collecting(self.replaced, layout)
        if failures:  # a view could not follow: the caller decides (e.g. reopen the previous)
            for failure in failures:
                log.error("a view failed to follow the replaced design", exc_info=failure)
            raise failures[0][1]

    def push(self, command: Command) -> bool:
        """Apply `command` and record it as one undo step; False (and a message) if refused,
        if it failed, or if it changed nothing."""
        try:
            step = run(self.layout, command)
        except LayoutError as exc:
            log.info("refused %s: %s", command.text, exc)
            self.message.emit(f"{command.text} refused: {exc}")
            return False
        except Exception as exc:  # a bug: say it, log it, keep the design as it was
            log.exception("%s failed (the design is unchanged)", command.text)
            text = (f"{command.text} failed: {type(exc).__name__}: {exc}. This is a bug; the "
                    "design is unchanged and the details are in the log.")
            self.message.emit(text)
            self.failed.emit(text)
            return False
        if step is None:  # e.g. choosing the value already set
            return False
        self.undo_stack.push(UndoAdapter(step, self.layout))
        self.message.emit(command.text)
        return True

    def is_modified(self) -> bool:
        return not self.undo_stack.isClean()

    def close(self) -> None:
        """Stop listening to the layout (the window is closing)."""
        self._unsubscribe()


def _emit_collecting(signal, *args) -> list:
    """Emit `signal`; return the exceptions its slots raised (PySide hands an exception in a
    slot to `sys.excepthook` and goes on with the next slot, so the emitter never sees it)."""
    failures: list = []
    previous = sys.excepthook
    sys.excepthook = lambda *info: failures.append(info)
    try:
        signal.emit(*args)
    finally:
        sys.excepthook = previous
    return failures
