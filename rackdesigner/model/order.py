"""`Order`: the persistent insertion order of a design's ids (see `model/state.py`).

Appends go to one buffer shared by every state that is a prefix of it (a state remembers its
length); a state that appends behind a longer buffer (after an undo) copies its prefix first.
Removals leave tombstones (or, in an order never mapped, an entry in a map of removed ids) that
are compacted once they outnumber the live entries.
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


class DictMap:
    """A read-only mapping over a plain dict that answers as an `immutables.Map` does.

    A design read from a file is one bulk insertion into empty maps; a dict is made at C speed
    (700,000 links: 0.2 s against 0.8 s for the trie of an `immutables.Map`) and reads faster.
    The first edit asks for the trie (`set`, `delete`, `update`, `mutate`; made once, in slices
    like `bulk_update`, and kept), so edits stay O(log n) and share structure from then on.
    Iteration follows insertion order, where a `Map`'s follows the keys' hashes: no reader may
    depend on either (string hashes differ from one process to the next)."""

    __slots__ = ("_d", "_map")

    def __init__(self, d: dict) -> None:
        self._d = d
        self._map: Map | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._d[key]

    def get(self, key: Any, default: Any = None) -> Any:
        return self._d.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._d

    def __len__(self) -> int:
        return len(self._d)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._d)

    def keys(self) -> Any:
        return self._d.keys()

    def values(self) -> Any:
        return self._d.values()

    def items(self) -> Any:
        return self._d.items()

    def as_map(self) -> Map:
        """The same content as an `immutables.Map` (made on first use, then kept)."""
        found = self._map
        if found is None:
            found = self._map = bulk_update(_EMPTY, list(self._d.items()))
        return found

    def set(self, key: Any, value: Any) -> Map:
        return self.as_map().set(key, value)

    def delete(self, key: Any) -> Map:
        return self.as_map().delete(key)

    def update(self, *args: Any, **kwargs: Any) -> Map:
        return self.as_map().update(*args, **kwargs)

    def mutate(self) -> Any:
        return self.as_map().mutate()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DictMap):
            return self._d == other._d
        if isinstance(other, Map):
            return len(other) == len(self._d) and all(
                key in other and other[key] == value for key, value in self._d.items())
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.as_map())

    def __reduce__(self) -> tuple[Any, ...]:
        return (DictMap, (self._d,))

    def __repr__(self) -> str:
        return f"DictMap({len(self._d)} items)"


#: what the design state's maps are: tries, or (read from a file, until edited) dicts
AnyMap = Map | DictMap


def bulk_update(base: Map | DictMap, pairs: Iterable[tuple[Any, Any]]) -> Map:
    """`base` with `pairs` set, a slice at a time: one `Map.update` of 700,000 pairs (a 100k-GPU
    design's links) holds the GIL for about half a second, so the designer's GUI thread froze
    while a worker read a file; slices let it in between. The slices go into one mutation
    (`Map.mutate`), which changes the trie's new nodes in place: successive `update`s copied
    the paths every slice touched again (700,000 pairs: 0.87 -> 0.6 s)."""
    items = pairs if isinstance(pairs, list) else list(pairs)
    if not items:
        return base if isinstance(base, Map) else base.as_map()
    if len(items) <= BULK_CHUNK:
        return base.update(items) if len(base) else Map(items)
    mutation = base.mutate()
    for start in range(0, len(items), BULK_CHUNK):
        mutation.update(items[start:start + BULK_CHUNK])
    return mutation.finish()


class Order:
    """A persistent insertion order of ids (see the module docstring).

    An order made by appends only (a file just read, a generated design) keeps no position
    map: `buf[:n]` *is* the order. Building the maps of a 100k-GPU design's 700,000 link ids and
    356,000 device ids was a fifth of its load. A removal then records the removed id in a
    small map (`_gone`) instead of a position; positions are mapped only when asked for
    (`position`, or re-adding an id that was removed), once per order, and shared from then on.
    """

    __slots__ = ("_buf", "_gone", "_n", "_pos")

    def __init__(self, buf: list[str] | None = None, n: int = 0, pos: Map | None = None,
                 gone: Map = _EMPTY) -> None:
        self._buf = buf if buf is not None else []
        self._n = n
        self._pos = pos  # id -> index in _buf; None: not mapped (buf[:n] less _gone)
        self._gone = gone  # ids removed from an unmapped order

    def __len__(self) -> int:
        return len(self._pos) if self._pos is not None else self._n - len(self._gone)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._positions()

    def _positions(self) -> Map:
        """id -> index in the buffer, made on first use for an unmapped order."""
        pos = self._pos
        if pos is None:
            gone = self._gone
            pos = bulk_update(_EMPTY, [(item_id, i) for i, item_id in
                                       enumerate(islice(self._buf, self._n))
                                       if item_id not in gone])
            self._pos = pos  # a cache: the order it describes does not change
        return pos

    def _grown(self, item_ids: list[str]) -> tuple[list[str], int]:
        with _APPEND_LOCK:  # two documents sharing a buffer may append from two threads
            buf = self._buf
            if len(buf) != self._n:  # a newer state owns the tail: branch off our prefix
                buf = buf[:self._n]
            buf.extend(item_ids)
        return buf, self._n + len(item_ids)

    def append(self, item_id: str) -> Order:
        if self._pos is None and item_id in self._gone:
            self._positions()  # an id back after its removal: from here on, mapped
        buf, n = self._grown([item_id])
        if self._pos is None:
            return Order(buf, n, None, self._gone)
        return Order(buf, n, self._pos.set(item_id, self._n))

    def extend(self, item_ids: list[str]) -> Order:
        if not item_ids:
            return self
        gone = self._gone
        if self._pos is None and gone and any(item_id in gone for item_id in item_ids):
            self._positions()
        buf, n = self._grown(item_ids)
        if self._pos is None:
            return Order(buf, n, None, self._gone)
        positions = list(zip(item_ids, range(self._n, n), strict=True))
        return Order(buf, n, bulk_update(self._pos, positions))

    def remove(self, item_id: str) -> Order:
        if self._pos is None:
            gone = self._gone.set(item_id, None)
            if len(gone) > max(64, self._n - len(gone)):  # mostly removed: compact
                return Order.of(self._live(None, gone))
            return Order(self._buf, self._n, None, gone)
        pos = self._pos.delete(item_id)
        if self._n - len(pos) > max(64, len(pos)):  # mostly tombstones: compact
            return Order.of(self._live(pos))
        return Order(self._buf, self._n, pos)

    @classmethod
    def of(cls, ids: Iterator[str] | list[str]) -> Order:
        buf = list(ids)
        return cls(buf, len(buf))

    def _live(self, pos: Map | None = None, gone: Map | None = None) -> Iterator[str]:
        """The ids in order, by `pos` and `gone` (default: this order's own)."""
        if pos is None and gone is None:
            pos, gone = self._pos, self._gone
        if pos is None:
            if not gone:  # appends only: the buffer prefix is the order
                yield from islice(self._buf, self._n)
                return
            for item_id in islice(self._buf, self._n):
                if item_id not in gone:
                    yield item_id
            return
        if len(pos) == self._n:  # no tombstones: the buffer prefix is the order
            yield from islice(self._buf, self._n)
            return
        get = pos.get
        for i, item_id in enumerate(islice(self._buf, self._n)):
            if get(item_id) == i:
                yield item_id

    def __iter__(self) -> Iterator[str]:
        return self._live()

    def ordered(self, item_ids: Iterable[str]) -> list[str]:
        """`item_ids` (all in this order) sorted by where they stand: by their positions when
        mapped, else by one pass over the order (no position map made for a few ids)."""
        wanted = set(item_ids)
        if self._pos is not None or not wanted:
            return sorted(wanted, key=self.position)
        return [item_id for item_id in self._live() if item_id in wanted]

    def position(self, item_id: str) -> int:
        """Where `item_id` stands (comparable within one order; KeyError if absent)."""
        return self._positions()[item_id]
