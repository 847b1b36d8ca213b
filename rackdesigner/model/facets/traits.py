"""The trait facet: device id -> what it does (its kind's `vocabulary.Traits`) for every device
of a known model — the per-device column every whole-design pass reads instead of kind names.

Forms (`facets/protocol.Facet`): plain (from the specs), evolved (`traits_evolved`: the
changed devices read again) and degraded (`traits_without`: the source's column without the
failed devices). The NumPy columns read it per model (`LinkTable.traits`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.model.facets.protocol import PlainFacet
from rackdesigner.vocabulary import Traits

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex


def traits(index: DesignIndex) -> dict[str, Traits]:
    """Device id -> its kind's traits, for every device of a known model."""
    return {d: spec.traits for d, spec in index.all_specs().items() if spec is not None}


def traits_evolved(index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                   ) -> dict[str, Traits]:
    """`index`'s trait column from `base`'s: the changed devices read again."""
    earlier = base.traits()
    changed = touched["d"]
    if not changed:
        return earlier
    out = dict(earlier)
    spec = index.spec
    for device_id in changed:
        s = spec(device_id)
        if s is None:
            out.pop(device_id, None)
        else:
            out[device_id] = s.traits
    return out


def traits_without(source: DesignIndex, failed: Any) -> dict[str, Traits]:
    """`source`'s trait column without the failed devices."""
    gone = failed.devices
    return {d: t for d, t in source.traits().items() if d not in gone}


class TraitsFacet(PlainFacet):
    """Device id -> what it does (`vocabulary.Traits`)."""

    name = "traits"

    def plain(self, index: DesignIndex) -> dict[str, Traits]:
        return traits(index)

    def evolved(self, index: DesignIndex, base: DesignIndex, touched: dict[str, set]
                ) -> dict[str, Traits]:
        return traits_evolved(index, base, touched)

    def without(self, index: DesignIndex, source: DesignIndex, failed: Any
                ) -> dict[str, Traits]:
        return traits_without(source, failed)

    def canonical(self, value: dict[str, Traits]) -> object:
        return sorted(value.items())


TRAITS = TraitsFacet()
