"""The command protocol every user edit follows, and the macro that groups edits.

A command is plain Python: `apply(layout)` makes the change through the Layout's mutators. A
command refuses by raising `LayoutError` (from a mutator or itself); `commands.history.run`
applies it inside a transaction, so a refusal — or a bug — leaves the design exactly as it was,
and the history undoes and redoes by replaying what the transaction recorded: that is the one
undo mechanism (a command has no `revert` of its own to drift from it). Commands never open
dialogs, touch widgets or push other
commands; the Qt undo adapter (`rackdesigner.ui.undo`) wraps them for the one `QUndoStack`.
`merge_key()` lets rapid discrete edits (arrow-key nudges, spin-box scrubbing) collapse into
one undo step: two consecutive commands with equal, non-None keys are merged with `merge()`.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterable

from rackdesigner.model import Layout

log = logging.getLogger(__name__)


class Command:
    """Base class: subclasses set `text` and implement `apply`."""

    text: str = "Edit"

    def apply(self, layout: Layout) -> None:
        raise NotImplementedError

    def merge_key(self) -> Hashable | None:
        """Equal keys mean "the same continuous edit"; None never merges."""
        return None

    def merge(self, other: Command) -> bool:
        """Absorb `other` (already applied, same merge key) into self; False refuses."""
        return False

    def is_noop(self) -> bool:
        """True when applying changes nothing (the stack then drops it)."""
        return False

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.text!r}>"


class Macro(Command):
    """Several commands as one undo step, applied in order.

    Applying is transactional: when a child fails, the children already applied are rolled
    back before the error propagates, so a refused edit leaves the document untouched.
    """

    def __init__(self, text: str, children: Iterable[Command] = (),
                 key: Hashable | None = None) -> None:
        self.text = text
        self.children: list[Command] = list(children)
        self._key = key

    def apply(self, layout: Layout) -> None:
        with layout.transaction():  # a failing child undoes the children already applied
            for child in self.children:
                child.apply(layout)

    def is_noop(self) -> bool:
        return all(child.is_noop() for child in self.children)

    def merge_key(self) -> Hashable | None:
        """A macro merges only when given a key and its children merge pairwise."""
        return self._key

    def merge(self, other: Command) -> bool:
        if (not isinstance(other, Macro) or self._key is None or other.merge_key() != self._key
                or len(other.children) != len(self.children)):
            return False
        if any(a.merge_key() != b.merge_key() for a, b in zip(self.children, other.children,
                                                                strict=True)):
            return False
        return all(a.merge(b) for a, b in zip(self.children, other.children, strict=True))
