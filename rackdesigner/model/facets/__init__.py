"""The derived index's facets, one module per facet, each behind one protocol
(`protocol.Facet`: its plain, NumPy, incremental and degraded forms, and the form its
equivalence test compares).

| facet            | module            | plain | NumPy | evolved | degraded |
|------------------|-------------------|-------|-------|---------|----------|
| traits           | `traits.py`       | yes   | (per model in the columns) | yes | yes |
| link protocol    | `carried.py`      | yes   | yes   | yes     | yes      |
| connectivity     | `connectivity.py` | yes   | yes   | yes     | yes      |
| NIC reach        | `nic_reach.py`    | yes   | yes   | yes     | -        |
| exhausted ports  | `ports.py`        | yes   | yes   | -       | -        |
| rack occupancy   | `occupancy.py`    | yes   | -     | yes     | -        |
| counts           | `counts.py`       | yes   | -     | yes     | -        |
| reachability     | `reachability.py` | yes   | (from connectivity's forms)  |
| rack index       | `rack_index.py`   | (`RackIndex`) | - | yes     | -        |

The rack index is a facet of a layout snapshot, not of the derived index (`Facet[Layout,
RackIndex]`): `rack_index.RACK_INDEX`, kept per state by `rack_index.rack_index`, not in
`FACETS` (which `DesignIndex` answers) and not imported here (it reads `model/racks.py`, which
the derived index's modules come before).

Port usage per device is kept by the state itself, link by link (`DesignState.port_use`), and
what changed between two states is `changes.py`. `DesignIndex` (`model/index.py`) holds one
value per facet and state and picks the form; `FACETS` lists them for the equivalence test
(tests/test_facets.py).
"""

from __future__ import annotations

from rackdesigner.model.facets.carried import CARRIED
from rackdesigner.model.facets.connectivity import CONNECTIVITY
from rackdesigner.model.facets.counts import LINK_COUNT, MODELS
from rackdesigner.model.facets.nic_reach import NIC_REACH
from rackdesigner.model.facets.occupancy import OCCUPANCY
from rackdesigner.model.facets.ports import EXHAUSTED
from rackdesigner.model.facets.protocol import Facet, PlainFacet
from rackdesigner.model.facets.reachability import REACHABILITY
from rackdesigner.model.facets.traits import TRAITS

#: every facet, in the order one derives from another
FACETS: tuple[Facet, ...] = (TRAITS, CARRIED, CONNECTIVITY, NIC_REACH, EXHAUSTED, OCCUPANCY,
                             MODELS, LINK_COUNT, REACHABILITY)

__all__ = ["CARRIED", "CONNECTIVITY", "EXHAUSTED", "FACETS", "LINK_COUNT", "MODELS",
           "NIC_REACH", "OCCUPANCY", "REACHABILITY", "TRAITS", "Facet", "PlainFacet"]
