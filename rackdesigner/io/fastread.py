"""A fast reader for the canonical layout form that `writer.py` produces.

PyYAML spends ~100 µs per one-line entry composing and resolving nodes, so a 16,384-GPU design
(170,000 entries) took ~18 s to open and over 1 GB of memory. The writer's output has a fixed
shape: comments, `key: scalar` lines at the top, the section headers `groups:` / `devices:` /
`links:`, and one `- {key: value, ...}` flow mapping per entry. This module reads exactly that
shape, resolving each plain scalar the way YAML 1.1 would (only forms whose meaning is
unambiguous are accepted here). An entry line with anything else (quotes, nested values, special
words) is handed to the safe YAML loader on its own; any other line shape makes the whole file
take the general path. Both paths feed the same builder, so they accept and refuse the same files.

Devices without extension keys and links, ~97 % of a generated design's lines, go one step
further (`direct_device` / `direct_link`): one regular expression per line takes exactly the
writer's key order and value forms and builds the model object itself, skipping the mapping
the builder would check key by key (16k GPUs: 5.3 -> about 2 s of CPU). Whatever such a line
holds beyond that narrow form (a quoted escape, a YAML special word, a number out of range, a
key in another order) makes it take the entry path above, so errors keep their words and lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from rackdesigner.model.items import (
    ID_CHARS,
    MAX_COORD,
    MAX_LINK_COUNT,
    Device,
    Link,
    PortRef,
    fast_maker,
)

_MAKE_DEVICE = fast_maker(Device)
_MAKE_LINK = fast_maker(Link)
_MAKE_PORT = fast_maker(PortRef)

_SECTIONS = ("groups", "devices", "links")
_KEY = re.compile(r"[A-Za-z_][\w-]*")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"-?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?")
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/:]*")
_POS = re.compile(r"(?:^|, )pos: \[([^\[\]{}]*)\]")
_SPECIAL_WORDS = {"yes", "no", "true", "false", "on", "off", "null", "y", "n"}
_AWKWARD = re.compile(r"[\"'{}\[\]#&*!|>%@`\t\\]")
_BOOLS = {"true": True, "false": False}
_NO_KEY_LINES: dict[str, int] = {}


class NotFast(Exception):
    """A line this reader does not take: the caller reads it with YAML."""


class ReadCancelled(Exception):
    """Raised through the reader by a progress callback that wants the reading to stop."""


#: Called now and then while reading: (what is being done, fraction done 0..1).
Progress = Callable[[str, float], None]
_PROGRESS_EVERY = 16384  # lines between progress calls (a few per second at worst)


_SCALARS: dict[str, Any] = {}  # model ids, kinds, cables, lengths, counts repeat thousands of times


def _scalar(text: str) -> Any:
    found = _SCALARS.get(text, _SCALARS)
    if found is not _SCALARS:
        return found
    value = _resolve(text)
    if len(_SCALARS) > 100_000:
        _SCALARS.clear()
    _SCALARS[text] = value
    return value


def _resolve(text: str) -> Any:
    first = text[:1]
    if first.isalpha() or first == "_":
        if text in _BOOLS:
            return _BOOLS[text]
        if (_PLAIN.fullmatch(text) and not text.endswith(":")
                and text.lower() not in _SPECIAL_WORDS):
            return text
        raise NotFast
    if _INT.fullmatch(text):
        if len(text) > 300:
            raise NotFast
        return int(text)
    if _FLOAT.fullmatch(text):
        if len(text) > 300:
            raise NotFast
        return float(text)
    raise NotFast


def _entry_pairs(inner: str) -> list[tuple[str, Any]]:
    pairs: list[tuple[str, Any]] = []
    pos = _POS.search(inner)
    if pos is not None:
        items = pos.group(1).split(", ")
        if len(items) != 2:
            raise NotFast
        pairs.append(("pos", [_scalar(items[0]), _scalar(items[1])]))
        inner = inner[: pos.start()] + inner[pos.end():]
    if _AWKWARD.search(inner) is not None:
        raise NotFast
    for part in inner.split(", ") if inner else ():
        key, sep, value = part.partition(": ")
        if not sep or not _KEY.fullmatch(key):
            raise NotFast
        pairs.append((key, _scalar(value)))
    return pairs


def _quoted_pairs(inner: str) -> list[tuple[str, Any]]:
    """`_entry_pairs` for lines with double-quoted text without escapes (names: "SU1 rail 0
    leaf"), which would otherwise go to YAML one line at a time (~0.3 ms each)."""
    pairs: list[tuple[str, Any]] = []
    i, n = 0, len(inner)
    while i < n:
        j = inner.find(": ", i)
        if j < 0 or not _KEY.fullmatch(inner, i, j):
            raise NotFast
        key = inner[i:j]
        i = j + 2
        first = inner[i:i + 1]
        if first == '"':
            k = inner.find('"', i + 1)
            value: Any = inner[i + 1:k]
            if k < 0 or "\\" in value or not value.isprintable():  # escapes, tabs: YAML's job
                raise NotFast
            i = k + 1
        elif first == "[":
            k = inner.find("]", i)
            items = inner[i + 1:k].split(", ") if k > 0 else []
            if len(items) != 2:
                raise NotFast
            value = [_scalar(items[0]), _scalar(items[1])]
            i = k + 1
        else:
            k = inner.find(", ", i)
            k = n if k < 0 else k
            value = _scalar(inner[i:k])
            i = k
        pairs.append((key, value))
        if i < n:
            if not inner.startswith(", ", i):
                raise NotFast
            i += 2
    return pairs


def flow_pairs(inner: str) -> list[tuple[str, Any]]:
    """The pairs of one `- {...}` entry as the writer writes it; `NotFast` for anything else."""
    if '"' in inner:
        return _quoted_pairs(inner)
    return _entry_pairs(inner)


def top_pair(line: str) -> tuple[str, Any] | None:
    """`key: value` at the top level as the writer writes it: a plain scalar `_scalar` takes,
    or double-quoted printable text without escapes; None for anything else (YAML reads it:
    importing PyYAML alone costs a command 10 ms)."""
    key, sep, value = line.partition(": ")
    if not sep or not _KEY.fullmatch(key) or key.lower() in _SPECIAL_WORDS:
        return None
    if value[:1] == '"':
        inner = value[1:-1]
        if (len(value) < 2 or value[-1] != '"' or '"' in inner or "\\" in inner
                or not inner.isprintable()):
            return None
        return key, inner
    try:
        return key, _scalar(value)
    except NotFast:
        return None


def split_lines(text: str, chunk: int = 1 << 20) -> Iterator[str]:
    """`text.split("\n")`, a megabyte at a time: one split of a 40 MB file held the GIL, hence
    the designer's GUI thread, for a third of a second while a worker was opening it."""
    start, n = 0, len(text)
    while True:
        end = text.find("\n", start + chunk) if start + chunk < n else -1
        if end < 0:
            yield from text[start:].split("\n")
            return
        yield from text[start:end].split("\n")
        start = end + 1


def read_canonical(text: str, entry_cls: type, seq_cls: type,
                   parse_line: Callable[[str, int], Any | None],
                   max_entries: int,
                   direct: Mapping[str, Callable[[str], Any | None]] | None = None,
                   direct_version: int = 1, progress: Progress | None = None) -> Any | None:
    """The document as `entry_cls`/`seq_cls` containers with lines, or None if not canonical.

    `parse_line(line_text, line_number)` parses one line with the safe YAML loader (returning
    None when it may not be handled alone); it is used for lines the fast scan does not take.
    `direct` maps a section name to a parser returning a finished model object for a line (or
    None: the line becomes an entry); it is used only below `schema_version: direct_version`
    (older files are migrated as mappings first). `progress` is called every few thousand
    lines with the fraction read.
    """
    doc = entry_cls()
    doc.line = 1
    doc.key_lines = {}
    section: Any = None
    make: Callable[[str], Any] | None = None
    entries = 0
    total = text.count("\n") + 1
    if progress is not None:
        progress("reading", 0.0)
    for number, line in enumerate(split_lines(text), start=1):
        if progress is not None and number % _PROGRESS_EVERY == 0:
            progress("reading", number / total)
        if not line or line.startswith("#") or line.isspace():
            continue
        if make is not None and section is not None:
            made = make(line)
            if made is not None:
                section.append(made)
                section.item_lines.append(number)
                entries += 1
                if entries > max_entries:
                    return None
                continue
        if line.startswith("- {") and line.endswith("}") and section is not None:
            entry = entry_cls()
            entry.line = number
            entry.key_lines = _NO_KEY_LINES
            try:
                for key, value in flow_pairs(line[3:-1]):
                    if key in entry:
                        raise NotFast
                    entry[key] = value
            except NotFast:
                parsed = parse_line(line, number)
                if not isinstance(parsed, list) or len(parsed) != 1:
                    return None
                entry = parsed[0]
            section.append(entry)
            section.item_lines.append(number)
            entries += 1
            if entries > max_entries:
                return None  # the general path refuses it with a located message
            continue
        key, sep, rest = line.partition(":")
        if key in _SECTIONS and sep and not rest.strip():
            if key in doc:
                return None
            section = seq_cls()
            section.line = number
            section.item_lines = []
            doc[key] = section
            doc.key_lines[key] = number
            version = doc.get("schema_version")
            make = (direct.get(key) if direct and type(version) is int
                    and version == direct_version else None)
            continue
        if line[0] in " -\t" or not sep:
            return None
        section = make = None
        pair = top_pair(line)
        if pair is None:
            parsed = parse_line(line, number)
            if not isinstance(parsed, dict) or len(parsed) != 1:
                return None
            pair = next(iter(parsed.items()))
        top_key, value = pair
        if top_key in doc or top_key in _SECTIONS:
            return None
        doc[top_key] = value
        doc.key_lines[top_key] = number
    if not doc:
        return None
    doc.line = min(doc.key_lines.values())
    return doc


# ---- whole lines straight to model objects ----------------------------------------------------
# Plain scalars that YAML reads as text (letters first: never a number, date or null), numbers
# in the two forms `_INT` / `_FLOAT` accept, and double-quoted text without escapes.
_ID = rf"[A-Za-z][{ID_CHARS}]*"  # an id (model/items.py) YAML reads as text
_NUM = r"-?[0-9]{1,20}(?:\.[0-9]{0,20}(?:[eE][-+][0-9]{1,3})?)?"
_DEVICE_LINE = re.compile(
    rf"- \{{id: ({_ID}), model: ({_ID})(?:, name: (?:\"([^\"\\]*)\"|({_ID})))?"
    rf"(?:, pos: \[({_NUM}), ({_NUM})\])?(?:, rack: ({_ID}))?(?:, u: ([1-9][0-9]{{0,3}}))?"
    rf"(?:, group: ({_ID}))?(?:, status: (active|failed))?\}}")
_PORT = rf"({_ID}):([A-Za-z][A-Za-z0-9_\-]*)(?:\.([0-9]{{1,9}}))?"
_LINK_LINE = re.compile(
    rf"- \{{id: ({_ID}), a: {_PORT}, b: {_PORT}(?:, count: ([1-9][0-9]{{0,6}}))?"
    rf"(?:, cable: ({_ID}))?(?:, length_m: ({_NUM}))?(?:, status: (active|failed))?\}}")


#: The words YAML 1.1 reads as booleans or null, in the spellings it accepts (lower, Title,
#: UPPER); other mixtures ("yEs") are text there and here.
_SPECIAL_SPELLINGS = frozenset(v for w in _SPECIAL_WORDS for v in (w, w.title(), w.upper()))


def _special(*words: str | None) -> bool:
    """Any of `words` a YAML 1.1 boolean or null (read as such, not as text)?"""
    return not _SPECIAL_SPELLINGS.isdisjoint(words)


def _number(text: str) -> int | float:
    if "." in text:
        value = float(text)
        if value != value or not -MAX_COORD <= value <= MAX_COORD:  # NaN, infinities, too far
            raise NotFast
        return value
    if text.startswith(("0", "-0")) and len(text.lstrip("-")) > 1:  # YAML 1.1 octal
        raise NotFast
    return int(text)


def direct_device(line: str) -> Any | None:
    """The `Device` of a canonical device line, or None (the line is read as an entry)."""
    m = _DEVICE_LINE.fullmatch(line)
    if m is None:
        return None
    did, model, quoted, plain, x, y, rack, u, group, status = m.groups()
    if _special(did, model, plain, rack, group) or (quoted is not None
                                                     and not quoted.isprintable()):
        return None
    try:
        pos = (0.0, 0.0) if x is None else (float(_number(x)), float(_number(y)))
    except NotFast:
        return None
    return _MAKE_DEVICE(did, model, quoted if quoted is not None else (plain or ""), pos,
                        rack, None if u is None else int(u), group, (), status or "active")


def direct_link(line: str) -> Any | None:
    """The `Link` of a canonical link line, or None (the line is read as an entry)."""
    m = _LINK_LINE.fullmatch(line)
    if m is None:
        return None
    lid, ad, ag, ai, bd, bg, bi, count, cable, length, status = m.groups()
    if lid in _SPECIAL_SPELLINGS or cable in _SPECIAL_SPELLINGS:
        return None
    n = 1 if count is None else int(count)
    if n > MAX_LINK_COUNT:
        return None
    if length is not None:
        try:
            length = _number(length)
        except NotFast:
            return None
        if length < 0:
            return None
    return _MAKE_LINK(lid, _MAKE_PORT(ad, ag, None if ai is None else int(ai)),
                      _MAKE_PORT(bd, bg, None if bi is None else int(bi)), n, cable, length,
                      status or "active")
