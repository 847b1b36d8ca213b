"""Edit ▸ Give Liquid Racks CDUs: the CDUs every liquid rack lacks (model/cdus.py) added as
one command, one undo step."""

from __future__ import annotations

from rackdesigner.commands.edits import AddItems
from rackdesigner.model import Layout
from rackdesigner.model.cdus import missing_cdus


def give_cdus(layout: Layout, model: str | None = None) -> AddItems | None:
    """The command adding the CDUs, or None when there is nothing to add."""
    devices, racks = missing_cdus(layout, model)
    if not devices:
        return None
    return AddItems(devices=devices, text=f"Give {racks} liquid rack{'s' if racks > 1 else ''}"
                    " CDUs")
