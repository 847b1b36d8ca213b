"""A fast reader for the canonical layout form that `writer.py` produces.

PyYAML spends ~100 µs per one-line entry composing and resolving nodes, so a 16,384-GPU design
(170,000 entries) took ~18 s to open and over 1 GB of memory. The writer's output has a fixed
shape: comments, `key: scalar` lines at the top, the section headers `groups:` / `devices:` /
`links:`, and one `- {key: value, ...}` flow mapping per entry. This module reads exactly that
shape, resolving each plain scalar the way YAML 1.1 would (only forms whose meaning is
unambiguous are accepted here). An entry line with anything else (quotes, nested values, special
words) is handed to the safe YAML loader on its own; any other line shape makes the whole file
take the general path. Both paths feed the same builder, so they accept and refuse the same files.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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


class _NotFast(Exception):
    pass


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
        raise _NotFast
    if _INT.fullmatch(text):
        if len(text) > 300:
            raise _NotFast
        return int(text)
    if _FLOAT.fullmatch(text):
        if len(text) > 300:
            raise _NotFast
        return float(text)
    raise _NotFast


def _entry_pairs(inner: str) -> list[tuple[str, Any]]:
    pairs: list[tuple[str, Any]] = []
    pos = _POS.search(inner)
    if pos is not None:
        items = pos.group(1).split(", ")
        if len(items) != 2:
            raise _NotFast
        pairs.append(("pos", [_scalar(items[0]), _scalar(items[1])]))
        inner = inner[: pos.start()] + inner[pos.end():]
    if _AWKWARD.search(inner) is not None:
        raise _NotFast
    for part in inner.split(", ") if inner else ():
        key, sep, value = part.partition(": ")
        if not sep or not _KEY.fullmatch(key):
            raise _NotFast
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
            raise _NotFast
        key = inner[i:j]
        i = j + 2
        first = inner[i:i + 1]
        if first == '"':
            k = inner.find('"', i + 1)
            value: Any = inner[i + 1:k]
            if k < 0 or "\\" in value or not value.isprintable():  # escapes, tabs: YAML's job
                raise _NotFast
            i = k + 1
        elif first == "[":
            k = inner.find("]", i)
            items = inner[i + 1:k].split(", ") if k > 0 else []
            if len(items) != 2:
                raise _NotFast
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
                raise _NotFast
            i += 2
    return pairs


def flow_pairs(inner: str) -> list[tuple[str, Any]]:
    """The pairs of one `- {...}` entry as the writer writes it; `_NotFast` for anything else."""
    if '"' in inner:
        return _quoted_pairs(inner)
    return _entry_pairs(inner)


def read_canonical(text: str, entry_cls: type, seq_cls: type,
                   parse_line: Callable[[str, int], Any | None],
                   max_entries: int) -> Any | None:
    """The document as `entry_cls`/`seq_cls` containers with lines, or None if not canonical.

    `parse_line(line_text, line_number)` parses one line with the safe YAML loader (returning
    None when it may not be handled alone); it is used for lines the fast scan does not take.
    """
    doc = entry_cls()
    doc.line = 1
    doc.key_lines = {}
    section: Any = None
    entries = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if not line or line.startswith("#") or line.isspace():
            continue
        if line.startswith("- {") and line.endswith("}") and section is not None:
            entry = entry_cls()
            entry.line = number
            entry.key_lines = _NO_KEY_LINES
            try:
                for key, value in flow_pairs(line[3:-1]):
                    if key in entry:
                        raise _NotFast
                    entry[key] = value
            except _NotFast:
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
            continue
        if line[0] in " -\t" or not sep:
            return None
        section = None
        parsed = parse_line(line, number)
        if not isinstance(parsed, dict) or len(parsed) != 1:
            return None
        ((top_key, value),) = parsed.items()
        if top_key in doc or top_key in _SECTIONS:
            return None
        doc[top_key] = value
        doc.key_lines[top_key] = number
    if not doc:
        return None
    doc.line = min(doc.key_lines.values())
    return doc
