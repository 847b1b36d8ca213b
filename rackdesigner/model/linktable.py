"""The links of one design state as NumPy columns: the whole-design passes of large designs.

A 102,400-GPU design has 356,000 devices and 708,000 links. The derived index's whole-design
facets (which links carry a protocol, islands and components, which devices reach a NIC,
over-wired port groups) and the rules' per-link checks each walked every link in Python, with
a few dictionary lookups per link: together about six seconds of `validate`. Here the links are
read once into columns (device rows of both ends, port-group codes, port indexes, counts) and
each facet is array arithmetic over them; only what a reader needs as objects (the carried
links, a finding's text) is made in Python, for the links it concerns.

The facets' NumPy forms live with each facet (`model/facets/`: `carried.classify_arrays`,
`connectivity.connect_arrays`, `nic_reach.nic_reach_arrays`, `ports.exhausted_arrays`) and read
these columns; the rules' per-link sift is `link_checks` here. Every facet equals the one the
plain passes in `model/facets/` and `model/rules.py` give, item for item and in the same order
(tests/test_linktable.py and tests/test_facets.py compare them on generated and broken
designs), but for the names of sets: here each island, NVLink domain and component is named by
its first device in device order, there by whichever root the unions left (no reader depends
on which member names a set). Designs below `ARRAY_MIN_LINKS` links take the plain passes:
there NumPy's import would cost more than it saves (`rackdesigner simulate` of a 1k-GPU design
is held under 0.3 s).
"""

from __future__ import annotations

from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from rackdesigner import vocabulary

if TYPE_CHECKING:
    from rackdesigner.catalog import DeviceSpec, PortGroup
    from rackdesigner.model.index import DesignIndex
    from rackdesigner.model.items import Link

#: Designs with fewer links take the plain passes (no NumPy import).
ARRAY_MIN_LINKS = 40_000

_A, _B = attrgetter("a"), attrgetter("b")
_DEVICE, _GROUP, _INDEX = attrgetter("device"), attrgetter("group"), attrgetter("index")
_COUNT, _ID, _MODEL = attrgetter("count"), attrgetter("id"), attrgetter("model")
NVLINK = "nvlink"
HOST_PROTOCOLS = vocabulary.protocols_of("host")
NETWORK_PROTOCOLS = vocabulary.protocols_of("network")


def _codes(values: list[str]) -> tuple[np.ndarray, list[str]]:
    """Each value's number among the distinct values (in first-seen order) and those values."""
    names = list(dict.fromkeys(values))
    number = {name: i for i, name in enumerate(names)}
    return np.fromiter(map(number.__getitem__, values), dtype=np.int64, count=len(values)), names


class LinkTable:
    """The columns of one state's links and devices, with the catalog's facts about them (the
    spec of each device, the port group of each link end); made by the state's index once."""

    def __init__(self, index: DesignIndex) -> None:
        state = index.state
        devices = state.device_list()
        links: tuple[Link, ...] = state.link_list()
        self.links = links
        self.ids: list[str] = list(map(_ID, devices))
        row = dict(zip(self.ids, range(len(self.ids)), strict=True))
        ends_a, ends_b = list(map(_A, links)), list(map(_B, links))
        n = len(links)
        self.a = np.fromiter(map(row.__getitem__, map(_DEVICE, ends_a)), np.int64, count=n)
        self.b = np.fromiter(map(row.__getitem__, map(_DEVICE, ends_b)), np.int64, count=n)
        names_a, names_b = list(map(_GROUP, ends_a)), list(map(_GROUP, ends_b))
        groups, self.group_names = _codes(names_a + names_b)
        self.ga, self.gb = groups[:n], groups[n:]
        self._ends: tuple[Any, Any] = (ends_a, ends_b)  # for the port indexes (the rules')
        self._ports: tuple[np.ndarray, np.ndarray] | None = None
        self.count = np.fromiter(map(_COUNT, links), dtype=np.int64, count=n)
        # the catalog's facts: a spec per model, a port group per (model, group name)
        model_of, models = _codes(list(map(_MODEL, devices)))
        self.model_names = models
        by_model = index.model_specs(models)
        self.specs: list[DeviceSpec | None] = by_model
        self.model_of = model_of
        known_model = np.array([s is not None for s in by_model], dtype=bool)
        self.known = known_model[model_of] if len(model_of) else np.zeros(0, dtype=bool)
        kinds = [s.kind if s is not None else "" for s in by_model]
        self.kinds = kinds  # per model
        traits = [s.traits if s is not None else vocabulary.NO_TRAITS for s in by_model]
        self.traits = traits  # per model: the index's trait column (`DesignIndex.traits`)
        self.devices = devices

        def column(test: Any) -> np.ndarray:  # a trait test per device, from its model's
            return np.array([bool(test(t)) for t in traits] or [False], dtype=bool)[model_of]

        self.is_gpu = column(attrgetter("computes"))
        self.is_nic = column(attrgetter("endpoint"))
        self.is_switch = column(attrgetter("fabric_switch"))
        # every (model, group name) pair: a few dozen, looked up once each
        self.port_groups: list[PortGroup] = []
        lookup = np.full((max(len(by_model), 1), max(len(self.group_names), 1)), -1,
                         dtype=np.int64)
        for m, spec in enumerate(by_model):
            for g, name in enumerate(self.group_names):
                group = None if spec is None else index.spec_port_group(spec, name)
                if group is not None:
                    lookup[m, g] = len(self.port_groups)
                    self.port_groups.append(group)
        # -1: an unknown device, or no such port group
        self.pga = lookup[model_of[self.a], self.ga] if n else np.zeros(0, dtype=np.int64)
        self.pgb = lookup[model_of[self.b], self.gb] if n else np.zeros(0, dtype=np.int64)
        protocols = list(dict.fromkeys(g.protocol for g in self.port_groups))
        self.protocols = protocols
        number = {p: i for i, p in enumerate(protocols)}
        self.pg_protocol = np.array([number[g.protocol] for g in self.port_groups] + [-1],
                                    dtype=np.int64)  # [-1]: the entry of "no port group"
        self.pg_count = np.array([g.count for g in self.port_groups] + [0], dtype=np.int64)
        self.pg_rate = np.array([g.rate_gbps for g in self.port_groups] + [0.0])
        self.proto_a = self.pg_protocol[self.pga]
        self.proto_b = self.pg_protocol[self.pgb]
        self._carried_mask: np.ndarray | None = None

    @property
    def ia(self) -> np.ndarray:
        """The port index of each link's a end, or -1 for an end that names none
        (`device:group`); made on first use (the rules' port checks, not the simulation)."""
        return self._port_indexes()[0]

    @property
    def ib(self) -> np.ndarray:
        """As `ia`, for the b ends."""
        return self._port_indexes()[1]

    def _port_indexes(self) -> tuple[np.ndarray, np.ndarray]:
        if self._ports is None:
            made = []
            for ends in self._ends:
                index = np.array(list(map(_INDEX, ends)), dtype=np.float64)
                made.append(np.where(np.isnan(index), -1, index).astype(np.int64))
            self._ports, self._ends = (made[0], made[1]), ((), ())
        return self._ports

    def known_rows(self) -> list[int]:
        """The rows of the devices whose model the catalog knows, in order."""
        return np.flatnonzero(self.known).tolist()

    def unknown_devices(self) -> list[int]:
        """The rows of the devices whose model the catalog does not know, in order."""
        return np.flatnonzero(~self.known).tolist()

    # ---- carried and rejected links ------------------------------------------------------------
    def _protocol_codes(self, names: tuple[str, ...] | str) -> list[int]:
        wanted = (names,) if isinstance(names, str) else names
        return [i for i, p in enumerate(self.protocols) if p in wanted]

    def carried_mask(self) -> np.ndarray:
        """Links between distinct known devices whose ends agree on a protocol."""
        if self._carried_mask is None:
            both = (self.a != self.b) & self.known[self.a] & self.known[self.b]
            self._carried_mask = (both & (self.pga >= 0) & (self.pgb >= 0)
                                  & (self.proto_a == self.proto_b))
        return self._carried_mask

    # ---- who is joined to whom -----------------------------------------------------------------
    def edges(self, protocols: tuple[str, ...] | str, joining: bool = False
               ) -> tuple[np.ndarray, np.ndarray]:
        """The carried links of `protocols` (`joining`: only those of the compute fabric,
        `vocabulary.joins_compute`: an endpoint to a fabric switch, or two fabric switches)."""
        mask = self.carried_mask() & np.isin(self.proto_a, self._protocol_codes(protocols))
        if joining:
            sw, nic, a, b = self.is_switch, self.is_nic, self.a, self.b
            mask &= (sw[a] & (sw[b] | nic[b])) | (nic[a] & sw[b])
        return self.a[mask], self.b[mask]

    # ---- ports ---------------------------------------------------------------------------------
    def link_checks(self) -> tuple[list[int], dict[tuple[str, str, int], tuple[int, str]]]:
        """What the rules' per-link checks need to look at: the links (in order) that have a
        finding (a self-link, an end naming no port group of its model, a port beyond its
        group, a port another link took first, ends of other protocols or rates), and for
        each port taken more than once (device, group, port) -> (the end that took it
        first, as link * 2 + end, and that link's id)."""
        a_known, b_known = self.known[self.a], self.known[self.b]
        pga, pgb, count = self.pga, self.pgb, self.count
        flag = self.a == self.b
        flag |= (a_known & (pga < 0)) | (b_known & (pgb < 0))
        for pg, index in ((pga, self.ia), (pgb, self.ib)):
            flag |= (pg >= 0) & (index >= 0) & (index + count - 1 >= self.pg_count[pg])
        both = (pga >= 0) & (pgb >= 0)
        flag |= both & ((self.proto_a != self.proto_b)
                        | (self.pg_rate[pga] != self.pg_rate[pgb]))
        taken = self._ports_taken_twice()
        reused, first = taken
        if reused.size:
            flag[reused] = True
        return np.flatnonzero(flag).tolist(), first

    def _ports_taken_twice(self) -> tuple[np.ndarray, dict[tuple[str, str, int], tuple[int, str]]]:
        """(links with a port an earlier end took, {port: (first end, its link id)})."""
        width = len(self.group_names)
        ends: list[tuple[np.ndarray, ...]] = []
        for side, (rows, grp, pg, index) in enumerate(((self.a, self.ga, self.pga, self.ia),
                                                       (self.b, self.gb, self.pgb, self.ib))):
            has = np.flatnonzero((pg >= 0) & (index >= 0))
            last = np.minimum(index[has] + self.count[has] - 1, self.pg_count[pg[has]] - 1)
            span = np.maximum(last - index[has] + 1, 0)
            occurrence = np.repeat(has * 2 + side, span)
            starts = np.repeat(index[has], span)
            offsets = np.arange(int(span.sum())) - np.repeat(np.cumsum(span) - span, span)
            port = starts + offsets
            key_group = np.repeat(rows[has] * width + grp[has], span)
            ends.append((occurrence, key_group, port))
        occurrence = np.concatenate([e[0] for e in ends])
        key_group = np.concatenate([e[1] for e in ends])
        port = np.concatenate([e[2] for e in ends])
        if not occurrence.size:
            return np.zeros(0, dtype=np.int64), {}
        top = int(port.max()) + 1
        keys = key_group * top + port
        order = np.lexsort((occurrence, keys))
        keys, occurrence = keys[order], occurrence[order]
        again = np.flatnonzero(keys[1:] == keys[:-1]) + 1
        if not again.size:
            return np.zeros(0, dtype=np.int64), {}
        # the first occurrence of each key taken again: the start of its run of equal keys
        heads = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
        run = np.searchsorted(heads, again, side="right") - 1
        first: dict[tuple[str, str, int], tuple[int, str]] = {}
        for s in np.unique(heads[run]).tolist():
            key, o = int(keys[s]), int(occurrence[s])
            group_key, p = divmod(key, top)
            device_row, g = divmod(group_key, width)
            first[(self.ids[device_row], self.group_names[g], p)] = (o, self.links[o // 2].id)
        return np.unique(occurrence[again] // 2), first


def pick(items: Any, at: list[int]) -> list[Any]:
    """`[items[i] for i in at]` at C speed."""
    if not at:
        return []
    if len(at) == 1:
        return [items[at[0]]]
    return list(itemgetter(*at)(items))


def components(n: int, a: np.ndarray, b: np.ndarray, start: np.ndarray | None = None
               ) -> np.ndarray:
    """Each of `n` nodes' set (labelled by its smallest member, or by the smallest label of
    `start` when given) once the edges (a[i], b[i]) join them: each round hooks every edge's
    larger label under its smaller one, then follows labels to their roots, until every edge
    joins one label (a few rounds on the graphs of a design: NVLink and PCIe inside a node, a
    fat tree's few tiers)."""
    label = np.arange(n, dtype=np.int64) if start is None else start.copy()
    if start is not None:  # labels must be roots: a label's own label is itself
        label = label[label]
    while a.size:
        la, lb = label[a], label[b]
        apart = la != lb
        if not apart.any():
            break
        la, lb = la[apart], lb[apart]
        low = np.minimum(la, lb)
        np.minimum.at(label, la, low)  # a root hooks under a smaller label: never a cycle
        np.minimum.at(label, lb, low)
        while True:  # every label to its root
            up = label[label]
            if np.array_equal(up, label):
                break
            label = up
    return label
