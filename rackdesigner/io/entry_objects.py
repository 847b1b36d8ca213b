"""A layout file's objects from its entries: each group, device and link checked key by key,
its id taken once across the file, a refusal located at its line; a whole section read at once
when it is in the canonical form. A part of `EntryReader` (`reader.py`)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from operator import attrgetter
from typing import Any, cast

from rackdesigner.io.entry_values import EntryValues, _short, extensions, value_kind
from rackdesigner.io.errors import LayoutFileError
from rackdesigner.io.lined import Entry, SourceLines
from rackdesigner.io.schema import (
    DEVICE_KEYS,
    GROUP_KEYS,
    LINK_KEYS,
)
from rackdesigner.model import Device, Group, Link, PortRef
from rackdesigner.model.items import (
    GROUP_KINDS,
    ID_TEXT,
    RACK_W_MAX,
    RACK_W_MIN,
    is_valid_id,
    length_ok,
    link_count_ok,
    position,
)

#: A rack's own power budget or air-cooling limit, W (model/items.py says why).
RACK_W = (RACK_W_MIN, RACK_W_MAX)
#: The model's port syntax (`PortRef.parse`), matched in full: its `$` also accepts a final "\n".
_PORT_TEXT = re.compile(rf"{ID_TEXT}:[A-Za-z][\w\-]*(?:\.\d+)?")
_ID_OF = attrgetter("id")


class EntryObjects(EntryValues):
    """`EntryReader`'s groups, devices and links."""

    lines: SourceLines
    by_id: dict[type, dict[str, Any]]

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
        if all(issubclass(kind, dict | Group | Device | Link) for kind in set(map(type, value))):
            return value  # objects: direct.direct_*; entries: mappings
        for index, item in enumerate(value):
            if not isinstance(item, dict | Group | Device | Link):
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
