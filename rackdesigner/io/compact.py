"""The compact form of a layout file: a node written once as a template, placed N times.

A 100,000-GPU design has ~12,800 identical DGX nodes (or ~1,400 identical NVL72 racks): in the
plain form every one of their devices and internal links is a line, ~1 million lines. The
compact form writes each distinct node once (`templates`, `template-groups`,
`template-devices`, `template-links`, ids relative to the node) and then one `instances` line
per node: its id (the prefix of every id inside it), template, name, parent group, position,
rack and U. Links between nodes (NIC to leaf, leaf to spine) and everything not inside a node
stay in the plain `groups`, `devices` and `links` sections, one line each, so the file is still
human-readable and diffs line by line. Loading expands every instance into exactly the items the
plain form would list (same ids, positions, rack units), so both forms give equal designs.

Which groups become instances is decided from the design alone, deterministically, so saving a
design gives the same bytes in each form (`dump_compact_text` is a pure function of the
content): the top-most groups that name a catalog `template` (a DGX, an NVL72 rack), whose
sub-groups and devices all carry the group's id as their prefix, whose devices share one rack,
and whose parts sit at the same offsets as another instance's (positions are checked to
reconstruct exactly). Anything else is written plainly. Templates are named after the catalog
system (`dgx-h100`; a second layout of the same system `dgx-h100-2`).

Offsets: a template device's `pos` is relative to the instance's `pos` (the first device's
position), its `du` relative to the instance's `u`; a missing `group` is the instance's own
group, a missing sub-group `parent` the instance group. Reading is `compact_read`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from rackdesigner.io import endcheck
from rackdesigner.model import Device, Group, Layout, Link, PortRef, natural_key
from rackdesigner.model.items import ACTIVE

HEADER = ("# RackDesigner layout, compact form (format: docs/file-format.md#the-compact-form); "
          "its last line is the end check\n")
COMPACT_SECTIONS = ("templates", "template-groups", "template-devices", "template-links",
                    "instances")
PLAIN_SECTIONS = ("groups", "devices", "links")
TEMPLATE_KEYS = ("id", "kind", "template")
INSTANCE_KEYS = ("id", "of", "name", "parent", "collapsed", "pos", "rack", "u", "status")
FORM = "compact"


def is_compact(text: str) -> bool:
    """Whether layout text is in the compact form (it has an `instances` section)."""
    return text.startswith(HEADER) or "\ninstances:\n" in text


# ---- writing ---------------------------------------------------------------------------------
class _Instance:
    """One group written as an instance of a template (see the module docstring)."""

    __slots__ = ("devices", "groups", "links", "pos", "prefix", "rack", "root", "signature", "u")
    devices: list[Device]
    groups: list[str]  # the root's id, then its sub-groups' (breadth-first)
    links: list[Link]
    pos: tuple[float, float]
    prefix: str
    rack: str | None
    root: Group
    signature: tuple[Any, ...]
    u: int | None


def _key(text: str) -> tuple:
    return (natural_key(text), text)


@functools.lru_cache(maxsize=65536)
def _suffix_key(text: str) -> tuple:
    return _key(text)


def _find_instances(layout: Layout) -> list[_Instance]:
    groups = {g.id: g for g in layout.groups()}
    children: dict[str, list[str]] = {}
    for g in groups.values():
        if g.parent is not None:
            children.setdefault(g.parent, []).append(g.id)
    found: list[_Instance] = []
    owner: dict[str, _Instance] = {}
    for root in sorted(groups.values(), key=lambda g: _key(g.id)):
        if root.template is None or _inside_template(root, groups):
            continue
        inst = _members(layout, root, children)
        if inst is not None:
            found.append(inst)
            for d in inst.devices:
                owner[d.id] = inst
    for k in layout.links():  # one pass: a link inside a node has both ends and its id there
        inst = owner.get(k.a.device)
        if inst is not None and owner.get(k.b.device) is inst and k.id.startswith(inst.prefix):
            inst.links.append(k)
    return [inst for inst in found if _signature(layout, inst)]


def _inside_template(group: Group, groups: dict[str, Group]) -> bool:
    parent = group.parent
    while parent is not None and parent in groups:
        if groups[parent].template is not None:
            return True
        parent = groups[parent].parent
    return False


def _members(layout: Layout, root: Group, children: dict[str, list[str]]) -> _Instance | None:
    prefix = root.id + "."
    subtree = [root.id]
    for gid in subtree:  # grows while iterating: breadth-first
        subtree.extend(children.get(gid, ()))
    if any(not g.startswith(prefix) for g in subtree[1:]):
        return None
    cut = len(prefix)
    devices = sorted((d for g in subtree for d in
                      (layout.device(i) for i in layout.group_devices(g, recursive=False))
                      if d.id.startswith(prefix)), key=lambda d: _suffix_key(d.id[cut:]))
    if not devices or len({d.rack for d in devices}) != 1:
        return None
    inst = _Instance()
    inst.root, inst.prefix, inst.devices, inst.links = root, prefix, devices, []
    inst.groups = subtree
    return inst


def _signature(layout: Layout, inst: _Instance) -> bool:
    """Set the instance's template signature (offsets from its first device); False when the
    offsets would not give the positions back exactly (it is then written plainly)."""
    root, devices, cut = inst.root, inst.devices, len(inst.prefix)
    inst.links.sort(key=lambda k: _suffix_key(k.id[cut:]))
    anchor = devices[0]
    ax, ay = anchor.pos
    base_u = next((d.u for d in devices if d.u is not None), None)
    rel_groups = tuple(
        (g.id[cut:], g.name, g.kind,
         None if g.parent is None or g.parent == root.id else g.parent[cut:],
         g.collapsed, g.template, g.status)
        for g in sorted((layout.group(i) for i in inst.groups[1:]),
                        key=lambda g: _suffix_key(g.id[cut:])))
    rel_devices = []
    for d in devices:
        x, y = d.pos
        rel = (x - ax, y - ay)
        if ax + rel[0] != x or ay + rel[1] != y:
            return False
        rel_devices.append((d.id[cut:], d.model, d.name, rel,
                            None if d.u is None else d.u - (base_u or 0),
                            None if d.group is None or d.group == root.id else d.group[cut:],
                            d.props, d.status))
    rel_links = tuple((k.id[cut:], _port(k.a, cut), _port(k.b, cut), k.count, k.cable,
                       k.length_m, k.status) for k in inst.links)
    inst.pos, inst.rack, inst.u = anchor.pos, anchor.rack, base_u
    inst.signature = (root.kind, root.template, rel_groups, tuple(rel_devices), rel_links)
    return True


def _port(end: PortRef, cut: int) -> str:
    return f"{end.device[cut:]}:{end.group}" + ("" if end.index is None else f".{end.index}")


def dump_compact_text(layout: Layout) -> str:
    """The compact-form text of a layout (deterministic: the same design, the same bytes)."""
    from rackdesigner.io.writer import _device_line, _group_line, _link_line, head_lines, inline

    instances = _find_instances(layout)
    names: dict[tuple, str] = {}
    used: dict[str, int] = {}
    for inst in instances:
        if inst.signature not in names:
            base = inst.root.template or inst.root.kind
            used[base] = used.get(base, 0) + 1
            names[inst.signature] = base if used[base] == 1 else f"{base}-{used[base]}"
    out = head_lines(layout.meta, HEADER)
    templates = sorted(names.items(), key=lambda kv: _key(kv[1]))
    if templates:
        out.append("templates:\n")
        for (kind, template, *_), tid in templates:
            head = [("id", tid)] + ([("kind", kind)] if kind != "group" else [])
            head += [("template", template)] if template else []
            out.append(_flow(head, inline))
        out.extend(_template_sections(templates, inline))
        out.append("instances:\n")
        for inst in instances:
            r = inst.root
            pairs: list[tuple[str, Any]] = [("id", r.id), ("of", names[inst.signature])]
            pairs += [("name", r.name)] if r.name else []
            pairs += [("parent", r.parent)] if r.parent is not None else []
            pairs += [("collapsed", True)] if r.collapsed else []
            pairs += [("pos", list(inst.pos))] if inst.pos != (0.0, 0.0) else []
            pairs += [("rack", inst.rack)] if inst.rack is not None else []
            pairs += [("u", inst.u)] if inst.u is not None else []
            pairs += [("status", r.status)] if r.status != ACTIVE else []
            out.append(_flow(pairs, inline))
    taken_groups = {g for inst in instances for g in inst.groups}
    taken_devices = {d.id for inst in instances for d in inst.devices}
    taken_links = {k.id for inst in instances for k in inst.links}
    plain_groups = sorted((g for g in layout.groups() if g.id not in taken_groups),
                          key=lambda g: _key(g.id))
    plain_devices = sorted((d for d in layout.devices() if d.id not in taken_devices),
                           key=lambda d: _key(d.id))
    plain_links = sorted((k for k in (*layout.links(), *layout.unresolved_links)
                          if k.id not in taken_links), key=lambda k: _key(k.id))
    for name, lines in (("groups", [_group_line(g) for g in plain_groups]),
                        ("devices", [_device_line(d) for d in plain_devices]),
                        ("links", [_link_line(k) for k in plain_links])):
        if lines:
            out.append(f"{name}:\n")
            out.extend(lines)
    # the end check counts the design's groups, devices and links, as the plain form does
    out.append(endcheck.end_line(sum(1 for _ in layout.groups()), layout.device_count(),
                                 layout.link_count() + len(layout.unresolved_links)))
    return "".join(out)


def _template_sections(templates: list[tuple[tuple, str]], inline) -> Iterable[str]:
    groups, devices, links = [], [], []
    for (_, _, rel_groups, rel_devices, rel_links), tid in templates:
        for gid, name, kind, parent, collapsed, template, status in rel_groups:
            pairs: list[tuple[str, Any]] = [("of", tid), ("id", gid)]
            pairs += [("name", name)] if name else []
            pairs += [("kind", kind)] if kind != "group" else []
            pairs += [("parent", parent)] if parent is not None else []
            pairs += [("collapsed", True)] if collapsed else []
            pairs += [("template", template)] if template is not None else []
            pairs += [("status", status)] if status != ACTIVE else []
            groups.append(_flow(pairs, inline))
        for did, model, name, rel, du, group, props, status in rel_devices:
            pairs = [("of", tid), ("id", did), ("model", model)]
            pairs += [("name", name)] if name else []
            pairs += [("pos", list(rel))] if rel != (0.0, 0.0) else []
            pairs += [("du", du)] if du is not None else []
            pairs += [("group", group)] if group is not None else []
            pairs += [("status", status)] if status != ACTIVE else []
            pairs += sorted(props)
            devices.append(_flow(pairs, inline))
        for lid, a, b, count, cable, length, status in rel_links:
            pairs = [("of", tid), ("id", lid), ("a", a), ("b", b)]
            pairs += [("count", count)] if count != 1 else []
            pairs += [("cable", cable)] if cable is not None else []
            pairs += [("length_m", length)] if length is not None else []
            pairs += [("status", status)] if status != ACTIVE else []
            links.append(_flow(pairs, inline))
    for name, lines in (("template-groups", groups), ("template-devices", devices),
                        ("template-links", links)):
        if lines:
            yield f"{name}:\n"
            yield from lines


def _flow(pairs: list[tuple[str, Any]], inline) -> str:
    return "- {" + ", ".join(f"{key}: {inline(value)}" for key, value in pairs) + "}\n"


def save_compact(layout: Layout, target: str | os.PathLike | IO[str]) -> None:
    """Write `layout` in the compact form to a path (atomically) or an open text file."""
    from rackdesigner.io import atomic

    text = dump_compact_text(layout)
    if hasattr(target, "write"):
        target.write(text)  # type: ignore[union-attr]
        return
    atomic.write_text(Path(target), text)  # type: ignore[arg-type]


def parse_compact(text: str, path: str, catalog=None, end=None, progress=None) -> Layout:
    """Build a Layout from compact-form text (`compact_read.parse_compact`)."""
    from rackdesigner.io.compact_read import parse_compact as parse

    return parse(text, path, catalog, end, progress)
