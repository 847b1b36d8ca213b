"""`DesignIndex`: the facts derived from one `DesignState`, computed once and shared by all readers.

Design rules, the canvas, the Inspector, the wiring tool, the simulation's topology step and the
live panel all ask the same questions of a design — how many ports of a group are in use, which
protocol a link carries, which GPUs share an NVLink domain or an island, which GPUs reach a NIC,
who sits where in a rack, which GPUs can reach each other. They read the answers here, so the
Problems dock and the panel cannot disagree (before, rules judged a link's protocol at one end
and the simulation at both, and only the panel noticed GPUs that cannot reach each other).

One index belongs to one state (`state.index(catalog)`, `Layout.index()`); a state never
changes, so nothing here is ever invalidated. Facets are computed on first use; port usage is
kept by the state itself, link by link (what the canvas asks after every wire); the
whole-design facets (connectivity, NIC reach, racks) take one linear pass each (what workers
ask). A lock keeps two
workers asking for the same facet at once from computing it twice.

A link *carries* a protocol when both ends name existing port groups of known models with that
same protocol; a link with mismatched or unknown ends carries nothing (rules report it).

Each facet — its plain, NumPy, incremental and degraded forms — is one module of
`model/facets/` behind one protocol (`facets.protocol.Facet`); `DesignIndex` keeps one value
per facet and state and picks the form. It is made of parts by what they hold: who reaches
whom (`index_reach.IndexReach`), what the design holds counted and where it sits in racks
(`index_counts.IndexCounts`), and the values it hands out (`index_values.py`); this module
keeps the specs, traits, ports and carried links. Every name is still imported from here.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from rackdesigner import vocabulary
from rackdesigner.catalog import Catalog, DeviceSpec, PortGroup
from rackdesigner.model.facets.carried import CARRIED
from rackdesigner.model.facets.ports import EXHAUSTED
from rackdesigner.model.facets.traits import TRAITS, traits_evolved
from rackdesigner.model.index_counts import IndexCounts
from rackdesigner.model.index_reach import IndexReach
from rackdesigner.model.index_values import (
    HOST_PROTOCOLS,
    NETWORK_PROTOCOLS,
    NVLINK,
    CarriedLink,
    Connectivity,
    Reachability,
    UnionFind,
)
from rackdesigner.model.items import Link
from rackdesigner.vocabulary import Traits

if TYPE_CHECKING:
    from rackdesigner.model.linktable import LinkTable
    from rackdesigner.model.state import DesignState

__all__ = ["HOST_PROTOCOLS", "NETWORK_PROTOCOLS", "NVLINK", "CarriedLink", "Connectivity",
           "DesignIndex", "Reachability", "UnionFind", "traits_evolved"]

_ID, _MODEL = attrgetter("id"), attrgetter("model")
#: `model/linktable.ARRAY_MIN_LINKS` (repeated: that module imports NumPy)
_ARRAY_MIN_LINKS = 40_000


class DesignIndex(IndexReach, IndexCounts):
    """Derived facts of one immutable state (see the module docstring)."""

    #: What an index holds that no device position changes: a state made from another by
    #: moves (`DesignState.with_device`) starts from that state's index with these.
    _MOVE_PROOF = ("_by_model", "_spec_of", "_groups", "_carried", "_rejected", "_connectivity",
                   "_nic_reach", "_racks", "_reach", "_counts", "_models", "_failed",
                   "_all_specs", "_exhausted", "_table", "_traits")

    def __init__(self, state: DesignState, catalog: Catalog,
                 like: DesignIndex | None = None,
                 minus: tuple[DesignIndex, Any] | None = None,
                 evolve: tuple[DesignIndex, dict[str, set]] | None = None) -> None:
        self.state = state
        self.catalog = catalog
        self._lock = threading.RLock()
        self._by_model: dict[str, DeviceSpec | None] = {}
        self._spec_of: dict[str, DeviceSpec | None] = {}
        self._groups: dict[tuple[str, str], PortGroup | None] = {}
        self._carried: tuple[CarriedLink, ...] | None = None
        self._rejected: tuple[tuple[str, Link, Any], ...] = ()
        self._connectivity: Connectivity | None = None
        self._nic_reach: frozenset[str] | None = None
        self._racks: dict[str, list[tuple[int, int, str]]] | None = None
        self._reach: Reachability | None = None
        self._counts: tuple[Counter[str], int] | None = None
        self._models: Counter[str] | None = None
        self._all_specs = False  # `_spec_of` holds every device (`_specs`)
        self._failed: Any = None
        self._exhausted: tuple[tuple[str, str, int, int], ...] | None = None
        self._table: LinkTable | None = None  # a large design's links as arrays (`link_table`)
        self._traits: dict[str, Traits] | None = None  # see `traits`
        self._like: DesignIndex | None = None  # see `like`
        #: what the incremental derivations (`index_evolve.py`) found changed since the base
        #: this index is evolved from: "changes", "wiring" (their `Changes`), made once
        self.changes_since_base: dict[str, Any] = {}
        if like is not None:  # the same design but for positions and statuses: its facets
            for name in self._MOVE_PROOF:  # hold here too...
                value = getattr(like, name)
                setattr(self, name, dict(value) if isinstance(value, dict)
                        and name in ("_by_model", "_spec_of", "_groups") else value)
            # ...and the carried links and link columns it has not made yet, made there once
            # (the root of a chain of such states: none holds more than that one)
            prior: DesignIndex = like
            if prior._carried is None or prior._table is None:
                self._like = prior._like if prior._like is not None else prior
            other = like.state  # ...but the failure closure only if nothing it reads changed
            if not (other.failed is state.failed and other.group_members is state.group_members
                    and other.group_kids is state.group_kids):  # (a move changes none)
                self._failed = None
        #: (index of a state, `FailedSet`): this state is that one with the failed devices
        #: and links left out (`model.failures.degraded`); links and connectivity are then
        #: derived from that index's (`model/index_delta.py`), not from the whole design
        self._minus = minus
        #: (index of an earlier state, ids changed since by kind): this state's facets are
        #: derived from that index's by what changed (`model/index_evolve.py`)
        self._evolve: tuple[DesignIndex, dict[str, set]] | None = evolve
        if evolve is not None:
            base: DesignIndex = evolve[0]
            touched = evolve[1]
            # the earlier index is held until this one's facets are derived; it lets go of
            # its own (a chain of indexes each holding the one before would keep them all)
            base._evolve = None
            self._by_model = dict(base._by_model)
            self._groups = dict(base._groups)
            self._spec_of = dict(base._spec_of)  # a copy in one step (others may be adding)
            for device_id in touched["d"]:
                self._spec_of.pop(device_id, None)
            if base._all_specs:  # complete again with the changed devices' specs
                for device_id in touched["d"]:
                    if device_id in state.devices:
                        self.spec(device_id)
                self._all_specs = True

    _EVOLVED = ("_carried", "_connectivity", "_nic_reach", "_racks", "_models", "_counts",
                "_traits")

    def _evolving(self, facet: str) -> tuple[DesignIndex, dict[str, set]] | None:
        """(the earlier index, what changed) when this index evolves from one that has
        `facet` computed (None: derive it from nothing). Once every facet that can evolve
        is derived, the earlier index is let go."""
        evolve = self._evolve
        if evolve is None:
            return None
        if all(getattr(self, name) is not None for name in self._EVOLVED if name != facet):
            self._evolve = None  # this is the last one
        return evolve if getattr(evolve[0], facet) is not None else None

    # ---- per device ------------------------------------------------------------------------
    def spec(self, device_id: str) -> DeviceSpec | None:
        """The catalog spec of a device; None for an unknown model or a missing device."""
        try:
            return self._spec_of[device_id]
        except KeyError:
            pass
        device = self.state.devices.get(device_id)
        spec = None
        if device is not None:
            model = device.model
            if model not in self._by_model:
                self._by_model[model] = self.catalog.get(model) if model in self.catalog else None
            spec = self._by_model[model]
        self._spec_of[device_id] = spec
        return spec

    def all_specs(self) -> dict[str, DeviceSpec | None]:
        """Device id -> spec (None: unknown model) for every device at once, for passes over
        the whole design (one pass over the devices; `spec` stays per device for the GUI
        thread's few questions). Read only."""
        spec_of = self._spec_of
        if not self._all_specs:
            by_model = self._by_model
            catalog = self.catalog
            for model in self.models():
                if model not in by_model:
                    by_model[model] = catalog.get(model) if model in catalog else None
            spec_of.update((d.id, by_model[d.model]) for d in self.state.devices.values())
            self._all_specs = True
        return spec_of

    def model_specs(self, models: Iterable[str]) -> list[DeviceSpec | None]:
        """The spec of each catalog model named (None: unknown), looked up once per model."""
        by_model, catalog = self._by_model, self.catalog
        out = []
        for model in models:
            if model not in by_model:
                by_model[model] = catalog.get(model) if model in catalog else None
            out.append(by_model[model])
        return out

    @property
    def group_cache(self) -> dict[tuple[str, str], PortGroup | None]:
        """(spec id, group name) -> its port group, as looked up so far (`spec_port_group`):
        the facets' hot loops read it directly. Read only."""
        return self._groups

    def spec_port_group(self, spec: DeviceSpec, name: str) -> PortGroup | None:
        """The port group `name` of a spec (None: it has none), looked up once per pair."""
        key = (spec.id, name)
        if key not in self._groups:
            self._groups[key] = next((g for g in spec.ports if g.name == name), None)
        return self._groups[key]

    def link_table(self) -> LinkTable | None:
        """The links as NumPy columns (`model/linktable.py`) for a design of at least
        `ARRAY_MIN_LINKS` links, made once; None for a smaller one (the plain passes)."""
        if len(self.state.links) < _ARRAY_MIN_LINKS:
            return None
        with self._lock:
            if self._table is None and self._like is not None:
                self._table = self._like.link_table()
            if self._table is None:
                from rackdesigner.model.linktable import LinkTable

                self._table = LinkTable(self)
            return self._table

    def made_link_table(self) -> LinkTable | None:
        """The link table if it has been made (None otherwise; nothing is made here)."""
        return self._table

    def kind(self, device_id: str) -> str | None:
        spec = self.spec(device_id)
        return spec.kind if spec is not None else None

    def traits(self) -> dict[str, Traits]:
        """Device id -> what it does (its kind's `vocabulary.Traits`) for every device of a
        known model: the per-device column every whole-design pass reads instead of kind
        names. Made once per state — from the specs (plain), from the state
        it was cut from (a degraded design's: that column without the failed devices) or
        from the state it evolved from (that column with the changed devices read again).
        Read only."""
        with self._lock:
            if self._traits is None and self._minus is not None:
                source, failed = self._minus
                self._traits = TRAITS.without(self, source, failed)
            evolving = self._evolving("_traits") if self._traits is None else None
            if evolving is not None:
                self._traits = TRAITS.evolved(self, *evolving)
            if self._traits is None:
                self._traits = TRAITS.plain(self) if self._spec_of else self._traits_by_model()
            return self._traits

    def _traits_by_model(self) -> dict[str, Traits]:
        """The plain trait column (`TRAITS.plain`) read per model: a spec's traits once per
        model, then every device's in one pass at C speed (at 16k GPUs 61,580 devices of 9
        models: the plain pass asks each device's spec for them). Its order is the plain
        pass's — the state's devices — only while no device's spec has been asked one by one
        (`spec` files it first), which `traits` checks."""
        devices = list(self.state.devices.values())
        models = self.models()
        of_model = {m: s.traits for m, s in zip(models, self.model_specs(models), strict=True)
                    if s is not None}
        found = list(map(of_model.get, map(_MODEL, devices)))
        ids = map(_ID, devices)
        if len(of_model) == len(models):  # every model known
            return dict(zip(ids, found, strict=True))
        return {d: t for d, t in zip(ids, found, strict=True) if t is not None}

    def device_traits(self, device_id: str) -> Traits:
        """What one device does (`Traits()`, nothing, for an unknown model or a missing
        device): the GUI thread's per-device question, without the whole column."""
        spec = self.spec(device_id)
        return spec.traits if spec is not None else vocabulary.NO_TRAITS

    def port_group(self, device_id: str, name: str) -> PortGroup | None:
        spec = self.spec(device_id)
        return None if spec is None else self.spec_port_group(spec, name)

    def protocol(self, link: Link) -> str | None:
        """The protocol a link carries (both ends agree), else None."""
        ga = self.port_group(link.a.device, link.a.group)
        gb = self.port_group(link.b.device, link.b.group)
        if ga is None or gb is None or ga.protocol != gb.protocol:
            return None
        return ga.protocol

    def port_usage(self, device_id: str) -> dict[str, int]:
        """Ports in use per port group of a device (sum of the counts of its links). The state
        keeps these counts up to date with each link change, so this is O(1) per device."""
        return dict(self.state.port_use.get(device_id, ()))

    # ---- whole design -----------------------------------------------------------------------
    def exhausted_ports(self) -> tuple[tuple[str, str, int, int], ...]:
        """(device, port group, ports in use, ports it has) of every port group wired beyond
        its port count, in device order: what the rules report and the simulation warns of."""
        with self._lock:
            table = self.link_table() if self._exhausted is None else None
            if table is not None:
                self._exhausted = EXHAUSTED.arrays(self, table)
            if self._exhausted is None:
                self._exhausted = EXHAUSTED.plain(self)
            return self._exhausted

    def carried(self) -> tuple[CarriedLink, ...]:
        """Links between distinct known devices whose ends agree on a protocol, in order."""
        with self._lock:
            if self._carried is None and self._like is not None:
                like: DesignIndex = self._like
                self._carried, self._rejected = like.carried(), like._rejected
            if self._carried is None and self._minus is not None:
                source, failed = self._minus
                self._carried, self._rejected = CARRIED.without(self, source, failed)
            if self._carried is None and self._evolve is not None:
                base: DesignIndex = self._evolve[0]
                if base._carried is None and base._table is not None:
                    base.carried()  # from its columns: cheaper than this state's own columns
            evolving = self._evolving("_carried") if self._carried is None else None
            if evolving is not None:
                self._carried, self._rejected = CARRIED.evolved(self, *evolving)
            if self._carried is None:
                table = self.link_table()
                self._carried, self._rejected = (CARRIED.arrays(self, table) if table is not None
                                                 else CARRIED.plain(self))
            return self._carried

    def failed(self, compute: Callable[[], Any]) -> Any:
        """The state's failure closure (`model.failures.closure`: what its failed objects take
        down), computed once by `compute` and then shared by the canvas, the panel's worker
        and the what-if analysis."""
        with self._lock:
            if self._failed is None:
                self._failed = compute()
            return self._failed

    def rejected(self) -> tuple[tuple[str, Link, Any], ...]:
        """Links between distinct known devices that carry nothing, in order: ("missing-port",
        link, the end whose group does not exist) or ("protocol-mismatch", link, (a, b))."""
        self.carried()
        return self._rejected

