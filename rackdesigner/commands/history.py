"""Running commands transactionally, and the undo history as plain Python.

`run(layout, command)` applies a command inside `Layout.transaction()`: it applies completely or
not at all. A `LayoutError` is a refusal (the edit would make the design inconsistent: a used id,
a missing device, a full port group); anything else is a bug in a command. Either way the layout
is back to the exact state from before when the exception propagates — the caller decides what
to tell the user (`Document.push` says "refused" for the first and logs the traceback of the
second).

A `Step` is one undo entry: the command and what it did (`Transaction`: the states before and
after and the events in between). Undo and redo replay the events (so every view follows, one
event per change) and end on the recorded state itself, so they restore the design exactly —
order of devices, links and `links_of` included. This is the only undo mechanism: commands
have no `revert` of their own that could drift from what undo does.

`History` is the undo stack without Qt, for tests, scripts and the randomized apply/revert test;
the designer's `Document` keeps the same `Step`s on a `QUndoStack` (`ui/undo.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.commands.base import Command
from rackdesigner.model import Layout
from rackdesigner.model.transaction import Transaction


@dataclass
class Step:
    command: Command
    tx: Transaction

    @property
    def text(self) -> str:
        return self.command.text

    def undo(self, layout: Layout) -> None:
        layout.replay(self.tx, forward=False)

    def redo(self, layout: Layout) -> None:
        layout.replay(self.tx, forward=True)

    def merge(self, later: Step) -> bool:
        """Absorb a later step with the same merge key (nudges, scrubbing); False refuses."""
        key = self.command.merge_key()
        if key is None or later.command.merge_key() != key:
            return False
        if not self.command.merge(later.command):
            return False
        self.tx.extend(later.tx)
        return True


def run(layout: Layout, command: Command) -> Step | None:
    """Apply `command` all-or-nothing; the step to record, or None when nothing changed.

    Raises `LayoutError` for a refusal and any other exception for a bug, in both cases with
    the layout unchanged."""
    if command.is_noop():
        return None
    with layout.transaction() as tx:
        command.apply(layout)
    if not tx.events:  # e.g. choosing the value already set
        return None
    return Step(command, tx)


class History:
    """A linear undo/redo history over one layout."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.steps: list[Step] = []
        self.index = 0  # steps[:index] are applied

    def push(self, command: Command) -> bool:
        """Apply and record `command`; False when it changed nothing. Raises like `run`."""
        step = run(self.layout, command)
        if step is None:
            return False
        del self.steps[self.index:]
        if self.steps and self.steps[-1].merge(step):
            return True
        self.steps.append(step)
        self.index = len(self.steps)
        return True

    def can_undo(self) -> bool:
        return self.index > 0

    def can_redo(self) -> bool:
        return self.index < len(self.steps)

    def undo(self) -> bool:
        if not self.can_undo():
            return False
        self.index -= 1
        self.steps[self.index].undo(self.layout)
        return True

    def redo(self) -> bool:
        if not self.can_redo():
            return False
        self.steps[self.index].redo(self.layout)
        self.index += 1
        return True
