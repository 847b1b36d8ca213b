"""Placing a catalog model on the canvas: one device, or a system's wired parts as a group."""

from __future__ import annotations

import re
from dataclasses import replace

from rackdesigner import vocabulary
from rackdesigner.commands.edits import AddItems
from rackdesigner.model import Layout, instantiate

GRID = 10.0

#: Readable id prefixes per device kind (`gpu-3`, `nvsw-1`, `switch-2`).
#: Systems take their own id (`dgx-h100-1`): a system's parts are named under it.
ID_PREFIX = {k.name: k.id_prefix for k in vocabulary.KINDS.values()
             if k.traits.contains != "parts"}


def snap(pos: tuple[float, float], grid: float = GRID) -> tuple[float, float]:
    """The nearest grid point (model positions are plain float tuples)."""
    return (round(pos[0] / grid) * grid, round(pos[1] / grid) * grid)


def add_model(layout: Layout, model: str, pos: tuple[float, float], grid: float = GRID,
              name: str = "", collapsed: bool = False) -> AddItems:
    """A command placing one instance of `model` with its top-left corner at `pos` (snapped).

    A system becomes a group of its parts, wired inside as the catalog describes; `collapsed`
    draws it as one block (what the Palette places: a DGX expanded fills the view).
    """
    spec = layout.catalog.get(model)
    prefix_base = ID_PREFIX.get(spec.kind, re.sub(r"[^A-Za-z0-9]+", "-", spec.id).strip("-"))
    origin = snap(pos, grid)
    for _ in range(1000):
        prefix = layout.new_id(prefix_base)
        try:
            parts = instantiate(layout.catalog, spec.id, prefix, origin=origin, name=name,
                                is_taken=layout.has_id)
        except ValueError:
            continue
        groups = [replace(g, collapsed=True) if collapsed and g.parent is None else g
                  for g in parts.groups]
        return AddItems(groups, parts.devices, parts.links, text=f"Add {spec.model}")
    raise RuntimeError(f"no free id for a new {spec.id}")  # pragma: no cover



