"""Reading the compact layout form (see `compact` for the format and why it exists).

The file is split into sections by the plain form's reader (`fastread.read_canonical`, in its
strict form: each entry a one-line flow mapping, YAML only for lines it does not take, the
plain sections' devices and links made a piece at a time as there); templates are checked
once with the plain reader's own entry checks, then every instance is expanded into the groups,
devices and links the plain form would list, each reported at its instance's line. The end
check counts the expanded design.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import fields
from typing import Any, cast

from rackdesigner.catalog import Catalog
from rackdesigner.io import direct, endcheck, fastread
from rackdesigner.io.compact import (
    COMPACT_SECTIONS,
    FORM,
    INSTANCE_KEYS,
    PLAIN_SECTIONS,
    TEMPLATE_KEYS,
)
from rackdesigner.io.errors import LayoutFileError
from rackdesigner.io.reader import Entry, EntryReader, Seq, parse_line
from rackdesigner.io.schema import CURRENT_VERSION
from rackdesigner.model import Device, Group, Layout, Link
from rackdesigner.model.items import (
    GROUP_KINDS,
    MAX_COORD,
    MAX_U,
    device_problem,
    fast_maker,
    position,
)

_DIRECT = {"devices": direct.direct_device, "links": direct.direct_link}
#: the plain sections' objects made a piece at a time (`direct`; groups stay entries)
_WHOLE: dict[str, fastread.Bulk] = {"devices": (direct.device_rows, direct.devices_from),
                                    "links": (direct.link_rows, direct.links_from)}
#: the keys of the compact form's head (the plain form's top keys less its sections)
HEAD_KEYS = ("schema_version", "name", "description", "sharp", "site")


def parse_compact(text: str, path: str, catalog: Catalog | None = None,
                  end: endcheck.EndMark | None = None,
                  progress: fastread.Progress | None = None) -> Layout:
    """Build a Layout from compact-form text; `LayoutFileError` (located) for anything wrong.

    `end` is the file's end check (`endcheck.read_end`): its counts are the expanded design's.
    """
    doc = _read_sections(text, path, progress)
    reader = EntryReader(path, catalog, progress)
    top = doc.pop("", Entry())
    assert isinstance(top, Entry)
    reader.schema_version(top)
    reader.check_keys(top, HEAD_KEYS, "layout")
    meta = reader.meta(top)
    catalog = reader.catalog = reader.catalog_of(top, meta)  # plus models the file embeds
    templates = _read_templates(doc, path, catalog)
    groups: list[Group] = []
    devices: list[Device] = []
    links: list[Link] = []
    instances = doc.get("instances", ())
    for number, entry in enumerate(instances):
        if number % 512 == 0:
            reader.report("expanding", number / max(1, len(instances)))
        _expand(entry, templates, reader, groups, devices, links)
    groups += [reader.group(e) for e in doc.get("groups", ())]
    # lines the fast reader took whole are objects already (fastread.direct_*)
    devices += reader.items(doc.get("devices", []), Device, reader.device)
    links += reader.items(doc.get("links", []), Link, reader.link)
    if end is not None:
        reader.check_end(end, (len(groups), len(devices), len(links)))
    layout = reader.assemble(catalog, meta, groups, devices, links)
    layout.source_form = FORM  # saving keeps the form
    return layout


#: `_copier`'s functions: the changed fields in, the copy out
_Copier = Callable[..., Any]


class _Template:
    """A node written once: its kind and catalog template, and its groups, devices and links
    (each with its `du`, or a link with where its ends are in `ends`, and its `_Copier`s)."""

    __slots__ = ("devices", "extent", "groups", "id", "kind", "links", "outside", "template")
    devices: list[tuple[Device, int | None, _Copier]]
    groups: list[tuple[Group, None, _Copier]]
    id: str
    kind: str
    links: list[tuple[Link, tuple[int, int], tuple[_Copier, _Copier, _Copier]]]
    #: the ids links' ends name that are not the template's devices (an instance's id is put
    #: before them too): `ends` of an instance are its devices' ids, then these
    outside: list[str]
    template: str | None
    extent: tuple[float, float, float, float] | None

    def within_bounds(self, x0: float, y0: float) -> bool:
        """Would every device stand within the model's bound (`items.position`) at (x0, y0)?
        The extremes of the sums are the sums of the extremes (a float sum keeps the order of
        its terms), so one check per instance decides what checking each device would."""
        if self.devices and self.extent is None:
            xs = [d.pos[0] for d, _, _ in self.devices]
            ys = [d.pos[1] for d, _, _ in self.devices]
            self.extent = (min(xs), max(xs), min(ys), max(ys))
        if self.extent is None:
            return True
        lo_x, hi_x, lo_y, hi_y = self.extent
        return (x0 + lo_x >= -MAX_COORD and x0 + hi_x <= MAX_COORD
                and y0 + lo_y >= -MAX_COORD and y0 + hi_y <= MAX_COORD)


def _read_templates(doc: dict, path: str, catalog: Catalog | None) -> dict[str, Any]:
    templates: dict[str, _Template] = {}
    head = EntryReader(path, catalog)
    for e in doc.get("templates", ()):
        head.check_keys(e, TEMPLATE_KEYS, "template")
        t = _Template()
        t.id = head.take_id(e, "template")
        t.kind = head.opt_str(e, "kind", f"template {t.id}") or "group"
        if t.kind not in GROUP_KINDS:
            raise head.fail(e.line_of("kind"), f"template {t.id}: kind {t.kind!r} is not one "
                            f"of {', '.join(GROUP_KINDS)}")
        t.template = head.opt_ref(e, "template", f"template {t.id}")
        t.groups, t.devices, t.links, t.outside = [], [], [], []
        t.extent = None
        templates[t.id] = t
    members: dict[str, EntryReader] = {}
    where: dict[str, dict[str, int]] = {}  # per template (`_end`)
    for section, attr in (("template-groups", "groups"), ("template-devices", "devices"),
                          ("template-links", "links")):
        for e in doc.get(section, ()):
            owner = e.pop("of", None)
            if owner not in templates:
                raise head.fail(e.line, f"{section}: 'of' must name a template of this file "
                                f"({', '.join(templates) or 'none defined'}), got {owner!r}")
            du = e.pop("du", None) if attr == "devices" else None
            if du is not None and (isinstance(du, bool) or not isinstance(du, int)):
                raise head.fail(e.line, f"template {owner}: 'du' must be a whole number of "
                                f"rack units, got {du!r}")
            reader = members.setdefault(owner, EntryReader(path, catalog))
            read = {"groups": reader.group, "devices": reader.device, "links": reader.link}[attr]
            item: Any = read(e)
            if attr == "links":
                copy: Any = (_copier(item, ("id", "a", "b")), _copier(item.a, ("device",)),
                             _copier(item.b, ("device",)))
                t = templates[owner]
                if owner not in where:
                    where[owner] = {d.id: i for i, (d, _, _) in enumerate(t.devices)}
                du = (_end(t, where[owner], item.a.device), _end(t, where[owner], item.b.device))
            else:
                copy = _copier(item, _PLACED[attr])
            getattr(templates[owner], attr).append((item, du, copy))
    return templates


def _end(t: _Template, where: dict[str, int], device_id: str) -> int:
    """Where a link end naming `device_id` finds its id in an instance's `ends`, so that it
    holds its device's own id string; `where`: the template's device ids -> their places
    (its devices are all read before its links), and the outside ids found so far."""
    found = where.get(device_id)
    if found is None:
        found = where[device_id] = len(t.devices) + len(t.outside)
        t.outside.append(device_id)
    return found


#: the fields an instance sets on a template's group and device (links: id and ends' devices)
_PLACED = {"groups": ("id", "parent"), "devices": ("id", "pos", "rack", "u", "group")}


def _copier(item: Any, changed: tuple[str, ...]) -> _Copier:
    """A function making copies of `item` with the fields `changed` set anew (its arguments,
    in that order), every other field (any added to the model later too) kept as it is:
    `dataclasses.replace` at the cost of the constructor (an instance of a 100k-GPU design's
    node template is ~120 objects, 12,800 times). Written as source, as `fast_maker` is, so a
    copy is one call with the kept values bound as keyword defaults."""
    namespace: dict[str, Any] = {"_make_": _maker(cast(Any, type(item)))}
    args, kept = [], []
    for i, f in enumerate(fields(item)):
        if f.name in changed:
            args.append(f"_n{changed.index(f.name)}")
        else:
            namespace[f"_v{i}"] = getattr(item, f.name)
            args.append(f"_v{i}")
            kept.append(f"_v{i}=_v{i}")
    params = ", ".join([*(f"_n{j}" for j in range(len(changed))), "*", "_make=_make_", *kept])
    exec(f"def copy({params}):\n    return _make({', '.join(args)})\n", namespace)
    return cast(_Copier, namespace["copy"])


@functools.cache
def _maker(cls: Any) -> Any:
    return fast_maker(cls)


def _expand(entry: Entry, templates: dict[str, Any], reader: EntryReader, groups: list[Group],
            devices: list[Device], links: list[Link]) -> None:
    """One instance: its group, then its template's groups, devices and links with the
    instance's id as their prefix, placed at its position, rack and U. Every other field of
    a template's object is kept as the template has it (`_Copier`)."""
    reader.check_keys(entry, INSTANCE_KEYS, "instance")
    root = reader.take_id(entry, "instance")
    what = f"instance {root}"
    line = entry.line
    of = entry.get("of")
    t = templates.get(of) if isinstance(of, str) else None
    if t is None:
        raise reader.fail(entry.line_of("of"), f"{what}: 'of' must name a template of this "
                          f"file ({', '.join(templates) or 'none defined'}), got "
                          f"{entry.get('of')!r}")
    xy = reader.pos(entry, what)
    u = reader.unit(entry, what)
    rack = reader.opt_ref(entry, "rack", what)
    groups.append(Group(root, reader.opt_str(entry, "name", what), t.kind,
                        reader.opt_ref(entry, "parent", what),
                        reader.opt_bool(entry, "collapsed", what), t.template,
                        reader.status(entry, what)))
    prefix = root + "."
    x0, y0 = xy
    if not t.within_bounds(x0, y0):
        _refuse_position(reader, t, root, (x0, y0), line)
    claim, lines = reader.claim, reader.lines
    has = lines.has()  # membership at C speed (nothing is filed in bulk meanwhile)
    ends: list[str] = []  # the ids links' ends name (`_Template.outside`)
    for g, _, copy in t.groups:
        gid = prefix + g.id
        claim(gid, line)
        groups.append(copy(gid, root if g.parent is None else prefix + g.parent))
    for d, du, copy in t.devices:
        did = prefix + d.id
        if has(did):
            claim(did, line)  # says where it was first
        lines[did] = line
        ends.append(did)
        du_u = None if du is None else (u or 0) + du
        if du_u is not None and not 0 < du_u <= MAX_U:
            raise reader.fail(line, f"{what}: device {d.id} would be at U{du_u}")
        devices.append(copy(did, (x0 + d.pos[0], y0 + d.pos[1]), rack, du_u,
                            root if d.group is None else prefix + d.group))
    ends += [prefix + device_id for device_id in t.outside]
    for k, (ia, ib), (copy, copy_a, copy_b) in t.links:
        lid = prefix + k.id
        if has(lid):
            claim(lid, line)
        lines[lid] = line
        links.append(copy(lid, copy_a(ends[ia]), copy_b(ends[ib])))


def _refuse_position(reader: EntryReader, t: _Template, root: str, xy: tuple[float, float],
                     line: int) -> None:
    """The located error, in the model's words, for the first device of the instance at `xy`
    that would stand past the model's bound."""
    for d, _, _ in t.devices:
        pos = (xy[0] + d.pos[0], xy[1] + d.pos[1])
        if position(pos) is None:
            problem = device_problem(Device(f"{root}.{d.id}", d.model, pos=pos))
            raise reader.fail(line, f"instance {root}: {problem}")


def _read_sections(text: str, path: str,
                   progress: fastread.Progress | None = None) -> dict[str, list]:
    """Section name -> entries (with lines); "" -> the top-level scalar keys. The plain
    form's reader (`fastread.read_canonical`), plain sections a piece at a time as there,
    in its strict form: where the plain form would try the general path, a located error."""
    top = Entry()
    top.line = 1
    top.key_lines = {}
    known = (*COMPACT_SECTIONS, *PLAIN_SECTIONS)

    def refuse(why: str, number: int, name: str) -> None:
        raise LayoutFileError(path, _REFUSALS[why].format(name=name, known=", ".join(known)),
                              number)

    doc = fastread.read_canonical(text, Entry, Seq, parse_line, sys.maxsize, _DIRECT,
                                  CURRENT_VERSION, progress, _WHOLE, sections=known, head=top,
                                  refuse=refuse)
    return {"": top, **(doc or {})}


#: `_read_sections`' errors, by `read_canonical`'s reason (`name`: the key or section)
_REFUSALS = {
    "entry": "expected one '- {{key: value, ...}}' entry on this line (the compact form keeps "
             "each entry on one line)",
    "section": "section '{name}' appears twice",
    "line": "expected 'key: value', a section name ({known}) or a '- {{...}}' entry",
    "top": "expected 'key: value' on one line",
    "twice": "key {name!r} appears twice",
}
