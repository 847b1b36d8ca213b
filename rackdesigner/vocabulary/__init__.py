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
    BUSBW_FACTORS,
    COLLECTIVE_NAMES,
    COLLECTIVES,
    GROUP_COLLECTIVES,
    NCCL_ALGORITHMS,
    PLACEMENT_NAMES,
    PLACEMENTS,
    RINGS,
    TRAFFIC,
    Algorithm,
    Collective,
    Placement,
    Ring,
    collective,
    collective_names,
    first_running,
)
from rackdesigner.vocabulary.kinds import (
    COOLING_FACT,
    COOLING_KINDS,
    KIND_NAMES,
    KINDS,
    PALETTE_SECTIONS,
    POWER_CATEGORIES,
    ROLES,
    Fact,
    Kind,
    RegistrationError,
    fact_figures,
    kind,
    kinds_with,
    kinds_with_role,
    palette_section,
    register_kinds,
    traits_of,
)
from rackdesigner.vocabulary.protocols import (
    DEFAULT_FABRIC_TUNING,
    FABRIC_TUNING_NAMES,
    FABRIC_TUNINGS,
    FAMILIES,
    PROTOCOL_NAMES,
    PROTOCOLS,
    TRANSPORTS,
    Protocol,
    Transport,
    protocol,
    protocols_of,
)
from rackdesigner.vocabulary.traits import (
    FABRICS,
    NO_TRAITS,
    SIDE_FABRICS,
    Traits,
    joins_compute,
)
from rackdesigner.vocabulary.wording import SettingError, cli_word, worded

__all__ = [
    "ALGORITHMS",
    "ALGORITHM_CHOICES",
    "BUSBW_FACTORS",
    "COLLECTIVES",
    "COLLECTIVE_NAMES",
    "COOLING_FACT",
    "COOLING_KINDS",
    "DEFAULT_FABRIC_TUNING",
    "FABRICS",
    "FABRIC_TUNINGS",
    "FABRIC_TUNING_NAMES",
    "FAMILIES",
    "GROUP_COLLECTIVES",
    "KINDS",
    "KIND_NAMES",
    "NCCL_ALGORITHMS",
    "NO_TRAITS",
    "PALETTE_SECTIONS",
    "PLACEMENTS",
    "PLACEMENT_NAMES",
    "POWER_CATEGORIES",
    "PROTOCOLS",
    "PROTOCOL_NAMES",
    "RINGS",
    "ROLES",
    "SIDE_FABRICS",
    "TRAFFIC",
    "TRANSPORTS",
    "Algorithm",
    "Collective",
    "Fact",
    "Kind",
    "Placement",
    "Protocol",
    "RegistrationError",
    "Ring",
    "SettingError",
    "Traits",
    "Transport",
    "cli_word",
    "collective",
    "collective_names",
    "fact_figures",
    "first_running",
    "joins_compute",
    "kind",
    "kinds_with",
    "kinds_with_role",
    "palette_section",
    "protocol",
    "protocols_of",
    "register_kinds",
    "traits_of",
    "worded",
]
