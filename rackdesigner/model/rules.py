"""Design rules: findings about a layout, never refusals.

`check_layout(layout)` returns `Finding`s (severity, message, the ids involved). Files with
errors still load; the GUI lists findings in the Problems dock and `rackdesigner validate` prints
them. Every rule is linear in the size of the design (no pairwise GPU checks). Port usage,
NVLink domains, NIC reach and reachability come from the design's derived index
(`model/index.py`), which the canvas, the Inspector and the simulation read too; rack occupancy
by mounted unit (whole systems, faces) from `model/racks.py`, which the Racks tab draws from.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner import vocabulary
from rackdesigner.catalog import DeviceSpec, PortGroup
from rackdesigner.model.items import Link, PortRef
from rackdesigner.model.layout import Layout, natural_key
from rackdesigner.model.power import over_budget, rack_budget
from rackdesigner.model.racks import RackIndex, Unit
from rackdesigner.vocabulary.wording import counted

if TYPE_CHECKING:
    from rackdesigner.model.cooling import CoolingReport

ERROR = "error"
WARNING = "warning"
HOST_PROTOCOLS = vocabulary.protocols_of("host")


@dataclass(frozen=True, slots=True)
class Finding:
    severity: str
    code: str
    message: str
    objects: tuple[str, ...] = ()
    #: the top-level file key a design-level finding is about (`site`), where there is no
    #: object to name; `Layout.source_lines["site:"]` is its line when read from a file
    key: str = ""

    def __str__(self) -> str:
        return f"{self.severity}: {self.message}"


def check_layout(layout: Layout) -> list[Finding]:
    """All findings for `layout`, errors first, then in object order.

    A pass over the whole design: on a large one, callers that can afford it hold the garbage
    collector off meanwhile (`model/gcpause.py`; the CLI, the designer's workers)."""
    return check_parts(layout).findings()


@dataclass
class RuleParts:
    """The findings of each rule group, and of each link and over-wired port group: what an
    edit's re-check starts from (`model/findings.py` re-checks only what the edit touched)."""

    models: list[Finding]
    links: list[Finding]
    racks: list[Finding]
    cooling: list[Finding]
    nic_reach: list[Finding]
    reachability: list[Finding]
    by_link: dict[str, list[Finding]]  # link id -> its findings (those with any)
    exhausted: dict[tuple[str, str], Finding]  # (device, port group) -> ports-exhausted

    def findings(self) -> list[Finding]:
        """All findings: errors first, then by rule group and object order."""
        out = [*self.models, *self.links, *self.racks, *self.cooling, *self.nic_reach,
               *self.reachability]
        out.sort(key=lambda f: 0 if f.severity == ERROR else 1)
        return out


def check_parts(layout: Layout) -> RuleParts:
    """Every rule over the whole design, kept by rule group (see `RuleParts`)."""
    from rackdesigner.model.racks_evolve import rack_index

    specs = _Specs(layout)
    by_link: dict[str, list[Finding]] = {}
    exhausted: dict[tuple[str, str], Finding] = {}
    racks = rack_index(layout)  # one per state, shared with the Racks tab and cooling
    return RuleParts(_check_models(layout, specs),
                     _check_links(layout, specs, by_link, exhausted),
                     _check_racks(layout, specs, racks), check_cooling(layout, racks),
                     _check_nic_reach(layout, specs), _check_reachability(layout),
                     by_link, exhausted)


def check_racks(layout: Layout, index: RackIndex | None = None,
                cooling: CoolingReport | None = None) -> list[Finding]:
    """Only the rack rules (slots, power, load, cooling, CDUs, site): what the racks view marks
    (which passes the `RackIndex` it drew from and the `CoolingReport` it draws, so nothing is
    computed twice)."""
    index = index or RackIndex(layout)
    return _check_racks(layout, _Specs(layout), index) + check_cooling(layout, index, cooling)


def check_cooling(layout: Layout, index: RackIndex | None = None,
                  report: CoolingReport | None = None) -> list[Finding]:
    """Air-cooling limits of racks, CDU capacity and the racks CDUs serve, site power and
    cooling (model/cooling.py)."""
    from rackdesigner.model.cooling import (
        SERVES_PROP,
        cooling_report,
        door_capacity_w,
        format_watts,
    )
    from rackdesigner.model.site_rules import site_findings

    if report is None:
        limits = layout.meta.site  # its totals are a pass over every link: only if they count
        totals = not limits.empty
        report = (cooling_report(layout) if index is None
                  else cooling_report(layout, index.power_model, index.power_by_rack(),
                                      site_totals=totals))
    out: list[Finding] = []
    for rack_id, heat in report.racks.items():
        if heat.over_air_limit:
            assert heat.air_limit_w is not None
            out.append(Finding(ERROR, "rack-air-limit",
                               f"rack {rack_id} sends {format_watts(heat.air_w)} of heat to air"
                               + (f" (after its rear door's {format_watts(heat.door_w)})"
                                  if heat.door_w else "") + ", "
                               f"above its {format_watts(heat.air_limit_w)} air-cooling limit "
                               f"({heat.air_basis}): use liquid-cooled systems, spread the "
                               "load or set the rack's air_cooling_w", (rack_id,)))
    for cdu in report.cdus:
        for missing in cdu.missing:
            what = ("no such device" if not layout.has_device(missing) else "not a rack")
            out.append(Finding(ERROR, "cdu-serves-missing",
                               f"CDU {cdu.cdu} serves {missing!r}, which is {what}",
                               (cdu.cdu,)))
        if cdu.over:
            assert cdu.capacity_w is not None
            served = [r for r in cdu.serves if r in report.racks]
            out.append(Finding(ERROR, "cdu-capacity",
                               f"CDU {cdu.cdu} ({cdu.model}) carries {format_watts(cdu.liquid_w)}"
                               f" of liquid heat from {', '.join(served)}, above its "
                               f"{format_watts(cdu.capacity_w)} capacity", (cdu.cdu, *served)))
        elif cdu.capacity_w is None:
            out.append(Finding(WARNING, "cdu-capacity",
                               f"CDU {cdu.cdu} ({cdu.model}) has no published capacity: its "
                               "load cannot be checked", (cdu.cdu,)))
    for rack_id in report.unserved:
        out.append(Finding(WARNING, "rack-no-cdu",
                           f"rack {rack_id} sends {format_watts(report.racks[rack_id].liquid_w)}"
                           " to liquid but no CDU serves it (list it in a CDU's serves, or "
                           "Edit > Give Liquid Racks CDUs)",
                           (rack_id,)))
    cdu_ids = {c.cdu for c in report.cdus}
    for device in layout.devices():
        if device.props and device.id not in cdu_ids and any(
                k == SERVES_PROP for k, _ in device.props) and not door_capacity_w(
                layout.catalog.get(device.model) if device.model in layout.catalog else None):
            out.append(Finding(WARNING, "serves-not-cdu",
                               f"device {device.id} lists racks it serves but is not a CDU",
                               (device.id,)))
    site = report.site
    if site.over_power:
        assert site.power_limit_w is not None
        out.append(Finding(ERROR, "site-power",
                           f"the design draws up to {format_watts(site.it_max_w)}, above the "
                           f"site's {format_watts(site.power_limit_w)} of IT power "
                           f"({site.headline()})", key="site"))
    if site.over_cooling:
        assert site.cooling_limit_w is not None
        out.append(Finding(ERROR, "site-cooling",
                           f"the design gives off up to {format_watts(site.heat_w)} of heat, "
                           f"above the site's {format_watts(site.cooling_limit_w)} of cooling",
                           key="site"))
    out += site_findings(site)
    return out


def has_errors(findings: list[Finding]) -> bool:
    return any(f.severity == ERROR for f in findings)


class _Specs:
    """Spec per device id, with None for unknown models (looked up once per model)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.index = layout.index()

    def __call__(self, device_id: str) -> DeviceSpec | None:
        return self.index.spec(device_id)


#: What to do about a model the catalog lacks, in the design's words (the Problems dock shows it
#: as it is; the CLI adds its options: cli/validate_cmd.py).
USER_MODEL_HINT = ("; if it is someone's own model, add their catalog folder or open a copy of "
                   "the design packed with its models (docs/interop.md)")


def _check_models(layout: Layout, specs: _Specs) -> list[Finding]:
    out = []
    explained: set[str] = set()
    table = specs.index.link_table()
    devices = (layout.devices() if table is None  # a large design: its unknown ones only
               else (layout.device(table.ids[i]) for i in table.unknown_devices()))
    for device in devices:
        if specs(device.id) is None:
            try:
                layout.catalog.get(device.model)
                hint = ""
            except KeyError as exc:
                hint = str(exc.args[0]) if exc.args else ""
            if device.model not in explained and "did you mean" not in hint:
                explained.add(device.model)
                hint = (hint or f"unknown model {device.model}") + USER_MODEL_HINT
            out.append(Finding(ERROR, "unknown-model",
                               f"device {device.id}: {hint or 'unknown model ' + device.model}",
                               (device.id,)))
    return out


def _port_group(spec: DeviceSpec, end: PortRef) -> PortGroup | None:
    for group in spec.ports:
        if group.name == end.group:
            return group
    return None


def _check_links(layout: Layout, specs: _Specs, by_link: dict | None = None,
                 exhausted: dict | None = None) -> list[Finding]:
    """Unresolved links, each link's findings (in link order) and over-wired port groups.
    `by_link` and `exhausted` collect the findings per link id and per (device, port group),
    what the incremental check (`model/findings.py`) starts from."""
    out = check_unresolved(layout)
    out += _all_links_checked(layout, specs, by_link)
    for device_id, group_name, count, ports in specs.index.exhausted_ports():
        finding = _exhausted(layout, device_id, group_name, count, ports)
        out.append(finding)
        if exhausted is not None:
            exhausted[(device_id, group_name)] = finding
    return out


def check_unresolved(layout: Layout) -> list[Finding]:
    out = []
    for link in layout.unresolved_links:
        missing = [e.device for e in (link.a, link.b) if not layout.has_device(e.device)]
        out.append(Finding(ERROR, "missing-device",
                           f"link {link.id}: no device {', '.join(missing)}", (link.id,)))
    return out


def check_links_of(links: Iterable[Link], specs: _Specs, owners: dict,
                   by_link: dict | None = None) -> list[Finding]:
    """The findings of `links` in order; `owners` ((device, group, index) -> link id) holds
    the ports taken by the links checked before (a port taken twice is reported at the
    second link); `by_link` collects each link's findings."""
    out: list[Finding] = []
    spec_of = specs.index.all_specs()
    port_groups: dict[tuple[str, str], PortGroup | None] = {}  # (model, group name)

    def taken(port: tuple[str, str, int], link_id: str, end: int) -> str | None:
        owner = owners.get(port)
        if owner is None:
            owners[port] = link_id
        return owner

    for link in links:
        _link_findings(link, spec_of, port_groups, taken, out, by_link)
    return out


def _all_links_checked(layout: Layout, specs: _Specs, by_link: dict | None) -> list[Finding]:
    """`check_links_of` every link of the design, in order. A large one's links are first
    sifted with NumPy (`LinkTable.link_checks`): only those with a finding are checked one by
    one, each port taken twice answered by the end that took it first."""
    table = specs.index.link_table()
    if table is None:
        return check_links_of(layout.links(), specs, {}, by_link)
    flagged, first = table.link_checks()
    out: list[Finding] = []
    spec_of = specs.index.all_specs()
    port_groups: dict[tuple[str, str], PortGroup | None] = {}
    links = table.links
    at = 0

    def taken(port: tuple[str, str, int], link_id: str, end: int) -> str | None:
        owner = first.get(port)  # (first end as link * 2 + end, its link), ports taken twice
        return owner[1] if owner is not None and owner[0] < at * 2 + end else None

    for at in flagged:
        _link_findings(links[at], spec_of, port_groups, taken, out, by_link)
    return out


def _link_findings(link: Link, spec_of: dict[str, DeviceSpec | None],
                   port_groups: dict[tuple[str, str], PortGroup | None],
                   taken: Callable[[tuple[str, str, int], str, int], str | None],
                   out: list[Finding], by_link: dict | None) -> None:
    """One link's findings, appended to `out` (and filed in `by_link`); `taken(port, link
    id, end)` is the link that took the port before this end, or None (it is this link's)."""
    start = len(out)
    if link.a.device == link.b.device:
        out.append(Finding(ERROR, "self-link",
                           f"link {link.id}: both ends are on {link.a.device}", (link.id,)))
    groups: list[PortGroup | None] = []
    for end_no, end in enumerate((link.a, link.b)):
        spec = spec_of.get(end.device)
        if spec is None:
            groups.append(None)
            continue
        key = (spec.id, end.group)
        if key in port_groups:
            group = port_groups[key]
        else:
            group = port_groups[key] = _port_group(spec, end)
        groups.append(group)
        if group is None:
            names = ", ".join(g.name for g in spec.ports) or "none"
            out.append(Finding(ERROR, "missing-port",
                               f"link {link.id}: {spec.id} has no port {end.group!r} "
                               f"(its ports: {names})", (link.id, end.device)))
            continue
        if end.index is not None:
            last = end.index + link.count - 1
            if last >= group.count:
                out.append(Finding(ERROR, "port-range",
                                   f"link {link.id}: port {end} out of range "
                                   f"({end.group} has ports 0-{group.count - 1})",
                                   (link.id, end.device)))
            for index in range(end.index, min(last, group.count - 1) + 1):
                owner = taken((end.device, end.group, index), link.id, end_no)
                if owner is not None:
                    out.append(Finding(ERROR, "port-reused",
                                       f"port {end.device}:{end.group}.{index} is used by "
                                       f"links {owner} and {link.id}",
                                       (owner, link.id, end.device)))
    ga, gb = groups
    if ga is not None and gb is not None and (ga.protocol != gb.protocol
                                              or ga.rate_gbps != gb.rate_gbps):
        out += _check_pair(link, ga, gb)
    if by_link is not None and len(out) > start:
        by_link[link.id] = out[start:]


def check_exhausted(layout: Layout, specs: _Specs, device_id: str, group_name: str
                    ) -> Finding | None:
    """A port group wired beyond its port count (`DesignIndex.exhausted_ports`), or None."""
    count = specs.index.port_usage(device_id).get(group_name, 0)
    group = specs.index.port_group(device_id, group_name)
    if group is None or count <= group.count:
        return None
    return _exhausted(layout, device_id, group_name, count, group.count)


def _exhausted(layout: Layout, device_id: str, group_name: str, count: int, ports: int
               ) -> Finding:
    return Finding(ERROR, "ports-exhausted",
                   f"{device_id}: {count} links on port group {group_name!r}, which "
                   f"has {ports} ports",
                   (device_id, *[lk.id for lk in layout.links_of(device_id)
                                 if lk.end(device_id).group == group_name][:20]))


def _check_pair(link: Link, ga: PortGroup, gb: PortGroup) -> list[Finding]:
    if ga.protocol != gb.protocol:
        return [Finding(ERROR, "protocol-mismatch",
                        f"link {link.id}: {link.a} is {ga.protocol} but {link.b} is {gb.protocol}",
                        (link.id,))]
    if ga.rate_gbps != gb.rate_gbps:
        slow = min(ga.rate_gbps, gb.rate_gbps)
        return [Finding(WARNING, "rate-mismatch",
                        f"link {link.id}: {link.a} runs at {ga.rate_gbps:g} Gb/s and {link.b} at "
                        f"{gb.rate_gbps:g} Gb/s; the link runs at {slow:g} Gb/s", (link.id,))]
    return []


def _check_racks(layout: Layout, specs: _Specs, index: RackIndex | None = None
                 ) -> list[Finding]:
    out: list[Finding] = []
    index = index or RackIndex(layout)
    for device in layout.devices():
        if device.rack is None:
            continue
        rack_spec = specs(device.rack)
        if rack_spec is None or rack_spec.rack is None:
            what = "no such device" if not layout.has_device(device.rack) else "not a rack"
            out.append(Finding(ERROR, "bad-rack",
                               f"device {device.id}: rack {device.rack!r} is {what}",
                               (device.id,)))
    rack_groups = _rack_groups(layout)
    spans: dict[tuple[str, str], list[tuple[int, int, Unit]]] = defaultdict(list)
    for unit in index.units.values():
        anchors = _anchors(unit, specs)
        if unit.rack is None or unit.rack not in index.racks:
            group = _in_rack_group(layout, unit, rack_groups)
            if unit.rack is None and group is not None:
                out.append(Finding(WARNING, "no-rack-slot",
                                   f"{unit.label} is in rack group {group} but has no slot "
                                   f"(no rack and U): place it in the Racks view",
                                   (unit.id, *anchors)))
            continue
        if unit.u is None:
            out.append(Finding(WARNING, "no-u-position",
                               f"{unit.label} is in rack {unit.rack} without a U position",
                               (unit.id, *anchors)))
            continue
        rack_spec = index.racks[unit.rack]
        assert rack_spec.rack is not None
        height = rack_spec.rack.height_u
        if unit.u < 1 or unit.top > height:
            out.append(Finding(ERROR, "rack-height",
                               f"{unit.label} occupies U{unit.u}-U{unit.top}, outside rack "
                               f"{unit.rack} (U1-U{height})", (unit.id, *anchors, unit.rack)))
        if unit.cooling == "liquid" and rack_spec.cooling != "liquid":
            out.append(Finding(ERROR, "liquid-in-air-rack",
                               f"{unit.label} ({unit.model_name}) is liquid-cooled but rack "
                               f"{unit.rack} ({rack_spec.id}) is air-cooled: put it in a "
                               f"liquid-cooled rack (e.g. rack-48u)",
                               (unit.id, *anchors, unit.rack)))
        spans[(unit.rack, unit.face)].append((unit.u, unit.top, unit))
    for (rack_id, face), items in spans.items():
        items.sort(key=lambda t: (t[0], t[1], natural_key(t[2].id)))
        reach_top, reach = 0, None
        for low, top, unit in items:
            if low <= reach_top and reach is not None:
                at = "" if face == "front" else " (rear)"
                out.append(Finding(ERROR, "rack-overlap",
                                   f"{reach.label} and {unit.label} overlap in rack {rack_id}"
                                   f"{at} at U{low}",
                                   (reach.id, unit.id, *_anchors(reach, specs),
                                    *_anchors(unit, specs), rack_id)))
            if top > reach_top:
                reach_top, reach = top, unit
    for rack_id, summary in index.summaries({}).items():
        load = summary.static_load_kg
        if load is not None and summary.weight_kg > load:
            out.append(Finding(ERROR, "rack-load",
                               f"rack {rack_id} carries {summary.weight_kg:.0f} kg, above its "
                               f"static load rating of {load:.0f} kg", (rack_id,)))
    # the same "power drawn in a rack" as the simulation: devices, plus the cables and optics
    # at the link ends in the rack (model/power.py)
    for rack_id, (_, watts) in sorted(index.power_by_rack().items(),
                                      key=lambda item: natural_key(item[0])):
        rack_spec = specs(rack_id)
        if rack_spec is None or rack_spec.rack is None or not layout.has_device(rack_id):
            continue  # reported as bad-rack above
        budget = rack_budget(layout.device(rack_id), rack_spec)
        if budget.watts is not None and over_budget(watts, budget.watts):
            out.append(Finding(ERROR, "rack-power",
                               f"rack {rack_id} draws up to {watts / 1000:.1f} kW, above its "
                               f"{budget.watts / 1000:.1f} kW budget ({budget.basis})",
                               (rack_id,)))
    return out


def _anchors(unit: Unit, specs: _Specs) -> tuple[str, ...]:
    """The member devices that carry a unit's height (a system's chassis), for selection."""
    if not unit.is_group:
        return ()
    out = []
    for member in unit.members:
        spec = specs(member)
        if spec is not None and spec.u_height and spec.u_height > 0:
            out.append(member)
    return tuple(out)


def _rack_groups(layout: Layout) -> set[str]:
    return {g.id for g in layout.groups() if g.kind == "rack"}


def _in_rack_group(layout: Layout, unit: Unit, rack_groups: set[str]) -> str | None:
    """The rack group a unit belongs to (through its parents), if any."""
    start = unit.id if unit.is_group else layout.device(unit.id).group
    group = layout.group(unit.id).parent if unit.is_group else start
    seen = 0
    while group is not None and layout.has_group(group) and seen < 64:
        if group in rack_groups:
            return layout.group(group).label
        group = layout.group(group).parent
        seen += 1
    return None


def nvlink_domains(layout: Layout) -> list[set[str]]:
    """GPU sets joined by NVLink (directly or through NVSwitches), largest first."""
    return layout.index().nvlink_domains()


def _check_nic_reach(layout: Layout, specs: _Specs) -> list[Finding]:
    index = specs.index
    domains = index.nvlink_domains()
    if len(domains) <= 1:
        return []
    reached = index.nic_reach()
    out = []
    for domain in domains:
        missing = sorted(g for g in domain if g not in reached)
        if not missing:
            continue
        if len(missing) == len(domain):
            for gpu in missing:
                out.append(Finding(ERROR, "gpu-no-nic",
                                   f"GPU {gpu} has no path to a NIC, and neither has any GPU of "
                                   f"its NVLink domain: it cannot reach the other "
                                   f"{counted(len(domains) - 1, 'NVLink domain')}", (gpu,)))
        else:
            for gpu in missing:
                out.append(Finding(WARNING, "gpu-no-nic",
                                   f"GPU {gpu} has no PCIe/C2C path to a NIC; it reaches other "
                                   f"domains only through an NVLink peer's NIC", (gpu,)))
    return out


MAX_LISTED = 20


def _check_reachability(layout: Layout) -> list[Finding]:
    """The design is partitioned: the same finding (and sentence) the simulation reports."""
    reach = layout.index().reachability()
    if not reach.partitioned:
        return []
    return [Finding(ERROR, "gpus-unreachable",
                    f"{reach.describe()}; the figures cover the largest group of "
                    f"{len(reach.reachable)} GPUs", reach.unreachable[:MAX_LISTED])]
