"""The open document: its Layout, file path and undo stack, and the model→Qt bridge.

The Layout is plain Python and knows nothing of Qt; `Document` subscribes to it and re-emits
each event as the `changed` signal, so widgets connect to signals like anywhere else in Qt.
Replacing the layout (New, Open, Revert) emits `replaced`; widgets then rebuild once.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from rackdesigner.commands import Command
from rackdesigner.model import Event, Layout, LayoutError
from rackdesigner.ui.undo import UndoAdapter

log = logging.getLogger(__name__)


class Document(QObject):
    changed = Signal(object)  # one model event
    replaced = Signal()  # a different layout is now open
    message = Signal(str)  # outcome of the last action, for the status bar

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
        self.replaced.emit()

    def push(self, command: Command) -> bool:
        """Apply `command` and record it as one undo step; False (and a message) if refused."""
        if command.is_noop():
            return False
        revision = self.layout.revision
        try:
            command.apply(self.layout)
        except (LayoutError, KeyError, ValueError) as exc:
            log.info("refused %s: %s", command.text, exc)
            self.message.emit(f"{command.text} refused: {exc}")
            return False
        if self.layout.revision == revision:  # e.g. choosing the value already set
            return False
        self.undo_stack.push(UndoAdapter(command, self.layout, applied=True))
        self.message.emit(command.text)
        return True

    def is_modified(self) -> bool:
        return not self.undo_stack.isClean()

    def close(self) -> None:
        """Stop listening to the layout (the window is closing)."""
        self._unsubscribe()
