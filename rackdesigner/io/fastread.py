"""A fast reader for the canonical layout form that `writer.py` produces.

PyYAML spends ~100 µs per one-line entry composing and resolving nodes, so a 16,384-GPU design
(170,000 entries) took ~18 s to open and over 1 GB of memory. The writer's output has a fixed
shape: comments, `key: scalar` lines at the top, the section headers `groups:` / `devices:` /
`links:`, and one `- {key: value, ...}` flow mapping per entry. This module reads exactly that
shape, resolving each plain scalar the way YAML 1.1 would (only forms whose meaning is
unambiguous are accepted here). An entry line with anything else (quotes, nested values, special
words) is handed to the safe YAML loader on its own; any other line shape makes the whole file
take the general path. Both paths feed the same builder, so they accept and refuse the same files.

Groups, devices and links in the writer's narrow form, ~99 % of a generated design's lines,
go one step further (`direct.py`): their objects are made straight from the text, a piece of
a section (about 64 kB of whole lines) at a time, skipping the mapping the builder would check
key by key; the first line of a piece not in that form is read as an entry, alone, and the
rest of the piece goes on being made whole. So every line the narrow form does not take goes
exactly the way it went line by line, errors and their lines included.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

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
_PIECE = 1 << 16  # characters of a section a `bulk` reader takes at once
#: A section's whole-piece reader (`fastbulk`): the rows of a piece, the objects of the rows.
Bulk = tuple[Callable[[str, int, int], list], Callable[[list, int], list]]
#: `read_canonical`'s strict form: (why, line number, name) -> raises a located error.
Refuse = Callable[[str, int, str], None]


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


def _pieces(text: str, size: int = _PIECE) -> Iterator[tuple[int, int]]:
    """`text` as (start, stop) pieces of about `size` characters: whole lines, each piece
    ending just after a newline, then the last line (no newline; it may be empty)."""
    start, n = 0, len(text)
    while start + size < n:
        stop = text.find("\n", start + size) + 1
        if not stop:
            break
        yield start, stop
        start = stop
    last = text.rfind("\n", start) + 1
    if last > start:
        yield start, last
        start = last
    yield start, n


def read_canonical(text: str, entry_cls: type, seq_cls: type,
                   parse_line: Callable[[str, int], Any | None],
                   max_entries: int,
                   direct: Mapping[str, Callable[[str], Any | None]] | None = None,
                   direct_version: int = 1, progress: Progress | None = None,
                   bulk: Mapping[str, Bulk] | None = None, *,
                   sections: tuple[str, ...] = _SECTIONS, head: Any = None,
                   refuse: Refuse | None = None) -> Any | None:
    """The document as `entry_cls`/`seq_cls` containers with lines, or None if not canonical.

    `parse_line(line_text, line_number)` parses one line with the safe YAML loader (returning
    None when it may not be handled alone); it is used for lines the fast scan does not take.
    `direct` maps a section name to a parser returning a finished model object for a line (or
    None: the line becomes an entry); it is used only below `schema_version: direct_version`
    (older files are migrated as mappings first). `bulk` does the same for a piece of lines
    at once (`fastbulk`): the objects of its lines up to the first one it does not take, which
    is then read as above. `progress` is called every few thousand lines with the fraction
    read.

    The compact form (`compact_read`) reads its own `sections` with the same loop: its
    top-level keys go to `head` (a key may then share a section's name), and where this
    reader would give up, `refuse(why, line number, name)` raises its located error (`why`:
    "entry" for an entry line YAML does not read as one mapping, "section" for a section
    read twice, "line" for a line of no known shape, "top" for a top-level line YAML does not
    read as one pair, "twice" for a top-level key given twice).
    """
    doc = entry_cls()
    doc.line = 1
    doc.key_lines = {}
    head = doc if head is None else head
    section: Any = None
    make: Callable[[str], Any] | None = None
    many: Bulk | None = None
    entries = 0
    total = text.count("\n") + 1 if progress is not None else 1
    if progress is not None:
        progress("reading", 0.0)

    def bad(why: str, number: int, name: str = "") -> bool:
        if refuse is not None:
            refuse(why, number, name)
        return False

    def read_line(number: int, line: str) -> bool:
        """One line as the per-line reader reads it; False: the file is not canonical."""
        nonlocal section, make, many, entries
        if not line or line.startswith("#") or line.isspace():
            return True
        if make is not None and section is not None:
            made = make(line)
            if made is not None:
                section.append(made)
                section.item_lines.append(number)
                entries += 1
                return entries <= max_entries
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
                if not isinstance(parsed, list) or len(parsed) != 1 or (
                        refuse is not None and not isinstance(parsed[0], dict)):
                    return bad("entry", number)
                entry = parsed[0]
            section.append(entry)
            section.item_lines.append(number)
            entries += 1
            return entries <= max_entries  # else the general path refuses it, located
        key, sep, rest = line.partition(":")
        if key in sections and sep and not rest.strip():
            if key in doc:
                return bad("section", number, key)
            section = seq_cls()
            section.line = number
            section.item_lines = []
            doc[key] = section
            doc.key_lines[key] = number
            version = head.get("schema_version")
            fits = type(version) is int and version == direct_version
            make = direct.get(key) if direct and fits else None
            many = bulk.get(key) if bulk and fits else None
            return True
        if line[0] in " -\t" or not sep:
            return bad("line", number)
        section = make = many = None
        pair = top_pair(line)
        if pair is None:
            parsed = parse_line(line, number)
            if not isinstance(parsed, dict) or len(parsed) != 1:
                return bad("top", number)
            pair = next(iter(parsed.items()))
        top_key, value = pair
        if top_key in head or (head is doc and top_key in sections):
            return bad("twice", number, top_key)
        head[top_key] = value
        head.key_lines[top_key] = number
        return True

    def tick(first: int, last: int) -> None:
        """Progress for the lines `first`..`last` (each `_PROGRESS_EVERY`th line number)."""
        if progress is not None:
            for number in range(-(-first // _PROGRESS_EVERY) * _PROGRESS_EVERY, last + 1,
                                _PROGRESS_EVERY):
                progress("reading", number / total)

    pending = list(_pieces(text, _PIECE))
    pending.reverse()
    number = 1  # the first line of the next piece
    before: Bulk | None
    while pending:
        start, stop = pending.pop()
        lines: list[str] = []
        ends_line = text.endswith("\n", start, stop)  # every piece but the last
        if many is not None and section is not None and ends_line:
            rows = many[0](text, start, stop)  # one per line (`direct`)
            count, taken = len(rows), 0
            while taken < count:
                made = many[1](rows, taken)
                if made:
                    if entries + len(made) > max_entries:
                        tick(number + taken, number + taken + max_entries - entries)
                        return None
                    tick(number + taken, number + taken + len(made) - 1)
                    section.extend(made)
                    section.item_lines.extend(range(number + taken,
                                                    number + taken + len(made)))
                    entries += len(made)
                    taken += len(made)
                    if taken == count:
                        break
                lines = lines or text[start:stop].split("\n")
                before = many
                tick(number + taken, number + taken)
                if not read_line(number + taken, lines[taken]):
                    return None
                taken += 1
                if many is not before:  # another section: its own rows from the next line
                    break
            if taken < count:
                pending.append((start + sum(map(len, lines[:taken])) + taken, stop))
            number += taken
            continue
        lines = text[start:stop].split("\n")
        if ends_line:
            lines.pop()  # the piece ends with its last line's newline
        for i, line in enumerate(lines):
            if progress is not None and (number + i) % _PROGRESS_EVERY == 0:
                progress("reading", (number + i) / total)
            before = many
            if not read_line(number + i, line):
                return None
            if many is not before and many is not None and i + 1 < len(lines):
                pending.append((start + sum(map(len, lines[:i + 1])) + i + 1, stop))
                break  # a section read a piece at a time from its next line
        number += i + 1
    if not doc:
        return None
    doc.line = min(doc.key_lines.values())
    return doc
