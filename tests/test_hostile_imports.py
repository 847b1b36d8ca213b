"""Hostile corpora for the importers (issue 24): GraphML, ibnetdiscover and NetBox folders.

Each crafted input is refused with the importer's located error (`file:line: ...`, exit 2, no
traceback) or imported into a design that the layout reader accepts back (importers produce
only what the loader accepts: the design is saved and loaded again here).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hostile import assert_clean_refusal, run_cli, special_files

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.interop import export
from rackdesigner.interop.graphml import GraphmlImportError
from rackdesigner.interop.graphml import read as read_graphml
from rackdesigner.interop.ibnetdiscover import IbnetdiscoverError, import_file
from rackdesigner.interop.netbox_design import NetboxImportError, read_folder
from rackdesigner.io import dump_layout_text, parse_layout_text

DATA = Path(__file__).parent / "data" / "interop"
IB_SAMPLE = (DATA / "ibnetdiscover-2tier.txt").read_text()


def _reads_back(layout) -> None:
    """What an importer hands over saves to a file the layout reader opens."""
    again = parse_layout_text(dump_layout_text(layout), "<again>", layout.catalog)
    assert again.device_count() == layout.device_count()
    assert again.link_count() == layout.link_count()


def _located(message: str, path: Path) -> int | None:
    """The line a message names after `path:`, or None; asserts the path leads the message."""
    assert message.startswith(f"{path}:") or message.startswith(f"{path} "), message
    m = re.match(rf"{re.escape(str(path))}:(\d+)", message)
    return int(m[1]) if m else None


# ---- GraphML --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def graphml_text(tmp_path_factory) -> str:
    layout = generate("dgx-h100")
    path = tmp_path_factory.mktemp("g") / "d.graphml"
    export(layout, "graphml", path)
    return path.read_text()


def _node_data(text: str, key_name: str, value: str) -> str:
    """The text with the first node's `key_name` attribute set to `value`."""
    kid = re.search(rf'<key id="(\w+)" for="node" attr.name="{key_name}"', text)[1]
    return re.sub(rf'<data key="{kid}">[^<]*</data>', f'<data key="{kid}">{value}</data>',
                  text, count=1)


def _edge_data(text: str, key_name: str, value: str) -> str:
    kid = re.search(rf'<key id="(\w+)" for="edge" attr.name="{key_name}"', text)[1]
    return re.sub(rf'<data key="{kid}">[^<]*</data>', f'<data key="{kid}">{value}</data>',
                  text, count=1)


def _graph_data(text: str, key_name: str, value: str) -> str:
    kid = re.search(rf'<key id="(\w+)" for="graph" attr.name="{key_name}"', text)[1]
    return re.sub(rf'<data key="{kid}">[^<]*</data>', f'<data key="{kid}">{value}</data>',
                  text, count=1)


def _with_props(text: str, json_text: str) -> str:
    """The text with a `props` key declared and set on the first node."""
    from xml.sax.saxutils import escape

    if 'attr.name="props"' in text:
        return _node_data(text, "props", escape(json_text))
    text = text.replace("<graph ", '<key id="pp" for="node" attr.name="props" '
                        'attr.type="string" />\n<graph ', 1)
    start = text.index("<node ")
    close = text.index(">", start) + 1
    return text[:close] + f'<data key="pp">{escape(json_text)}</data>' + text[close:]


def _with_u(text: str, value: str) -> str:
    kid = re.search(r'<key id="(\w+)" for="node" attr.name="u"', text)[1]
    return re.sub(rf'<data key="{kid}">[^<]*</data>', f'<data key="{kid}">{value}</data>',
                  text, count=1)


GRAPHML_CASES = {
    # name: (edit, words the refusal must carry)
    "x-nan": (lambda t: _node_data(t, "x", "nan"), "finite"),
    "x-inf": (lambda t: _node_data(t, "x", "inf"), "finite"),
    "x-1e309": (lambda t: _node_data(t, "x", "1e309"), "finite"),
    "x-huge": (lambda t: _node_data(t, "x", "1e300"), "between"),
    "x-text": (lambda t: _node_data(t, "x", "left"), "number"),
    "y-5000-digits": (lambda t: _node_data(t, "y", "9" * 5000), "number"),
    "u-1.7": (lambda t: _with_u(t, "1.7"), "whole number"),
    "u-negative": (lambda t: _with_u(t, "-5"), "whole number"),
    "u-huge": (lambda t: _with_u(t, "9" * 5000), "whole number"),
    "count-10e12": (lambda t: _edge_data(t, "count", "1000000000000"), "whole number"),
    "count-text": (lambda t: _edge_data(t, "count", "many"), "whole number"),
    "count-zero": (lambda t: _edge_data(t, "count", "0"), "whole number"),
    "props-list": (lambda t: _with_props(t, "[1, 2]"), "JSON object"),
    "props-deep": (lambda t: _with_props(t, '{"x-a": ' + "[" * 3000 + "]" * 3000 + "}"),
                   "nested"),
    "props-not-json": (lambda t: _with_props(t, "{x-a: 1"), "JSON"),
    "props-not-extension": (lambda t: _with_props(t, '{"evil": 1}'), "would not open again"),
    "props-extension": (lambda t: _with_props(t, '{"x-site": "hall 2"}'), None),
    "groups-not-json": (lambda t: _graph_data(t, "groups", "[{"), "JSON"),
    "groups-unknown-key": (lambda t: _graph_data(
        t, "groups", '[{&quot;id&quot;: &quot;g&quot;, &quot;evil&quot;: 1}]'), "expected"),
    "groups-bad-kind": (lambda t: _graph_data(
        t, "groups", '[{&quot;id&quot;: &quot;g&quot;, &quot;kind&quot;: &quot;x&quot;}]'),
        "kind"),
    "extensions-list": (lambda t: _graph_data(t, "extensions", "[1, 2]"), "object"),
    "extensions-deep": (lambda t: _graph_data(t, "extensions", "[" * 5000 + "]" * 5000),
                        "nested"),
    "extensions-nan": (lambda t: _graph_data(t, "extensions", '{"x-a": NaN}'), "JSON"),
    "model-empty": (lambda t: _node_data(t, "model", ""), "model"),
    "duplicate-node": (lambda t: t.replace("</graph>", re.search(
        r"<node id=[^>]*>.*?</node>", t, re.S)[0] + "</graph>"), "defined twice"),
    "edge-to-nowhere": (lambda t: t.replace("</graph>", '<edge source="dgx-1.gpu0" '
                                            'target="ghost" /></graph>'), "not a node"),
    "undeclared-key": (lambda t: t.replace("</graph>", '<node id="n-x"><data key="zz">1'
                                           "</data></node></graph>"), "no <key> declares"),
    "node-id-space": (lambda t: t.replace("</graph>", '<node id="a b"/></graph>'),
                      "not a valid device id"),
    "node-id-newline": (lambda t: t.replace("</graph>", '<node id="a&#10;b"/></graph>'),
                        "not a valid device id"),
    "hyperedge": (lambda t: t.replace("</graph>", "<hyperedge/></graph>"), "not supported"),
    "nested-graph": (lambda t: t.replace("</graph>", "<graph/></graph>"), "graph"),
    "dtd-laughs": (lambda t: t.replace(
        '<?xml version="1.0" encoding="utf-8"?>',
        '<?xml version="1.0"?><!DOCTYPE g [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;'
        '&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>', 1), "DTD"),
    "external-entity": (lambda t: t.replace(
        '<?xml version="1.0" encoding="utf-8"?>',
        '<?xml version="1.0"?><!DOCTYPE g [<!ENTITY x SYSTEM "file:///etc/passwd">]>', 1),
        "DTD"),
    "not-xml": (lambda t: "this is not xml", "not a valid GraphML"),
    "unknown-encoding": (lambda t: '<?xml version="1.0" encoding="u-f-8"?>\x00',
                         "not a valid GraphML"),
    "utf16-declared": (lambda t: t.replace('encoding="utf-8"', 'encoding="utf-16"', 1),
                       "not a valid GraphML"),
    "empty": (lambda t: "", "not a valid GraphML"),
    "truncated": (lambda t: t[: len(t) // 2], "not a valid GraphML"),
    "no-graph": (lambda t: '<?xml version="1.0"?><graphml/>', "no <graph>"),
    "latin1-declared-utf8": (lambda t: t.replace("DGX H100", "caf\udce9", 1),
                             "not a valid GraphML"),
    "port-on-other-device": (lambda t: _edge_data(t, "a_port", "dgx-1.gpu7:nvlink"),
                             "not on its nodes"),
}


@pytest.mark.parametrize("case", sorted(GRAPHML_CASES))
def test_graphml_hostile_corpus(case, graphml_text, tmp_path, capsys):
    edit, words = GRAPHML_CASES[case]
    path = tmp_path / f"{case}.graphml"
    path.write_bytes(edit(graphml_text).encode("utf-8", "surrogateescape"))
    try:
        layout = read_graphml(path)
    except GraphmlImportError as exc:
        _located(str(exc), path)
        if words:
            assert words in str(exc), str(exc)
        out = tmp_path / "out.yaml"
        assert main(["import", "graphml", str(path), "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and str(path) in err
        assert not out.exists()
        return
    assert words is None, f"{case} was imported: expected a refusal with {words!r}"
    _reads_back(layout)


def test_graphml_refusals_name_the_line(graphml_text, tmp_path):
    text = _node_data(graphml_text, "x", "nan")
    path = tmp_path / "nan.graphml"
    path.write_text(text)
    with pytest.raises(GraphmlImportError) as info:
        read_graphml(path)
    line = _located(str(info.value), path)
    assert line is not None and "v_x" not in text.splitlines()[line - 1]
    assert ">nan<" in text.splitlines()[line - 1] or "nan" in text.splitlines()[line - 1]


def test_graphml_from_igraph_and_networkx_imports_the_same_design(graphml_text, tmp_path):
    """python-igraph renames nodes n0.. (the original id in an `id` attribute) and writes
    missing values as "" or NaN; networkx writes our document back. Both import as the
    original design (issue 26, item 13)."""
    pytest.importorskip("igraph")
    import igraph
    import networkx as nx

    source = tmp_path / "d.graphml"
    source.write_text(graphml_text)
    original = read_graphml(source)
    igraph.Graph.Read_GraphML(str(source)).write_graphml(str(tmp_path / "ig.graphml"))
    nx.write_graphml(nx.read_graphml(str(source), force_multigraph=True),
                     str(tmp_path / "nx.graphml"))
    assert '<node id="n0">' in (tmp_path / "ig.graphml").read_text()
    for name in ("ig.graphml", "nx.graphml"):
        again = read_graphml(tmp_path / name)
        assert {d.id: (d.model, d.pos, d.rack, d.u, d.group) for d in again.devices()} == {
            d.id: (d.model, d.pos, d.rack, d.u, d.group) for d in original.devices()}, name
        assert {k.id: (k.a, k.b, k.count) for k in again.links()} == {
            k.id: (k.a, k.b, k.count) for k in original.links()}, name
        _reads_back(again)


def test_graphml_files_that_are_not_files(tmp_path):
    for kind, path in special_files(tmp_path, "g.graphml", 1024 * 2**20).items():
        with pytest.raises(GraphmlImportError) as info:
            read_graphml(path)
        assert str(info.value).startswith(str(path)), (kind, str(info.value))


# ---- ibnetdiscover ---------------------------------------------------------------------------
def _ib(edit) -> str:
    return edit(IB_SAMPLE)


IB_CASES = {
    "port-5000-digits": (lambda t: t.replace("[1]\t", "[" + "9" * 5000 + "]\t", 1),
                         "out of range"),
    "port-300": (lambda t: t.replace('"[33]', '"[300]', 1), "out of range"),
    "nports-huge": (lambda t: t.replace("Switch\t64", "Switch\t" + "6" * 400, 1),
                    "out of range"),
    "host-slash": (lambda t: t.replace('"gpu-01 mlx5_0"', '"dgx/01 mlx5_0"'), None),
    "host-dash": (lambda t: t.replace('"gpu-01 mlx5_0"', '"-x mlx5_0"'), None),
    "host-underscore": (lambda t: t.replace('"gpu-01 mlx5_0"', '"_x mlx5_0"'), None),
    "host-unicode": (lambda t: t.replace('"gpu-01 mlx5_0"', '"Ώ☃ mlx5_0"'), None),
    "host-formula": (lambda t: t.replace('"gpu-01 mlx5_0"', '"=cmd|calc mlx5_0"'), None),
    "unclosed-quote": (lambda t: t.replace('# "MF0;spine-01:MQM9700/U1" enhanced',
                                           '# "MF0;spine-01:MQM9700/U1 enhanced', 1),
                       "not closed"),
    "cut-in-first-node-line": (lambda t: t[: t.index('"MF0;spine-01') + 6], "truncated"),
    "cut-after-first-node-line": (lambda t: t[: t.index("\n", t.index("Switch\t")) + 1],
                                  "truncated"),
    "cut-in-port-line": (lambda t: t[: t.index('"S-b83fd20300a40011"[33]') + 10], None),
    "garbage-line": (lambda t: t.replace("vendid=0x2c9", "rm -rf /", 1), "expected"),
    "binary": (lambda t: "\x00\x01\x02" * 100, "binary"),
    "empty": (lambda t: "", "no Switch or Ca"),
    "guid-huge": (lambda t: t.replace("S-b83fd20300a40001", "S-" + "a" * 5000), "expected"),
    "duplicate-node": (lambda t: t + t[t.index("vendid"):t.index("\n\n", t.index("vendid"))]
                       + "\n", "described twice"),
}


@pytest.mark.parametrize("case", sorted(IB_CASES))
def test_ibnetdiscover_hostile_corpus(case, tmp_path, capsys):
    edit, words = IB_CASES[case]
    path = tmp_path / f"{case}.txt"
    path.write_bytes(_ib(edit).encode("utf-8"))
    try:
        report = import_file(path)
    except IbnetdiscoverError as exc:
        _located(str(exc), path)
        if words:
            assert words in str(exc), str(exc)
        out = tmp_path / "out.yaml"
        assert main(["import", "ibnetdiscover", str(path), "-o", str(out)]) == 2
        assert "Traceback" not in capsys.readouterr().err
        assert not out.exists()
        return
    assert words is None, f"{case} was imported: expected a refusal with {words!r}"
    _reads_back(report.layout)
    out = tmp_path / "out.yaml"
    assert main(["import", "ibnetdiscover", str(path), "-o", str(out)]) == 0
    assert main(["validate", str(out)]) in (0, 1)


def test_ibnetdiscover_latin1_and_special_files(tmp_path):
    latin = tmp_path / "latin.txt"
    latin.write_bytes(IB_SAMPLE.replace("gpu-01", "caf\xe9").encode("latin-1"))
    with pytest.raises(IbnetdiscoverError, match=r"latin.txt:\d+:\d+: byte 0xe9 is not UTF-8"):
        import_file(latin)
    for kind, path in special_files(tmp_path, "ib.txt", 256 * 2**20).items():
        with pytest.raises(IbnetdiscoverError) as info:
            import_file(path)
        assert str(info.value).startswith(str(path)), (kind, str(info.value))


@pytest.mark.slow
def test_unknown_switches_stay_switches_for_slurm(tmp_path):
    """A QDR capture whose switches are in no catalog (issue 26, item 14): they import as
    unknown models but remain switches, so `export -f slurm-tree` writes the tree."""
    qdr = (IB_SAMPLE.replace("MQM9700", "QDR-X4036").replace("SB7800", "QDR-X4036")
           .replace("devid=0xd2f2", "devid=0xbd36").replace("4xNDR", "4xQDR")
           .replace("4xHDR", "4xQDR").replace("4xEDR", "4xQDR"))
    path = tmp_path / "qdr.txt"
    path.write_text(qdr)
    report = import_file(path)
    assert report.unmatched  # the switches are not in the catalog
    layout_path = tmp_path / "qdr.yaml"
    assert main(["import", "ibnetdiscover", str(path), "-o", str(layout_path)]) == 0
    conf = tmp_path / "topology.conf"
    result = run_cli(["export", str(layout_path), "-f", "slurm-tree", "-o", str(conf)])
    assert result.returncode == 0, result.stderr
    text = conf.read_text()
    assert "Nodes=gpu-[01-04]" in text and "SwitchName=spine-01 Switches=" in text
    # the same tree as the capture whose switches the catalog knows
    known = tmp_path / "known.yaml"
    (tmp_path / "known.txt").write_text(IB_SAMPLE)
    assert main(["import", "ibnetdiscover", str(tmp_path / "known.txt"), "-o", str(known)]) == 0
    assert run_cli(["export", str(known), "-f", "slurm-tree", "-o",
                    str(tmp_path / "k.conf")]).returncode == 0
    def body(p):
        return [x for x in p.read_text().splitlines() if not x.startswith("#")]

    assert body(conf) == body(tmp_path / "k.conf")


# ---- NetBox folders ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def netbox_folder(tmp_path_factory) -> Path:
    layout = generate("superpod", system="dgx-h100", sus=1)
    folder = tmp_path_factory.mktemp("nb") / "export"
    export(layout, "netbox", folder)
    return folder


def _rows(folder: Path, name: str) -> list[str]:
    return (folder / name).read_text().splitlines()


def _edit_csv(name: str, row: int | str, column: str, value: str):
    """Set `column` of data row `row` (a number, or the first row starting with `row`)."""
    def edit(folder: Path) -> None:
        lines = _rows(folder, name)
        nonlocal row
        if isinstance(row, str):
            row = next(i for i, line in enumerate(lines) if line.startswith(row))
        header = lines[0].split(",")
        import csv
        import io

        fields = next(csv.reader([lines[row]]))
        fields[header.index(column)] = value
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="").writerow(fields)
        lines[row] = buffer.getvalue()
        (folder / name).write_text("\n".join(lines) + "\n")
    return edit


def _append_line(name: str, line: str | None = None, copy_row: int | str | None = None):
    def edit(folder: Path) -> None:
        lines = _rows(folder, name)
        added = line
        if isinstance(copy_row, str):
            added = next(x for x in lines if x.startswith(copy_row))
        elif added is None:
            added = lines[copy_row]
        lines.append(added)
        (folder / name).write_text("\n".join(lines) + "\n")
    return edit


def _write(relative: str, data: bytes):
    def edit(folder: Path) -> None:
        (folder / relative).write_bytes(data)
    return edit


def _fifo(relative: str):
    def edit(folder: Path) -> None:
        import os

        target = folder / relative
        if target.exists():
            target.unlink()
        os.mkfifo(target)
    return edit


NETBOX_CASES = {
    "rack-u-1e400": (_edit_csv("05-racks.csv", 1, "u_height", "1e400"), "u_height"),
    "rack-u-text": (_edit_csv("05-racks.csv", 1, "u_height", "tall"), "u_height"),
    "racks-collide": (_append_line("05-racks.csv", None, 1), "both become the id"),
    "racks-collide-cleaned": (lambda f: (_edit_csv("05-racks.csv", 1, "name", "Rack 1")(f),
                                         _append_line("05-racks.csv", "S,Rack-1,planned,19,42")
                                         (f)), "both become the id"),
    "position-superscript": (_edit_csv("06-devices.csv", 1, "position", "²"), "position"),
    "position-1.7": (_edit_csv("06-devices.csv", 1, "position", "1.7"), "whole number"),
    "position-negative": (_edit_csv("06-devices.csv", 1, "position", "-5"), "position"),
    "position-huge": (_edit_csv("06-devices.csv", 1, "position", "9" * 5000), "position"),
    "short-row": (_append_line("06-devices.csv", "lonely"), "1 field, expected"),
    "long-row": (_append_line("07-cables.csv", "a," * 40), "fields, expected"),
    "device-twice": (_append_line("06-devices.csv", None, 1), "listed twice"),
    "cable-twice": (_append_line("07-cables.csv", None, "dgx-"), "cabled twice"),
    "cable-twice-skipped-device": (_append_line("07-cables.csv", None, 1), "cabled twice"),
    "length-nan": (_edit_csv("07-cables.csv", "dgx-", "length", "nan"), "length"),
    "length-negative": (_edit_csv("07-cables.csv", "dgx-", "length", "-4"), "length"),
    "length-unit-furlong": (lambda f: (_edit_csv("07-cables.csv", "dgx-", "length", "3")(f),
                                       _edit_csv("07-cables.csv", "dgx-", "length_unit",
                                                 "furlong")(f)), "length_unit"),
    "interface-superscript": (_edit_csv("07-cables.csv", "dgx-", "side_a_name", "ib.²"),
                              None),
    "interface-junk": (_edit_csv("07-cables.csv", "dgx-", "side_a_name", "=1+1"),
                       "no device"),
    "interface-bad-port": (_edit_csv("07-cables.csv", "dgx-", "side_a_name", "nic0/ib ."),
                           "port name"),
    "device-type-latin1": (_write("03-device-types/x.yaml",
                                  "model: caf\xe9\nslug: x\n".encode("latin-1")), "UTF-8"),
    "device-type-alias-bomb": (_write("03-device-types/x.yaml",
                                      b"a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a]\n"
                                      b"c: [*b,*b,*b,*b,*b,*b,*b,*b]\n"), "aliases"),
    "device-type-fifo": (_fifo("03-device-types/x.yaml"), "FIFO"),
    "cables-fifo": (_fifo("07-cables.csv"), "FIFO"),
    "devices-binary": (_write("06-devices.csv", bytes(range(256))), "binary"),
    "devices-utf16": (_write("06-devices.csv", "name,device_type\n".encode("utf-16")),
                      "UTF-16"),
    "devices-empty": (_write("06-devices.csv", b""), "empty"),
    "racks-missing": (lambda f: (f / "05-racks.csv").unlink(), "05-racks.csv"),
    "csv-huge-field": (_append_line("07-cables.csv", '"' + "x" * 200_000 + '"'), "CSV"),
}


@pytest.mark.parametrize("case", sorted(NETBOX_CASES))
def test_netbox_folder_hostile_corpus(case, netbox_folder, tmp_path, capsys):
    edit, words = NETBOX_CASES[case]
    folder = tmp_path / "nb"
    shutil.copytree(netbox_folder, folder)
    (folder / ".rackdesigner-export.json").unlink()  # a hand-edited folder
    edit(folder)
    try:
        result = read_folder(folder)
    except NetboxImportError as exc:
        assert str(exc).startswith(str(folder)), str(exc)
        if words:
            assert words in str(exc), str(exc)
        out = tmp_path / "out.yaml"
        assert main(["import", "netbox", str(folder), "-o", str(out)]) == 2
        assert "Traceback" not in capsys.readouterr().err
        assert not out.exists()
        return
    assert words is None, f"{case} was imported: expected a refusal with {words!r}"
    _reads_back(result.layout)


def test_netbox_length_units_are_converted(netbox_folder, tmp_path):
    folder = tmp_path / "nb"
    shutil.copytree(netbox_folder, folder)
    rows = _rows(folder, "07-cables.csv")
    first = next(i for i, line in enumerate(rows) if line.startswith("dgx-1,"))
    _edit_csv("07-cables.csv", first, "length", "10")(folder)
    _edit_csv("07-cables.csv", first, "length_unit", "ft")(folder)
    _edit_csv("07-cables.csv", first + 1, "length", "250")(folder)
    _edit_csv("07-cables.csv", first + 1, "length_unit", "cm")(folder)
    rows = _rows(folder, "07-cables.csv")
    labels = [row.split(",")[10] for row in rows[first:first + 2]]
    layout = read_folder(folder).layout
    lengths = {k.id: k.length_m for k in layout.links()}
    assert lengths[labels[0]] == pytest.approx(3.048)
    assert lengths[labels[1]] == pytest.approx(2.5)


def test_netbox_folder_missing_a_file_of_its_export_is_refused(netbox_folder, tmp_path):
    folder = tmp_path / "nb"
    shutil.copytree(netbox_folder, folder)
    next((folder / "03-device-types").glob("*.yaml")).unlink()
    with pytest.raises(NetboxImportError, match="missing: the folder holds part of an export"):
        read_folder(folder)


def test_netbox_import_cli_on_a_fifo_folder_answers_at_once(netbox_folder, tmp_path):
    folder = tmp_path / "nb"
    shutil.copytree(netbox_folder, folder)
    (folder / ".rackdesigner-export.json").unlink()
    _fifo("06-devices.csv")(folder)
    result = run_cli(["import", "netbox", str(folder), "-o", str(tmp_path / "o.yaml")],
                     timeout=60)
    assert_clean_refusal(result, folder / "06-devices.csv")
