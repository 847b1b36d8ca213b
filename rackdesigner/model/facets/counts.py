"""The count facets: devices per model (`MODELS`) and links counted with their bundles
(`LINK_COUNT`: what the status bar shows).

Forms (`facets/protocol.Facet`): plain (a pass over the devices, over the links) and evolved
(`models_evolved`, `links_evolved`: the earlier counts adjusted by the changed objects).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rackdesigner.model.facets.changes import changes
from rackdesigner.model.facets.protocol import PlainFacet

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex


def models(index: DesignIndex) -> Counter[str]:
    """Devices per model id (unknown models included: opening names them)."""
    return Counter(d.model for d in index.state.devices.values())


def links(index: DesignIndex) -> int:
    """Links counted with their bundles."""
    return sum(lk.count for lk in index.state.links.values())


def models_evolved(index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                   ) -> Counter[str]:
    """Devices per model, from `base`'s count."""
    ch = changes(index, base, touched)
    out = Counter(base.models())
    before, after = base.state.devices, index.state.devices
    for device_id in ch.devices:
        if device_id in before:
            out[before[device_id].model] -= 1
        if device_id in after:
            out[after[device_id].model] += 1
    return +out  # drop models no device has any more


def links_evolved(index: DesignIndex, base: DesignIndex, touched: dict[str, set]) -> int:
    """Links counted with their bundles (what the status bar shows), from `base`'s count."""
    ch = changes(index, base, touched)
    total = base.counts()[1]
    before, after = base.state.links, index.state.links
    for link_id in ch.links:
        if link_id in before:
            total -= before[link_id].count
        if link_id in after:
            total += after[link_id].count
    return total


class ModelsFacet(PlainFacet):
    """Devices per model id."""

    name = "models"

    def plain(self, index: DesignIndex) -> Counter[str]:
        return models(index)

    def evolved(self, index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                ) -> Counter[str]:
        return models_evolved(index, base, touched)


class LinkCountFacet(PlainFacet):
    """Links counted with their bundles (the second half of `DesignIndex.counts`)."""

    name = "counts"

    def plain(self, index: DesignIndex) -> int:
        return links(index)

    def evolved(self, index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                ) -> int:
        return links_evolved(index, base, touched)


MODELS = ModelsFacet()
LINK_COUNT = LinkCountFacet()
