"""`simulate(layout, ...)`: the simulation's stages in order, for one design and scope.

design -> derived index (`topology.Topology`, `scope.analyse`) -> placement (`placement`) ->
traffic (`traffic`) -> link loads (`loads`, glued by `routing`) -> figures (`collectives`,
`fabric`, `latency`, `power`) -> report (`result.SimulationResult`).

Scope is the whole layout, a group (id or name, sub-groups included) or a list of GPU ids. GPUs
that cannot all reach each other make bisection 0 and collectives unavailable (a warning says
how many GPUs are cut off), so a partitioned design never looks better than a connected one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from types import MappingProxyType

from rackdesigner import vocabulary
from rackdesigner.model import Layout
from rackdesigner.model.failures import closure, degraded
from rackdesigner.simulation import constants as C
from rackdesigner.simulation import transport
from rackdesigner.simulation.collectives import ALGORITHM_CHOICES, CollectiveModel, point_at
from rackdesigner.simulation.fabric import bisection_cut, oversubscription, p2p_max_flow
from rackdesigner.simulation.gpu_bandwidth import nic_share, nvlink_raw, p2p_eff, p2p_nics
from rackdesigner.simulation.latency import latency_classes, slowest_network_step_us
from rackdesigner.simulation.loads import NetworkLinks
from rackdesigner.simulation.nccl_release import NcclVersionError, parse_version
from rackdesigner.simulation.placement import PLACEMENTS
from rackdesigner.simulation.power import over_budget_warnings, power_report
from rackdesigner.simulation.result import (
    NOTE,
    WARNING,
    BandwidthInfo,
    LatencyInfo,
    LinkLoadsInfo,
    Message,
    ScopeInfo,
    SimulationResult,
)
from rackdesigner.simulation.routing import Routed, pattern_share, route_scope
from rackdesigner.simulation.scope import ScopeModel, analyse
from rackdesigner.simulation.topology import Topology
from rackdesigner.vocabulary.wording import SettingError, counted

NODE_GROUP_KINDS = ("node", "tray")
#: The per-link loads a result lists unless asked otherwise: all_reduce at 1 GiB.
LOADS_COLLECTIVE = "all_reduce"
LOADS_SIZE = 2**30



#: the simulation's settings in the design's words (vocabulary/wording.py): the CLI names its
#: options (`--sharp`), the panel its switch
SIMULATION_WORDS = MappingProxyType({"sharp": "the design's SHARP setting",
                                     "algorithm": "the algorithm",
                                     "fabric_tuning": "the fabric tuning",
                                     "nccl_version": "the NCCL version"})


class SimulationInputError(SettingError):
    """A scope, GPU pair, algorithm or PUE the layout cannot take (the message says why, naming
    settings as `{name}`)."""

    DESIGN_WORDS = SIMULATION_WORDS


def simulate(layout: Layout, scope: str | Iterable[str] | None = None, *,
             algorithm: str = "auto", pue: float | None = None,
             p2p: tuple[str, str] | None = None, sharp: bool | None = None,
             placement: str = "contiguous",
             loads_for: tuple[str, int] | None = (LOADS_COLLECTIVE, LOADS_SIZE),
             fabric_tuning: str | None = None,
             nccl_version: str | None = None) -> SimulationResult:
    """Predict bandwidth, collectives, latency and power of `layout` (see docs/simulation.md).

    `sharp`: allow in-network reduction (NVLS across nodes, CollNet/SHARP); None takes the
    design's own setting (`layout.meta.sharp`, off unless the user turned it on).
    `placement`: rank placement, "contiguous" (NCCL/Slurm default), "scattered" or "random".
    `loads_for`: (collective, bytes) whose per-link loads the result lists (None: none).
    `fabric_tuning`: the NCCL network settings the cluster runs (`vocabulary.FABRIC_TUNINGS`;
    None: "vendor-tuned", the level the vendor publishes for its reference architecture).
    `nccl_version`: the NCCL the cluster runs ("2.19.3"; None: the version of the engine's
    constants, `nccl_release.DEFAULT_VERSION`): which algorithms it has (nccl_release.py).

    A pass over the whole design: on a large one, callers that can afford it hold the garbage
    collector off meanwhile (`model/gcpause.py`; the CLI, the designer's workers, sweep tasks).
    """
    return _simulate(layout, scope, algorithm=algorithm, pue=pue, p2p=p2p, sharp=sharp,
                     placement=placement, loads_for=loads_for,
                     tuning=fabric_tuning or vocabulary.DEFAULT_FABRIC_TUNING,
                     nccl_version=nccl_version)


def _simulate(layout: Layout, scope: str | Iterable[str] | None, *, algorithm: str,
              pue: float | None, p2p: tuple[str, str] | None, sharp: bool | None,
              placement: str, loads_for: tuple[str, int] | None,
              tuning: str, nccl_version: str | None = None) -> SimulationResult:
    try:
        release = parse_version(nccl_version)
    except NcclVersionError as exc:
        raise SimulationInputError(str(exc)) from None
    if algorithm not in ALGORITHM_CHOICES:
        raise SimulationInputError(f"unknown algorithm {algorithm!r} "
                                   f"(choose from {', '.join(ALGORITHM_CHOICES)})")
    if tuning not in vocabulary.FABRIC_TUNINGS:
        raise SimulationInputError(f"unknown fabric tuning {tuning!r} "
                                   f"(choose from {', '.join(vocabulary.FABRIC_TUNINGS)})")
    if placement not in PLACEMENTS:
        raise SimulationInputError(f"unknown placement {placement!r} "
                                   f"(choose from {', '.join(PLACEMENTS)})")
    if loads_for is not None and loads_for[0] not in vocabulary.collective_names():
        raise SimulationInputError(f"unknown collective {loads_for[0]!r} for the link loads")
    if pue is None:  # the site's stated PUE, else the cooling mix's: the cost model's too
        from rackdesigner.model.pue import design_pue

        pue = design_pue(layout)[0]
    pue = float(pue)
    if not (pue >= 1.0 and pue < 10.0):
        raise SimulationInputError(f"PUE must be between 1 and 10, got {pue:g}")
    sharp_on = bool(layout.meta.sharp) if sharp is None else bool(sharp)
    failed = closure(layout)
    if failed:  # failed objects stay in the document but not in the figures
        layout = degraded(layout, failed)
        if scope is not None and not isinstance(scope, str):
            scope = [g for g in scope if g not in failed.devices]
    topo = Topology.of(layout)  # once per state, shared (what-if, the panel)
    messages: list[Message] = []

    def warn(code: str, text: str) -> None:  # the design has a problem / a part is left out
        messages.append(Message(code, WARNING, text))

    def note(code: str, text: str) -> None:  # how a figure was obtained
        messages.append(Message(code, NOTE, text))

    if failed:
        shown = ", ".join(failed.marked[:5]) + (" ..." if len(failed.marked) > 5 else "")
        warn("failures", f"{counted(len(failed.marked), 'object')} marked failed ({shown}): "
             f"{len(failed.devices)} devices and {len(failed.links)} links are left out")

    if topo.unknown_models:
        warn("unknown_models", "devices of unknown models are left out: "
             + ", ".join(sorted(topo.unknown_models)))
    gpus, power_devices, label = _resolve_scope(layout, topo, scope)
    if not gpus:
        warn("no_gpus", f"{label} has no GPUs: only power is reported")
    # largest set of mutually reachable GPUs: the same finding as the design rules'
    reach = layout.index().reachability(gpus)
    reachable = list(reach.reachable)
    partitioned = reach.partitioned
    if partitioned:
        warn("unreachable_gpus",
             f"{reach.describe()}: bisection is 0 and collectives over all {len(gpus)} GPUs "
             f"are unavailable; latency covers the largest reachable group of "
             f"{len(reachable)} GPUs")
    for code, text in design_rule_warnings(topo):
        warn(code, text)
    model = analyse(topo, reachable)
    model.sharp = sharp_on and model.sharp_capable
    a: str | None
    b: str | None
    if p2p is not None:
        a, b = p2p
        for g in (a, b):
            if not topo.does(g).computes:
                raise SimulationInputError(f"{g!r} is not a GPU of this layout")
        if topo.component_of[a] != topo.component_of[b]:
            warn("p2p_unreachable", f"GPUs {a} and {b} cannot reach each other: P2P "
                 "bandwidth is 0")
    elif len(reachable) >= 2:
        a, b = reachable[0], reachable[-1]
    else:
        a = b = None
    routed = route_scope(topo, model, placement, p2p_nics(topo, a, b))
    info = _scope_info(layout, topo, gpus, model, label, len(gpus) - len(reachable))
    p2p_raw = 0.0
    if a is not None and b is not None and topo.component_of[a] == topo.component_of[b]:
        p2p_raw = p2p_max_flow(topo, a, b)
    classes, missing = latency_classes(topo, model)
    lat_inter = slowest_network_step_us(classes)
    pair_eff, same_island = p2p_eff(topo, model, a, b)
    coll = CollectiveModel(model, lat_inter, topo.cpu_vendor, pair_eff, same_island, algorithm,
                           tuning, release)
    if not partitioned:
        reason = coll.unavailable(algorithm)  # judged on the first collective it runs
        if reason is not None:
            judged = vocabulary.first_running(vocabulary.ALGORITHMS[algorithm].nccl)
            raise SimulationInputError(f"algorithm {algorithm} cannot run {judged} on "
                                       f"{label}: {reason}")
    curves = {name: tuple(coll.sweep(name)) for name in vocabulary.collective_names()}
    if partitioned:  # figures over a subset would look better than the whole: none at all
        curves = {name: () for name in curves}
    elif len(reachable) >= 2 and (empty := [n for n, pts in curves.items() if not pts]):
        warn("no_bandwidth", f"{', '.join(empty)}: no figure — the {len(reachable)} GPUs reach "
             "each other, but every path the model finds has no usable bandwidth (check the "
             "link rates and the GPUs' host links to their NICs)")
    for text in dict.fromkeys(coll.messages):  # a forced algorithm that cannot run here
        warn("algorithm_unavailable", text)
    if model.n_islands > 1 and any(p.algorithm in ("collnet_direct", "nvls") for pts in
                                   curves.values() for p in pts):
        note("sharp_assumed", "in-network reduction across nodes (SHARP) is used because the "
             "design's SHARP setting is on: NCCL uses it only with NCCL_COLLNET_ENABLE=1, the "
             "SHARP plugin and an aggregation manager")
    elif model.n_islands > 1 and model.sharp_capable and not sharp_on:
        note("sharp_off", "in-network reduction (SHARP) is off for this design, as on most "
             "clusters: multi-node figures use ring, tree and NVLS-tree; turn the design's "
             "SHARP setting on if the cluster runs the SHARP plugin")
    if nccl_version is not None:
        note("nccl_version", f"NCCL {release.text}: "
             + ("; ".join(filter(None, (release.missing("nvls"), release.missing("nvls_tree"))))
                or "NVLS and NVLS-tree available")
             + f"; NVLS spans at most {coll.nvls_arity} GPUs per domain")
    if model.n_islands > 1 and model.transport in transport.MULTIRAIL:
        note("fabric_tuning", f"the NICs run {vocabulary.TRANSPORTS[model.transport].label} "
             "through its NCCL net plugin: NCCL's InfiniBand settings (the fabric tuning) do "
             "not apply, one level of the transport family serves every tuning "
             "(docs/simulation.md, EFA); switches drawn for the fabric stand in for the "
             "provider's own")
    elif model.n_islands > 1:
        setting = vocabulary.FABRIC_TUNINGS[tuning]
        note("fabric_tuning", f"network figures assume the fabric is {setting.label}: "
             f"{setting.settings} (published runs of one design differ by up to a quarter "
             "between vendor-tuned and NCCL's default settings; choose the fabric tuning)")
    if placement != "contiguous":
        note("placement", f"ranks are placed {placement} over the nodes (default contiguous, "
             "as NCCL with Slurm's block distribution)")
    modelled = [c for c in classes if c.source == "model"]
    if modelled:
        figures = ", ".join(f"{k} {C.MODEL_LATENCY_US[k]:g} us" for k in dict.fromkeys(
            c.link_class for c in modelled))
        note(
            "model_latency",
            "GPU-to-GPU latency of " + ", ".join(c.name for c in modelled)
            + f" uses NCCL's per-step model figure ({figures}; hwLat ring LL"
            + (f", plus {transport.family(model.transport).switch_latency_ns:g} ns per extra "
               f"switch (its transport family's model value)"
               if any(c.hops > 2 and c.link_class == "net" for c in modelled) else "")
            + ") instead of device figures, because these have no published latency: "
            + ", ".join(sorted(missing)))
    over, worst = oversubscription(topo, model)
    bottleneck: str | None
    if partitioned:
        bis, bottleneck = 0.0, "the design is partitioned: some GPUs cannot reach the others"
    else:
        bis, bottleneck = bisection_cut(topo, model)
    send_recv = curves.get("send_recv", ())
    pair_GBps = send_recv[-1].busbw_GBps if send_recv else 0.0
    bandwidth = BandwidthInfo(
        per_gpu_scale_up_GBps=min((nvlink_raw(topo, g) for g in gpus), default=0.0),
        per_gpu_scale_out_GBps=min((nic_share(topo, g)[0] for g in gpus), default=0.0),
        bisection_GBps=bis,
        oversubscription=MappingProxyType(over),
        oversubscription_worst=MappingProxyType(worst),
        fabric_factor=model.fabric_factor,
        p2p=MappingProxyType({"a": a, "b": b, "GBps": pair_GBps,
                              "max_flow_GBps": p2p_raw}),
        bisection_bottleneck=bottleneck,
        routed_factors=MappingProxyType(dict(routed.factors)),
    )
    timed = [(c.latency_us, c.pairs) for c in classes if c.latency_us is not None]
    pairs = sum(n for _, n in timed)
    latency = LatencyInfo(
        min_us=min((t for t, _ in timed), default=None),
        mean_us=(sum(t * n for t, n in timed) / pairs) if pairs else None,
        max_us=max((t for t, _ in timed), default=None),
        max_hops=max((c.hops for c in classes), default=0),
        histogram=tuple(classes),
        collective_small_us=MappingProxyType(
            {name: pts[0].time_us for name, pts in curves.items() if pts}),
        missing_data=tuple(sorted(missing)),
    )
    power = power_report(layout, topo, power_devices, pue)
    if not power.complete:
        warn("power_incomplete", f"power total is a lower bound ({power.headline}): no power "
             f"figure in the catalog for {', '.join(power.without_power)}")
    if power.estimated:
        note("power_estimates", "power includes labelled estimates (no published figure) for: "
             + ", ".join(power.estimated))
    for code, text in over_budget_warnings(power):
        warn(code, text)
    link_loads = _link_loads(topo, model, routed, curves, loads_for)
    return SimulationResult(info, bandwidth, MappingProxyType(curves), latency, power,
                            tuple(m.text for m in messages), algorithm, tuple(messages),
                            sharp=sharp_on, placement=placement, link_loads=link_loads,
                            fabric_tuning=tuning, nccl_version=release.text)


def _link_loads(topo: Topology, model: ScopeModel, routed: Routed, curves: dict,
                loads_for: tuple[str, int] | None) -> LinkLoadsInfo | None:
    """The per-link loads of one collective at one size, at the rate the model predicts."""
    if loads_for is None:
        return None
    name, size = loads_for
    points = curves.get(name, ())
    point = point_at(points, size)
    if point is None or model.n_islands <= 1:
        return LinkLoadsInfo(name, size, None, None, None, 0.0)
    pattern, share = pattern_share(topo, model, name, point)
    if pattern is None:
        return LinkLoadsInfo(name, point.bytes, point.algorithm, None, None, 0.0)
    loads = routed.loads[pattern].scaled(min(1.0, share))
    util, where = loads.fabric_utilisation(routed.index)
    bottleneck = None
    if where is not None:
        bottleneck = f"{topo.tier_name(where[0])} uplinks of {where[1]}'s domain"
    index = routed.index
    # the list is built on first use: keep only what it needs, not the whole topology, alive
    links = NetworkLinks.of(topo)
    return LinkLoadsInfo(name, point.bytes, point.algorithm, pattern, bottleneck, util,
                         lambda: tuple(loads.entries(links, index)),
                         counter=lambda: loads.count(links, index))


def design_rule_warnings(topo: Topology) -> list[tuple[str, str]]:
    """The design-rule errors (`rackdesigner validate`) that change the figures, one warning
    per rule: over-wired port groups, links on missing ports or joining different protocols,
    GPUs without a path to a NIC. Found while the topology is read, so this costs nothing."""
    by_code: dict[str, list[str]] = {}
    for code, text in topo.rule_problems():
        by_code.setdefault(code, []).append(text)
    out = []
    for code, texts in by_code.items():
        more = f" (and {len(texts) - 1} more like it)" if len(texts) > 1 else ""
        out.append((f"rule_{code.replace('-', '_')}",
                    f"design-rule error ({code}): {texts[0]}{more}; run validate"))
    return out


def _resolve_scope(layout: Layout, topo: Topology, scope) -> tuple[list[str], set | None, str]:
    """The scope's GPUs, group members and label; names are resolved by `model.scope`, as
    the workload estimator resolves them."""
    from rackdesigner.model.scope import ScopeError, find_group, group_gpus, select_gpus

    if scope is None:
        return list(topo.gpus), None, "the layout"
    try:
        if isinstance(scope, str):
            members = set(layout.group_devices(find_group(layout, scope)))
            return group_gpus(layout, scope), members, f"group {scope}"
        ids = select_gpus(layout, scope)
    except ScopeError as exc:
        raise SimulationInputError(str(exc)) from None
    return ids, None, f"{len(ids)} selected GPUs"


def _scope_info(layout: Layout, topo: Topology, gpus: list[str], model: ScopeModel,
                label: str, unreachable: int = 0) -> ScopeInfo:
    domains = Counter(topo.nvlink_domain_of[g] for g in gpus)
    nodes = set()
    node_of: dict[str | None, str | None] = {None: None}  # a GPU's group -> its node, once
    for g in gpus:
        start = layout.device(g).group
        if start in node_of:
            node = node_of[start]
        else:
            node = None
            group_id = start
            while group_id is not None:
                group = layout.group(group_id)
                if group.kind in NODE_GROUP_KINDS:
                    node = group_id
                    break
                group_id = group.parent
            node_of[start] = node
        nodes.add(node or topo.island_of[g])
    return ScopeInfo(gpus=len(gpus), nodes=len(nodes), nvlink_domains=len(domains),
                     largest_nvlink_domain=max(domains.values(), default=0),
                     islands=len({topo.island_of[g] for g in gpus}),
                     reachable_gpus=model.n, label=label, unreachable_gpus=unreachable,
                     # a transport the NICs name (EFA); the fabric's protocol is not recorded
                     transport=model.transport if model.transport in vocabulary.TRANSPORTS
                     else None)
