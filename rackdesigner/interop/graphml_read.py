"""Reading GraphML into a design: located errors, bounded values, what other tools write.

An expat pass of our own (not `networkx.read_graphml`) so that every refusal names the line:
a node id defined twice (networkx silently merges them, last wins), a `<data>` whose key is not
declared, text where a number belongs, a position that is not finite, JSON that is not ours.
Documents with a DTD are refused outright (no entity of any kind is expanded).

Files re-saved by other tools are accepted as they write them:

* python-igraph renames nodes `n0, n1, ...` and keeps the original in a node attribute `id`;
  it writes a missing string as `""` and a missing number as `NaN`, and numbers as doubles
  (`u` = `1.0`): an empty string or NaN in an optional attribute means "not set";
* networkx writes our document back as it read it.

Positions must be finite (NaN or an infinity is refused: the canvas cannot draw it), a rack
unit and a cable count whole numbers (1.7 is refused, not truncated).
"""

from __future__ import annotations

import json
import re
import xml.parsers.expat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rackdesigner.inputs import InputError, finite_number, read_bytes, whole_number
from rackdesigner.io.safety import flow_depth_upper_bound
from rackdesigner.model import Device, Group, Link, PortRef
from rackdesigner.model.items import (
    GROUP_KINDS,
    MAX_COORD,
    MAX_LINK_COUNT,
    MAX_U,
    is_valid_id,
)

MAX_BYTES = 1024 * 2**20
#: The element and value bounds follow the file's: whatever the writer (graphml.py) puts in a
#: file of at most MAX_BYTES is read. Its shortest element, `<data key="d0">1</data>`, is 24
#: bytes, so such a file holds fewer than MAX_BYTES / 24 elements (its average is ~36 bytes:
#: 1.28 M elements in the 46.6 MB export of a 16,384-GPU SuperPOD). The old bound of 5 M
#: elements refused the app's own 285 MB export of a 100k-GPU design (about 8 M elements).
MAX_ELEMENTS = MAX_BYTES // 24
#: One value's text: the graph's `groups` JSON is the longest the writer writes, about 1% of
#: its file (428 KB of 46.6 MB at 16k GPUs); a sixteenth of the largest file covers it.
MAX_JSON = MAX_BYTES // 16
_IGRAPH_ID = re.compile(r"n\d+")
_GROUP_KEYS = {"id", "name", "kind", "parent", "collapsed", "template", "status"}


class GraphmlError(InputError):
    pass


@dataclass(slots=True)
class Element:
    id: str
    line: int
    attrs: dict[str, tuple[str, int]] = field(default_factory=dict)  # name -> (text, line)
    source: str = ""
    target: str = ""


@dataclass
class Document:
    graph: dict[str, tuple[str, int]]
    nodes: list[Element]
    edges: list[Element]


#: Takes each `<node>` / `<edge>` as soon as it is complete ("node" or "edge", the element);
#: True when it has taken the element over, which the parser then does not keep.
Sink = Callable[[str, Element], bool]


class _Parser:
    def __init__(self, path: str, sink: Sink | None = None) -> None:
        self.path = path
        self.sink = sink
        self.keys: dict[str, tuple[str, str, str, int]] = {}  # id -> (for, name, type, line)
        self.defaults: dict[str, str] = {}
        self.graph: dict[str, tuple[str, int]] = {}
        self.nodes: list[Element] = []
        self.edges: list[Element] = []
        self.node_lines: dict[str, int] = {}
        self.stack: list[str] = []
        self.current: Element | None = None
        self.key_id: str | None = None
        self.data_key: tuple[str, int] | None = None
        self.text: list[str] = []
        self.text_len = 0
        self.graphs = 0
        self.count = 0
        p = xml.parsers.expat.ParserCreate(namespace_separator="}")
        p.StartDoctypeDeclHandler = self._doctype
        p.EntityDeclHandler = self._entity
        p.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
        p.StartElementHandler = self._start
        p.EndElementHandler = self._end
        p.CharacterDataHandler = self._chars
        self.parser = p

    def fail(self, message: str, line: int | None = None) -> GraphmlError:
        return GraphmlError(self.path, message,
                            line if line is not None else self.parser.CurrentLineNumber)

    def parse(self, data: bytes) -> Document:
        try:
            self.parser.Parse(data, True)
        except xml.parsers.expat.ExpatError as exc:
            reason = xml.parsers.expat.ErrorString(exc.code) if exc.code else str(exc)
            raise GraphmlError(self.path, f"not a valid GraphML file (XML: {reason})", exc.lineno,
                               exc.offset + 1) from None
        except (LookupError, UnicodeError) as exc:  # an encoding the declaration names badly
            raise GraphmlError(self.path, f"not a valid GraphML file (XML: {exc})",
                               self.parser.CurrentLineNumber) from None
        if self.graphs == 0:
            raise GraphmlError(self.path, "no <graph> element: not a GraphML file")
        return Document(self.graph, self.nodes, self.edges)

    def _doctype(self, *args: Any) -> None:
        raise self.fail("the document has a DTD (<!DOCTYPE>); GraphML files have none, and "
                        "entities are not expanded")

    def _entity(self, *args: Any) -> None:
        raise self.fail("the document declares entities; they are not expanded")

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        tag = name.rsplit("}", 1)[-1]
        line = self.parser.CurrentLineNumber
        self.count += 1
        if self.count > MAX_ELEMENTS:
            raise self.fail(f"more than {MAX_ELEMENTS:,} elements; more than any GraphML file "
                            f"of at most {MAX_BYTES // 2**20:,} MiB from RackDesigner holds")
        parent = self.stack[-1] if self.stack else ""
        self.stack.append(tag)
        if tag == "key":
            kid = attrs.get("id", "")
            if not kid:
                raise self.fail("<key> without an id")
            if kid in self.keys:
                raise self.fail(f"key {kid!r} is declared twice (first on line "
                                f"{self.keys[kid][3]})")
            self.keys[kid] = (attrs.get("for", "all"), attrs.get("attr.name", kid),
                              attrs.get("attr.type", "string"), line)
            self.key_id = kid
        elif tag == "default" and parent == "key":
            self.text, self.text_len = [], 0
        elif tag == "graph":
            if self.graphs or "node" in self.stack[:-1]:
                raise self.fail("nested or second <graph>: one flat graph is read")
            self.graphs += 1
        elif tag == "node":
            if parent != "graph":
                raise self.fail("<node> outside <graph>")
            nid = attrs.get("id", "")
            if not nid:
                raise self.fail("<node> without an id")
            if nid in self.node_lines:
                raise self.fail(f"node {nid!r} is defined twice (first on line "
                                f"{self.node_lines[nid]}); each node id may appear once")
            self.node_lines[nid] = line
            self.current = Element(nid, line)
        elif tag == "edge":
            if parent != "graph":
                raise self.fail("<edge> outside <graph>")
            self.current = Element(attrs.get("id", ""), line, source=attrs.get("source", ""),
                                   target=attrs.get("target", ""))
            if not self.current.source or not self.current.target:
                raise self.fail("<edge> needs source and target")
        elif tag in ("hyperedge", "port", "endpoint"):
            raise self.fail(f"<{tag}> is not supported: nodes and edges are read")
        elif tag == "data":
            key = attrs.get("key", "")
            if key not in self.keys:
                raise self.fail(f"<data> with key {key!r}, which no <key> declares")
            self.data_key = (key, line)
            self.text, self.text_len = [], 0

    def _chars(self, text: str) -> None:
        if self.data_key is not None or (self.stack and self.stack[-1] == "default"):
            self.text_len += len(text)
            if self.text_len > MAX_JSON:
                raise self.fail(f"a value longer than {MAX_JSON // 2**20} MiB")
            self.text.append(text)

    def _end(self, name: str) -> None:
        tag = self.stack.pop()
        if tag == "default" and self.key_id is not None:
            self.defaults[self.key_id] = "".join(self.text)
        elif tag == "key":
            self.key_id = None
        elif tag == "data" and self.data_key is not None:
            key, line = self.data_key
            self.data_key = None
            _for, attr, _type, _ = self.keys[key]
            value = ("".join(self.text), line)
            parent = self.stack[-1] if self.stack else ""
            if parent == "graph":
                self.graph[attr] = value
            elif parent in ("node", "edge") and self.current is not None:
                if attr in self.current.attrs:
                    raise self.fail(f"{parent} {self.current.id!r}: attribute {attr!r} given "
                                    f"twice (first on line {self.current.attrs[attr][1]})",
                                    line)
                self.current.attrs[attr] = value
        elif tag in ("node", "edge") and self.current is not None:
            for kid, default in self.defaults.items():
                where, attr, _type, kline = self.keys[kid]
                if where in (tag, "all") and attr not in self.current.attrs:
                    self.current.attrs[attr] = (default, kline)
            if self.sink is None or not self.sink(tag, self.current):
                (self.nodes if tag == "node" else self.edges).append(self.current)
            self.current = None


def parse(path: str | Path, sink: Sink | None = None) -> Document:
    """The document's graph attributes, nodes and edges; with `sink`, each node and edge is
    offered to it as soon as it is read, and those it takes are not kept (a large file's
    elements never all live at once)."""
    data = read_bytes(path, MAX_BYTES, "GraphML file")
    return _Parser(str(path), sink).parse(data)


# ---- values ------------------------------------------------------------------------------
def _get(e: Element, key: str) -> tuple[str, int] | None:
    """An attribute's (text, line), None when absent or written as "not set" (igraph)."""
    value = e.attrs.get(key)
    if value is None:
        return None
    text = value[0]
    if text.strip() == "" or text.strip().lower() == "nan":
        return None
    return value


class Values:
    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, line: int, message: str) -> GraphmlError:
        return GraphmlError(self.path, message, line)

    def number(self, e: Element, key: str, what: str, default: float) -> float:
        value = e.attrs.get(key)
        if value is None or not value[0].strip():
            return default
        try:
            return finite_number(value[0], f"{what}: {key!r}", low=-MAX_COORD, high=MAX_COORD)
        except ValueError as exc:
            raise self.fail(value[1], str(exc)) from None

    def length(self, e: Element, what: str) -> float | None:
        value = _get(e, "length_m")
        if value is None:
            return None
        try:
            return finite_number(value[0], f"{what}: 'length_m' (metres)", low=0, high=1e6)
        except ValueError as exc:
            raise self.fail(value[1], str(exc)) from None

    def whole(self, e: Element, key: str, what: str, low: int, high: int) -> int | None:
        value = _get(e, key)
        if value is None:
            return None
        try:
            return whole_number(value[0], f"{what}: {key!r}", low=low, high=high)
        except ValueError as exc:
            raise self.fail(value[1], str(exc)) from None

    def ident(self, e: Element, key: str, what: str) -> str | None:
        value = _get(e, key)
        if value is None:
            return None
        if not is_valid_id(value[0]) or "\n" in value[0]:
            raise self.fail(value[1], f"{what}: {key!r} must be an id (letters, digits, . _ -, "
                            f"starting with a letter or digit), got {value[0][:60]!r}")
        return value[0]

    def json(self, value: tuple[str, int], what: str, kind: type) -> Any:
        text, line = value
        if flow_depth_upper_bound(text.encode("utf-8", "surrogatepass")) > 16:
            raise self.fail(line, f"{what}: JSON nested too deeply (at most 16 levels)")
        try:
            data = json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            raise self.fail(line, f"{what}: not RackDesigner JSON ({exc})") from None
        if not isinstance(data, kind):
            raise self.fail(line, f"{what}: expected a JSON "
                            f"{'object' if kind is dict else 'list'}, got {type(data).__name__}")
        return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number RackDesigner reads")


def device_of(v: Values, e: Element, did: str) -> Device:
    what = f"node {did!r}"
    model = _get(e, "model")
    if model is None:
        raise v.fail(e.line, f"{what} has no 'model' attribute (the catalog id of the device, "
                     "e.g. h100-sxm5)")
    x = v.number(e, "x", what, 0.0)
    y = v.number(e, "y", what, 0.0)
    u = v.whole(e, "u", what, 1, MAX_U)
    props: tuple = ()
    raw = _get(e, "props")
    if raw is not None:
        data = v.json(raw, f"{what}: 'props'", dict)
        props = tuple(sorted(data.items()))
    name = e.attrs.get("name", ("", 0))[0]
    return Device(did, model[0], name, (x, y), v.ident(e, "rack", what), u,
                  v.ident(e, "group", what), props)


def link_of(v: Values, e: Element, n: int, devices: dict[str, str]) -> Link:
    ends = []
    for side, node in (("a", e.source), ("b", e.target)):
        if node not in devices:
            raise v.fail(e.line, f"edge {e.id or n}: {'source' if side == 'a' else 'target'} "
                         f"{node!r} is not a node of the graph")
        port = _get(e, f"{side}_port")
        try:
            ends.append(PortRef.parse(port[0]) if port is not None
                        else PortRef(devices[node], "port"))
        except ValueError as exc:
            raise v.fail(port[1] if port else e.line, f"edge {e.id or n}: "
                         f"'{side}_port': {exc}") from None
    if {ends[0].device, ends[1].device} != {devices[e.source], devices[e.target]}:
        raise v.fail(e.line, f"edge {e.id or n}: its ports {ends[0]} and {ends[1]} are not on "
                     f"its nodes {devices[e.source]} and {devices[e.target]}")
    lid = v.ident(e, "link", f"edge {e.id or n}") or (e.id if is_valid_id(e.id) else f"link-{n}")
    count = v.whole(e, "count", f"link {lid}", 1, MAX_LINK_COUNT) or 1
    cable = v.ident(e, "cable", f"link {lid}")
    return Link(lid, ends[0], ends[1], count, cable, v.length(e, f"link {lid}"))


def groups_of(v: Values, value: tuple[str, int] | None) -> list[Group]:
    if value is None:
        return []
    out = []
    for i, g in enumerate(v.json(value, "graph attribute 'groups'", list)):
        what = f"graph attribute 'groups'[{i}]"
        if not isinstance(g, dict) or not set(g) <= _GROUP_KEYS or "id" not in g:
            raise v.fail(value[1], f"{what}: expected an object with id, name, kind, parent, "
                         "collapsed, template")
        kind = g.get("kind", "group")
        if kind not in GROUP_KINDS:
            raise v.fail(value[1], f"{what}: kind {kind!r} is not one of "
                         f"{', '.join(GROUP_KINDS)}")
        for key in ("id", "parent", "template"):
            if g.get(key) is not None and not is_valid_id(g[key]):
                raise v.fail(value[1], f"{what}: {key} {g[key]!r} is not an id")
        if not isinstance(g.get("name", ""), str) or not isinstance(
                g.get("collapsed", False), bool):
            raise v.fail(value[1], f"{what}: name must be text and collapsed true or false")
        g = {k: g[k] for k in g if k != "status"}
        out.append(Group(**g))
    return out


def graph_data(doc: Document, key: str) -> tuple[str, int] | None:
    """(text, line) of the graph's `key` data (groups, extensions), None when absent or blank."""
    value = doc.graph.get(key)
    return value if value is not None and value[0].strip() else None


def device_ids(v: Values, nodes: list[Element]) -> dict[str, str]:
    """XML node id -> device id: our own ids, or igraph's `n0...` with the original in `id`."""
    seen: dict[str, int] = {}
    return {e.id: device_id(v, e, seen) for e in nodes}


def device_id(v: Values, e: Element, seen: dict[str, int]) -> str:
    """One node's device id (`device_ids`); `seen` holds the ids taken so far, with lines."""
    original = _get(e, "id")
    did = original[0] if original is not None and _IGRAPH_ID.fullmatch(e.id) else e.id
    if not is_valid_id(did) or "\n" in did:
        raise v.fail(e.line, f"node id {did[:60]!r} is not a valid device id (letters, "
                     "digits, . _ -, starting with a letter or digit)")
    if did in seen:
        raise v.fail(e.line, f"device id {did!r} is used twice (first on line {seen[did]})")
    seen[did] = e.line
    return did
