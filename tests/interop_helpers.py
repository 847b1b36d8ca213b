"""Readers that parse exported files the way their targets do (independent of the exporters).

- `expand_hostlist`: Slurm's hostlist syntax (topology.conf(5): "Nodes=tux[0-3,12,18-20]"),
  prefix[ranges]suffix terms separated by commas outside brackets, ranges keep zero padding.
- `parse_topology_conf`: topology.conf lines of `Key=Value` pairs (case-insensitive keys, `#`
  comments), one switch or block per line.
- `parse_dot`: the subset of the DOT language the exporter is expected to write (quoted IDs,
  node and edge statements with attribute lists, subgraphs).
"""

from __future__ import annotations

import re


def _split_terms(expr: str) -> list[str]:
    terms, depth, current = [], 0, ""
    for ch in expr:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            terms.append(current)
            current = ""
        else:
            current += ch
    assert depth == 0, f"unbalanced brackets in {expr!r}"
    if current:
        terms.append(current)
    return terms


def expand_hostlist(expr: str) -> list[str]:
    out: list[str] = []
    for term in _split_terms(expr):
        m = re.fullmatch(r"([^\[\]]*)\[([0-9,\-]+)\]([^\[\]]*)", term)
        if m is None:
            assert "[" not in term and "]" not in term, term
            out.append(term)
            continue
        prefix, ranges, suffix = m.groups()
        for part in ranges.split(","):
            lo, _, hi = part.partition("-")
            hi = hi or lo
            width = len(lo) if lo.startswith("0") else 0
            for n in range(int(lo), int(hi) + 1):
                out.append(f"{prefix}{n:0{width}d}{suffix}")
    return out


def parse_topology_conf(text: str) -> list[dict[str, str]]:
    entries = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        pairs = {}
        for token in line.split():
            key, sep, value = token.partition("=")
            assert sep, f"not Key=Value: {token!r}"
            pairs[key.lower()] = value
        entries.append(pairs)
    return entries


_ID = r'"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*'


def parse_dot(text: str) -> tuple[str, set[str], list[tuple[str, str, dict[str, str]]]]:
    """(graph kind, node ids, edges) of an undirected DOT graph; asserts the syntax."""
    body = text.strip()
    m = re.match(rf"^(strict\s+)?(graph|digraph)\s*({_ID})?\s*\{{(.*)\}}$", body, re.S)
    assert m, "not a DOT graph"
    kind, inner = m.group(2), m.group(4)
    nodes: set[str] = set()
    edges = []

    def unquote(s: str) -> str:
        return s[1:-1].replace('\\"', '"').replace("\\\\", "\\") if s.startswith('"') else s

    def attrs(s: str | None) -> dict[str, str]:
        out = {}
        for k, v in re.findall(rf"([A-Za-z_]+)\s*=\s*({_ID}|[0-9.]+)", s or ""):
            out[k] = unquote(v)
        return out

    depth = 0
    for raw in inner.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("subgraph"):
            assert re.match(rf"^subgraph\s+({_ID})\s*\{{$", line), line
            depth += 1
            continue
        if line == "}":
            depth -= 1
            assert depth >= 0
            continue
        assert line.endswith(";"), f"statement without ';': {line!r}"
        stmt = line[:-1]
        if re.match(r"^(graph|node|edge)\s*\[", stmt) or re.match(rf"^[A-Za-z_]+\s*=\s*({_ID})$",
                                                                   stmt):
            continue
        e = re.fullmatch(rf"({_ID})\s*--\s*({_ID})\s*(\[(.*)\])?", stmt)
        if e:
            assert kind == "graph", "'--' edges belong to an undirected graph"
            edges.append((unquote(e.group(1)), unquote(e.group(2)), attrs(e.group(4))))
            continue
        n = re.fullmatch(rf"({_ID})\s*(\[(.*)\])?", stmt)
        assert n, f"not a DOT statement: {stmt!r}"
        nodes.add(unquote(n.group(1)))
    assert depth == 0
    return kind, nodes, edges
