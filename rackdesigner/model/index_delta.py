"""The degraded forms of the derived index's facets (a design with failed devices and links left
out derives its facets from the index of the design it was cut from) now live with each facet
in `model/facets/` (`carried.py`: `carried_without`; `connectivity.py`:
`connectivity_without`; `traits.py`: `traits_without`). This module keeps the old import path.
"""

from __future__ import annotations

from rackdesigner.model.facets.carried import carried_without
from rackdesigner.model.facets.connectivity import connectivity_without, joined_inside

__all__ = ["carried_without", "connectivity_without", "joined_inside"]
