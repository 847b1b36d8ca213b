"""How the Racks tab follows an edit: which model events change what the elevations show.

A rebuild of the elevations took 2.4 s at 32k GPUs (every rack and unit item made again), so
an edit rebuilds them only when it changes racks or units; a move on the canvas changes
nothing here, a Fail / Restore only the failed marks, a cable only the power of the racks at
its two ends (`RacksScene.apply_link_changes`).
"""

from __future__ import annotations

from rackdesigner.model.events import (
    DeviceChanged,
    GroupChanged,
    LinkAdded,
    LinkChanged,
    LinkRemoved,
    MetaChanged,
)
from rackdesigner.model.items import Link

FULL = "full"
FAILURES = "failures"
LINKS = "links"
UNITS = "units"


def racks_scope(event: object) -> str | None:
    """What a model event changes in the elevations: None (nothing they show: a position on
    the canvas, a link's status, a group folded), FAILURES (only which units are failed),
    LINKS (a cable came, went or changed: the power of the racks at its ends), UNITS (a
    device's rack, U or face: its unit and the racks it left and went to), or FULL (units,
    racks, labels: rebuild). Unknown events rebuild."""
    if event is None:
        return FULL
    if isinstance(event, MetaChanged):
        return None
    if isinstance(event, LinkAdded | LinkRemoved):
        return LINKS
    if isinstance(event, DeviceChanged | LinkChanged | GroupChanged):
        old, new = event.old, event.new
        changed = {f for f in old.__slots__ if getattr(old, f) != getattr(new, f)}
        ignored = {DeviceChanged: {"pos"}, LinkChanged: {"status"},
                   GroupChanged: {"collapsed"}}[type(event)]
        if changed <= ignored:
            return None
        if changed <= ignored | {"status"}:
            return FAILURES
        if isinstance(event, LinkChanged):
            return LINKS
        if isinstance(event, DeviceChanged) and changed <= ignored | {"status", "rack", "u",
                                                                      "props"}:
            return UNITS  # mounted elsewhere (or on the other face): its units and racks
    return FULL


def link_changes(event: object) -> list[tuple[Link, int]]:
    """The links an event takes out of (-1) and puts into (+1) the racks' power."""
    if isinstance(event, LinkAdded):
        return [(event.link, 1)]
    if isinstance(event, LinkRemoved):
        return [(event.link, -1)]
    assert isinstance(event, LinkChanged)
    return [(event.old, -1), (event.new, 1)]
