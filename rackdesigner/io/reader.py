"""Read layout YAML: safe parse → migrate → validate shapes → build a `Layout`.

Every problem raises `LayoutFileError` naming the file, the line (and column where YAML gives
one), what is wrong and what was expected. Design-rule problems (unknown models, links to
missing devices, overfull racks...) are *not* load errors: the file loads and the rules report.
"""

from __future__ import annotations

import difflib
import functools
import math
import re
from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import Any, cast

from rackdesigner.catalog import Catalog
from rackdesigner.io import endcheck, fastread, safety
from rackdesigner.io.errors import LayoutFileError
from rackdesigner.io.schema import (
    CURRENT_VERSION,
    DEVICE_KEYS,
    GROUP_KEYS,
    LINK_KEYS,
    TOP_KEYS,
    migrate,
)
from rackdesigner.model import Device, Group, Layout, LayoutError, Link, Meta, PortRef
from rackdesigner.model.items import (
    ACTIVE,
    GROUP_KINDS,
    ID_TEXT,
    MAX_COORD,
    NO_SITE,
    RACK_W_MAX,
    RACK_W_MIN,
    STATUSES,
    Site,
    is_valid_id,
    length_ok,
    link_count_ok,
    position,
    rack_unit_ok,
)

#: A rack's own power budget or air-cooling limit, W (model/items.py says why).
RACK_W = (RACK_W_MIN, RACK_W_MAX)
#: The model's port syntax (`PortRef.parse`), matched in full: its `$` also accepts a final "\n".
_PORT_TEXT = re.compile(rf"{ID_TEXT}:[A-Za-z][\w\-]*(?:\.\d+)?")
#: Groups nest pod > SU > rack > node in real designs; deeper chains only come from broken or
#: hostile files and would exhaust recursion in the views.
MAX_GROUP_DEPTH = 64
_BOM_ENCODINGS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
                  (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


class SourceLines(dict):
    """Object id -> the line it was read from (`Layout.source_lines`). The ids of a section
    read whole are kept as (ids, lines) and filed in the dict when first asked for: a validate
    that reports nothing, a simulate, never asks (1,000,000 ids at 100k GPUs: 0.35 s)."""

    __slots__ = ("_bulk",)

    def __init__(self) -> None:
        super().__init__()
        self._bulk: list[tuple[list[str], list[int]]] = []

    def add_bulk(self, ids: list[str], lines: list[int]) -> None:
        """Ids (unique, none of them here yet) with their lines, filed on first use."""
        self._bulk.append((ids, lines))

    def isdisjoint(self, ids: Any) -> bool:
        """None of `ids` (a set or a dict's keys) here: a check that files nothing."""
        return dict.keys(self).isdisjoint(ids) and all(ids.isdisjoint(bulk)
                                                       for bulk, _ in self._bulk)

    def mark(self) -> tuple[int, set[str]]:
        """What `restore` goes back to (the bulk sections; ids filed one by one from here)."""
        return len(self._bulk), set(dict.keys(self))

    def restore(self, mark: tuple[int, set[str]]) -> None:
        count, own = mark
        del self._bulk[count:]
        for key in [k for k in dict.keys(self) if k not in own]:
            dict.__delitem__(self, key)

    def _settled(self) -> SourceLines:
        while self._bulk:
            ids, lines = self._bulk.pop()
            self.update(zip(ids, lines, strict=True))
        return self

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self._settled() if self._bulk else self, key)

    def has(self) -> Callable[[object], bool]:
        """`in`, as a plain dict's (the bulk sections filed first), for a loop asking it per
        object that files nothing in bulk meanwhile."""
        return functools.partial(dict.__contains__, self._settled())

    def __getitem__(self, key: str) -> int:
        return dict.__getitem__(self._settled() if self._bulk else self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return dict.get(self._settled() if self._bulk else self, key, default)

    def __iter__(self) -> Iterator[str]:
        return dict.__iter__(self._settled())

    def __len__(self) -> int:
        return dict.__len__(self._settled())

    def keys(self) -> Any:
        return dict.keys(self._settled())

    def values(self) -> Any:
        return dict.values(self._settled())

    def items(self) -> Any:
        return dict.items(self._settled())

    def __eq__(self, other: object) -> bool:
        return dict.__eq__(self._settled(), other)

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (_source_lines, (dict(self.items()),))


def _source_lines(lines: dict[str, int]) -> SourceLines:
    made = SourceLines()
    made.update(lines)
    return made


_ID_OF = attrgetter("id")
_GROUP_OF = attrgetter("group")
_A_DEVICE = attrgetter("a.device")
_B_DEVICE = attrgetter("b.device")


class Entry(dict):
    """A mapping that remembers the line it started on and the line of each key."""

    __slots__ = ("key_lines", "line")
    key_lines: dict[str, int]
    line: int

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


class Seq(list):
    """A list that remembers the line it started on and the line of each item."""

    __slots__ = ("item_lines", "line")
    item_lines: list[int]
    line: int


@functools.cache
def _line_loader() -> Any:
    """The one strict loader (`yamlfile.strict_loader`: no aliases, duplicate keys, tags or
    oversized numbers) that also records the line of every mapping, key and list item.
    PyYAML is imported on first use: a file in the canonical form is read without it
    (`fastread`), and `rackdesigner simulate` then never spends the 10 ms of its import."""
    from rackdesigner.yamlfile import strict_loader

    class _LineLoader(strict_loader()):  # type: ignore[misc]
        def construct_yaml_map(self, node: Any):  # type: ignore[no-untyped-def]
            data = Entry()
            data.line = node.start_mark.line + 1
            data.key_lines = {}
            yield data
            for key_node, _ in node.value:
                if isinstance(key_node.value, str):
                    data.key_lines.setdefault(key_node.value, key_node.start_mark.line + 1)
            data.update(self.construct_mapping(node))  # refuses a key given twice

        def construct_yaml_seq(self, node: Any):  # type: ignore[no-untyped-def]
            data = Seq()
            data.line = node.start_mark.line + 1
            data.item_lines = [item.start_mark.line + 1 for item in node.value]
            yield data
            data.extend(self.construct_sequence(node))

    _LineLoader.add_constructor("tag:yaml.org,2002:map", _LineLoader.construct_yaml_map)
    _LineLoader.add_constructor("tag:yaml.org,2002:seq", _LineLoader.construct_yaml_seq)
    return _LineLoader


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
    doc = fastread.read_canonical(text, Entry, Seq, parse_line, safety.MAX_NODES,
                                  _DIRECT, CURRENT_VERSION, progress)
    if doc is not None:
        return EntryReader(path, catalog, progress).build(doc, end)
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
    doc = yamlfile.load_checked(text, path, _line_loader())
    return EntryReader(path, catalog, progress).build(doc, end)


_DIRECT = {"devices": fastread.direct_device, "links": fastread.direct_link}


def parse_line(line: str, number: int) -> Any | None:
    """One line through the safe loader, its lines set to `number`; None if it must not be
    parsed alone (too long, possibly deeply nested, invalid: the general path will report it)."""
    if len(line) > 65536 or safety.might_nest_deeply(line.encode("utf-8", "surrogatepass"), line):
        return None
    from rackdesigner.yamlfile import load_checked

    try:
        value = load_checked(line, "", _line_loader())
    except ValueError:  # InputError too: the general path reports it, located
        return None
    _set_lines(value, number)
    return value


def _set_lines(value: Any, number: int, depth: int = 0) -> None:
    """Every mapping and list in `value` (a one-line parse) on line `number`."""
    if isinstance(value, Entry):
        value.line = number
        value.key_lines = dict.fromkeys(value.key_lines, number)
        items: Any = value.values()
    elif isinstance(value, Seq):
        value.line = number
        value.item_lines = [number] * len(value)
        items = value
    elif isinstance(value, list):
        items = value
    else:
        return
    if depth < 8:
        for item in items:
            _set_lines(item, number, depth + 1)


class EntryReader:
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

    def build(self, doc: Any, end: endcheck.EndMark | None = None) -> Layout:
        """The Layout of a plain-form document (`Entry` containers with lines)."""
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
        groups = [self.group(e) for e in entries[0]]
        devices = self.items(entries[1], Device, self.device)
        self.report("checking", 0.3)
        links = self.items(entries[2], Link, self.link)
        return self.assemble(catalog, meta, groups, devices, links)

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
                 devices: list[Device], links: list[Link]) -> Layout:
        """One Layout of the objects read (each id taken through this reader): groups parents
        first, a device's group defined, links whose ends are missing kept as unresolved (the
        design rules report them; saving keeps them), all in one new state."""
        self.report("building", 0.0)
        layout = Layout(catalog, meta)
        ordered = _parents_first(groups, self)
        group_ids = {g.id for g in ordered}
        if not set(map(_GROUP_OF, devices)) <= {None, *group_ids}:
            self._group_missing(layout, ordered, devices, group_ids)
        resolved = _resolved_links(layout, devices, links)
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

    # ---- entries -------------------------------------------------------------------------
    def items(self, entries: list[Any], cls: Any, convert: Callable[[Entry], Any]) -> list[Any]:
        """The model objects of one section: entries converted (checked key by key), objects
        the fast reader built already (`fastread.direct_*`) taken with their lines."""
        lines = self.lines
        item_lines = getattr(entries, "item_lines", ()) or [0] * len(entries)
        if len(entries) > 64:
            made = self._items_in_bulk(entries, item_lines, cls, convert)
            if made is not None:
                return made
        out = []
        for item, line in zip(entries, item_lines, strict=True):
            if type(item) is not cls:
                out.append(convert(item))
                continue
            if item.id in lines:
                raise self.fail(line, f"id {item.id!r} is used twice (first on line "
                                f"{lines[item.id]}); ids must be unique across groups, "
                                "devices and links")
            lines[item.id] = line
            out.append(item)
        return out

    def _items_in_bulk(self, entries: list[Any], item_lines: list[int], cls: type,
                       convert: Callable[[Entry], Any]) -> list[Any] | None:
        """`items` with the ids of the objects the fast reader built checked all at once
        (a dict of them, which the new state keeps: `by_id`); None, with nothing taken, when
        anything is wrong (`items` then finds the first problem in line order)."""
        lines = self.lines
        mark = lines.mark()
        try:
            if set(map(type, entries)) == {cls}:  # every line read whole
                out = entries if type(entries) is list else list(entries)
                bulk_lines = item_lines
            else:
                out = [item if type(item) is cls else convert(item) for item in entries]
                bulk_lines = [line for item, line in zip(entries, item_lines, strict=True)
                              if type(item) is cls]
        except LayoutFileError:
            lines.restore(mark)
            return None
        ids = list(map(_ID_OF, out))
        by_id = dict(zip(ids, out, strict=True))
        direct = ids if bulk_lines is item_lines else [
            i for i, item in zip(ids, entries, strict=True) if type(item) is cls]
        if len(by_id) != len(out) or not lines.isdisjoint(
                by_id.keys() if direct is ids else set(direct)):
            lines.restore(mark)
            return None
        lines.add_bulk(direct, bulk_lines)
        self.by_id[cls] = by_id
        return out

    def _entries(self, doc: Entry, key: str) -> list[Entry]:
        value = doc.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(doc.line_of(key), f"'{key}' must be a list of mappings (one "
                            f"'- {{id: ...}}' per entry), got {value_kind(value)}")
        if all(issubclass(kind, dict | Device | Link) for kind in set(map(type, value))):
            return value  # objects: fastread.direct_*; entries: mappings
        for index, item in enumerate(value):
            if not isinstance(item, dict | Device | Link):
                lines = getattr(value, "item_lines", [doc.line] * len(value))
                raise self.fail(lines[index], f"each entry of '{key}' must be a "
                                f"mapping like {{id: ...}}, got {value_kind(item)}: {_short(item)}")
        return value

    def check_keys(self, entry: Entry, allowed: tuple[str, ...], what: str) -> None:
        for key in entry:
            if not isinstance(key, str):
                raise self.fail(entry.line, f"{what}: keys must be names, got {_short(key)}")
            if key not in allowed and not key.startswith("x-"):
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise self.fail(entry.line_of(key), f"{what}: unknown key {key!r}{hint} "
                                f"(known keys: {', '.join(allowed)}, or x-... for extensions)")

    def take_id(self, entry: Entry, what: str) -> str:
        line = entry.line_of("id")
        value = entry.get("id")
        if value is None:
            raise self.fail(entry.line, f"{what} without 'id' (expected e.g. id: gpu-1)")
        if not is_valid_id(value):
            raise self.fail(line, f"{what} id {_short(value)} is invalid: expected letters, "
                            "digits and . _ - (starting with a letter or digit)")
        if value in self.lines:
            raise self.fail(line, f"id {value!r} is used twice (first on line "
                            f"{self.lines[value]}); ids must be unique across groups, devices "
                            "and links")
        self.lines[value] = entry.line
        return value

    def group(self, e: Entry) -> Group:
        gid = self.take_id(e, "group")
        what = f"group {gid}"
        self.check_keys(e, GROUP_KEYS, what)
        kind = self.opt_str(e, "kind", what) or "group"
        if kind not in GROUP_KINDS:
            raise self.fail(e.line_of("kind"), f"{what}: kind {kind!r} is not one of "
                            f"{', '.join(GROUP_KINDS)}")
        return Group(gid, self.opt_str(e, "name", what), kind,
                     self.opt_ref(e, "parent", what), self.opt_bool(e, "collapsed", what),
                     self.opt_ref(e, "template", what), self.status(e, what))

    def device(self, e: Entry) -> Device:
        did = self.take_id(e, "device")
        what = f"device {did}"
        self.check_keys(e, DEVICE_KEYS, what)
        model = e.get("model")
        if not isinstance(model, str) or not model:
            raise self.fail(e.line_of("model"), f"{what}: 'model' must name a catalog model "
                            f"(e.g. h100-sxm5), got {_short(model)}")
        xy = self.pos(e, what)
        u = self.unit(e, what)
        props = extensions(e)
        if "power_budget_w" in e:  # a rack's own power budget (model/power.py BUDGET_PROP)
            budget = self.positive(e, "power_budget_w", what,
                                   "a positive number of watts (e.g. 40800)", RACK_W)
            props = tuple(sorted((*props, ("power_budget_w", budget))))
        if "face" in e:  # which side of its rack a mounted device faces (model/racks.py)
            face = e.get("face")
            if face not in ("front", "rear"):
                raise self.fail(e.line_of("face"), f"{what}: 'face' must be front or rear, "
                                f"got {_short(face)}")
            if face == "rear":
                props = tuple(sorted((*props, ("face", "rear"))))
        if "air_cooling_w" in e:  # a rack's own air-cooling limit (model/cooling.py)
            props = tuple(sorted((*props, ("air_cooling_w", self.positive(
                e, "air_cooling_w", what, "a positive number of watts (e.g. 40000)",
                RACK_W)))))
        if "serves" in e:  # the racks a CDU serves (model/cooling.py)
            props = tuple(sorted((*props, ("serves", self.id_list(e, "serves", what)))))
        if "floor" in e:  # a rack's place on the floor plan, metres (generators/cabling.py)
            spot = position(e.get("floor"))
            if spot is None:
                raise self.fail(e.line_of("floor"), f"{what}: 'floor' must be [x, y] in metres "
                                f"with two finite numbers, got {_short(e.get('floor'))}")
            props = tuple(sorted((*props, ("floor", (float(spot[0]), float(spot[1]))))))
        return Device(did, model, self.opt_str(e, "name", what), xy,
                      self.opt_ref(e, "rack", what), u, self.opt_ref(e, "group", what),
                      props, self.status(e, what))

    def link(self, e: Entry) -> Link:
        lid = self.take_id(e, "link")
        what = f"link {lid}"
        self.check_keys(e, LINK_KEYS, what)
        ends = []
        for side in ("a", "b"):
            value = e.get(side)
            try:
                if isinstance(value, str) and not _PORT_TEXT.fullmatch(value):
                    raise ValueError(f"expected 'device:port' (e.g. gpu-1:nvlink or "
                                     f"leaf-1:ib.3), got {value!r}")
                ends.append(PortRef.parse(cast(str, value)))  # not text: it says so
            except ValueError as exc:
                raise self.fail(e.line_of(side), f"{what}: '{side}': {exc}") from None
        count = e.get("count", 1)
        if not link_count_ok(count):  # the model's own checks (model/items.py), worded here
            raise self.fail(e.line_of("count"), f"{what}: 'count' must be a whole number >= 1, "
                            f"got {_short(count)}")
        length = e.get("length_m")
        if not length_ok(length):
            raise self.fail(e.line_of("length_m"), f"{what}: 'length_m' must be a number of "
                            f"metres (0 or more), got {_short(length)}")
        return Link(lid, ends[0], ends[1], count, self.opt_ref(e, "cable", what), length,
                    self.status(e, what))

    # ---- scalars -------------------------------------------------------------------------
    def opt_str(self, e: Entry, key: str, what: str) -> str:
        value = e.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.fail(e.line_of(key), f"{what}: '{key}' must be text, got "
                            f"{_short(value)} (put it in quotes)")
        return value

    def pos(self, e: Entry, what: str) -> tuple[float, float]:
        """The entry's `pos` ([0, 0] when absent): two finite numbers, or a located error."""
        pos = e.get("pos", (0.0, 0.0))
        xy = position(pos)  # the model's own check (model/items.py), worded here
        if xy is None:
            raise self.fail(e.line_of("pos"), f"{what}: 'pos' must be [x, y] with two finite "
                            f"numbers within ±{MAX_COORD:g}, got {_short(pos)}")
        return xy

    def unit(self, e: Entry, what: str) -> int | None:
        """The entry's rack unit `u` (None when absent): a whole number, or a located error."""
        u = e.get("u")
        if not rack_unit_ok(u):
            raise self.fail(e.line_of("u"), f"{what}: 'u' must be a whole number of rack units "
                            f"(1 = bottom), got {_short(u)}")
        return u

    def opt_ref(self, e: Entry, key: str, what: str) -> str | None:
        value = e.get(key)
        if value is None:
            return None
        if not is_valid_id(value):
            raise self.fail(e.line_of(key), f"{what}: '{key}' must be an id (letters, digits, "
                            f". _ -), got {_short(value)}")
        return value

    def status(self, e: Entry, what: str) -> str:
        value = e.get("status", ACTIVE)
        if value not in STATUSES:
            raise self.fail(e.line_of("status"), f"{what}: 'status' must be one of "
                            f"{', '.join(STATUSES)}, got {_short(value)}")
        return value

    def positive(self, e: Entry, key: str, what: str, expected: str,
                 bounds: tuple[float, float] | None = None) -> float | int:
        value = e.get(key)
        if (isinstance(value, bool) or not isinstance(value, int | float)
                or not math.isfinite(value) or value <= 0):
            raise self.fail(e.line_of(key), f"{what}: '{key}' must be {expected}, got "
                            f"{_short(value)}")
        if bounds is not None and not bounds[0] <= value <= bounds[1]:
            raise self.fail(e.line_of(key), f"{what}: '{key}' must be from {bounds[0]:g} to "
                            f"{bounds[1]:,.0f}, got {_short(value)}")
        return value

    def id_list(self, e: Entry, key: str, what: str) -> tuple[str, ...]:
        value = e.get(key)
        if not isinstance(value, list) or not all(is_valid_id(v) for v in value) \
                or len(set(value)) != len(value):
            raise self.fail(e.line_of(key), f"{what}: '{key}' must be a list of distinct ids "
                            f"(e.g. [rack-1, rack-2]), got {_short(value)}")
        return tuple(value)

    def site(self, doc: Entry) -> Site:
        """The `site:` limits (model.items.Site): positive finite kW figures."""
        value = doc.get("site")
        if value is None:
            return NO_SITE
        line = doc.line_of("site")
        if line is not None:  # design-level findings point here ("site:" is never an id)
            self.lines["site:"] = line
        from rackdesigner.io.site_read import read_site

        return read_site(value, self.fail, line)

    def opt_bool(self, e: Entry, key: str, what: str) -> bool:
        value = e.get(key, False)
        if not isinstance(value, bool):
            raise self.fail(e.line_of(key), f"{what}: '{key}' must be true or false, got "
                            f"{_short(value)}")
        return value


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


def extensions(entry: dict) -> tuple[tuple[str, Any], ...]:
    """The `x-...` keys of a mapping as sorted plain data (tools' extensions, kept as they are)."""
    return tuple(sorted((k, _plain(v)) for k, v in entry.items()
                        if isinstance(k, str) and k.startswith("x-")))


def _plain(value: Any) -> Any:
    """Loader containers back to plain dicts and lists (depth is bounded by `safety`)."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):  # tuples come from !!omap / !!pairs
        return [_plain(v) for v in value]
    return value


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


def value_kind(value: Any) -> str:
    for kind, text in ((bool, "true/false"), (dict, "a mapping"), (list, "a list"),
                       (str, "text"), (int, "a number"), (float, "a number")):
        if isinstance(value, kind):
            return text
    return "nothing" if value is None else type(value).__name__


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
