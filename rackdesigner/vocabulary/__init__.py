"""The project's vocabularies, each declared once: device kinds, port protocols and their
families, collectives, algorithms and placements.

Every layer reads these tables — the catalog loader validates against them, the model and the
simulation ask them for a kind's role or a protocol's family, the Palette, canvas and Racks view
take sections, colours and badges from them, the CLI takes its choices from them. A new kind is
its catalog files plus one `Kind` entry; `tests/test_vocabulary.py` fails when a catalog kind has
no entry or an entry is used by nothing. Like `interop.base.EXPORTERS`, the tables are immutable
data: a `MappingProxyType` of frozen entries. This package imports nothing of the project (it
sits below `catalog/`) and nothing heavy, so the CLI may read it before parsing arguments.
"""

from __future__ import annotations

from rackdesigner.vocabulary.collectives import (
    ALGORITHM_CHOICES,
    ALGORITHMS,
    COLLECTIVE_NAMES,
    COLLECTIVES,
    GROUP_COLLECTIVES,
    PLACEMENT_NAMES,
    PLACEMENTS,
    Algorithm,
    Collective,
    Placement,
)
from rackdesigner.vocabulary.kinds import (
    KIND_NAMES,
    KINDS,
    PALETTE_SECTIONS,
    POWER_CATEGORIES,
    ROLES,
    Fact,
    Kind,
    kind,
    kinds_with_role,
    palette_section,
)
from rackdesigner.vocabulary.protocols import (
    FAMILIES,
    PROTOCOL_NAMES,
    PROTOCOLS,
    TRANSPORTS,
    Protocol,
    Transport,
    protocol,
    protocols_of,
)

__all__ = [
    "ALGORITHMS",
    "ALGORITHM_CHOICES",
    "COLLECTIVES",
    "COLLECTIVE_NAMES",
    "FAMILIES",
    "GROUP_COLLECTIVES",
    "KINDS",
    "KIND_NAMES",
    "PALETTE_SECTIONS",
    "PLACEMENTS",
    "PLACEMENT_NAMES",
    "POWER_CATEGORIES",
    "PROTOCOLS",
    "PROTOCOL_NAMES",
    "ROLES",
    "TRANSPORTS",
    "Algorithm",
    "Collective",
    "Fact",
    "Kind",
    "Placement",
    "Protocol",
    "Transport",
    "kind",
    "kinds_with_role",
    "palette_section",
    "protocol",
    "protocols_of",
]
