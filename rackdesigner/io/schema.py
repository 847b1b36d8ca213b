"""The layout file format's versions, keys and migrations.

Loading is `safe parse → migrate(dict) → build`. A migration takes the document of version N and
returns version N+1; old golden files stay in `tests/data/` forever. Keys starting with `x-` are
free for tools and kept as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CURRENT_VERSION = 1

TOP_KEYS = ("schema_version", "name", "description", "sharp", "site", "groups", "devices",
            "links")
SITE_KEYS = ("power_kw", "cooling_kw", "facility_power_kw", "liquid_kw", "liquid_supply_c",
             "air_kw", "pue", "rack_positions", "it_power_kw", "power")
#: The price book a design carries (cost/locate.py), written as a block like embedded models.
PRICES_KEY = "x-rackdesigner-prices"
GROUP_KEYS = ("id", "name", "kind", "parent", "collapsed", "template", "status")
DEVICE_KEYS = ("id", "model", "name", "pos", "rack", "u", "group", "power_budget_w", "face",
               "floor", "air_cooling_w", "serves", "status")
LINK_KEYS = ("id", "a", "b", "count", "cable", "length_m", "status")

#: from_version -> function turning a document of that version into the next one.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def migrate(doc: dict[str, Any], version: int) -> dict[str, Any]:
    """Bring a document of `version` up to CURRENT_VERSION."""
    while version < CURRENT_VERSION:
        doc = MIGRATIONS[version](doc)
        version += 1
        doc["schema_version"] = version
    return doc
