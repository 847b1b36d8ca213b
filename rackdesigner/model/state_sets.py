"""The persistent maps a `DesignState` keeps beside its objects, changed one object at a time:
port usage pairs per device and id sets (group members, child groups, failed ids). Pure
functions over `immutables.Map`s (or the `DictMap`s of a state read from a file)."""

from __future__ import annotations

from typing import Any

from immutables import Map

from rackdesigner.model.items import Link
from rackdesigner.model.order import AnyMap, bulk_update

_EMPTY: Map = Map()


def _bump(pairs: tuple[tuple[str, int], ...], group: str, delta: int) -> tuple:
    """Port usage pairs of one device with `delta` ports added to `group` (zeros dropped)."""
    out, found = [], False
    for name, count in pairs:
        if name == group:
            found = True
            count += delta
        if count:
            out.append((name, count))
    if not found and delta:
        out.append((group, delta))
    return tuple(out)


def _merge_use(pairs: tuple[tuple[str, int], ...], added: dict[str, int]) -> tuple:
    """`_bump` of every (group, count) in `added`, in order, at once."""
    out = []
    for name, count in pairs:
        count += added.get(name, 0)
        if count:
            out.append((name, count))
    have = {name for name, _ in pairs}
    out.extend((name, n) for name, n in added.items() if name not in have and n)
    return tuple(out)


def _sets_add(sets: AnyMap, added: dict[str, list[str]]) -> AnyMap:
    """`_set_add` of every member of `added` (key -> members), at once."""
    if not added:
        return sets
    return bulk_update(sets, ((key, bulk_update(sets.get(key, _EMPTY),
                                                ((m, None) for m in members)))
                              for key, members in added.items()))


def _use(port_use: AnyMap, link: Link, sign: int) -> AnyMap:
    """Port usage with `link`'s ends added (sign +1) or taken away (-1)."""
    for end in (link.a, link.b):
        port_use = port_use.set(end.device, _bump(port_use.get(end.device, ()), end.group,
                                                  sign * link.count))
    return port_use


def _mark(failed: AnyMap, new: Any, old: Any) -> AnyMap:
    """The failed-id set after `old` (or nothing) became `new` (or nothing)."""
    was = old is not None and old.status != "active"
    now = new is not None and new.status != "active"
    if was == now:
        return failed
    return failed.set(new.id, None) if now else failed.delete(old.id)


def _set_add(sets: AnyMap, key: str, member: str) -> AnyMap:
    return sets.set(key, sets.get(key, _EMPTY).set(member, None))


def _set_move(sets: AnyMap, old: str | None, new: str | None, member: str) -> AnyMap:
    """`member` filed under `new` instead of `old` (either may be None: not filed)."""
    if old is not None:
        sets = _set_drop(sets, old, member)
    return _set_add(sets, new, member) if new is not None else sets


def _set_drop(sets: AnyMap, key: str, member: str) -> AnyMap:
    current = sets.get(key)
    if current is None or member not in current:
        return sets
    rest = current.delete(member)
    return sets.set(key, rest) if len(rest) else sets.delete(key)
