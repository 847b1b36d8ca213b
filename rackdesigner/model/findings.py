"""The design rules' findings of a state, kept per state and carried across the edits that
cannot change them.

`check_layout` reads the whole design (3-4 s at 32k GPUs). Yet no rule reads a device's
position on the canvas or any status: after a move, a Fail, a Restore or their Undo the
findings are those of the state before, and the Problems dock need not wait for a check. A
state made by such an edit takes a hint from its predecessor (`DesignState.take_index_hint`),
and `findings(layout)` returns the predecessor's list while someone holds it (the Problems
dock's last result does).
"""

from __future__ import annotations

from collections.abc import Callable

from rackdesigner.model.layout import Layout
from rackdesigner.model.rules import Finding, check_layout

Check = Callable[[Layout], list[Finding]]


class Findings(list):
    """The findings of one state, errors first (a list a state can refer to weakly)."""


def findings(layout: Layout, check: Check = check_layout, *, fresh: bool = False) -> Findings:
    """`check(layout)` for the layout's current state, computed once per state and shared by
    every state that differs from it by positions and statuses only; `fresh` checks again."""

    def build(state: object, hint: tuple | None) -> Findings:
        if not fresh and hint is not None and hint[0] == "like":
            return hint[1]
        return Findings(check(layout))

    if fresh:
        layout.state._cache.pop("findings", None)
        layout.state._cache.pop("findings_like", None)
    return layout.derived("findings", build)
