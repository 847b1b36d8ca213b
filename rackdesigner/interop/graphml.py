"""The topology as GraphML, and back.

Written in GraphML's published form (graphml.graphdrawing.org; what networkx's own writer
produces, in one fast pass), so `networkx.read_graphml` (and Gephi, yEd, Cytoscape) read it:
one node per device (`model`, `kind`, `name`, `rack`, `u`, `group`, `x`, `y`, `unit`), one
edge per link (`link`, `a_port`, `b_port`, `count`, `cable`, `length_m`,
`protocol`), keyed by link id. Graph attributes hold what graph tools have no place for (the
groups, the design's name and description, `x-` extensions) as JSON text, under
`rackdesigner_schema: rackdesigner.graphml/1`, so `rackdesigner import graphml` gives back the
same design: devices, ports, links, groups.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import networkx as nx

from rackdesigner.catalog import Catalog
from rackdesigner.interop.base import ExportReport, write_atomic
from rackdesigner.interop.sanitize import xml_text
from rackdesigner.interop.units import inventory, protocol_of
from rackdesigner.io.jsonout import json_text
from rackdesigner.model import Group, Layout, LayoutError, Meta

SCHEMA = "rackdesigner.graphml/1"


class GraphmlImportError(ValueError):
    pass


def to_graph(layout: Layout) -> nx.MultiGraph:
    inv = inventory(layout)
    meta = layout.meta
    graph = nx.MultiGraph(
        name=meta.name, description=meta.description, rackdesigner_schema=SCHEMA,
        groups=json_text([_group_dict(g) for g in layout.groups()], indent=None,
                         sort_keys=True),
        extensions=json_text(dict(meta.extra), indent=None, sort_keys=True))
    for d in layout.devices():
        spec = layout.spec(d.id)
        attrs: dict[str, Any] = {"model": d.model, "kind": spec.kind if spec else "unknown",
                                 "x": float(d.pos[0]), "y": float(d.pos[1])}
        for key in ("name", "rack", "u", "group"):
            value = getattr(d, key)
            if value not in (None, ""):
                attrs[key] = value
        if d.id in inv.unit_of:
            attrs["unit"] = inv.unit_of[d.id]
        if d.props:
            attrs["props"] = json_text(dict(d.props), indent=None, sort_keys=True)
        graph.add_node(d.id, **attrs)
    for k in layout.links():
        attrs = {"link": k.id, "a_port": str(k.a), "b_port": str(k.b), "count": k.count,
                 "protocol": protocol_of(layout, k.a)}
        if k.cable is not None:
            attrs["cable"] = k.cable
        if k.length_m is not None:
            attrs["length_m"] = float(k.length_m)
        graph.add_edge(k.a.device, k.b.device, key=k.id, **attrs)
    return graph


_TYPES = ((bool, "boolean"), (int, "long"), (float, "double"), (str, "string"))


def graphml_text(graph: nx.MultiGraph) -> str:
    """GraphML of `graph` in one pass over plain strings: the same document
    `networkx.generate_graphml` gives (keys typed string/long/double/boolean, edge ids = link
    ids), about five times faster, which matters at 10,000+ links."""
    keys: dict[tuple[str, str], tuple[str, str]] = {}  # (for, name) -> (key id, type)

    def key_of(where: str, name: str, value: Any) -> str:
        if (where, name) not in keys:
            kind = next(t for cls, t in _TYPES if isinstance(value, cls))
            keys[where, name] = (f"d{len(keys)}", kind)
        return keys[where, name][0]

    def data(where: str, attrs: dict[str, Any]) -> str:
        return "".join(
            f'<data key="{key_of(where, k, v)}">{_xml(v)}</data>' for k, v in attrs.items())

    body = [f"<graph edgedefault=\"undirected\">{data('graph', graph.graph)}"]
    for node, attrs in graph.nodes(data=True):
        body.append(f"<node id={quoteattr(str(node))}>{data('node', attrs)}</node>")
    for a, b, key, attrs in graph.edges(keys=True, data=True):
        body.append(f"<edge source={quoteattr(str(a))} target={quoteattr(str(b))} "
                    f"id={quoteattr(str(key))}>{data('edge', attrs)}</edge>")
    body.append("</graph>")
    head = ['<?xml version="1.0" encoding="utf-8"?>',
            '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
            'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">']
    for (where, name), (kid, kind) in keys.items():
        head.append(f'<key id="{kid}" for="{where}" attr.name={quoteattr(name)} '
                    f'attr.type="{kind}" />')
    return "\n".join([*head, *body, "</graphml>"]) + "\n"


def _xml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return escape(xml_text(repr(value) if isinstance(value, float) else str(value)))


def write(layout: Layout, path: Path) -> ExportReport:
    graph = to_graph(layout)
    write_atomic(path, graphml_text(graph))
    return ExportReport([path], [], f"{path}: {graph.number_of_nodes()} nodes, "
                        f"{graph.number_of_edges()} edges (GraphML)")


def read(path: str | Path, catalog: Catalog | None = None) -> Layout:
    """A layout from a GraphML file; RackDesigner's own attributes give back the full design,
    a graph from elsewhere needs a `model` attribute on every node (a catalog id). Every
    refusal is a GraphmlImportError `file:line: what was expected` (graphml_read.py)."""
    from rackdesigner.inputs import InputError
    from rackdesigner.interop import graphml_read as gr
    from rackdesigner.interop.importcheck import unreadable_reason
    from rackdesigner.interop.sanitize import one_line

    label = str(path)
    v = gr.Values(label)
    ids: dict[str, str] = {}  # XML node id -> device id
    seen: dict[str, int] = {}
    devices: list = []
    links: list = []
    lines: dict[str, int] = {}  # object id -> line, for the model's refusals
    waiting: list[tuple[int, gr.Element]] = []  # edges read before one of their nodes
    edges = 0

    def take(tag: str, e: gr.Element) -> bool:
        """Each node and edge becomes a Device or Link as soon as it is read, so the parsed
        elements (several times the file's size) never all live at once."""
        nonlocal edges
        if tag == "node":
            did = ids[e.id] = gr.device_id(v, e, seen)
            devices.append(gr.device_of(v, e, did))
            lines[did] = e.line
            return True
        edges += 1
        if e.source in ids and e.target in ids:
            links.append(gr.link_of(v, e, edges, ids))
            lines[links[-1].id] = e.line
        else:
            waiting.append((edges, e))
        return True

    try:
        doc = gr.parse(path, take)
        for n, e in waiting:
            links.append(gr.link_of(v, e, n, ids))
            lines[links[-1].id] = e.line
        groups = gr.groups_of(v, gr.graph_data(doc, "groups"))
        extensions = gr.graph_data(doc, "extensions")
        extra = v.json(extensions, "graph attribute 'extensions'", dict) if extensions else {}
    except InputError as exc:
        raise GraphmlImportError(str(exc)) from None
    name = doc.graph.get("name", ("", 0))[0]
    description = doc.graph.get("description", ("", 0))[0]
    meta = Meta(one_line(name), description, tuple(sorted(extra.items())))
    layout = Layout(catalog, meta)

    def locate(item, exc) -> None:
        line = lines.get(item.id)
        raise GraphmlImportError(f"{path}:{line}: {exc}" if line else f"{path}: {exc}")

    try:
        layout.add_all(_parents_first(groups), devices, links, on_error=locate)
    except LayoutError as exc:
        raise GraphmlImportError(f"{path}: {exc}") from None
    reason = unreadable_reason(layout)
    if reason is not None:
        raise GraphmlImportError(f"{path}: cannot import: {reason}")
    layout.revision = 0
    return layout


def _group_dict(g: Group) -> dict[str, Any]:
    return {"id": g.id, "name": g.name, "kind": g.kind, "parent": g.parent,
            "collapsed": g.collapsed, "template": g.template}


def _parents_first(groups: list[Group]) -> list[Group]:
    by_id = {g.id: g for g in groups}
    done: set[str] = set()
    out: list[Group] = []

    def visit(g: Group, depth: int = 0) -> None:
        if g.id in done or depth > len(groups):
            return
        if g.parent in by_id:
            visit(by_id[g.parent], depth + 1)
        done.add(g.id)
        out.append(g)

    for g in groups:
        visit(g)
    return out
