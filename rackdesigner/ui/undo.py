"""The Qt side of undo: plain commands wrapped in `QUndoCommand` for the one `QUndoStack`.

A command is applied *before* it is pushed (so a refused edit raises without touching the
stack); the adapter then skips the `redo()` that `QUndoStack.push` performs. Merge keys become
`id()` values (`QUndoStack` merges only equal non-negative ids); `mergeWith` defers to the
plain command.
"""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

from rackdesigner.commands import Command
from rackdesigner.model import Layout


class UndoAdapter(QUndoCommand):
    def __init__(self, command: Command, layout: Layout, applied: bool = True) -> None:
        super().__init__(command.text)
        self.command = command
        self.layout = layout
        self._skip_redo = applied

    def redo(self) -> None:
        if self._skip_redo:
            self._skip_redo = False
            return
        self.command.apply(self.layout)

    def undo(self) -> None:
        self.command.revert(self.layout)

    def id(self) -> int:
        key = self.command.merge_key()
        if key is None:
            return -1
        return hash(key) & 0x3FFFFFFF  # equal keys, equal ids (within this process)

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, UndoAdapter):
            return False
        if other.command.merge_key() != self.command.merge_key():
            return False
        if self.command.merge(other.command):
            self.setText(self.command.text)
            return True
        return False
