"""The structure of a layout that the models need, derived from its graph in one pass.

`Topology.build(layout)` walks every device and link once and keeps what the bandwidth, latency
and power models ask for: each GPU's NVLink capacity toward each NVSwitch (and direct peers),
*islands* (GPUs joined by NVLink or host links: a DGX node, an NVL72 rack), each GPU's nearest
NICs over PCIe/C2C and the bottleneck of that path, and the scale-out fabric as switch tiers
(leaf = a switch with NICs below it, then BFS levels upward) with capacity down and up per switch.

Capacities are kept twice: `raw` (hardware rate per direction, GB/s) for the bandwidth report,
bisection and max flow, and `eff` (the per-link figure NCCL assumes, `constants.py`) for the
collective model. Nothing here enumerates GPU pairs; everything is linear in devices + links.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rackdesigner.catalog import Catalog, DeviceSpec
from rackdesigner.model import Layout, Link, natural_key
from rackdesigner.model.index import (
    HOST_PROTOCOLS,
    NETWORK_PROTOCOLS,
    CarriedLink,
    DesignIndex,
    UnionFind,
)
from rackdesigner.simulation import constants as C
from rackdesigner.vocabulary import NO_TRAITS, Traits
from rackdesigner.vocabulary.wording import counted

if TYPE_CHECKING:
    from rackdesigner.model.linktable import LinkTable

_DIGITS = "0123456789"


def nvlink_eff_per_GBps(spec: DeviceSpec) -> float:
    """NCCL's usable fraction of a GPU's raw NVLink rate (per-link table by SM generation)."""
    group = next((g for g in spec.ports if g.protocol == "nvlink"), None)
    sm = spec.gpu.sm if spec.gpu else 0
    if group is None or group.rate_GBps <= 0:
        return C.NVLINK_EFFICIENCY_FALLBACK
    per_link = C.NVLINK_BW_PER_LINK_BY_SM.get(sm)
    if per_link is None:
        return C.NVLINK_EFFICIENCY_FALLBACK
    return per_link / group.rate_GBps


@dataclass
class NicPath:
    nic: str
    raw: float  # bottleneck of the GPU -> NIC host path, GB/s per direction
    eff: float


@dataclass
class Topology:
    """What the models read from a layout (built once per design state and shared,
    `Topology.of`)."""

    specs: dict[str, DeviceSpec] = field(default_factory=dict)
    kind: dict[str, str] = field(default_factory=dict)  # names, for what is shown
    #: what each known device does: the design index's trait column (`DesignIndex.traits`),
    #: what every model here reads (never `kind`)
    traits: dict[str, Traits] = field(default_factory=dict)
    gpus: list[str] = field(default_factory=list)
    # NVLink: gpu -> switch -> GB/s per direction (raw and NCCL-effective); gpu -> gpu direct.
    nvl_sw_raw: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    nvl_sw_eff: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    nvl_peer_raw: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    nvl_peer_eff: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    nvl_links: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    # NVLink links of each GPU: gpu -> [(link id, other end, GB/s per direction)]
    nvl_link_ids: dict[str, list[tuple[str, str, float]]] = field(
        default_factory=lambda: defaultdict(list))
    # host graph (pcie, c2c): device -> [(neighbour, raw, eff)]
    host_adj: dict[str, list[tuple[str, float, float]]] = field(
        default_factory=lambda: defaultdict(list))
    gpu_host_raw: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    gpu_host_eff: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    # network: NIC -> {switch: raw}; switch -> {switch: raw}
    nic_up: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    sw_adj: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    sw_nics: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    link_lengths: dict[tuple[str, str], list[float]] = field(
        default_factory=lambda: defaultdict(list))
    link_prop_ns_per_m: dict[tuple[str, str], float] = field(default_factory=dict)
    # network links by end pair ((nic, switch) or sorted (switch, switch)): [(link id, GB/s)]
    net_links: dict[tuple[str, str], list[tuple[str, float]]] = field(
        default_factory=lambda: defaultdict(list))
    # design-rule problems that change the figures: links the models cannot use (code, link id,
    # reason)
    bad_links: list[tuple[str, str, str]] = field(default_factory=list)
    gpus_near_nic: set[str] = field(default_factory=set)  # a NIC over host links, cabled or not
    #: port groups wired beyond their port count and what reaches a NIC over host links: the
    #: design index's (`DesignIndex.exhausted_ports`, `nic_reach`), as the rules read them
    exhausted_ports: tuple[tuple[str, str, int, int], ...] = ()
    nic_reach: frozenset[str] = frozenset()
    island_of: dict[str, str] = field(default_factory=dict)
    nvlink_domain_of: dict[str, str] = field(default_factory=dict)
    islands: dict[str, list[str]] = field(default_factory=dict)
    component_of: dict[str, str] = field(default_factory=dict)
    nvswitches_of: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    gpu_nics: dict[str, list[NicPath]] = field(default_factory=dict)
    nic_users: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    primary_nic: dict[str, str] = field(default_factory=dict)
    tier: dict[str, int] = field(default_factory=dict)
    up_cap: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    down_cap: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    domains: list[dict[str, str]] = field(default_factory=list)  # [tier-1] leaf -> domain id
    unknown_models: set[str] = field(default_factory=set)
    cpu_vendor: str = "other"
    catalog: Catalog | None = None
    _cables: dict[str, DeviceSpec | None] = field(default_factory=dict)
    _leaf: dict[str, str | None] = field(default_factory=dict)
    _nic_raw: dict[str, float] = field(default_factory=dict)  # asked after the build only
    _nic_split: dict[str, list[tuple[str, float]]] = field(default_factory=dict)  # likewise
    rack_of: dict[str, str] = field(default_factory=dict)
    #: island figures per island (its GPUs in scope, in order) -> `scope.Island`: a pure
    #: function of the topology, kept so that every simulation of one topology computes each
    #: island once and a degraded design's (`topology_delta.py`) keeps its untouched islands'
    island_memo: dict[tuple[str, ...], Any] = field(default_factory=dict, compare=False,
                                                    repr=False)
    #: a degraded design's topology derived from its whole design's (`topology_delta.py`):
    #: (that topology, the GPUs whose own figures may differ from theirs there)
    delta: tuple[Topology, frozenset[str]] | None = field(default=None, compare=False,
                                                          repr=False)
    #: other pure functions of the whole topology, by name, made on first use (e.g. the
    #: propagation delay per fabric level, `latency._propagation_by_level`)
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def does(self, device: str) -> Traits:
        """What `device` does (`Traits()`, nothing, for a device of an unknown model or none
        at all)."""
        return self.traits.get(device, NO_TRAITS)

    # ---- building -------------------------------------------------------------------------------
    @classmethod
    def build(cls, layout: Layout) -> Topology:
        """The topology of `layout` (a pass over the whole design)."""
        return cls._build(layout)

    @classmethod
    def of(cls, layout: Layout) -> Topology:
        """The topology of `layout`'s current state, built once per state and then shared
        while someone holds it (the simulation, the what-if analysis and the panel's
        comparison read one); a state that differs by positions and statuses shares its
        predecessor's, and a degraded design's (`model.failures.degraded`) is derived from
        its whole design's (`simulation/topology_delta.py`). Nothing may change it."""
        catalog = layout.catalog

        def build(state: object, hint: tuple | None) -> Topology:
            if hint is not None and hint[1].catalog is catalog:
                if hint[0] == "like":
                    return hint[1]
                from rackdesigner.simulation.topology_delta import topology_without

                return topology_without(hint[1], layout, hint[2], hint[3])
            return cls.build(layout)

        topo = layout.derived("topology", build)
        return topo if topo.catalog is catalog else cls.build(layout)

    @classmethod
    def _build(cls, layout: Layout) -> Topology:
        catalog = layout.catalog
        topo = cls(catalog=catalog)
        table = layout.index().link_table()
        if table is not None:  # a large design: the devices' and links' facts from its columns
            topo._read_devices(layout, table)
            topo._read_links(layout, table)
            topo.find_nics()
            topo.build_tiers()
            return topo
        topo.traits = layout.index().traits()
        # per model, once: (spec, kind, CPU vendor); a SuperPOD has 61k devices of ~20 models
        by_model: dict[str, tuple[DeviceSpec | None, str, str]] = {}
        specs, kinds, rack_of, gpus = topo.specs, topo.kind, topo.rack_of, topo.gpus
        vendor = topo.cpu_vendor
        for device in layout.devices():
            model = device.model
            entry = by_model.get(model)
            if entry is None:
                spec = catalog.get(model) if model in catalog else None
                cpu = ""
                if spec is not None and spec.traits.hosts:
                    maker = spec.manufacturer.lower()
                    cpu = "amd" if "amd" in maker else "intel" if "intel" in maker else ""
                entry = by_model[model] = (spec, spec.kind if spec is not None else "", cpu)
            spec, kind, cpu = entry
            if spec is None:
                topo.unknown_models.add(model)
                continue
            did = device.id
            specs[did] = spec
            kinds[did] = kind
            if device.rack is not None:
                rack_of[did] = device.rack
            if spec.traits.computes:
                gpus.append(did)
            elif cpu == "amd":
                vendor = "amd"
            elif cpu == "intel" and vendor != "amd":
                vendor = "intel"
        topo.cpu_vendor = vendor
        gpus.sort(key=natural_key)
        topo._read_links(layout)
        topo.find_nics()
        topo.build_tiers()
        return topo

    def _read_devices(self, layout: Layout, table: LinkTable) -> None:
        """`_build`'s pass over the devices, from the index's columns (`model/linktable.py`):
        the same specs, kinds, racks, GPUs in natural order, CPU vendor and unknown models,
        made per model rather than per device."""
        from rackdesigner.model.linktable import pick

        specs = table.specs  # per model (None: unknown)
        known = [i for i, spec in enumerate(specs) if spec is not None]
        self.unknown_models.update(m for m, spec in zip(table.model_names, specs, strict=True)
                                   if spec is None)
        rows = table.known_rows()
        ids = table.ids
        device_ids = ids if len(rows) == len(ids) else pick(ids, rows)
        models = table.model_of.tolist() if len(rows) == len(ids) else table.model_of[
            rows].tolist()
        self.specs.update(zip(device_ids, pick(specs, models), strict=True))
        kinds = [spec.kind if spec is not None else "" for spec in specs]
        self.kind.update(zip(device_ids, pick(kinds, models), strict=True))
        self.traits = layout.index().traits()
        devices = table.devices if len(rows) == len(ids) else pick(table.devices, rows)
        self.rack_of.update((d.id, d.rack) for d in devices if d.rack is not None)
        self.gpus.extend(layout.index().connectivity().gpus)  # known GPUs, natural order
        vendor = self.cpu_vendor
        for m in known:  # as the per-device pass: AMD over Intel over other, by model
            spec = specs[m]
            if spec is not None and spec.traits.hosts:
                maker = spec.manufacturer.lower()
                if "amd" in maker:
                    vendor = "amd"
                elif "intel" in maker and vendor != "amd":
                    vendor = "intel"
        self.cpu_vendor = vendor

    def _read_links(self, layout: Layout, table: LinkTable | None = None) -> None:
        """Capacities per link; which links a protocol carries and who is joined to whom come
        from the design's derived index, the same facts the design rules read."""
        index = layout.index()
        if table is not None:
            from rackdesigner.simulation.topology_columns import read_carried

            read_carried(self, table)
            self.read_rejected(table.rejected())
        else:
            self.read_carried(index.carried())
            self.read_rejected(index.rejected())
        self._read_rule_facts(index)
        self.read_connectivity(index)

    def read_carried(self, links: Iterable[CarriedLink]) -> None:
        """Capacities of `links` (carried links, in the design's link order)."""
        traits = self.traits
        eff_cache: dict[str, float] = {}
        host_adj, gpu_host_raw, gpu_host_eff = self.host_adj, self.gpu_host_raw, self.gpu_host_eff
        add_nvlink, add_network = self._add_nvlink, self._add_network
        for link, ga, gb, protocol in links:
            a, b = link.a.device, link.b.device
            ra, rb = ga.rate_gbps, gb.rate_gbps
            raw = link.count * (ra if ra < rb else rb) / 8.0
            ka, kb = traits[a], traits[b]
            if protocol == "nvlink":
                add_nvlink(a, b, ka, kb, raw, link, eff_cache)
            elif protocol in HOST_PROTOCOLS:
                factor = C.PCIE_EFFICIENCY if protocol == "pcie" else C.C2C_EFFICIENCY
                host_adj[a].append((b, raw, raw * factor))
                host_adj[b].append((a, raw, raw * factor))
                for gpu, t in ((a, ka), (b, kb)):
                    if t.computes:
                        gpu_host_raw[gpu] += raw
                        gpu_host_eff[gpu] += raw * factor
            elif protocol in NETWORK_PROTOCOLS:
                add_network(a, b, ka, kb, raw, link)

    def read_rejected(self, rejected: Iterable[tuple[str, Link, Any]]) -> None:
        for code, link, detail in rejected:
            if code == "missing-port":
                self.bad_links.append((code, link.id, f"link {link.id}: {detail.device} has no "
                                       f"port group {detail.group!r}"))
            else:
                self.bad_links.append((code, link.id, f"link {link.id} joins {detail[0]} to "
                                       f"{detail[1]}"))

    def _read_rule_facts(self, index: DesignIndex) -> None:
        # the design rules' facts, read from the same index (model/index.py)
        self.exhausted_ports = index.exhausted_ports()
        self.nic_reach = index.nic_reach()

    def read_connectivity(self, index: DesignIndex) -> None:
        traits = self.traits
        conn = index.connectivity()
        island_of, component_of, domain_of = (conn.island_of, conn.component_of,
                                              conn.nvlink_domain_of)
        islands, my_island, my_component = self.islands, self.island_of, self.component_of
        my_domain = self.nvlink_domain_of
        for gpu in self.gpus:
            root = island_of[gpu]
            my_island[gpu] = root
            members = islands.get(root)
            if members is None:
                islands[root] = [gpu]
            else:
                members.append(gpu)
            my_component[gpu] = component_of[gpu]
            my_domain[gpu] = domain_of[gpu]
        nvswitches_of = self.nvswitches_of
        for device, t in traits.items():
            if t.nvlink_switch:
                nvswitches_of[island_of[device]].add(device)
            elif t.endpoint or t.fabric_switch:
                my_component[device] = component_of[device]

    def _add_nvlink(self, a: str, b: str, ka: Traits, kb: Traits, raw: float, link: Link,
                    eff_cache: dict[str, float]) -> None:
        if not ka.computes and kb.computes:
            a, b, ka, kb = b, a, kb, ka
        if not ka.computes:
            return  # switch-to-switch NVLink: joins the island, carries no GPU port
        spec = self.specs[a]
        per_GBps = eff_cache.get(spec.id)
        if per_GBps is None:
            per_GBps = eff_cache[spec.id] = nvlink_eff_per_GBps(spec)
        eff = raw * per_GBps
        nvl_links, link_ids = self.nvl_links, self.nvl_link_ids
        nvl_links[a] += link.count
        link_ids[a].append((link.id, b, raw))
        if kb.computes:
            nvl_links[b] += link.count
            link_ids[b].append((link.id, a, raw))
            peer_raw, peer_eff = self.nvl_peer_raw, self.nvl_peer_eff
            for x, y in ((a, b), (b, a)):
                px, ex = peer_raw[x], peer_eff[x]
                px[y] = px.get(y, 0.0) + raw
                ex[y] = ex.get(y, 0.0) + eff
        else:
            sr, se = self.nvl_sw_raw[a], self.nvl_sw_eff[a]
            sr[b] = sr.get(b, 0.0) + raw
            se[b] = se.get(b, 0.0) + eff

    def _add_network(self, a: str, b: str, ka: Traits, kb: Traits, raw: float,
                     link: Link) -> None:
        if ka.endpoint:
            a, b, ka, kb = b, a, kb, ka
        if kb.endpoint and ka.fabric_switch:
            up = self.nic_up[b]
            up[a] = up.get(a, 0.0) + raw
            self.sw_nics[a].append(b)
            key = (b, a)
        elif ka.fabric_switch and kb.fabric_switch:
            adj = self.sw_adj
            adj[a][b] = adj[a].get(b, 0.0) + raw
            adj[b][a] = adj[b].get(a, 0.0) + raw
            key = (a, b) if a < b else (b, a)
        else:
            return
        self.net_links[key].append((link.id, raw))
        if link.length_m is not None:
            self.link_lengths[key].append(link.length_m)
        if link.cable is not None:
            cables = self._cables
            cable = cables[link.cable] if link.cable in cables else self.cable_spec(link.cable)
            if cable is not None and cable.cable is not None:
                self.link_prop_ns_per_m[key] = cable.cable.latency_ns_per_m

    def find_nics(self, known: dict[str, tuple[list[NicPath], bool, tuple[str, ...]]]
                   | None = None) -> None:
        """Each GPU's nearest network-connected NICs over host links (not through GPUs/NICs),
        and its primary NIC (the rail): GPUs that tie on the same NICs take them in turn.
        `known`: GPUs whose (paths, near a NIC, NIC names) are known already (a degraded
        design's GPUs that no failure reached, `topology_delta.py`)."""
        traits, host_adj, nic_up = self.traits, self.host_adj, self.nic_up
        gpu_nics, nic_users, primary, near_nic = (self.gpu_nics, self.nic_users,
                                                  self.primary_nic, self.gpus_near_nic)
        # the search depends only on the GPU's own host links (it never goes through a GPU), so
        # GPUs behind the same PCIe switch share one search
        memo: dict[tuple, tuple[list[NicPath], bool, tuple[str, ...]]] = {}
        turn: dict[tuple[str, ...], int] = defaultdict(int)
        for gpu in self.gpus:
            key = tuple(host_adj.get(gpu, ()))
            hit = memo.get(key) if known is None else (known.get(gpu) or memo.get(key))
            if hit is None:
                hit = memo[key] = self._search_nics(gpu, traits, host_adj, nic_up)
            found, near, names = hit
            if near:
                near_nic.add(gpu)
            gpu_nics[gpu] = list(found)
            for nic in names:
                nic_users[nic].append(gpu)
            if names:
                primary[gpu] = names[turn[names] % len(names)]
                turn[names] += 1

    @staticmethod
    def _search_nics(gpu: str, traits: dict, host_adj: dict, nic_up: dict
                     ) -> tuple[list[NicPath], bool, tuple[str, ...]]:
        """Breadth-first over host links from `gpu`: the NICs of the first level that has any
        cabled NIC (natural order), whether any NIC (cabled or not) is that near, their names."""
        found: list[NicPath] = []
        near = False
        frontier = [(gpu, float("inf"), float("inf"))]
        seen = {gpu}
        depth = 0
        while frontier and not found and depth < 6:
            depth += 1
            nxt = []
            for node, raw_b, eff_b in frontier:
                for nbr, raw, eff in host_adj.get(node, ()):
                    if nbr in seen:
                        continue
                    seen.add(nbr)
                    t = traits[nbr]
                    r = raw if raw < raw_b else raw_b
                    e = eff if eff < eff_b else eff_b
                    if t.endpoint:
                        near = True
                        if nic_up.get(nbr):
                            found.append(NicPath(nbr, r, e))
                    elif not t.computes:
                        nxt.append((nbr, r, e))
            frontier = nxt
        if len(found) == 2:  # two NICs behind one PCIe switch: the common case
            a, b = found[0].nic, found[1].nic
            # "….nic0" and "….nic1" (equal but for a last digit: the same digit runs, the last
            # one's number decided by that digit) without two keys made for 16k NICs
            if (len(a) == len(b) and a[-1] in _DIGITS and b[-1] in _DIGITS
                    and a[:-1] == b[:-1]):
                if b[-1] < a[-1]:
                    found.reverse()
            elif natural_key(b) < natural_key(a):
                found.reverse()
        elif len(found) > 2:
            found.sort(key=lambda p: natural_key(p.nic))
        return found, near, tuple(p.nic for p in found)

    def build_tiers(self) -> None:
        """Leaf = tier 1 (a switch with NICs); higher tiers by BFS over switch links."""
        tier = self.tier
        frontier = [s for s in self.sw_nics]
        for s in frontier:
            tier[s] = 1
        level = 1
        while frontier:
            level += 1
            nxt = []
            for s in frontier:
                for nbr in self.sw_adj.get(s, ()):
                    if nbr not in tier:
                        tier[nbr] = level
                        nxt.append(nbr)
            frontier = nxt
        for s, t in tier.items():
            down = sum(self.nic_up[n][s] for n in set(self.sw_nics.get(s, ())))
            up = 0.0
            for nbr, cap in self.sw_adj.get(s, {}).items():
                tn = tier.get(nbr)
                if tn is None:
                    continue
                if tn < t:
                    down += cap
                elif tn > t:
                    up += cap
            self.down_cap[s] = down
            self.up_cap[s] = up
        top = max(tier.values(), default=0)
        uf = UnionFind()
        leaves = list(self.sw_nics)
        by_tier: dict[int, list[str]] = defaultdict(list)
        for s, t in tier.items():
            by_tier[t].append(s)
        for t in range(1, top + 1):
            for s in by_tier.get(t, ()):
                for nbr in self.sw_adj.get(s, ()):
                    if tier.get(nbr, top + 1) <= t:
                        uf.union(s, nbr)
            self.domains.append({leaf: uf.find(leaf) for leaf in leaves})

    # ---- queries ------------------------------------------------------------------------------
    def rule_problems(self) -> list[tuple[str, str]]:
        """(code, text) of the design-rule errors that change the figures: port groups wired
        beyond their port count, links the models cannot use, GPUs with no path to a NIC in a
        design of several islands (validate reports the same, with every object)."""
        out: list[tuple[str, str]] = []
        for device, group, used, count in self.exhausted_ports:
            out.append(("ports-exhausted", f"{device}: {used} links on port group "
                        f"{group!r}, which has {count} ports (the figures count every "
                        "drawn link)"))
        out += [(code, text) for code, _, text in self.bad_links]
        if len(self.islands) > 1:
            for members in self.islands.values():
                if not any(g in self.nic_reach for g in members):
                    one = len(members) == 1
                    out.append(("gpu-no-nic", f"{counted(len(members), 'GPU')} of "
                                f"{members[0]}'s island {'has' if one else 'have'} no PCIe/C2C "
                                f"path to any NIC: {'it gets' if one else 'they get'} no "
                                "scale-out bandwidth and cannot reach the other islands"))
        return out


    def take_cable_specs(self, other: Topology, copy: bool = True) -> None:
        """Use `other`'s cable-spec lookups (a topology of the same catalog): a copy, or the
        same dict when `copy` is False (the partial reads of `topology_delta.py`)."""
        self._cables = dict(other._cables) if copy else other._cables

    def cable_spec(self, model: str) -> DeviceSpec | None:
        """Catalog spec of a link's `cable` (a cable or transceiver model), cached."""
        if model not in self._cables:
            catalog = self.catalog
            self._cables[model] = catalog.get(model) if catalog and model in catalog else None
        return self._cables[model]

    def nic_raw(self, nic: str) -> float:
        """Network-side capacity of a NIC, GB/s per direction (summed once per NIC: the
        analyses ask it per GPU and per rank, millions of times at 100k GPUs)."""
        raw = self._nic_raw.get(nic)
        if raw is None:
            raw = self._nic_raw[nic] = sum(self.nic_up.get(nic, {}).values())
        return raw

    def nic_raw_known(self) -> dict[str, float]:
        """The NICs `nic_raw` has summed so far (NIC -> GB/s): read it with `.get` in a loop
        that asks per flow, and ask `nic_raw` for a NIC it lacks (which files it there)."""
        return self._nic_raw

    def nic_split(self, nic: str) -> list[tuple[str, float]]:
        """(switch, share of the NIC's network-side rate) per switch a NIC is cabled to (made
        once per NIC: every routed pattern asks it)."""
        out = self._nic_split.get(nic)
        if out is None:
            ups = self.nic_up.get(nic, {})
            total = self.nic_raw(nic)  # the same sum, made once per NIC
            out = [(sw, cap / total) for sw, cap in ups.items()] if total else []
            self._nic_split[nic] = out
        return out

    def leaf_of(self, nic: str) -> str | None:
        """The switch a NIC's (first) network port is cabled to."""
        leaf = self._leaf.get(nic, "")
        if leaf == "":
            up = self.nic_up.get(nic)
            leaf = (next(iter(up)) if len(up) == 1 else min(up, key=natural_key)) if up else None
            self._leaf[nic] = leaf
        return leaf

    def tier_name(self, t: int) -> str:
        return {1: "leaf", 2: "spine", 3: "core"}.get(t, f"tier{t}")
