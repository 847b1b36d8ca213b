"""The structure of a layout that the models need, derived from its graph in one pass.

`Topology.build(layout)` walks every device and link once and keeps what the bandwidth, latency
and power models ask for: each GPU's NVLink capacity toward each NVSwitch (and direct peers),
*islands* (GPUs joined by NVLink or host links: a DGX node, an NVL72 rack), each GPU's nearest
NICs over PCIe/C2C and the bottleneck of that path, and the scale-out fabric as switch tiers
(leaf = a switch with NICs below it, then BFS levels upward) with capacity down and up per switch.

Capacities are kept twice: `raw` (hardware rate per direction, GB/s) for the bandwidth report,
bisection and max flow, and `eff` (the per-link figure NCCL assumes, `constants.py`) for the
collective model. Nothing here enumerates GPU pairs; everything is linear in devices + links.

`Topology` is made of parts by what they do: reading the design's devices and links into it
(`topology_read.TopologyReading`), finding GPUs' NICs and the switch tiers
(`topology_paths.TopologyPaths`); this module keeps its fields, how it is built and shared, and
the queries. Every name is still imported from here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rackdesigner.catalog import Catalog, DeviceSpec
from rackdesigner.model import Layout, natural_key
from rackdesigner.vocabulary import NO_TRAITS, Traits
from rackdesigner.vocabulary.wording import counted

if TYPE_CHECKING:
    pass

from rackdesigner.simulation.topology_paths import NicPath, TopologyPaths
from rackdesigner.simulation.topology_read import TopologyReading, nvlink_eff_per_GBps

__all__ = ["NicPath", "Topology", "nvlink_eff_per_GBps"]


@dataclass
class Topology(TopologyReading, TopologyPaths):
    """What the models read from a layout (built once per design state and shared,
    `Topology.of`)."""

    specs: dict[str, DeviceSpec] = field(default_factory=dict)
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
        # per model, once: (spec, CPU vendor); a SuperPOD has 61k devices of ~20 models
        by_model: dict[str, tuple[DeviceSpec | None, str]] = {}
        specs, gpus = topo.specs, topo.gpus
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
                entry = by_model[model] = (spec, cpu)
            spec, cpu = entry
            if spec is None:
                topo.unknown_models.add(model)
                continue
            did = device.id
            specs[did] = spec
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
