"""Read layout YAML: safe parse → migrate → validate shapes → build a `Layout`.

Every problem raises `LayoutFileError` naming the file, the line (and column where YAML gives
one), what is wrong and what was expected. Design-rule problems (unknown models, links to
missing devices, overfull racks...) are *not* load errors: the file loads and the rules report.
"""

from __future__ import annotations

import difflib
import re
from operator import attrgetter
from typing import Any, cast

from rackdesigner.catalog import Catalog
from rackdesigner.io import direct, endcheck, fastread, safety
from rackdesigner.io.entry_objects import EntryObjects
from rackdesigner.io.entry_values import _short, extensions, value_kind
from rackdesigner.io.errors import LayoutFileError
from rackdesigner.io.lined import Entry, Seq, SourceLines, line_loader, parse_line
from rackdesigner.io.schema import (
    CURRENT_VERSION,
    TOP_KEYS,
    migrate,
)
from rackdesigner.model import Device, Group, Layout, LayoutError, Link, Meta

#: Groups nest pod > SU > rack > node in real designs; deeper chains only come from broken or
#: hostile files and would exhaust recursion in the views.
MAX_GROUP_DEPTH = 64
_BOM_ENCODINGS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
                  (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


_ID_OF = attrgetter("id")
_GROUP_OF = attrgetter("group")
_A_DEVICE = attrgetter("a.device")
_B_DEVICE = attrgetter("b.device")


def parse_text(raw: str | bytes, path: str, catalog: Catalog | None = None,
               progress: fastread.Progress | None = None) -> Layout:
    """Build a Layout from YAML text or bytes; `path` labels messages. `progress(stage,
    fraction)` is called now and then (it may raise `fastread.ReadCancelled` to stop).

    On a large design, callers that can afford it hold the garbage collector off meanwhile
    and freeze what they keep (`model/gcpause.py`; the CLI, the designer's open dialog)."""
    return _parse_text(raw, path, catalog, progress)


def _parse_text(raw: str | bytes, path: str, catalog: Catalog | None,
                progress: fastread.Progress | None) -> Layout:
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if len(data) > safety.MAX_CANONICAL_BYTES:
        raise LayoutFileError(path, f"file is {len(data) / 2**20:.0f} MiB; layouts larger than "
                              f"{safety.MAX_CANONICAL_BYTES // 2**20} MiB are refused")
    for bom, encoding in _BOM_ENCODINGS:
        if data.startswith(bom):
            raise LayoutFileError(path, f"the file is {encoding} text; layout files must be "
                                  "UTF-8 (save it again as UTF-8)")
    if b"\x00" in data[:8192]:
        raise LayoutFileError(path, "this is a binary file, not a YAML layout (expected UTF-8 "
                              "text)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LayoutFileError(path, "not UTF-8 text (a YAML layout was expected)", line) from None
    end = endcheck.read_end(text)
    if end.required and end.counts is None:
        raise LayoutFileError(path, endcheck.missing_end_message(end), end.line or None)
    from rackdesigner.io import compact

    if compact.is_compact(text):  # node templates placed N times (io/compact.py)
        return compact.parse_compact(text, path, catalog, end, progress)
    whole = direct.Whole()
    doc = fastread.read_canonical(text, Entry, Seq, parse_line, safety.MAX_NODES,
                                  _DIRECT, CURRENT_VERSION, progress, whole.readers)
    if doc is not None:
        return EntryReader(path, catalog, progress).build(doc, end, whole)
    if len(data) > safety.MAX_BYTES:
        raise LayoutFileError(path, f"file is {len(data) / 2**20:.0f} MiB; hand-formatted "
                              f"layouts larger than {safety.MAX_BYTES // 2**20} MiB are refused "
                              "(files RackDesigner saved may be larger)")
    from rackdesigner import yamlfile  # the general path: not the canonical form (`fastread`)

    if safety.might_nest_deeply(data, text):
        too_deep, deep_line = yamlfile.exact_depth_exceeds(text, path)
        if too_deep:
            raise LayoutFileError(path, f"{yamlfile.M_NESTED}; a layout has at most 4",
                                  deep_line)
    if len(data) > safety.COUNT_NODES_ABOVE:
        too_many, many_line = yamlfile.node_count_exceeds(text, path, safety.MAX_NODES)
        if too_many:
            raise LayoutFileError(path, f"more than {safety.MAX_NODES:,} values; this is "
                                  "larger than any layout RackDesigner can open", many_line)
    doc = yamlfile.load_checked(text, path, line_loader())
    return EntryReader(path, catalog, progress).build(doc, end)


_DIRECT = {"groups": direct.direct_group, "devices": direct.direct_device,
           "links": direct.direct_link}


class EntryReader(EntryObjects):
    """Turns a layout file's entries into model objects, each problem a `LayoutFileError` at
    its line; and assembles the objects into a Layout. It is the one reader of layout content:
    the plain form (`parse_text`) and the compact form (`compact_read`) both read their head,
    groups, devices and links with it, so a new field is read (and checked) in one place.

    `lines` maps every id taken so far to its line (ids are unique across groups, devices and
    links); `take_id` and `claim` add to it."""

    def __init__(self, path: str, catalog: Catalog | None,
                 progress: fastread.Progress | None = None) -> None:
        self.path = path
        self.catalog = catalog
        self.lines = SourceLines()
        #: a section read whole (`items`): its objects by id, in order (the state files them)
        self.by_id: dict[type, dict[str, Any]] = {}
        self.progress = progress

    def report(self, stage: str, fraction: float) -> None:
        if self.progress is not None:
            self.progress(stage, fraction)

    def fail(self, line: int | None, message: str) -> LayoutFileError:
        return LayoutFileError(self.path, message, line)

    def build(self, doc: Any, end: endcheck.EndMark | None = None,
              whole: direct.Whole | None = None) -> Layout:
        """The Layout of a plain-form document (`Entry` containers with lines); `whole`: the
        readers that made its objects from whole pieces of the file (`direct.Whole`)."""
        if doc is None:
            raise self.fail(None, "the file is empty; expected a layout mapping starting with "
                            f"'schema_version: {CURRENT_VERSION}'")
        if not isinstance(doc, dict):
            raise self.fail(getattr(doc, "line", None), "expected a mapping at the top "
                            f"(schema_version, devices, links...), got {value_kind(doc)}")
        doc = cast(Entry, migrate(doc, self.schema_version(cast(Entry, doc))))
        self.check_keys(doc, TOP_KEYS, "layout")
        meta = self.meta(doc)
        catalog = self.catalog_of(doc, meta)
        entries = [self._entries(doc, name) for name in endcheck.SECTIONS]
        if end is not None:
            self.check_end(end, (len(entries[0]), len(entries[1]), len(entries[2])))
        self.report("checking", 0.0)
        groups = self.items(entries[0], Group, self.group)
        devices = self.items(entries[1], Device, self.device)
        self.report("checking", 0.3)
        links = self.items(entries[2], Link, self.link)
        known = whole is not None and whole.ends_resolved(len(links))
        return self.assemble(catalog, meta, groups, devices, links, ends_resolved=known)

    # ---- the head and the whole -----------------------------------------------------------
    def schema_version(self, doc: Entry) -> int:
        """The document's `schema_version`: a whole number this version reads, or a located
        error (a newer file says to upgrade)."""
        line = doc.line_of("schema_version")
        version = doc.get("schema_version")
        if version is None:
            raise self.fail(doc.line, f"missing 'schema_version' (expected schema_version: "
                            f"{CURRENT_VERSION} as the first key)")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise self.fail(line, "schema_version must be a whole number >= 1 (expected "
                            f"schema_version: {CURRENT_VERSION}), got {_short(version)}")
        if version > CURRENT_VERSION:
            raise self.fail(line, f"this file uses schema_version {_short(version)}, written "
                            f"by a newer RackDesigner; this version reads up to "
                            f"{CURRENT_VERSION}. Upgrade RackDesigner to open it")
        return version

    def meta(self, doc: Entry) -> Meta:
        """The layout's own fields (name, description, sharp, site, x-... extensions)."""
        return Meta(name=self.opt_str(doc, "name", "layout"),
                    description=self.opt_str(doc, "description", "layout"),
                    extra=extensions(doc), sharp=self.opt_bool(doc, "sharp", "layout"),
                    site=self.site(doc))

    def check_end(self, end: endcheck.EndMark, found: tuple[int, int, int]) -> None:
        """The file's end check against the (groups, devices, links) it holds."""
        problem = endcheck.mismatch_message(end, found)
        if problem is not None:
            raise self.fail(end.line, problem)

    def assemble(self, catalog: Catalog | None, meta: Meta, groups: list[Group],
                 devices: list[Device], links: list[Link], *,
                 ends_resolved: bool = False) -> Layout:
        """One Layout of the objects read (each id taken through this reader): groups parents
        first, a device's group defined, links whose ends are missing kept as unresolved (the
        design rules report them; saving keeps them), all in one new state."""
        self.report("building", 0.0)
        layout = Layout(catalog, meta)
        ordered = _parents_first(groups, self)
        group_ids = {g.id for g in ordered}
        if not set(map(_GROUP_OF, devices)) <= {None, *group_ids}:
            self._group_missing(layout, ordered, devices, group_ids)
        resolved = links if ends_resolved else _resolved_links(layout, devices, links)
        device_map, link_map = self.by_id.get(Device), self.by_id.get(Link)
        by_id = None
        if (device_map is not None and link_map is not None and len(device_map) == len(devices)
                and len(link_map) == len(resolved)):
            by_id = (device_map, link_map)  # the sections read whole: filed as they are
        # ids (syntax, uniqueness), parents, groups and link ends were all checked above, so
        # add_all need not check them again
        layout.add_all(ordered, devices, resolved, on_error=self.refused, checked=True,
                       by_id=by_id)
        layout.source_path = self.path
        layout.source_lines = self.lines
        layout.revision = 0
        return layout

    def _group_missing(self, layout: Layout, ordered: list[Group], devices: list[Device],
                       group_ids: set[str]) -> None:
        """The located error for the first device whose group is not defined."""
        for device in devices:
            if device.group is not None and device.group not in group_ids:
                layout.add_all(ordered, on_error=self.refused)  # the same message as before
                raise self.fail(self.lines.get(device.id), f"device {device.id}: group "
                                f"{device.group!r} is not defined{_close(device.group, layout)}")

    def catalog_of(self, doc: Entry, meta: Meta) -> Catalog | None:
        """The catalog to build with: the given one, plus user models the file carries under
        `x-rackdesigner-models` (catalog/user.py) that it lacks; invalid ones are located."""
        from rackdesigner.catalog.user import EMBED_KEY, catalog_with_embedded

        embedded = dict(meta.extra).get(EMBED_KEY)
        if embedded is None:
            return self.catalog
        from rackdesigner.catalog import default_catalog

        base = self.catalog if self.catalog is not None else default_catalog()
        catalog, problems = catalog_with_embedded(base, embedded, self.path)
        if problems:
            first = problems[0]
            line = _line_of_path(doc.get(EMBED_KEY), first.file.split(".", 1)[-1], first.path,
                                 doc.line_of(EMBED_KEY))
            raise self.fail(line, f"embedded model: {first}"
                            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        return catalog

    def refused(self, item: Device | Link | Group, exc: LayoutError) -> None:
        raise self.fail(self.lines.get(item.id), str(exc)) from None

    def claim(self, object_id: str, line: int) -> None:
        """Take an id made by the reader (the compact form's expanded ids) at `line`."""
        if object_id in self.lines:
            raise self.fail(line, f"id {object_id!r} is used twice (first on line "
                            f"{self.lines[object_id]}); ids must be unique across groups, "
                            "devices and links")
        self.lines[object_id] = line

def _line_of_path(node: Any, model_id: str, path: str, default: int) -> int:
    """The line of `model_id`'s key path (`ports[0].rate_gbps`) inside an embedded-models
    mapping, as far as the path leads; `default` when the structure is not there."""
    line = default
    steps: list[str | int] = [model_id]
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        steps.append(int(part[1:-1]) if part.startswith("[") else part)
    for step in steps:
        if isinstance(step, str) and isinstance(node, Entry) and step in node:
            line = node.line_of(step)
            node = node[step]
        elif isinstance(step, int) and isinstance(node, Seq) and step < len(node):
            line = node.item_lines[step]
            node = node[step]
        else:
            break
    return line


def _parents_first(groups: list[Group], builder: EntryReader) -> list[Group]:
    by_id = {g.id: g for g in groups}
    ordered: list[Group] = []
    state: dict[str, int] = {}
    depth: dict[str, int] = {}
    for group in groups:
        chain = []
        current: Group | None = group
        while current is not None and state.get(current.id) != 2:
            if state.get(current.id) == 1:
                raise builder.fail(builder.lines[current.id],
                                   f"group {current.id} is inside itself (parent cycle); "
                                   "a group's parents must lead to a top-level group")
            state[current.id] = 1
            chain.append(current)
            parent = current.parent
            if parent is not None and parent not in by_id:
                raise builder.fail(builder.lines[current.id], f"group {current.id}: parent "
                                   f"{parent!r} is not defined (expected the id of a group in "
                                   "this file)")
            current = by_id.get(parent) if parent is not None else None
        for item in reversed(chain):
            state[item.id] = 2
            ordered.append(item)
            depth[item.id] = depth.get(item.parent, 0) + 1 if item.parent else 1
            if depth[item.id] > MAX_GROUP_DEPTH:
                raise builder.fail(builder.lines[item.id], f"group {item.id} is nested "
                                   f"{depth[item.id]} groups deep; at most {MAX_GROUP_DEPTH} "
                                   "levels are supported (pod > SU > rack > node needs 4)")
    return ordered


def _close(name: str, layout: Layout) -> str:
    close = difflib.get_close_matches(name, [g.id for g in layout.groups()], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _resolved_links(layout: Layout, devices: list[Device], links: list[Link]) -> list[Link]:
    """The links whose two ends are devices of the file; the others are kept on `layout` as
    unresolved (design rules report them; saving keeps them)."""
    device_ids = set(map(_ID_OF, devices))
    ends = set(map(_A_DEVICE, links))
    ends.update(map(_B_DEVICE, links))
    if ends <= device_ids:
        return links  # every end there (the usual case): no loop over the links
    resolved = []
    for link in links:
        if link.a.device in device_ids and link.b.device in device_ids:
            resolved.append(link)
        else:
            layout.add_unresolved_link(link)
    return resolved


#: the names read through this module (the readers' parts are in lined.py and entry_values.py)
__all__ = ["MAX_GROUP_DEPTH", "Entry", "EntryReader", "Seq", "SourceLines", "extensions",
           "line_loader", "parse_line", "parse_text", "value_kind"]
