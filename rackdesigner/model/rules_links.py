"""The link and port rules: each link's ends (known devices, existing port groups, ports in
range and not taken twice, protocols, generations and lane counts that agree), links whose
devices are missing, and port groups wired beyond their port count. A family of `rules.py`
(`model/findings.py` re-checks only the links an edit touched, through `check_links_of`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from rackdesigner.catalog import DeviceSpec, PortGroup
from rackdesigner.model.items import Link, PortRef
from rackdesigner.model.layout import Layout

if TYPE_CHECKING:
    pass
from rackdesigner.model.rule_finding import ERROR, WARNING, Finding, _Specs


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
