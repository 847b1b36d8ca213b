"""The Qt side of undo: recorded steps wrapped in `QUndoCommand` for the one `QUndoStack`.

A command is applied (transactionally, `commands.history.run`) *before* it is pushed, so a
refused edit raises without touching the stack; the adapter then skips the `redo()` that
`QUndoStack.push` performs. Undo and redo replay the step's transaction, ending on its exact
recorded state. Merge keys become `id()` values (`QUndoStack` merges only equal non-negative
ids); `mergeWith` defers to the step, which merges the commands and their transactions.
"""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

from rackdesigner.commands import Step
from rackdesigner.model import Layout


class UndoAdapter(QUndoCommand):
    def __init__(self, step: Step, layout: Layout) -> None:
        super().__init__(step.text)
        self.step = step
        self.layout = layout
        self._skip_redo = True

    @property
    def command(self):
        return self.step.command

    def redo(self) -> None:
        if self._skip_redo:
            self._skip_redo = False
            return
        self.step.redo(self.layout)

    def undo(self) -> None:
        self.step.undo(self.layout)

    def id(self) -> int:
        key = self.step.command.merge_key()
        if key is None:
            return -1
        return hash(key) & 0x3FFFFFFF  # equal keys, equal ids (within this process)

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, UndoAdapter):
            return False
        if self.step.merge(other.step):
            self.setText(self.step.text)
            return True
        return False
