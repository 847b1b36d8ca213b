"""GPU-to-GPU latency of the physical paths, as pair classes counted without enumerating pairs.

Classes: same NVLink island (GPU-NVSwitch-GPU, 2 hops; direct NVLink, 1 hop; PCIe only),
same leaf (NIC-leaf-NIC), same pod, across the core. A class's latency is the published
port-to-port latencies of the devices on its path plus cable propagation; when a device on the
path has no published figure, the device part is NCCL's per-step model figure for the class's
link kind (`constants.MODEL_LATENCY_US`), and the class says so (`source`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import repeat
from operator import is_

from rackdesigner.simulation import constants as C
from rackdesigner.simulation import transport
from rackdesigner.simulation.scope import ScopeModel
from rackdesigner.simulation.topology import Topology
from rackdesigner.vocabulary import NO_TRAITS


@dataclass(frozen=True, slots=True)
class LatencyClass:
    """GPU pairs whose path has the same shape, and their one-way latency.

    `latency_us` is the sum of the published latencies of the devices on the path plus cable
    propagation when every device has a figure (`source` "device"); otherwise the device part
    is replaced by NCCL's per-step figure for the class's link kind (`source` "model",
    constants.MODEL_LATENCY_US). `physical_us` is what the published figures alone give
    (None when no device has one); the collective model adds it to NCCL's network step.
    """

    name: str
    latency_us: float | None
    pairs: int
    hops: int
    complete: bool = True  # False: some device on the path has no published latency
    source: str = "device"  # "device" or "model"
    link_class: str = "net"  # nvlink, pcie or net: the MODEL_LATENCY_US entry that applies
    physical_us: float | None = None
    #: `physical_us` with the longest cable of each level instead of the mean: what the slowest
    #: hop of a ring or tree step sees (the collective model reads this; not in the JSON)
    worst_us: float | None = None

    def to_dict(self) -> dict:
        lat = None if self.latency_us is None else round(self.latency_us, 4)
        phys = None if self.physical_us is None else round(self.physical_us, 4)
        return {"class": self.name, "latency_us": lat, "pairs": self.pairs, "hops": self.hops,
                "complete": self.complete, "source": self.source,
                "link_class": self.link_class, "physical_us": phys}


def slowest_network_step_us(classes: list[LatencyClass]) -> float:
    """A ring or tree step waits for its slowest hop: the latency (µs) of the longest network
    path class, with its longest cable (`worst_us`) when known; 0 without network classes."""
    return max((c.worst_us or c.physical_us for c in classes
                if c.link_class == "net" and c.physical_us is not None), default=0.0)


def latency_classes(topo: Topology, scope: ScopeModel) -> tuple[list[LatencyClass], set[str]]:
    """Pair classes (same island, same leaf, same pod, ...) with counts; models lacking data."""
    missing: set[str] = set()
    # (name, hops, link class) -> [pairs, device part ns or None, complete, propagation ns,
    # extra switches ns, longest propagation ns]
    classes: dict[tuple[str, int, str], list] = {}

    def add(name: str, hops: int, link_class: str, pairs: int, device_ns: float | None,
            complete: bool, prop_ns: float = 0.0, extra_ns: float = 0.0,
            prop_max_ns: float | None = None) -> None:
        key = (name, hops, link_class)
        if key in classes:
            classes[key][0] += pairs
        else:
            classes[key] = [pairs, device_ns, complete, prop_ns, extra_ns,
                            prop_ns if prop_max_ns is None else prop_max_ns]

    for island in scope.islands:
        k = island.k
        if k < 2:
            continue
        root = topo.island_of[island.gpus[0]]
        switches = topo.nvswitches_of.get(root, set())
        pairs = k * (k - 1) // 2
        if island.intra_hw == "pcie":
            missing.add("pcie path")
            add("host", 2, "pcie", pairs, None, False)
        elif switches:
            lat, complete = _mean_latency(topo, switches, missing)
            add("nvlink", 2, "nvlink", pairs, lat, complete)
        else:
            # a direct NVLink has no device with a latency figure of its own (GPU ports)
            missing.add("direct nvlink (GPU port)")
            add("nvlink-direct", 1, "nvlink", pairs, None, False)
    if scope.n_islands > 1:
        _network_classes(topo, scope, add, missing)
    out = []
    for (name, hops, link_class), (pairs, device_ns, complete, prop_ns, extra_ns,
                                   prop_max_ns) in classes.items():
        if pairs <= 0:
            continue
        if complete:
            physical = (None if device_ns is None and prop_ns <= 0
                        else ((device_ns or 0.0) + prop_ns) / 1000.0)
            worst = (None if physical is None
                     else ((device_ns or 0.0) + prop_max_ns) / 1000.0)
            lat, source = physical, "device"
        else:
            # NCCL's per-step figure holds the NICs and one switch; every further switch
            # adds its own (published or model) latency, and cables their propagation
            physical = (None if prop_ns <= 0 and extra_ns <= 0
                        else (prop_ns + extra_ns) / 1000.0)
            worst = None if physical is None else (prop_max_ns + extra_ns) / 1000.0
            lat = C.MODEL_LATENCY_US[link_class] + (prop_ns + extra_ns) / 1000.0
            source = "model"
        out.append(LatencyClass(name, lat, pairs, hops, complete, source, link_class, physical,
                                worst))
    out.sort(key=lambda c: (c.hops, c.latency_us or 0.0))
    return out, missing


def _mean_latency(topo: Topology, devices, missing: set[str]) -> tuple[float | None, bool]:
    """Mean catalog latency (ns) of the devices that have one (None when none has), and
    whether every device has one."""
    values = []
    models = set()
    complete = True
    for d in devices:
        spec = topo.specs[d]
        if spec.id in models and spec.id in missing:
            complete = False
            continue
        models.add(spec.id)
        facts = spec.switch or spec.nic
        if facts is None or facts.latency_ns is None:
            missing.add(spec.id)
            complete = False
        else:
            values.append(facts.latency_ns)
    return (sum(values) / len(values) if values else None), complete


def _network_classes(topo: Topology, scope: ScopeModel, add, missing: set) -> None:
    leaf_of: dict[str, str] = {}
    nics: set[str] = set()
    for island in scope.islands:
        fallback = next((topo.primary_nic[g] for g in island.gpus if g in topo.primary_nic),
                        None)
        for g in island.gpus:
            nic = topo.primary_nic.get(g, fallback)
            if nic is not None:
                nics.add(nic)
                leaf = topo.leaf_of(nic)
                if leaf is not None:
                    leaf_of[g] = leaf
    nic_ns, nic_ok = _mean_latency(topo, nics, missing) if nics else (None, False)
    prop, prop_max = _propagation_by_level(topo)
    cum_prev = 0
    total_cross = (scope.n * scope.n - sum(i.k * i.k for i in scope.islands)) // 2
    levels = len(topo.domains)
    # a switch without a catalog figure takes its transport family's (transport.yaml)
    family_ns = transport.family(scope.transport).switch_latency_ns
    for t in range(1, levels + 1):
        domain = topo.domains[t - 1]
        count: dict[str, int] = defaultdict(int)
        count_isl: dict[tuple[str, str], int] = defaultdict(int)
        for g, leaf in leaf_of.items():
            d = domain[leaf]
            count[d] += 1
            count_isl[(d, topo.island_of[g])] += 1
        cum = (sum(c * c for c in count.values()) - sum(c * c for c in count_isl.values())) // 2
        if t == levels:
            cum = max(cum, total_cross)
        pairs = cum - cum_prev
        cum_prev = cum
        if pairs <= 0:
            continue
        devices: list[float | None] = [nic_ns, nic_ns]
        complete = nic_ok
        props = [prop.get(0), prop.get(0)]
        props_max = [prop_max.get(0), prop_max.get(0)]
        extra_ns = 0.0  # switches beyond the one NCCL's NET step already holds
        for level in range(1, t):
            sw, ok = _mean_latency(topo, scope.involved.get(level, set()), missing)
            devices += [sw, sw]
            props += [prop.get(level), prop.get(level)]
            props_max += [prop_max.get(level), prop_max.get(level)]
            complete = complete and ok
            extra_ns += 2 * (sw if ok and sw is not None else family_ns)
        sw, ok = _mean_latency(topo, scope.involved.get(t, set()), missing)
        devices.append(sw)
        complete = complete and ok
        known = [x for x in devices if x is not None]
        device_ns = sum(known) if known else None
        prop_ns = sum(x for x in props if x is not None)  # links without a length: left out
        prop_max_ns = sum(x for x in props_max if x is not None)
        add(topo.tier_name(t), 2 * t, "net", pairs, device_ns, complete, prop_ns, extra_ns,
            prop_max_ns)


def _propagation_by_level(topo: Topology) -> tuple[dict[int, float], dict[int, float]]:
    """Mean and longest propagation delay (ns) of a link at each level: 0 = NIC-leaf,
    1 = leaf-spine, ... (a pass over every network link: made once per topology, every
    scope and collective of it asks)."""
    found = topo.memo.get("propagation")
    if found is None:
        found = topo.memo["propagation"] = _propagation(topo)
    return found


def _propagation(topo: Topology) -> tuple[dict[int, float], dict[int, float]]:
    # ~40,000 network links at 16k GPUs, each a few dict reads: what each link costs is the
    # whole cost (50 ms of a 16k estimate), so each is read once, in the same order, with the
    # same sums; a link's cable's delay per metre comes from the map filed with the lengths,
    # in step, when the two have the same keys in the same order (every link has a length
    # and a cable model: a generated design), without hashing 40,000 end pairs again
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    longest: dict[int, float] = {}
    traits, tier = topo.traits.get, topo.tier.get
    lengths, per_m_of = topo.link_lengths, topo.link_prop_ns_per_m
    per_ms: Iterable[float]
    if len(per_m_of) == len(lengths) and all(map(is_, per_m_of, lengths)):
        per_ms = per_m_of.values()
    else:
        per_ms = map(per_m_of.get, lengths, repeat(C.DEFAULT_PROPAGATION_NS_PER_M))
    last, end = None, False  # the last traits value read, and whether it is a NIC's
    for ((u, v), values), per_m in zip(lengths.items(), per_ms, strict=True):
        if not values:
            continue
        kind = traits(u, NO_TRAITS)  # `topo.does(u)`
        if kind is not last:
            last, end = kind, kind.endpoint
        if end:
            level = 0
        else:
            a, b = tier(u, 1), tier(v, 1)
            level = b if b < a else a  # min(a, b)
        if level in sums:
            total, most = sums[level], longest[level]
            counts[level] += len(values)
        else:
            total = most = 0.0
            counts[level] = len(values)
        for length in values:  # the same sums, in the same order
            ns = length * per_m
            total += ns
            if ns > most:
                most = ns
        sums[level], longest[level] = total, most
    return {lv: sums[lv] / counts[lv] for lv in sums}, longest
