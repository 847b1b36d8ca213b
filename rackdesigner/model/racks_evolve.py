"""The old import path of the rack index's per-state cache: moved, with its evolved form, to
the rack-index facet (`model/facets/rack_index.py`)."""

from __future__ import annotations

from rackdesigner.model.facets.rack_index import rack_index

__all__ = ["rack_index"]
