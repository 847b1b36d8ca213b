"""Design-level settings (the layout's `Meta`) as commands: e.g. the SHARP switch of the panel."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rackdesigner.commands.base import Command
from rackdesigner.model import Layout, LayoutError


class ChangeMeta(Command):
    """Change document-level properties (`sharp`, `name`, `description`) in one undo step."""

    def __init__(self, changes: Mapping[str, Any], text: str = "") -> None:
        self.changes = dict(changes)
        self.text = text or f"Change {' and '.join(sorted(self.changes))} of the design"

    def apply(self, layout: Layout) -> None:
        meta = layout.meta
        for name in self.changes:
            if not hasattr(meta, name):
                raise LayoutError(f"the design has no setting {name!r}")
        layout.set_meta(**self.changes)


def set_sharp(on: bool) -> ChangeMeta:
    """The command the panel's SHARP toggle pushes."""
    return ChangeMeta({"sharp": bool(on)},
                      "Allow in-network reduction (SHARP)" if on
                      else "Disallow in-network reduction (SHARP)")
