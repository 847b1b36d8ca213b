"""The site's limits (`model.items.Site`) from a design's `site:` block or a `SITE.yaml` file:
the same form in both (docs/file-format.md, "site"). Every problem is a `LayoutFileError`
at its line: a negative or zero capacity, an unknown key, a power node whose parent chain
loops (a feed that feeds itself) or never reaches a feed (its racks would be on no feed)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rackdesigner.io.errors import LayoutFileError
from rackdesigner.io.schema import SITE_KEYS
from rackdesigner.model.items import (
    POWER_LEVELS,
    REDUNDANCIES,
    SITE_KW_MAX,
    SITE_KW_MIN,
    PowerNode,
    Site,
    is_valid_id,
)

#: Old and new names of the IT-power limit: `power_kw` (files before the site model) and
#: `it_power_kw` (the stable key a report also uses).
ALIASES = {"it_power_kw": "power_kw"}
NODE_KEYS = ("id", "level", "capacity_kw", "units", "redundancy", "parent", "racks")
EXAMPLE = "{facility_power_kw: 2000, liquid_kw: 1000, air_kw: 1200}"
Fail = Callable[[int | None, str], LayoutFileError]


def _line(node: Any, key: str | None = None, default: int | None = None) -> int | None:
    if key is not None and hasattr(node, "line_of"):
        return node.line_of(key)
    return getattr(node, "line", default)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_site(value: Any, fail: Fail, line: int | None) -> Site:
    """The `Site` of a `site:` mapping (lines from the line-keeping loader when it has them)."""
    if not isinstance(value, dict) or not value:
        raise fail(line, f"'site' must be a mapping such as {EXAMPLE}, got {_short(value)}")
    out: dict[str, Any] = {}
    for key, number in value.items():
        at = _line(value, str(key), line)
        if key not in SITE_KEYS:
            raise fail(at, f"site: unknown key {_short(key)} (known keys: "
                       f"{', '.join(SITE_KEYS)})")
        if key == "power":
            continue
        name = ALIASES.get(str(key), str(key))
        if name in out:
            raise fail(at, "site: 'power_kw' and 'it_power_kw' are the same limit; give one")
        out[name] = _number(number, key, fail, at)
    if "power" in value:
        out["power"] = _power(value["power"], fail, _line(value, "power", line))
    return Site(**out)


def _number(number: Any, key: str, fail: Fail, at: int | None) -> float | int:
    if isinstance(number, bool) or not isinstance(number, int | float) \
            or not math.isfinite(number):
        what = "a number" if key in ("pue", "liquid_supply_c", "rack_positions") \
            else "a positive number of kW"
        raise fail(at, f"site: '{key}' must be {what}, got {_short(number)}")
    if key == "rack_positions":
        if not isinstance(number, int) or number <= 0:
            raise fail(at, f"site: 'rack_positions' must be a whole number above 0, got "
                       f"{_short(number)}")
        return number
    if key == "pue" and not 1.0 <= number <= 5.0:
        raise fail(at, f"site: 'pue' must be between 1 and 5 (facility power over IT power), "
                   f"got {_short(number)}")
    if key == "liquid_supply_c" and not 0 < number < 100:
        raise fail(at, f"site: 'liquid_supply_c' must be a supply temperature in degrees C "
                   f"(0-100), got {_short(number)}")
    if number <= 0:
        raise fail(at, f"site: '{key}' must be a positive number of kW, got {_short(number)}")
    if key not in ("pue", "liquid_supply_c") and not SITE_KW_MIN <= number <= SITE_KW_MAX:
        raise fail(at, f"site: '{key}' must be from {SITE_KW_MIN:g} to {SITE_KW_MAX:,.0f} kW, "
                   f"got {_short(number)}")  # bounds: model/items.py (no site is 10 TW)
    return float(number)


def _power(nodes: Any, fail: Fail, line: int | None) -> tuple[PowerNode, ...]:
    if not isinstance(nodes, list) or not nodes:
        raise fail(line, "site: 'power' must be a list of power nodes such as "
                   "{id: feed-a, level: feed, capacity_kw: 2500}")
    lines = getattr(nodes, "item_lines", [line] * len(nodes))
    out: list[PowerNode] = []
    at_of: dict[str, int | None] = {}
    parent_at: dict[str, int | None] = {}  # the line of each node's `parent` key
    for item, at in zip(nodes, lines, strict=True):
        out.append(_node(item, fail, at, at_of))
        parent_at[out[-1].id] = _line(item, "parent", at) if "parent" in item else at
    by_id = {n.id: n for n in out}
    for node in out:
        at = at_of[node.id]
        if node.parent is None:
            if node.level != "feed":
                raise fail(at, f"site: power node {node.id} ({node.level}) has no parent: "
                           f"{_unfed(node, out)} would be on no feed (give 'parent', a node "
                           "above it)")
            continue
        if node.parent not in by_id:
            feeds = [n.id for n in out if n.level == "feed"]
            raise fail(parent_at.get(node.id, at), f"site: power node {node.id}: 'parent' "
                       f"{node.parent!r} is not a power node of the site ({_unfed(node, out)} "
                       f"would be on no feed; feeds: {', '.join(feeds) or 'none'}; nodes: "
                       f"{', '.join(by_id)})")
        above = by_id[node.parent]
        if POWER_LEVELS.index(_rank(above.level)) >= POWER_LEVELS.index(_rank(node.level)):
            raise fail(at, f"site: power node {node.id} ({node.level}) hangs from "
                       f"{above.id} ({above.level}), which is not above it (levels top down: "
                       "feed, switchboard or busway, pdu)")
        seen = {node.id}
        step: PowerNode | None = above
        while step is not None:
            if step.id in seen:  # never reached with levels strictly descending; kept as guard
                raise fail(at, f"site: power node {node.id} feeds itself")
            seen.add(step.id)
            step = by_id.get(step.parent) if step.parent else None
    racks: dict[str, str] = {}
    for node in out:
        for rack in node.racks:
            if rack in racks:
                raise fail(at_of[node.id], f"site: rack {rack} is on PDUs {racks[rack]} and "
                           f"{node.id}; list a rack on one PDU")
            racks[rack] = node.id
    return tuple(out)


def _unfed(node: PowerNode, nodes: list[PowerNode]) -> str:
    """The racks below `node` (its own and its children's, down the hierarchy) named for an
    error: "its racks" when none is listed yet."""
    below: list[str] = []
    todo, seen = [node], {node.id}
    while todo:
        here = todo.pop()
        below += here.racks
        for child in nodes:
            if child.parent == here.id and child.id not in seen:
                seen.add(child.id)
                todo.append(child)
    if not below:
        return "its racks"
    shown = ", ".join(below[:8]) + (f" and {len(below) - 8} more" if len(below) > 8 else "")
    return f"rack{'s' if len(below) > 1 else ''} {shown}"


def _rank(level: str) -> str:
    return "switchboard" if level == "busway" else level


def _node(item: Any, fail: Fail, at: int | None, at_of: dict[str, int | None]) -> PowerNode:
    if not isinstance(item, dict):
        raise fail(at, f"site: a power node must be a mapping like {{id: feed-a, level: feed, "
                   f"capacity_kw: 2500}}, got {_short(item)}")
    for key in item:
        if key not in NODE_KEYS:
            raise fail(_line(item, str(key), at), f"site: power node: unknown key "
                       f"{_short(key)} (known keys: {', '.join(NODE_KEYS)})")
    node_id = item.get("id")
    if not isinstance(node_id, str) or not is_valid_id(node_id):
        raise fail(at, f"site: a power node needs an 'id' (letters, digits, . _ -), got "
                   f"{_short(node_id)}")
    if node_id in at_of:
        raise fail(at, f"site: power node id {node_id} appears twice")
    at_of[node_id] = at
    level = item.get("level")
    if level not in POWER_LEVELS:
        raise fail(_line(item, "level", at), f"site: power node {node_id}: 'level' must be "
                   f"one of {', '.join(POWER_LEVELS)}, got {_short(level)}")
    capacity = item.get("capacity_kw")
    if isinstance(capacity, bool) or not isinstance(capacity, int | float) \
            or not math.isfinite(capacity) or not SITE_KW_MIN <= capacity <= SITE_KW_MAX:
        raise fail(_line(item, "capacity_kw", at), f"site: power node {node_id}: "
                   f"'capacity_kw' must be a positive number of kW per unit, got "
                   f"{_short(capacity)}")
    units = item.get("units", 1)
    if isinstance(units, bool) or not isinstance(units, int) or units < 1:
        raise fail(_line(item, "units", at), f"site: power node {node_id}: 'units' must be a "
                   f"whole number of 1 or more, got {_short(units)}")
    redundancy = str(item.get("redundancy", "N")).upper()
    if redundancy not in REDUNDANCIES:
        raise fail(_line(item, "redundancy", at), f"site: power node {node_id}: 'redundancy' "
                   f"must be one of {', '.join(REDUNDANCIES)}, got "
                   f"{_short(item.get('redundancy'))}")
    if redundancy != "N" and units < 2:
        raise fail(_line(item, "units", at), f"site: power node {node_id}: {redundancy} needs "
                   f"at least 2 units, got {units}")
    if redundancy == "2N" and units % 2:
        raise fail(_line(item, "units", at), f"site: power node {node_id}: 2N needs an even "
                   f"number of units (two equal paths), got {units}")
    parent = item.get("parent")
    if parent is not None and not isinstance(parent, str):
        raise fail(_line(item, "parent", at), f"site: power node {node_id}: 'parent' must be "
                   f"a power node id, got {_short(parent)}")
    if parent == node_id:
        raise fail(_line(item, "parent", at), f"site: power node {node_id} feeds itself "
                   "(its parent is itself)")
    racks = item.get("racks", [])
    if not isinstance(racks, list) or not all(isinstance(r, str) and is_valid_id(r)
                                              for r in racks) or len(set(racks)) != len(racks):
        raise fail(_line(item, "racks", at), f"site: power node {node_id}: 'racks' must be a "
                   f"list of distinct rack ids, got {_short(racks)}")
    if racks and level != "pdu":
        raise fail(_line(item, "racks", at), f"site: power node {node_id}: only a floor PDU "
                   f"(level: pdu) lists racks, this one is a {level}")
    return PowerNode(node_id, level, float(capacity), units, redundancy, parent, tuple(racks))


#: A site file is a few dozen lines; no real one comes near this.
MAX_SITE_BYTES = 1024 * 1024


def load_site(path: str | Path) -> Site:
    """A `SITE.yaml` file: the `site:` block's form, at the top or under a `site:` key."""
    from rackdesigner.inputs import check_yaml, read_text
    from rackdesigner.io.lined import line_loader
    from rackdesigner.yamlfile import load_checked

    name = str(path)
    text = read_text(name, MAX_SITE_BYTES, "site file")  # a FIFO or device is refused
    check_yaml(text, name, max_nodes=20_000)  # aliases, tags, duplicate keys, runaway sizes
    doc = load_checked(text, name, line_loader())  # the layout reader's lines kept

    def fail(line: int | None, message: str) -> LayoutFileError:
        return LayoutFileError(name, message, line)

    if isinstance(doc, dict) and set(doc) == {"site"}:
        return read_site(doc["site"], fail, _line(doc, "site"))
    if doc is None:
        raise fail(None, f"the site file is empty; expected a mapping such as {EXAMPLE}")
    return read_site(doc, fail, _line(doc))
