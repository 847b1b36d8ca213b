"""Turn a catalog model into layout items: one device, or a system's parts wired as published.

A system (DGX H100, GB200 compute tray, NVL72 rack...) becomes a group holding its chassis
device and its parts (recursively for nested systems), linked by the catalog's wiring rules.
Nothing is added to a layout here: the caller adds the returned items (a generator directly, the
GUI through one undoable command). Ids are readable and derived from `prefix`:
`dgx-1` (group), `dgx-1.chassis`, `dgx-1.gpu0`, `nvl72-1.tray3.gpu2`, `dgx-1.l17`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rackdesigner.catalog import Catalog, DeviceSpec
from rackdesigner.model.items import Device, Group, Link, PortRef

_SELECTOR = re.compile(r"^(?P<name>[A-Za-z_][\w-]*)(\[(?P<index>\*|\d+(-\d+)?)\])?$")

#: Canvas spacing between parts of a system (scene units; the GUI draws devices ~140x80).
CELL_W = 170.0
CELL_H = 120.0


@dataclass
class Parts:
    """Items to add to a layout, in an order `Layout.add_all` accepts."""

    groups: list[Group] = field(default_factory=list)
    devices: list[Device] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    root: str = ""

    def extend(self, other: Parts) -> None:
        self.groups.extend(other.groups)
        self.devices.extend(other.devices)
        self.links.extend(other.links)

    def size(self) -> tuple[float, float]:
        """Width and height of the canvas area the devices occupy."""
        if not self.devices:
            return (0.0, 0.0)
        xs = [d.pos[0] for d in self.devices]
        ys = [d.pos[1] for d in self.devices]
        return (max(xs) - min(xs) + CELL_W, max(ys) - min(ys) + CELL_H)


def instantiate(
    catalog: Catalog,
    model: str,
    prefix: str,
    *,
    origin: tuple[float, float] = (0.0, 0.0),
    rack: str | None = None,
    u: int | None = None,
    group: str | None = None,
    name: str = "",
    is_taken: Callable[[str], bool] | None = None,
) -> Parts:
    """Items for one instance of `model`; a system expands to a group of wired parts.

    `prefix` names the device (plain model) or the system's group; `is_taken` lets the caller
    refuse ids already used in its layout (ValueError naming the clash).
    """
    spec = catalog.get(model)
    parts = Parts()
    if spec.system is None:
        parts.devices.append(Device(prefix, spec.id, name, origin, rack, u, group))
        parts.root = prefix
    else:
        _expand(catalog, spec, prefix, origin, rack, u, group, name, parts)
    if is_taken is not None:
        ids = [*(g.id for g in parts.groups), *(d.id for d in parts.devices),
               *(k.id for k in parts.links)]
        for item_id in ids:
            if is_taken(item_id):
                raise ValueError(f"id {item_id!r} is already used in this layout")
    return parts


def _expand(catalog: Catalog, spec: DeviceSpec, prefix: str, origin: tuple[float, float],
            rack: str | None, u: int | None, parent: str | None, name: str, out: Parts) -> None:
    system = spec.system
    assert system is not None
    kind = "tray" if spec.u_height and spec.u_height <= 2 and "tray" in spec.id else "node"
    if "nvl72" in spec.id or (spec.u_height or 0) >= 40:
        kind = "rack"
    out.groups.append(Group(prefix, name or "", kind, parent, False, spec.id))
    out.root = prefix
    x0, y0 = origin
    row = 0
    if system.chassis is not None:
        out.devices.append(Device(f"{prefix}.chassis", system.chassis, "", (x0, y0), rack, u,
                                  prefix))
        row = 1
    # ids of the devices each part name stands for, for wiring: name -> list of
    # (device ids) or nested name maps for sub-systems.
    members: dict[str, list[str | dict]] = {}
    next_u = u
    sub_x = x0
    for part in system.parts:
        part_spec = catalog.get(part.model)
        entries: list[str | dict] = []
        if part_spec.system is None:
            for k in range(part.count):
                dev_id = f"{prefix}.{part.name}{k}"
                pos = (x0 + k * CELL_W, y0 + row * CELL_H)
                out.devices.append(Device(dev_id, part_spec.id, "", pos, rack, u, prefix))
                entries.append(dev_id)
            row += 1
        else:
            for k in range(part.count):
                sub_prefix = f"{prefix}.{part.name}{k}"
                sub = Parts()
                sub_u = next_u
                _expand(catalog, part_spec, sub_prefix, (sub_x, y0 + row * CELL_H), rack, sub_u,
                        prefix, "", sub)
                if next_u is not None:
                    next_u += max(1, round(part_spec.u_height or 1))
                width, _ = sub.size()
                sub_x += width + CELL_W * 0.5
                out.extend(sub)
                entries.append(_member_map(catalog, part_spec, sub_prefix))
        members[part.name] = entries
    link_no = 0
    for rule in system.wiring:
        a_ids = _select(members, rule.a)
        b_ids = _select(members, rule.b)
        for a_id, b_id in _pairs(a_ids, b_ids, rule.pattern, spec.id):
            out.links.append(Link(f"{prefix}.l{link_no}", PortRef(a_id, rule.a_port),
                                  PortRef(b_id, rule.b_port), rule.count))
            link_no += 1


def _member_map(catalog: Catalog, spec: DeviceSpec, prefix: str) -> dict[str, list]:
    assert spec.system is not None
    out: dict[str, list] = {}
    for part in spec.system.parts:
        part_spec = catalog.get(part.model)
        if part_spec.system is None:
            out[part.name] = [f"{prefix}.{part.name}{k}" for k in range(part.count)]
        else:
            out[part.name] = [_member_map(catalog, part_spec, f"{prefix}.{part.name}{k}")
                              for k in range(part.count)]
    return out


def _select(members: dict[str, list], selector: str) -> list[str]:
    """Device ids a selector (`gpu[*]`, `tray[0-3]/gpu[1]`) stands for, in order."""
    current: list = [members]
    for step in selector.split("/"):
        m = _SELECTOR.match(step)
        if m is None:
            raise ValueError(f"bad selector {selector!r}")
        picked: list = []
        for scope in current:
            entries = scope[m["name"]]
            index = m["index"]
            if index is None or index == "*":
                picked.extend(entries)
            elif "-" in index:
                lo, hi = (int(x) for x in index.split("-"))
                picked.extend(entries[lo : hi + 1])
            else:
                picked.append(entries[int(index)])
        current = picked
    return [c for c in current if isinstance(c, str)]


def _pairs(a: list[str], b: list[str], pattern: str, model: str) -> list[tuple[str, str]]:
    if pattern == "all":
        return [(x, y) for x in a for y in b]
    if pattern == "zip":
        if len(a) != len(b):
            raise ValueError(f"{model}: zip wiring needs equal counts, got {len(a)} and {len(b)}")
        return list(zip(a, b, strict=True))
    if pattern == "block":
        if not b:
            return []
        return [(x, b[k * len(b) // len(a)]) for k, x in enumerate(a)]
    raise ValueError(f"{model}: unknown wiring pattern {pattern!r}")
