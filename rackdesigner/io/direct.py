"""Canonical group, device and link lines straight to model objects, skipping the entry mapping
the reader would check key by key: one line at a time (`direct_group`, `direct_device`,
`direct_link`) or a whole piece of a section at once (`Whole.readers`), for
`fastread.read_canonical`.

Devices without extension keys and links, ~97 % of a generated design's lines, take this way
(16k GPUs: 5.3 -> about 2 s of CPU when it came): one regular expression per line takes exactly
the writer's key order and value forms and builds the model object itself. Whatever such a
line holds beyond that narrow form (a quoted escape, a YAML special word, a number out of
range, a key in another order) makes it take the entry path, so errors keep their words and
lines.

A piece at once: one `findall` over about 64 kB of whole lines gives one row of fields per
line — the line pattern's, or, where a line is not in that form, the whole line — and the
objects are made from the rows in one loop, each value's text converted once per distinct
text (rack units, port indexes, counts, lengths and coordinates repeat thousands of times).
The reader takes the rows' objects up to the first line they do not take and reads that line
as before, so every line not in the narrow form goes exactly the way it went, errors and all.
A row is taken exactly when `direct_*` takes its line, and makes the same object
(tests/test_io_direct.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from rackdesigner.io.fastread import _SPECIAL_WORDS, Bulk, NotFast
from rackdesigner.model.items import (
    GROUP_KINDS,
    ID_CHARS,
    MAX_COORD,
    MAX_LINK_COUNT,
    Device,
    Group,
    Link,
    PortRef,
    fast_maker,
)

_MAKE_GROUP = fast_maker(Group)


def _fill(cls: type) -> Any:
    """A class of `cls`'s slots that is not frozen: `*_from` fill its objects with plain
    stores and makes them `cls` objects (`__class__` assignment), as `items.fast_maker` does,
    without a call per object (0.2 G of 5 G instructions of the 16k read). A field added to
    `cls` and not filled there fails every test that reads a design."""
    fill = type(f"_{cls.__name__}Fill", (), {"__slots__": cls.__dict__["__slots__"]})
    probe: Any = object.__new__(fill)
    probe.__class__ = cls  # TypeError where CPython would not allow it: found on import
    return fill


_DEVICE_FILL, _LINK_FILL, _PORT_FILL = _fill(Device), _fill(Link), _fill(PortRef)

# Plain scalars that YAML reads as text (letters first: never a number, date or null), numbers
# in the two forms `_INT` / `_FLOAT` accept, and double-quoted text without escapes. The fields
# after the name and position (a device's rack, unit, group, status; a link's count, cable,
# length, status) are taken as one text, a tail, and each distinct tail is read once (a design
# has a few dozen of them among 150,000 links); so is each distinct port (`ib.3`).
_ID = rf"[A-Za-z][{ID_CHARS}]*"  # an id (model/items.py) YAML reads as text
_NUM = r"-?[0-9]{1,20}(?:\.[0-9]{0,20}(?:[eE][-+][0-9]{1,3})?)?"
_DEVICE_TAIL = re.compile(rf"(?:, rack: ({_ID}))?(?:, u: ([1-9][0-9]{{0,3}}))?"
                          rf"(?:, group: ({_ID}))?(?:, status: (active|failed))?"
                          rf"(?:, floor: \[({_NUM}), ({_NUM})\])?")  # a rack's place, metres
_LINK_TAIL = re.compile(rf"(?:, count: ([1-9][0-9]{{0,6}}))?(?:, cable: ({_ID}))?"
                        rf"(?:, length_m: ({_NUM}))?(?:, status: (active|failed))?")
_PORT = r"[A-Za-z][A-Za-z0-9_\-]*(?:\.[0-9]{1,9})?"  # a port group, its index after a dot


def _untaken(pattern: re.Pattern[str]) -> str:
    """`pattern` without its groups (`(...)` -> `(?:...)`): a tail as one text."""
    return re.sub(r"(?<!\\)\((?!\?)", "(?:", pattern.pattern)


_DEVICE_LINE = re.compile(
    rf"- \{{id: ({_ID}), model: ({_ID})(?:, name: (?:\"([^\"\\\n]*)\"|({_ID})))?"
    rf"(?:, pos: \[({_NUM}), ({_NUM})\])?({_untaken(_DEVICE_TAIL)})\}}")
_LINK_LINE = re.compile(
    rf"- \{{id: ({_ID}), a: ({_ID}):({_PORT}), b: ({_ID}):({_PORT})({_untaken(_LINK_TAIL)})\}}")
_KINDS = "|".join(GROUP_KINDS)
_GROUP_LINE = re.compile(
    rf"- \{{id: ({_ID})(?:, name: (?:\"([^\"\\\n]*)\"|({_ID})))?(?:, kind: ({_KINDS}))?"
    rf"(?:, parent: ({_ID}))?(?:, collapsed: (true|false))?(?:, template: ({_ID}))?"
    rf"(?:, status: (active|failed))?\}}")
#: Rows of a piece, one per line: a line in the form `direct_*` reads gives its fields (the
#: last one empty), any other line empty fields and itself last. No part of the line patterns
#: matches a newline, so a row is always one whole line.
_DEVICE_ROWS = re.compile(rf"(?:{_DEVICE_LINE.pattern}|(.*))\n")
_LINK_ROWS = re.compile(rf"(?:{_LINK_LINE.pattern}|(.*))\n")
_GROUP_ROWS = re.compile(rf"(?:{_GROUP_LINE.pattern}|(.*))\n")

#: The words YAML 1.1 reads as booleans or null, in the spellings it accepts (lower, Title,
#: UPPER); other mixtures ("yEs") are text there and here.
_SPECIAL_SPELLINGS = frozenset(v for w in _SPECIAL_WORDS for v in (w, w.title(), w.upper()))
_BAD = object()  # a text `direct_*` does not take: the line is read as an entry
_MEMO_LIMIT = 100_000  # distinct texts kept per kind of value (a file of odd values stays small)


class _Memo(dict):
    """Text -> its value, converted on first sight by `convert` (`_BAD` when it raises
    `NotFast`)."""

    def __init__(self, convert: Callable[[str], Any]) -> None:
        super().__init__()
        self.convert = convert

    def __missing__(self, text: str) -> Any:
        if len(self) > _MEMO_LIMIT:
            self.clear()
        try:
            value = self.convert(text)
        except NotFast:
            value = _BAD
        self[text] = value
        return value


def _number(text: str) -> int | float:
    if "." in text:
        value = float(text)
        if value != value or not -MAX_COORD <= value <= MAX_COORD:  # NaN, infinities, too far
            raise NotFast
        return value
    if text.startswith(("0", "-0")) and len(text.lstrip("-")) > 1:  # YAML 1.1 octal
        raise NotFast
    return int(text)


def _coordinate(text: str) -> float:
    return float(_number(text))


def _port(text: str) -> tuple[str, int | None]:
    group, _, index = text.partition(".")
    return _NAMES[group], int(index) if index else None


def _device_tail(text: str) -> Any:
    """(rack, u, group, status, props) of a device line's tail, or `_BAD`."""
    match = _DEVICE_TAIL.fullmatch(text)
    if match is None:
        return _BAD
    rack, u, group, status, x, y = match.groups()
    if rack in _SPECIAL_SPELLINGS or group in _SPECIAL_SPELLINGS:
        return _BAD
    props = () if x is None else (("floor", (_coordinate(x), _coordinate(y))),)
    return rack, None if u is None else int(u), group, status or "active", props


def _link_tail(text: str) -> Any:
    """(count, cable, length, status) of a link line's tail, or `_BAD`."""
    match = _LINK_TAIL.fullmatch(text)
    if match is None:
        return _BAD
    count, cable, length, status = match.groups()
    n = 1 if count is None else int(count)
    if n > MAX_LINK_COUNT or cable in _SPECIAL_SPELLINGS:
        return _BAD
    if length is not None:
        length = _number(length)
        if length < 0:
            return _BAD
    return n, None if cable is None else _NAMES[cable], length, status or "active"


#: One object per distinct model id, port-group name and cable (`_MEMO_LIMIT` as above): a
#: 16k design's 61,580 devices name 9 models, its 304,648 link ends 3 port groups; the text
#: of a row is a new string each time, and each would be kept and hashed on its own.
_NAMES = _Memo(str)
_COORDS = _Memo(_coordinate)
_PORTS = _Memo(_port)
_DEVICE_TAILS = _Memo(_device_tail)
_LINK_TAILS = _Memo(_link_tail)


def _one(pattern: re.Pattern[str], made_from: Callable[[list[tuple[str, ...]], int], list[Any]],
         line: str) -> Any | None:
    """What `made_from` makes of one line matched by `pattern` (as a piece's row), or None."""
    m = pattern.fullmatch(line)
    if m is None:
        return None
    made = made_from([(*m.groups(""), "")], 0)
    return made[0] if made else None


def direct_device(line: str) -> Any | None:
    """The `Device` of a canonical device line, or None (the line is read as an entry)."""
    return _one(_DEVICE_LINE, devices_from, line)


def direct_link(line: str) -> Any | None:
    """The `Link` of a canonical link line, or None (the line is read as an entry)."""
    return _one(_LINK_LINE, links_from, line)


def direct_group(line: str) -> Any | None:
    """The `Group` of a canonical group line, or None (the line is read as an entry)."""
    return _one(_GROUP_LINE, groups_from, line)


def group_rows(text: str, start: int, stop: int) -> list[tuple[str, ...]]:
    """The rows of the group lines in `text[start:stop]`, as `device_rows`."""
    return _GROUP_ROWS.findall(text, start, stop)


def groups_from(rows: list[tuple[str, ...]], first: int) -> list[Any]:
    """The `Group`s of `rows[first:]` up to the first row not in the narrow form."""
    out: list[Any] = []
    append, make, special = out.append, _MAKE_GROUP, _SPECIAL_SPELLINGS
    for gid, quoted, plain, kind, parent, collapsed, template, status, _ in rows[first:]:
        if not gid or not special.isdisjoint((gid, plain, parent, template)) or (
                quoted and not quoted.isprintable()):
            break
        append(make(gid, quoted or plain, kind or "group", parent or None,
                    collapsed == "true", template or None, status or "active"))
    return out


def device_rows(text: str, start: int, stop: int) -> list[tuple[str, ...]]:
    """The rows of the device lines in `text[start:stop]` (whole lines, each with its
    newline)."""
    return _DEVICE_ROWS.findall(text, start, stop)


def link_rows(text: str, start: int, stop: int) -> list[tuple[str, ...]]:
    """The rows of the link lines in `text[start:stop]`, as `device_rows`."""
    return _LINK_ROWS.findall(text, start, stop)


def devices_from(rows: list[tuple[str, ...]], first: int) -> list[Any]:
    """The `Device`s of `rows[first:]` up to the first row not in the narrow form."""
    out: list[Any] = []
    append, special, new = out.append, _SPECIAL_SPELLINGS, object.__new__
    coords, tails, bad, cls, fill, names = (_COORDS, _DEVICE_TAILS, _BAD, Device, _DEVICE_FILL,
                                            _NAMES)
    for did, model, quoted, plain, x, y, tail, _ in rows[first:]:
        if not did or did in special or model in special or plain in special or (
                quoted and not quoted.isprintable()):
            break
        rest = tails[tail]
        if rest is bad:
            break
        if x:
            fx, fy = coords[x], coords[y]
            if fx is bad or fy is bad:
                break
            pos = (fx, fy)
        else:
            pos = (0.0, 0.0)
        d = new(fill)
        d.id, d.model, d.name, d.pos = did, names[model], quoted or plain, pos
        d.rack, d.u, d.group, d.status, d.props = rest
        d.__class__ = cls
        append(d)
    return out


class DeviceIds(dict):
    """Device id -> the id string its `Device` holds, for `links_from`: a link end naming one
    holds that same string; an id not in it stands for itself and makes the map `loose`
    (one lookup per end does both: a hit costs no Python call)."""

    loose = False

    def __missing__(self, device_id: str) -> str:
        self.loose = True
        return device_id


def links_from(rows: list[tuple[str, ...]], first: int,
               devices: DeviceIds | None = None) -> list[Any]:
    """The `Link`s of `rows[first:]` up to the first row not in the narrow form; their ends
    hold the id strings of `devices` (`DeviceIds`)."""
    out: list[Any] = []
    append, special, new = out.append, _SPECIAL_SPELLINGS, object.__new__
    same = devices if devices is not None else DeviceIds()
    ports, tails, bad = _PORTS, _LINK_TAILS, _BAD
    link_cls, link_fill, port_cls, port_fill = Link, _LINK_FILL, PortRef, _PORT_FILL
    for lid, ad, ap, bd, bp, tail, _ in rows[first:]:
        if not lid or lid in special:
            break
        rest = tails[tail]
        if rest is bad:
            break
        a, b, k = new(port_fill), new(port_fill), new(link_fill)
        a.device, (a.group, a.index) = same[ad], ports[ap]
        b.device, (b.group, b.index) = same[bd], ports[bp]
        a.__class__ = b.__class__ = port_cls
        k.id, k.a, k.b, (k.count, k.cable, k.length_m, k.status) = lid, a, b, rest
        k.__class__ = link_cls
        append(k)
    return out


_FIRST = itemgetter(0)


class Whole:
    """One file's whole-piece readers (`readers`: `fastread.read_canonical`'s `bulk`) and
    what they saw: whether every link they made joins two devices they made before it, so that
    the reader need not look up the 300,000 ends of a 16k-GPU design's links again
    (`ends_resolved`; the ends of a link read any other way are looked up as before)."""

    def __init__(self) -> None:
        #: the devices made here, each id to itself: a link's ends hold the `Device`'s own
        #: id string, not a copy per link end (304,648 of them at 16k GPUs, ~18 MB)
        self.device_ids = DeviceIds()  # `loose`: a link made here with an end not among them
        self.links = 0  # links made here
        self.readers: dict[str, Bulk] = {
            "groups": (group_rows, groups_from), "devices": (device_rows, self._devices),
            "links": (link_rows, self._links)}

    def _devices(self, rows: list[tuple[str, ...]], first: int) -> list[Any]:
        out = devices_from(rows, first)
        ids = list(map(_FIRST, rows[first:first + len(out)]))
        self.device_ids.update(zip(ids, ids, strict=True))
        return out

    def _links(self, rows: list[tuple[str, ...]], first: int) -> list[Any]:
        out = links_from(rows, first, self.device_ids)
        self.links += len(out)
        return out

    def ends_resolved(self, links: int) -> bool:
        """Every one of a file's `links` made here, each end a device made here?"""
        return self.links == links and not self.device_ids.loose
