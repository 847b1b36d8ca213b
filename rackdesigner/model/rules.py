"""Design rules: findings about a layout, never refusals.

`check_layout(layout)` returns `Finding`s (severity, message, the ids involved). Files with
errors still load; the GUI lists findings in the Problems dock and `rackdesigner validate` prints
them. Every rule is linear in the size of the design (no pairwise GPU checks). Port usage,
NVLink domains, NIC reach, rack occupancy and reachability come from the design's derived index
(`model/index.py`), which the canvas, the Inspector and the simulation read too.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from rackdesigner.catalog import DeviceSpec, PortGroup
from rackdesigner.model.items import Link, PortRef
from rackdesigner.model.layout import Layout, natural_key
from rackdesigner.model.power import RackPower, over_budget, rack_budget

ERROR = "error"
WARNING = "warning"
HOST_PROTOCOLS = ("pcie", "c2c")


@dataclass(frozen=True, slots=True)
class Finding:
    severity: str
    code: str
    message: str
    objects: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.severity}: {self.message}"


def check_layout(layout: Layout) -> list[Finding]:
    """All findings for `layout`, errors first, then in object order."""
    specs = _Specs(layout)
    findings: list[Finding] = []
    findings += _check_models(layout, specs)
    findings += _check_links(layout, specs)
    findings += _check_racks(layout, specs)
    findings += _check_nic_reach(layout, specs)
    findings += _check_reachability(layout)
    findings.sort(key=lambda f: 0 if f.severity == ERROR else 1)
    return findings


def has_errors(findings: list[Finding]) -> bool:
    return any(f.severity == ERROR for f in findings)


class _Specs:
    """Spec per device id, with None for unknown models (looked up once per model)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.index = layout.index()

    def __call__(self, device_id: str) -> DeviceSpec | None:
        return self.index.spec(device_id)


USER_MODEL_HINT = ("; if it is someone's own model, add their catalog folder (--catalog DIR "
                   "or RACKDESIGNER_CATALOG) or open a copy made by 'rackdesigner pack' "
                   "(docs/interop.md)")


def _check_models(layout: Layout, specs: _Specs) -> list[Finding]:
    out = []
    explained: set[str] = set()
    for device in layout.devices():
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


def _check_links(layout: Layout, specs: _Specs) -> list[Finding]:
    out: list[Finding] = []
    for link in layout.unresolved_links:
        missing = [e.device for e in (link.a, link.b) if not layout.has_device(e.device)]
        out.append(Finding(ERROR, "missing-device",
                           f"link {link.id}: no device {', '.join(missing)}", (link.id,)))
    used: dict[tuple[str, str], int] = defaultdict(int)
    owners: dict[tuple[str, str, int], str] = {}
    for link in layout.links():
        if link.a.device == link.b.device:
            out.append(Finding(ERROR, "self-link",
                               f"link {link.id}: both ends are on {link.a.device}", (link.id,)))
        groups: list[PortGroup | None] = []
        for end in (link.a, link.b):
            spec = specs(end.device)
            group = _port_group(spec, end) if spec is not None else None
            groups.append(group)
            if spec is None:
                continue
            if group is None:
                names = ", ".join(g.name for g in spec.ports) or "none"
                out.append(Finding(ERROR, "missing-port",
                                   f"link {link.id}: {spec.id} has no port {end.group!r} "
                                   f"(its ports: {names})", (link.id, end.device)))
                continue
            used[(end.device, end.group)] += link.count
            if end.index is not None:
                last = end.index + link.count - 1
                if last >= group.count:
                    out.append(Finding(ERROR, "port-range",
                                       f"link {link.id}: port {end} out of range "
                                       f"({end.group} has ports 0-{group.count - 1})",
                                       (link.id, end.device)))
                for index in range(end.index, min(last, group.count - 1) + 1):
                    key = (end.device, end.group, index)
                    if key in owners:
                        out.append(Finding(ERROR, "port-reused",
                                           f"port {end.device}:{end.group}.{index} is used by "
                                           f"links {owners[key]} and {link.id}",
                                           (owners[key], link.id, end.device)))
                    else:
                        owners[key] = link.id
        ga, gb = groups
        if ga is not None and gb is not None:
            out += _check_pair(link, ga, gb)
    for device_id, group_name in used:
        count = specs.index.port_usage(device_id).get(group_name, 0)
        group = specs.index.port_group(device_id, group_name)
        assert group is not None
        if count > group.count:
            out.append(Finding(ERROR, "ports-exhausted",
                               f"{device_id}: {count} links on port group {group_name!r}, which "
                               f"has {group.count} ports",
                               (device_id, *[lk.id for lk in layout.links_of(device_id)
                                             if lk.end(device_id).group == group_name][:20])))
    return out


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


def _check_racks(layout: Layout, specs: _Specs) -> list[Finding]:
    out: list[Finding] = []
    for device in layout.devices():
        if device.rack is None:
            continue
        rack_spec = specs(device.rack)
        if rack_spec is None or rack_spec.rack is None:
            what = "no such device" if not layout.has_device(device.rack) else "not a rack"
            out.append(Finding(ERROR, "bad-rack",
                               f"device {device.id}: rack {device.rack!r} is {what}",
                               (device.id,)))
            continue
        spec = specs(device.id)
        if spec is None:
            continue
        height = round(spec.u_height or 0)
        if height <= 0:
            continue
        if device.u is None:
            out.append(Finding(WARNING, "no-u-position",
                               f"device {device.id} is in rack {device.rack} without a U position",
                               (device.id,)))
            continue
        top = device.u + height - 1
        if device.u < 1 or top > rack_spec.rack.height_u:
            out.append(Finding(ERROR, "rack-height",
                               f"device {device.id} occupies U{device.u}-U{top}, outside rack "
                               f"{device.rack} (U1-U{rack_spec.rack.height_u})",
                               (device.id, device.rack)))
    for rack_id, spans in specs.index.rack_occupancy().items():
        reach_top, reach_id = 0, ""
        for low, top, device_id in spans:
            if low <= reach_top:
                out.append(Finding(ERROR, "rack-overlap",
                                   f"devices {reach_id} and {device_id} overlap in rack {rack_id} "
                                   f"at U{low}", (reach_id, device_id, rack_id)))
            if top > reach_top:
                reach_top, reach_id = top, device_id
    # the same "power drawn in a rack" as the simulation: devices, plus the cables and optics
    # at the link ends in the rack (model/power.py)
    for rack_id, (_, watts) in sorted(RackPower(layout).by_rack().items(),
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


def nvlink_domains(layout: Layout, kind_of: _Specs | None = None) -> list[set[str]]:
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
                                   f"{len(domains) - 1} NVLink domain(s)", (gpu,)))
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
