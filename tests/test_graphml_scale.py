"""GraphML at scale (issue 31 §9): `import graphml` refused the app's own 285 MB export of a
100k-GPU design (about 8 M elements against a bound of 5 M). The reader's bounds now follow
its file-size bound by the writer's own density: whatever the writer puts in a file the reader
accepts by size, the reader reads."""

from __future__ import annotations

import re

import pytest

from rackdesigner.generators import generate
from rackdesigner.interop import export
from rackdesigner.interop import graphml_read as gr
from rackdesigner.interop.graphml import read
from rackdesigner.io import dump_layout_text


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    layout = generate("superpod", system="dgx-h100", sus=4)
    path = tmp_path_factory.mktemp("graphml") / "pod.graphml"
    export(layout, "graphml", path)
    return layout, path


def test_the_writer_round_trips_through_the_reader(written):
    layout, path = written
    back = read(path)
    assert (back.device_count(), back.link_count()) == (layout.device_count(),
                                                        layout.link_count())
    assert dump_layout_text(back) == dump_layout_text(layout)  # every device, link, group


def test_a_file_of_the_writers_density_at_the_size_bound_is_read(written):
    """The bounds scale with the writer: a file of the size the reader accepts, written as
    densely as the writer writes (elements per byte, the longest value's share of the
    file), stays within the element and value bounds."""
    _, path = written
    text = path.read_text(encoding="utf-8")
    size = len(text.encode("utf-8"))
    elements = len(re.findall(r"<[A-Za-z]", text))
    longest = max(len(v) for v in re.findall(r">([^<]*)</data>", text))
    assert elements / size * gr.MAX_BYTES <= gr.MAX_ELEMENTS
    assert longest / size * gr.MAX_BYTES <= gr.MAX_JSON
    shortest = min(len(m) for m in re.findall(r"<data key=\"[^\"]+\">[^<]*</data>", text))
    assert gr.MAX_BYTES // shortest <= gr.MAX_ELEMENTS  # however the design is made up


def test_the_element_bound_still_refuses_with_a_located_message(tmp_path, monkeypatch):
    path = tmp_path / "many.graphml"
    path.write_text("<graphml><graph>" + "<node id='x'/>" * 3 + "</graph></graphml>")
    monkeypatch.setattr(gr, "MAX_ELEMENTS", 3)
    with pytest.raises(gr.GraphmlError, match="more than 3 elements"):
        gr.parse(path)


def test_edges_before_their_nodes_are_read_too(written, tmp_path):
    """Nodes become devices as they are read; an edge that comes before its nodes (GraphML
    allows any order; other tools write it) waits for them."""
    layout, path = written
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("<node "))
    end = next(i for i, line in enumerate(lines) if line.lstrip().startswith("</graph>"))
    body = "".join(lines[start:end])
    nodes = re.findall(r"\s*<node .*?</node>\n", body, flags=re.S)
    edges = re.findall(r"\s*<edge .*?</edge>\n", body, flags=re.S)
    assert len(nodes) == layout.device_count() and len(edges) == layout.link_count()
    swapped = tmp_path / "edges-first.graphml"
    swapped.write_text("".join(lines[:start]) + "".join(edges) + "".join(nodes)
                       + "".join(lines[end:]), encoding="utf-8")
    assert dump_layout_text(read(swapped)) == dump_layout_text(layout)
