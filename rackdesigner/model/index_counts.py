"""What a design holds, counted: devices per rack position (rack occupancy and a device's
span), devices per kind and model, and the number of links — what the Racks view, the rack
rules and the status bar read. A part of `DesignIndex` (`index.py`); the facets' forms are
`model/facets/occupancy.py` and `model/facets/counts.py`, asked here which form applies."""

from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING, cast

from rackdesigner.catalog import Catalog, DeviceSpec
from rackdesigner.model.facets.counts import LINK_COUNT, MODELS
from rackdesigner.model.facets.occupancy import OCCUPANCY
from rackdesigner.model.items import Device

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex
    from rackdesigner.model.state import DesignState


class IndexCounts:
    """The counting part of `DesignIndex`."""

    state: DesignState
    catalog: Catalog
    _lock: threading.RLock
    _racks: dict[str, list[tuple[int, int, str]]] | None
    _counts: tuple[Counter[str], int] | None
    _models: Counter[str] | None

    if TYPE_CHECKING:
        def spec(self, device_id: str) -> DeviceSpec | None: ...
        def _evolving(self, facet: str) -> tuple[DesignIndex, dict[str, set]] | None: ...

    def rack_occupancy(self) -> dict[str, list[tuple[int, int, str]]]:
        """Rack id -> (lowest U, top U, device id) of the devices placed in it, sorted; only
        devices with a U position, a known height and a rack that is a known rack model."""
        with self._lock:
            evolving = self._evolving("_racks") if self._racks is None else None
            if evolving is not None:
                self._racks = OCCUPANCY.evolved(cast("DesignIndex", self), *evolving)
            if self._racks is None:
                self._racks = OCCUPANCY.plain(cast("DesignIndex", self))
            return self._racks

    def rack_span(self, device: Device) -> tuple[int, int, str] | None:
        """(lowest U, top U, id) of a device placed in a known rack with a known height."""
        if device.rack is None or device.u is None:
            return None
        rack_spec, spec = self.spec(device.rack), self.spec(device.id)
        if rack_spec is None or rack_spec.rack is None or spec is None:
            return None
        height = round(spec.u_height or 0)
        return (device.u, device.u + height - 1, device.id) if height > 0 else None

    def counts(self) -> tuple[Counter[str], int]:
        """Devices per kind ("?" for unknown models) and the number of links (bundles count
        each of their links): what the status bar shows."""
        # Without the index's lock: the GUI thread asks this while a worker holds the lock for
        # seconds (connectivity at 32k GPUs); two threads computing it both get equal values.
        counts = self._counts
        if counts is None:  # per model, then per kind: 0.05 s at 16k GPUs, not 0.5
            kinds: Counter[str] = Counter()
            for model, n in self.models().items():
                spec = self.catalog.get(model) if model in self.catalog else None
                kinds[spec.kind if spec is not None else "?"] += n
            links = None
            evolving = self._evolving("_counts")
            if evolving is not None:
                links = LINK_COUNT.evolved(cast("DesignIndex", self), *evolving)
            if links is None:
                links = LINK_COUNT.plain(cast("DesignIndex", self))
            counts = self._counts = (kinds, links)
        return counts

    def models(self) -> Counter[str]:
        """Devices per model id (unknown models included: opening names them)."""
        models = self._models  # lock-free as `counts`
        evolving = self._evolving("_models") if models is None else None
        if evolving is not None:
            models = self._models = MODELS.evolved(cast("DesignIndex", self), *evolving)
        if models is None:
            models = self._models = MODELS.plain(cast("DesignIndex", self))
        return models
