"""`Order`: the persistent insertion order of a design's ids (see `model/state.py`).

Appends go to one buffer shared by every state that is a prefix of it (a state remembers its
length); a state that appends behind a longer buffer (after an undo) copies its prefix first.
Removals leave tombstones that are compacted once they outnumber the live entries.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

from immutables import Map

_EMPTY: Map = Map()
_APPEND_LOCK = threading.Lock()
#: Pairs per `Map.update` call in `bulk_update`.
BULK_CHUNK = 32768


def bulk_update(base: Map, pairs: Iterable[tuple[Any, Any]]) -> Map:
    """`base` with `pairs` set, a slice at a time: one `Map.update` of 700,000 pairs (a 100k-GPU
    design's links) holds the GIL for about half a second, so the designer's GUI thread froze
    while a worker read a file; slices let it in between (same result, about the same cost)."""
    items = pairs if isinstance(pairs, list) else list(pairs)
    for start in range(0, len(items), BULK_CHUNK):
        chunk = items[start:start + BULK_CHUNK]
        base = base.update(chunk) if len(base) else Map(chunk)
    return base


class Order:
    """A persistent insertion order of ids (see the module docstring)."""

    __slots__ = ("_buf", "_n", "_pos")

    def __init__(self, buf: list[str] | None = None, n: int = 0, pos: Map = _EMPTY) -> None:
        self._buf = buf if buf is not None else []
        self._n = n
        self._pos = pos

    def __len__(self) -> int:
        return len(self._pos)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._pos

    def append(self, item_id: str) -> Order:
        with _APPEND_LOCK:  # two documents sharing a buffer may append from two threads
            buf = self._buf
            if len(buf) != self._n:  # a newer state owns the tail: branch off our prefix
                buf = buf[:self._n]
            buf.append(item_id)
        return Order(buf, self._n + 1, self._pos.set(item_id, self._n))

    def extend(self, item_ids: list[str]) -> Order:
        if not item_ids:
            return self
        with _APPEND_LOCK:
            buf = self._buf
            if len(buf) != self._n:
                buf = buf[:self._n]
            buf.extend(item_ids)
        positions = list(zip(item_ids, range(self._n, self._n + len(item_ids)), strict=True))
        return Order(buf, self._n + len(item_ids), bulk_update(self._pos, positions))

    def remove(self, item_id: str) -> Order:
        pos = self._pos.delete(item_id)
        if self._n - len(pos) > max(64, len(pos)):  # mostly tombstones: compact
            return Order.of(self._live(pos))
        return Order(self._buf, self._n, pos)

    @classmethod
    def of(cls, ids: Iterator[str] | list[str]) -> Order:
        buf = list(ids)
        return cls(buf, len(buf), Map(zip(buf, range(len(buf)), strict=True)))

    def _live(self, pos: Map) -> Iterator[str]:
        if len(pos) == self._n:  # no tombstones: the buffer prefix is the order
            yield from islice(self._buf, self._n)
            return
        get = pos.get
        for i, item_id in enumerate(islice(self._buf, self._n)):
            if get(item_id) == i:
                yield item_id

    def __iter__(self) -> Iterator[str]:
        return self._live(self._pos)

    def position(self, item_id: str) -> int:
        """Where `item_id` stands (comparable within one order; KeyError if absent)."""
        return self._pos[item_id]
