"""Reading the compact layout form (see `compact` for the format and why it exists).

The file is split into sections line by line (each entry a one-line flow mapping, read by the
plain form's fast scalar reader, YAML only for lines it does not take); templates are checked
once with the plain reader's own entry checks, then every instance is expanded into the groups,
devices and links the plain form would list, each reported at its instance's line. The end
check counts the expanded design.
"""

from __future__ import annotations

from typing import Any

from rackdesigner.catalog import Catalog
from rackdesigner.io import endcheck, fastread
from rackdesigner.io.compact import (
    COMPACT_SECTIONS,
    FORM,
    INSTANCE_KEYS,
    PLAIN_SECTIONS,
    TEMPLATE_KEYS,
)
from rackdesigner.io.errors import LayoutFileError
from rackdesigner.model import Device, Group, Layout, Link, Meta, PortRef
from rackdesigner.model.items import GROUP_KINDS


def parse_compact(text: str, path: str, catalog: Catalog | None = None,
                  end: endcheck.EndMark | None = None,
                  progress: fastread.Progress | None = None) -> Layout:
    """Build a Layout from compact-form text; `LayoutFileError` (located) for anything wrong.

    `end` is the file's end check (`endcheck.read_end`): its counts are the expanded design's.
    """
    from rackdesigner.io import reader

    doc = _read_sections(text, path, reader, progress)
    builder = reader._Builder(path, catalog, progress)
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
    builder._check_keys(top, ("schema_version", "name", "description", "sharp", "site"),
                        "layout")
    meta = Meta(name=builder._opt_str(top, "name", "layout"),
                description=builder._opt_str(top, "description", "layout"),
                extra=reader._extensions(top),
                sharp=builder._opt_bool(top, "sharp", "layout"), site=builder._site(top))
    catalog = builder.catalog = builder._catalog(top, meta)  # plus models the file embeds
    templates = _read_templates(doc, path, catalog, reader)
    groups: list[Group] = []
    devices: list[Device] = []
    links: list[Link] = []
    instances = doc.get("instances", ())
    for number, entry in enumerate(instances):
        if number % 512 == 0:
            builder.report("expanding", number / max(1, len(instances)))
        _expand(entry, templates, builder, groups, devices, links)
    groups += [builder._group(e) for e in doc.get("groups", ())]
    devices += [builder._device(e) for e in doc.get("devices", ())]
    links += [builder._link(e) for e in doc.get("links", ())]
    if end is not None:
        problem = endcheck.mismatch_message(end, (len(groups), len(devices), len(links)))
        if problem is not None:
            raise builder.fail(end.line, problem)
    builder.report("building", 0.0)
    layout = Layout(catalog, meta)
    ordered = reader._parents_first(groups, builder)
    group_ids = {g.id for g in ordered}
    for device in devices:
        if device.group is not None and device.group not in group_ids:
            raise builder.fail(builder.lines.get(device.id), f"device {device.id}: group "
                               f"{device.group!r} is not defined")
    resolved = reader._resolved_links(layout, devices, links)
    # one new state for the whole design (per-object adds were half of the load at 100k)
    layout.add_all(ordered, devices, resolved, on_error=builder._refused)
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
        if t.kind not in GROUP_KINDS:
            raise head.fail(e.line_of("kind"), f"template {t.id}: kind {t.kind!r} is not one "
                            f"of {', '.join(GROUP_KINDS)}")
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
    xy = builder._pos(entry, what)
    u = builder._unit(entry, what)
    rack = builder._opt_ref(entry, "rack", what)
    groups.append(Group(root, builder._opt_str(entry, "name", what), t.kind,
                        builder._opt_ref(entry, "parent", what),
                        builder._opt_bool(entry, "collapsed", what), t.template))
    prefix = root + "."
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


def _claim(builder: Any, object_id: str, line: int) -> None:
    if object_id in builder.lines:
        raise builder.fail(line, f"id {object_id!r} is used twice (first on line "
                           f"{builder.lines[object_id]}); ids must be unique across groups, "
                           "devices and links")
    builder.lines[object_id] = line


def _read_sections(text: str, path: str, reader,
                   progress: fastread.Progress | None = None) -> dict[str, list]:
    """Section name -> entries (with lines); "" -> the top-level scalar keys."""
    top = reader._Entry()
    top.line = 1
    top.key_lines = {}
    doc: dict[str, Any] = {"": top}
    section: list | None = None
    known = (*COMPACT_SECTIONS, *PLAIN_SECTIONS)
    total = text.count("\n") + 1
    for number, line in enumerate(fastread.split_lines(text), start=1):
        if progress is not None and number % 16384 == 0:
            progress("reading", number / total)
        if not line or line.startswith("#") or line.isspace():
            continue
        if line.startswith("- {") and line.endswith("}") and section is not None:
            entry = reader._Entry()
            entry.line = number
            entry.key_lines = {}
            try:
                for key, value in fastread.flow_pairs(line[3:-1]):
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
