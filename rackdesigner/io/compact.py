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
group, a missing sub-group `parent` the instance group.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from rackdesigner.catalog import Catalog
from rackdesigner.io import atomic, endcheck, fastread
from rackdesigner.io.errors import LayoutFileError
from rackdesigner.model import Device, Group, Layout, Link, Meta, PortRef, natural_key

HEADER = ("# RackDesigner layout, compact form (format: docs/file-format.md#the-compact-form); "
          "its last line is the end check\n")
COMPACT_SECTIONS = ("templates", "template-groups", "template-devices", "template-links",
                    "instances")
PLAIN_SECTIONS = ("groups", "devices", "links")
TEMPLATE_KEYS = ("id", "kind", "template")
INSTANCE_KEYS = ("id", "of", "name", "parent", "collapsed", "pos", "rack", "u")
FORM = "compact"


def is_compact(text: str) -> bool:
    """Whether layout text is in the compact form (it has an `instances` section)."""
    return text.startswith(HEADER) or "\ninstances:\n" in text


# ---- writing ---------------------------------------------------------------------------------
class _Instance:
    __slots__ = ("devices", "groups", "links", "pos", "prefix", "rack", "root", "signature", "u")


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
        (g.id[cut:], g.name, g.kind, None if g.parent == root.id else g.parent[cut:],
         g.collapsed, g.template)
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
                            None if d.group == root.id else d.group[cut:],  # type: ignore[index]
                            d.props))
    rel_links = tuple((k.id[cut:], _port(k.a, cut), _port(k.b, cut), k.count, k.cable,
                       k.length_m) for k in inst.links)
    inst.pos, inst.rack, inst.u = anchor.pos, anchor.rack, base_u
    inst.signature = (root.kind, root.template, rel_groups, tuple(rel_devices), rel_links)
    return True


def _port(end: PortRef, cut: int) -> str:
    return f"{end.device[cut:]}:{end.group}" + ("" if end.index is None else f".{end.index}")


def dump_compact_text(layout: Layout) -> str:
    """The compact-form text of a layout (deterministic: the same design, the same bytes)."""
    from rackdesigner.io.schema import CURRENT_VERSION
    from rackdesigner.io.writer import _device_line, _group_line, _link_line, inline, scalar

    instances = _find_instances(layout)
    names: dict[tuple, str] = {}
    used: dict[str, int] = {}
    for inst in instances:
        if inst.signature not in names:
            base = inst.root.template or inst.root.kind
            used[base] = used.get(base, 0) + 1
            names[inst.signature] = base if used[base] == 1 else f"{base}-{used[base]}"
    meta = layout.meta
    out = [HEADER, f"schema_version: {CURRENT_VERSION}\n"]
    if meta.name:
        out.append(f"name: {scalar(meta.name)}\n")
    if meta.description:
        out.append(f"description: {scalar(meta.description)}\n")
    for key, value in sorted(meta.extra):
        out.append(f"{scalar(key)}: {inline(value)}\n")
    templates = sorted(names.items(), key=lambda kv: _key(kv[1]))
    if templates:
        out.append("templates:\n")
        for (kind, template, *_), tid in templates:
            pairs = [("id", tid)] + ([("kind", kind)] if kind != "group" else [])
            pairs += [("template", template)] if template else []
            out.append(_flow(pairs, inline))
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
            out.append(_flow(pairs, inline))
    taken_groups = {g for inst in instances for g in inst.groups}
    taken_devices = {d.id for inst in instances for d in inst.devices}
    taken_links = {k.id for inst in instances for k in inst.links}
    sections = (
        ("groups", [g for g in layout.groups() if g.id not in taken_groups], _group_line),
        ("devices", [d for d in layout.devices() if d.id not in taken_devices], _device_line),
        ("links", [k for k in (*layout.links(), *layout.unresolved_links)
                   if k.id not in taken_links], _link_line),
    )
    for name, items, line in sections:
        if items:
            items.sort(key=lambda item: _key(item.id))
            out.append(f"{name}:\n")
            out.extend(line(item) for item in items)
    # the end check counts the design's groups, devices and links, as the plain form does
    out.append(endcheck.end_line(sum(1 for _ in layout.groups()), layout.device_count(),
                                 layout.link_count() + len(layout.unresolved_links)))
    return "".join(out)


def _template_sections(templates: list[tuple[tuple, str]], inline) -> Iterable[str]:
    groups, devices, links = [], [], []
    for (_, _, rel_groups, rel_devices, rel_links), tid in templates:
        for gid, name, kind, parent, collapsed, template in rel_groups:
            pairs: list[tuple[str, Any]] = [("of", tid), ("id", gid)]
            pairs += [("name", name)] if name else []
            pairs += [("kind", kind)] if kind != "group" else []
            pairs += [("parent", parent)] if parent is not None else []
            pairs += [("collapsed", True)] if collapsed else []
            pairs += [("template", template)] if template is not None else []
            groups.append(_flow(pairs, inline))
        for did, model, name, rel, du, group, props in rel_devices:
            pairs = [("of", tid), ("id", did), ("model", model)]
            pairs += [("name", name)] if name else []
            pairs += [("pos", list(rel))] if rel != (0.0, 0.0) else []
            pairs += [("du", du)] if du is not None else []
            pairs += [("group", group)] if group is not None else []
            pairs += sorted(props)
            devices.append(_flow(pairs, inline))
        for lid, a, b, count, cable, length in rel_links:
            pairs = [("of", tid), ("id", lid), ("a", a), ("b", b)]
            pairs += [("count", count)] if count != 1 else []
            pairs += [("cable", cable)] if cable is not None else []
            pairs += [("length_m", length)] if length is not None else []
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
    text = dump_compact_text(layout)
    if hasattr(target, "write"):
        target.write(text)  # type: ignore[union-attr]
        return
    atomic.write_text(Path(target), text)  # type: ignore[arg-type]


# ---- reading ---------------------------------------------------------------------------------
def parse_compact(text: str, path: str, catalog: Catalog | None = None,
                  end: endcheck.EndMark | None = None) -> Layout:
    """Build a Layout from compact-form text; `LayoutFileError` (located) for anything wrong.

    `end` is the file's end check (`endcheck.read_end`): its counts are the expanded design's.
    """
    from rackdesigner.io import reader

    doc = _read_sections(text, path, reader)
    builder = reader._Builder(path, catalog)
    top = doc.pop("", reader._Entry())
    version = top.get("schema_version")
    if version is None:
        raise builder.fail(1, "missing 'schema_version' (expected schema_version: 1)")
    from rackdesigner.io.schema import CURRENT_VERSION

    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise builder.fail(top.line_of("schema_version"), "schema_version must be a whole "
                           f"number >= 1, got {version!r}")
    if version > CURRENT_VERSION:
        raise builder.fail(top.line_of("schema_version"), f"this file uses schema_version "
                           f"{version}, written by a newer RackDesigner; this version reads up "
                           f"to {CURRENT_VERSION}. Upgrade RackDesigner to open it")
    builder._check_keys(top, ("schema_version", "name", "description"), "layout")
    meta = Meta(name=builder._opt_str(top, "name", "layout"),
                description=builder._opt_str(top, "description", "layout"),
                extra=reader._extensions(top))
    templates = _read_templates(doc, path, catalog, reader)
    groups: list[Group] = []
    devices: list[Device] = []
    links: list[Link] = []
    for entry in doc.get("instances", ()):
        _expand(entry, templates, builder, groups, devices, links)
    groups += [builder._group(e) for e in doc.get("groups", ())]
    devices += [builder._device(e) for e in doc.get("devices", ())]
    links += [builder._link(e) for e in doc.get("links", ())]
    if end is not None:
        problem = endcheck.mismatch_message(end, (len(groups), len(devices), len(links)))
        if problem is not None:
            raise builder.fail(end.line, problem)
    layout = Layout(catalog, meta)
    for group in reader._parents_first(groups, builder):
        builder._add(layout.add_group, group)
    for device in devices:
        if device.group is not None and not layout.has_group(device.group):
            raise builder.fail(builder.lines.get(device.id), f"device {device.id}: group "
                               f"{device.group!r} is not defined")
        builder._add(layout.add_device, device)
    for link in links:
        if layout.has_device(link.a.device) and layout.has_device(link.b.device):
            builder._add(layout.add_link, link)
        else:
            layout.add_unresolved_link(link)
    layout.source_path = path
    layout.source_lines = builder.lines
    layout.source_form = FORM  # type: ignore[attr-defined]  (saving keeps the form)
    layout.revision = 0
    return layout


class _Template:
    __slots__ = ("devices", "groups", "id", "kind", "links", "template")


def _read_templates(doc: dict, path: str, catalog: Catalog | None, reader) -> dict[str, Any]:
    templates: dict[str, _Template] = {}
    head = reader._Builder(path, catalog)
    for e in doc.get("templates", ()):
        head._check_keys(e, TEMPLATE_KEYS, "template")
        t = _Template()
        t.id = head._id(e, "template")
        t.kind = head._opt_str(e, "kind", f"template {t.id}") or "group"
        t.template = head._opt_ref(e, "template", f"template {t.id}")
        t.groups, t.devices, t.links = [], [], []
        templates[t.id] = t
    members: dict[str, Any] = {}
    for section, attr, parse in (("template-groups", "groups", "_group"),
                                 ("template-devices", "devices", "_device"),
                                 ("template-links", "links", "_link")):
        for e in doc.get(section, ()):
            owner = e.pop("of", None)
            if owner not in templates:
                raise head.fail(e.line, f"{section}: 'of' must name a template of this file "
                                f"({', '.join(templates) or 'none defined'}), got {owner!r}")
            du = e.pop("du", None) if attr == "devices" else None
            if du is not None and (isinstance(du, bool) or not isinstance(du, int)):
                raise head.fail(e.line, f"template {owner}: 'du' must be a whole number of "
                                f"rack units, got {du!r}")
            builder = members.setdefault(owner, reader._Builder(path, catalog))
            item = getattr(builder, parse)(e)
            getattr(templates[owner], attr).append((item, du, e.line))
    return templates


def _expand(entry: Any, templates: dict[str, Any], builder: Any, groups: list[Group],
            devices: list[Device], links: list[Link]) -> None:
    builder._check_keys(entry, INSTANCE_KEYS, "instance")
    root = builder._id(entry, "instance")
    what = f"instance {root}"
    line = entry.line
    t = templates.get(entry.get("of"))
    if t is None:
        raise builder.fail(entry.line_of("of"), f"{what}: 'of' must name a template of this "
                           f"file ({', '.join(templates) or 'none defined'}), got "
                           f"{entry.get('of')!r}")
    pos = entry.get("pos", (0.0, 0.0))
    from rackdesigner.io.reader import _finite_pair

    xy = _finite_pair(pos)
    if xy is None:
        raise builder.fail(entry.line_of("pos"), f"{what}: 'pos' must be [x, y] with two "
                           f"finite numbers, got {pos!r}")
    u = entry.get("u")
    if u is not None and (isinstance(u, bool) or not isinstance(u, int) or not 0 < u < 10**4):
        raise builder.fail(entry.line_of("u"), f"{what}: 'u' must be a whole number of rack "
                           f"units, got {u!r}")
    rack = builder._opt_ref(entry, "rack", what)
    groups.append(Group(root, builder._opt_str(entry, "name", what), t.kind,
                        builder._opt_ref(entry, "parent", what),
                        builder._opt_bool(entry, "collapsed", what), t.template))
    prefix = root + "."
    lines = builder.lines
    x0, y0 = xy
    for g, _, _ in t.groups:
        gid = prefix + g.id
        _claim(builder, gid, line)
        groups.append(Group(gid, g.name, g.kind, root if g.parent is None else prefix + g.parent,
                            g.collapsed, g.template))
    for d, du, _ in t.devices:
        did = prefix + d.id
        _claim(builder, did, line)
        du_u = None if du is None else (u or 0) + du
        if du_u is not None and not 0 < du_u < 10**4:
            raise builder.fail(line, f"{what}: device {d.id} would be at U{du_u}")
        devices.append(Device(did, d.model, d.name, (x0 + d.pos[0], y0 + d.pos[1]), rack, du_u,
                              root if d.group is None else prefix + d.group, d.props))
    for k, _, _ in t.links:
        lid = prefix + k.id
        _claim(builder, lid, line)
        links.append(Link(lid, PortRef(prefix + k.a.device, k.a.group, k.a.index),
                          PortRef(prefix + k.b.device, k.b.group, k.b.index), k.count, k.cable,
                          k.length_m))
    del lines


def _claim(builder: Any, object_id: str, line: int) -> None:
    if object_id in builder.lines:
        raise builder.fail(line, f"id {object_id!r} is used twice (first on line "
                           f"{builder.lines[object_id]}); ids must be unique across groups, "
                           "devices and links")
    builder.lines[object_id] = line


def _pairs(inner: str) -> list[tuple[str, Any]]:
    """The pairs of a flow mapping as the writer writes it; also takes double-quoted text
    without escapes (names), which the plain form's fast reader hands to YAML one line at a
    time. Anything else raises `fastread._NotFast` (the caller then uses YAML)."""
    if '"' not in inner:
        return fastread._entry_pairs(inner)
    pairs: list[tuple[str, Any]] = []
    i, n = 0, len(inner)
    while i < n:
        j = inner.find(": ", i)
        if j < 0 or not fastread._KEY.fullmatch(inner, i, j):
            raise fastread._NotFast
        key = inner[i:j]
        i = j + 2
        first = inner[i:i + 1]
        if first == '"':
            k = inner.find('"', i + 1)
            if k < 0 or "\\" in inner[i + 1:k]:
                raise fastread._NotFast
            value: Any = inner[i + 1:k]
            i = k + 1
        elif first == "[":
            k = inner.find("]", i)
            items = inner[i + 1:k].split(", ") if k > 0 else []
            if len(items) != 2:
                raise fastread._NotFast
            value = [fastread._scalar(items[0]), fastread._scalar(items[1])]
            i = k + 1
        else:
            k = inner.find(", ", i)
            k = n if k < 0 else k
            value = fastread._scalar(inner[i:k])
            i = k
        pairs.append((key, value))
        if i < n:
            if not inner.startswith(", ", i):
                raise fastread._NotFast
            i += 2
    return pairs


def _read_sections(text: str, path: str, reader) -> dict[str, list]:
    """Section name -> entries (with lines); "" -> the top-level scalar keys."""
    top = reader._Entry()
    top.line = 1
    top.key_lines = {}
    doc: dict[str, Any] = {"": top}
    section: list | None = None
    known = (*COMPACT_SECTIONS, *PLAIN_SECTIONS)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line or line.startswith("#") or line.isspace():
            continue
        if line.startswith("- {") and line.endswith("}") and section is not None:
            entry = reader._Entry()
            entry.line = number
            entry.key_lines = {}
            try:
                for key, value in _pairs(line[3:-1]):
                    if key in entry:
                        raise fastread._NotFast
                    entry[key] = value
            except fastread._NotFast:
                parsed = reader._parse_line(line, number)
                if not isinstance(parsed, list) or len(parsed) != 1 or not isinstance(
                        parsed[0], dict):
                    raise LayoutFileError(path, "expected one '- {key: value, ...}' entry on "
                                          "this line (the compact form keeps each entry on "
                                          "one line)", number) from None
                entry = parsed[0]
            section.append(entry)
            continue
        key, sep, rest = line.partition(":")
        if key in known and sep and not rest.strip():
            if key in doc:
                raise LayoutFileError(path, f"section '{key}' appears twice", number)
            section = doc[key] = []
            continue
        if line[0] in " -\t" or not sep:
            raise LayoutFileError(path, "expected 'key: value', a section name "
                                  f"({', '.join(known)}) or a '- {{...}}' entry", number)
        section = None
        parsed = reader._parse_line(line, number)
        if not isinstance(parsed, dict) or len(parsed) != 1:
            raise LayoutFileError(path, "expected 'key: value' on one line", number)
        ((name, value),) = parsed.items()
        if name in top:
            raise LayoutFileError(path, f"key {name!r} appears twice", number)
        top[name] = value
        top.key_lines[name] = number
    return doc
