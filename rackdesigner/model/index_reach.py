"""Who reaches whom in a design: the connectivity facet of the index (islands, NVLink domains,
components, GPUs), NVLink domains, the devices a NIC reaches over host links, and which GPUs
reach each other (with the side fabrics that only seem to join them). A part of `DesignIndex`
(`index.py`), which holds the specs, ports, carried links and counts these read; each facet's
forms are its module in `model/facets/` (`connectivity.py`, `nic_reach.py`,
`reachability.py`), asked here which form applies."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from rackdesigner.model.facets.connectivity import CONNECTIVITY
from rackdesigner.model.facets.nic_reach import NIC_REACH
from rackdesigner.model.facets.reachability import reachability
from rackdesigner.model.index_values import Connectivity, Reachability

if TYPE_CHECKING:
    from rackdesigner.model.index import DesignIndex
    from rackdesigner.model.linktable import LinkTable
    from rackdesigner.model.state import DesignState


class IndexReach:
    """The reachability half of `DesignIndex`."""

    state: DesignState
    _lock: threading.RLock
    _connectivity: Connectivity | None
    _nic_reach: frozenset[str] | None
    _reach: Reachability | None
    _minus: tuple[DesignIndex, Any] | None

    if TYPE_CHECKING:
        def link_table(self) -> LinkTable | None: ...
        def _evolving(self, facet: str) -> tuple[DesignIndex, dict[str, set]] | None: ...

    def connectivity(self) -> Connectivity:
        with self._lock:
            if self._connectivity is None and self._minus is not None:
                source: DesignIndex = self._minus[0]
                failed = self._minus[1]
                known: IndexReach = source  # (a part of DesignIndex: its own facet)
                if known._connectivity is not None:
                    self._connectivity = CONNECTIVITY.without(cast("DesignIndex", self), source,
                                                              failed)
            evolving = self._evolving("_connectivity") if self._connectivity is None else None
            if evolving is not None:
                self._connectivity = CONNECTIVITY.evolved(cast("DesignIndex", self), *evolving)
            if self._connectivity is None:
                table = self.link_table()
                self._connectivity = (CONNECTIVITY.arrays(cast("DesignIndex", self), table)
                                      if table is not None
                                      else CONNECTIVITY.plain(cast("DesignIndex", self)))
            return self._connectivity

    def nvlink_domains(self) -> list[set[str]]:
        """GPU sets joined by NVLink (directly or through NVSwitches), largest first."""
        conn = self.connectivity()
        domains: dict[str, set[str]] = {}
        for gpu in conn.gpus:
            domains.setdefault(conn.nvlink_domain_of[gpu], set()).add(gpu)
        return sorted(domains.values(), key=len, reverse=True)

    def nic_reach(self) -> frozenset[str]:
        """Devices with a host-link (PCIe, C2C) path from a NIC or DPU that does not pass
        through a GPU (the GPUs in it can send to the network through that NIC)."""
        with self._lock:
            evolving = self._evolving("_nic_reach") if self._nic_reach is None else None
            if evolving is not None:
                prior: IndexReach = evolving[0]
                if prior._connectivity is not None:
                    self._nic_reach = NIC_REACH.evolved(cast("DesignIndex", self), *evolving)
            table = self.link_table() if self._nic_reach is None else None
            if table is not None:
                self._nic_reach = NIC_REACH.arrays(cast("DesignIndex", self), table)
            if self._nic_reach is None:
                self._nic_reach = NIC_REACH.plain(cast("DesignIndex", self))
            return self._nic_reach

    def reachability(self, gpus: Iterable[str] | None = None) -> Reachability:
        """Which GPUs (all, or the given ones in the given order) can reach each other; the
        largest group wins, ties to the group whose first GPU comes first."""
        if gpus is None:
            with self._lock:
                if self._reach is None:
                    self._reach = self._reachability(self.connectivity().gpus)
                return self._reach
        return self._reachability(tuple(gpus))

    def _reachability(self, gpus: tuple[str, ...]) -> Reachability:
        return reachability(cast("DesignIndex", self), gpus)
