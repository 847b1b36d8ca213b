"""What the layout refuses, and how it says so: one check per kind of object (every mutator,
one by one or in bulk, refuses for the same reasons in the same words) and the errors raised."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from rackdesigner.model.items import Device, Group, Link, device_problem, is_valid_id, link_problem


def group_refusal(group: Group, taken: Callable[[str], bool],
                  has_group: Callable[[str], bool]) -> str | None:
    """Why `group` cannot join a design where `taken` ids are used, or None."""
    if not is_valid_id(group.id):
        return f"invalid group id {group.id!r}"
    if taken(group.id):
        return f"id {group.id!r} is already used"
    if group.parent is not None and not has_group(group.parent):
        return f"group {group.id!r}: no parent group {group.parent!r}"
    return None


def device_refusal(device: Device, taken: Callable[[str], bool],
                   has_group: Callable[[str], bool]) -> str | None:
    """Why `device` cannot join a design where `taken` ids are used, or None: its id and
    group here, its values (position, rack unit) by `model.items.device_problem`."""
    if not is_valid_id(device.id):
        return f"invalid device id {device.id!r} (letters, digits, . _ - only)"
    if taken(device.id):
        return f"id {device.id!r} is already used"
    if device.group is not None and not has_group(device.group):
        return f"device {device.id!r}: no group {device.group!r}"
    return device_problem(device)


def link_refusal(link: Link, taken: Callable[[str], bool],
                 has_device: Callable[[str], bool]) -> str | None:
    """Why `link` cannot join a design where `taken` ids are used, or None: its id and ends
    here, its values (count, length) by `model.items.link_problem`."""
    if not is_valid_id(link.id):
        return f"invalid link id {link.id!r}"
    if taken(link.id):
        return f"id {link.id!r} is already used"
    if (problem := link_problem(link)) is not None:
        return problem
    for end in (link.a, link.b):
        if not has_device(end.device):
            return f"link {link.id!r}: no device {end.device!r}"
    return None


class LayoutError(ValueError):
    """A mutation that would make the document inconsistent (duplicate id, missing device...)."""


class MissingError(LayoutError, KeyError):
    """No object with that id: a refusal for an edit (`LayoutError`), a `KeyError` for readers."""

    __str__ = BaseException.__str__  # KeyError would quote the message


def replaced(value: Any, changes: dict[str, Any], what: str) -> Any:
    """`value` (a frozen item) with `changes`; an unknown field is a `LayoutError`."""
    try:
        return dataclasses.replace(value, **changes)
    except TypeError as exc:  # an unknown field: a refusal, not a crash
        raise LayoutError(f"a {what} has no such field ({exc})") from None
