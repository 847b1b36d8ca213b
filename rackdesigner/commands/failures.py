"""Fail / Restore: marking devices, links and groups failed for a what-if (one undo step).

The status is a plain field on the object (`status: failed`); what a failure takes down with
it is worked out by `model.failures.closure`, never stored, so restoring brings back exactly
the document (and figures) of before.
"""

from __future__ import annotations

from collections.abc import Iterable

from rackdesigner.commands.base import Macro
from rackdesigner.commands.edits import ChangeItem
from rackdesigner.model import Layout
from rackdesigner.model.failures import marked_failed
from rackdesigner.model.items import ACTIVE, FAILED


def _objects(layout: Layout, ids: Iterable[str]) -> list[tuple[str, str, str]]:
    out = []
    for oid in dict.fromkeys(ids):
        if layout.has_group(oid):
            out.append(("group", oid, layout.group(oid).status))
        elif layout.has_device(oid):
            out.append(("device", oid, layout.device(oid).status))
        elif layout.has_link(oid):
            out.append(("link", oid, layout.link(oid).status))
    return out


def set_status(layout: Layout, ids: Iterable[str], status: str) -> Macro | None:
    """Mark `ids` (devices, links, groups) `status` as one step; None when nothing changes."""
    changes = [ChangeItem(kind, oid, {"status": status})
               for kind, oid, old in _objects(layout, ids) if old != status]
    if not changes:
        return None
    verb = "Fail" if status == FAILED else "Restore"
    what = changes[0].item_id if len(changes) == 1 else f"{len(changes)} items"
    return Macro(f"{verb} {what}", changes)


def toggle_failed(layout: Layout, ids: Iterable[str]) -> Macro | None:
    """Fail the selection, or restore it when every selected object is already failed (key F)."""
    objects = _objects(layout, ids)
    if not objects:
        return None
    restore = all(old == FAILED for _, _, old in objects)
    return set_status(layout, [oid for _, oid, _ in objects], ACTIVE if restore else FAILED)


def restore_all(layout: Layout) -> Macro | None:
    """Every failed object back to active (Restore All)."""
    command = set_status(layout, marked_failed(layout), ACTIVE)
    if command is not None:
        command.text = "Restore all failures"
    return command
