"""The incremental forms of the derived index's facets (a state made by edits derives each facet
from the index of the state it was edited from) now live with each facet in `model/facets/`
(`changes.py` says what changed; `carried.py`, `connectivity.py`, `nic_reach.py`,
`occupancy.py`, `counts.py`, `traits.py` derive again). This module keeps the old import path.
"""

from __future__ import annotations

from rackdesigner.model.facets.carried import carried_evolved
from rackdesigner.model.facets.changes import Changes, changes, wiring
from rackdesigner.model.facets.connectivity import connectivity_evolved
from rackdesigner.model.facets.counts import links_evolved, models_evolved
from rackdesigner.model.facets.nic_reach import nic_reach_evolved
from rackdesigner.model.facets.occupancy import racks_evolved

__all__ = ["Changes", "carried_evolved", "changes", "connectivity_evolved", "links_evolved",
           "models_evolved", "nic_reach_evolved", "racks_evolved", "wiring"]
