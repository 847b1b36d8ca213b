"""Which model events concern the Inspector: the objects an event is about, and whether it can
change the Rack and Group choices of the device page (kept between refreshes, see
`InspectorWidget._choices`)."""

from __future__ import annotations

from rackdesigner.model.events import (
    DeviceAdded,
    DeviceChanged,
    DeviceRemoved,
    GroupAdded,
    GroupChanged,
    GroupRemoved,
)


def touched_ids(event: object) -> set[str]:
    """Ids of the devices, links and groups a model event is about (link ends included)."""
    ids: set[str] = set()
    for name in ("device", "link", "group", "old", "new"):
        item = getattr(event, name, None)
        item_id = getattr(item, "id", None)  # a design-wide setting (Meta, SHARP) has none
        if item_id is None:
            continue
        ids.add(item_id)
        for end in (getattr(item, "a", None), getattr(item, "b", None)):
            if end is not None:
                ids.add(end.device)
    return ids


def changes_choices(event: object) -> bool:
    """Can `event` change the list of racks or groups (or their labels)?"""
    if isinstance(event, DeviceChanged):
        return event.old.label != event.new.label or event.old.model != event.new.model
    if isinstance(event, GroupChanged):
        return event.old.label != event.new.label
    return isinstance(event, DeviceAdded | DeviceRemoved | GroupAdded | GroupRemoved)
