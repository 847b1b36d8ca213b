"""What differs between two versions of a design, in one line a person can act on.

Used when the open file changed on disk (a colleague's save, a `git pull`): the window offers to
reload or keep the user's version and says what separates them ("on disk: 2 devices added,
1 link removed, 3 devices changed"). Objects are compared by id, so the cost is linear.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rackdesigner.model import Layout


def _by_id(items: Iterable[Any]) -> dict[str, Any]:
    return {item.id: item for item in items}


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def change_summary(ours: Layout, theirs: Layout) -> str:
    """How `theirs` differs from `ours`, e.g. "2 devices added, 1 link removed"; or "no
    difference in devices, links or groups" (then only the name, notes or extensions differ)."""
    parts: list[str] = []
    for word, mine, other in (
        ("device", _by_id(ours.devices()), _by_id(theirs.devices())),
        ("link", _by_id([*ours.links(), *ours.unresolved_links]),
         _by_id([*theirs.links(), *theirs.unresolved_links])),
        ("group", _by_id(ours.groups()), _by_id(theirs.groups())),
    ):
        added = len(other.keys() - mine.keys())
        removed = len(mine.keys() - other.keys())
        changed = sum(1 for key in mine.keys() & other.keys() if mine[key] != other[key])
        for n, what in ((added, "added"), (removed, "removed"), (changed, "changed")):
            if n:
                parts.append(f"{_count(n, word)} {what}")
    if ours.meta != theirs.meta:
        parts.append("name, description or extensions changed")
    return ", ".join(parts) if parts else "no difference in devices, links or groups"
