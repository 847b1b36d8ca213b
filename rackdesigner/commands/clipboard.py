"""Copy, paste and duplicate as plain data: a selection becomes a small Layout; pasting it
into a document gives fresh ids and an offset, and becomes one `AddItems` command.

The GUI puts the extracted layout on the clipboard as YAML (`rackdesigner.io`), so pasting
works across windows and into a text editor.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable

from rackdesigner.commands.edits import AddItems
from rackdesigner.model import Group, Layout, Link

_NUMBERED = re.compile(r"^(?P<prefix>.*?)-(?P<n>\d+)$")


def extract(layout: Layout, device_ids: Iterable[str], group_ids: Iterable[str] = ()) -> Layout:
    """A new layout holding the devices (and whole groups), the links among them and the
    groups they need. Group and rack references leaving the selection are dropped."""
    groups: dict[str, Group] = {}

    def take_group(gid: str) -> None:
        groups[gid] = layout.group(gid)
        for child in layout.group_children(gid):
            take_group(child)

    devices = {d for d in device_ids if layout.has_device(d)}
    for gid in group_ids:
        if layout.has_group(gid):
            take_group(gid)
            devices.update(layout.group_devices(gid))
    out = Layout(layout.catalog)
    ordered_groups = _parents_first(groups)
    for group in ordered_groups:
        parent = group.parent if group.parent in groups else None
        out.add_group(dataclasses.replace(group, parent=parent))
    for device in layout.devices():
        if device.id not in devices:
            continue
        out.add_device(dataclasses.replace(
            device,
            group=device.group if device.group in groups else None,
            rack=device.rack if device.rack in devices else None,
            u=device.u if device.rack in devices else None,
        ))
    for link in layout.links():
        if link.a.device in devices and link.b.device in devices:
            out.add_link(link)
    return out


def _parents_first(groups: dict[str, Group]) -> list[Group]:
    ordered: list[Group] = []
    placed: set[str] = set()

    def place(group: Group) -> None:
        if group.id in placed:
            return
        if group.parent in groups:
            place(groups[group.parent])
        placed.add(group.id)
        ordered.append(group)

    for group in groups.values():
        place(group)
    return ordered


def paste(target: Layout, source: Layout, offset: tuple[float, float] = (0.0, 0.0),
          text: str = "Paste") -> AddItems:
    """A command adding a copy of `source` to `target`, with fresh ids, moved by `offset`.

    Ids are kept when free; otherwise a group `dgx-1` becomes the next free `dgx-N`, and its
    members `dgx-1.gpu0` follow as `dgx-N.gpu0`, so a pasted system stays readable.
    """
    taken: set[str] = set()

    def is_free(candidate: str) -> bool:
        return candidate not in taken and not target.has_id(candidate)

    mapping: dict[str, str] = {}
    for group in _parents_first({g.id: g for g in source.groups()}):
        mapping[group.id] = _fresh(group.id, mapping, is_free)
        taken.add(mapping[group.id])
    for device in source.devices():
        mapping[device.id] = _fresh(device.id, mapping, is_free)
        taken.add(mapping[device.id])
    dx, dy = offset
    groups = [dataclasses.replace(g, id=mapping[g.id],
                                  parent=mapping.get(g.parent) if g.parent else None)
              for g in _parents_first({g.id: g for g in source.groups()})]
    devices = [dataclasses.replace(d, id=mapping[d.id], pos=(d.pos[0] + dx, d.pos[1] + dy),
                                   group=mapping.get(d.group) if d.group else None,
                                   rack=mapping.get(d.rack) if d.rack else None,
                                   u=d.u if d.rack in mapping else None)
               for d in source.devices()]
    links: list[Link] = []
    for link in source.links():
        new_id = _fresh(link.id, mapping, is_free)
        taken.add(new_id)
        links.append(dataclasses.replace(link, id=new_id,
                                         a=link.a.with_device(mapping[link.a.device]),
                                         b=link.b.with_device(mapping[link.b.device])))
    return AddItems(groups, devices, links, text=text)


def _fresh(item_id: str, mapping: dict[str, str], is_free: Callable[[str], bool]) -> str:
    # Follow a renamed enclosing group: dgx-1.gpu0 -> dgx-2.gpu0.
    head = item_id.rpartition(".")[0]
    while head:
        if head in mapping:
            candidate = f"{mapping[head]}.{item_id[len(head) + 1:]}"
            if is_free(candidate):
                return candidate
            break
        head = head.rpartition(".")[0]
    if is_free(item_id):
        return item_id
    m = _NUMBERED.match(item_id)
    prefix = m["prefix"] if m else item_id
    n = int(m["n"]) if m else 1
    while True:
        n += 1
        candidate = f"{prefix}-{n}"
        if is_free(candidate):
            return candidate
