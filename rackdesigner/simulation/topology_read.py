"""Reading a design into a `Topology`: its devices (specs, GPUs, CPU vendor),
the capacities of the links the index says carry a protocol (NVLink toward switches and peers,
host links, network links with their lengths and cable delays), rejected links, the design
rules' facts and who is joined to whom. A part of `Topology` (`topology.py`), which builds."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from rackdesigner.catalog import DeviceSpec
from rackdesigner.model import Layout, Link
from rackdesigner.model.index import HOST_PROTOCOLS, NETWORK_PROTOCOLS, CarriedLink, DesignIndex
from rackdesigner.simulation import constants as C
from rackdesigner.vocabulary import Traits

if TYPE_CHECKING:
    from rackdesigner.model.linktable import LinkTable
    from rackdesigner.simulation.topology import Topology


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



class TopologyReading:
    """The reading half of `Topology`."""

    specs: dict[str, DeviceSpec]
    traits: dict[str, Traits]
    gpus: list[str]
    nvl_sw_raw: dict[str, dict[str, float]]
    nvl_sw_eff: dict[str, dict[str, float]]
    nvl_peer_raw: dict[str, dict[str, float]]
    nvl_peer_eff: dict[str, dict[str, float]]
    nvl_links: dict[str, float]
    nvl_link_ids: dict[str, list[tuple[str, str, float]]]
    host_adj: dict[str, list[tuple[str, float, float]]]
    gpu_host_raw: dict[str, float]
    gpu_host_eff: dict[str, float]
    nic_up: dict[str, dict[str, float]]
    sw_adj: dict[str, dict[str, float]]
    sw_nics: dict[str, list[str]]
    link_lengths: dict[tuple[str, str], list[float]]
    link_prop_ns_per_m: dict[tuple[str, str], float]
    net_links: dict[tuple[str, str], list[tuple[str, float]]]
    bad_links: list[tuple[str, str, str]]
    exhausted_ports: tuple[tuple[str, str, int, int], ...]
    nic_reach: frozenset[str]
    island_of: dict[str, str]
    nvlink_domain_of: dict[str, str]
    islands: dict[str, list[str]]
    component_of: dict[str, str]
    nvswitches_of: dict[str, set[str]]
    unknown_models: set[str]
    cpu_vendor: str
    _cables: dict[str, DeviceSpec | None]

    if TYPE_CHECKING:
        def cable_spec(self, model: str) -> DeviceSpec | None: ...

    def _read_devices(self, layout: Layout, table: LinkTable) -> None:
        """`_build`'s pass over the devices, from the index's columns (`model/linktable.py`):
        the same specs, GPUs in natural order, CPU vendor and unknown models,
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
        self.traits = layout.index().traits()
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
            from rackdesigner.model.facets.carried import rejected_arrays
            from rackdesigner.simulation.topology_columns import read_carried

            read_carried(cast("Topology", self), table)
            self.read_rejected(rejected_arrays(table))
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
        gpus = self.gpus
        roots = list(map(island_of.__getitem__, gpus))
        my_island.update(zip(gpus, roots, strict=True))
        my_component.update(zip(gpus, map(component_of.__getitem__, gpus), strict=True))
        self.nvlink_domain_of.update(zip(gpus, map(domain_of.__getitem__, gpus), strict=True))
        for gpu, root in zip(gpus, roots, strict=True):
            members = islands.get(root)
            if members is None:
                islands[root] = [gpu]
            else:
                members.append(gpu)
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
