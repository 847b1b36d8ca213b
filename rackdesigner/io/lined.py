"""YAML values that know their lines: `Entry` (a mapping: its line and each key's), `Seq` (a
list: its line and each item's), read by the strict loader with line tracking (`line_loader`,
built on the one YAML loader, `rackdesigner/yamlfile.py`) or one line at a time (`parse_line`,
for the canonical form `fastread` reads), and `SourceLines`, the line of every object of a
design (`Layout.source_lines`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from rackdesigner.io import safety

#: Lookups scan the sections not filed yet until they have walked this many times the ids to
#: file: a scan of 1,000,000 ids takes about 40 ms at 100k GPUs, filing them 0.35-0.65 s.
SCAN_BUDGET = 4
_MISSING = object()


class SourceLines(dict):
    """Object id -> the line it was read from (`Layout.source_lines`). The ids of a section
    read whole are kept as (ids, lines) and filed in the dict when first asked for: a validate
    that reports nothing, a simulate, never asks (1,000,000 ids at 100k GPUs: 0.35 s).
    Lookups of one id (`get`, `in`, `[]`) scan those lists instead until the scans have
    walked `SCAN_BUDGET` times the ids there are to file (then they are filed): the 100k
    design's `validate` names the line of one finding of 102,400 alike, and filed every id
    for it; a caller asking for every finding's line pays a few walks more, one asking for
    an id that is not there one walk."""

    __slots__ = ("_bulk", "_scanned")

    def __init__(self) -> None:
        super().__init__()
        self._bulk: list[tuple[list[str], list[int]]] = []
        self._scanned = 0  # ids the scans have walked

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

    def _line(self, key: Any) -> Any:
        """`key`'s line, or `_MISSING`: from the dict, or within the scans' budget from the
        sections not filed yet (their ids are unique, and none of them is in the dict). An id
        not there walks every list, so it spends the whole budget: the reader's own checks
        of new ids (a section read entry by entry after one read whole) file them next."""
        found = dict.get(self, key, _MISSING)
        if found is not _MISSING or not self._bulk:
            return found
        budget = SCAN_BUDGET * sum(len(ids) for ids, _ in self._bulk)
        if self._scanned >= budget:
            return dict.get(self._settled(), key, _MISSING)
        for ids, lines in self._bulk:
            try:
                at = ids.index(key)
            except ValueError:
                continue
            self._scanned += at + 1
            return lines[at]
        self._scanned = budget
        return _MISSING

    def __contains__(self, key: object) -> bool:
        return self._line(key) is not _MISSING

    def has(self) -> Callable[[object], bool]:
        """`in`, as a plain dict's (the bulk sections filed first), for a loop asking it per
        object that files nothing in bulk meanwhile."""
        return functools.partial(dict.__contains__, self._settled())

    def __getitem__(self, key: str) -> int:
        found = self._line(key)
        if found is _MISSING:
            raise KeyError(key)
        return found

    def get(self, key: str, default: Any = None) -> Any:
        found = self._line(key)
        return default if found is _MISSING else found

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
def line_loader() -> Any:
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


def parse_line(line: str, number: int) -> Any | None:
    """One line through the safe loader, its lines set to `number`; None if it must not be
    parsed alone (too long, possibly deeply nested, invalid: the general path will report it)."""
    if len(line) > 65536 or safety.might_nest_deeply(line.encode("utf-8", "surrogatepass"), line):
        return None
    from rackdesigner.yamlfile import load_checked

    try:
        value = load_checked(line, "", line_loader())
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
