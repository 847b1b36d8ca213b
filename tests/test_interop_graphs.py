"""GraphML (networkx.read_graphml, and back into a design), DOT and ASTRA-sim exports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import networkx as nx
import pytest
import yaml
from interop_helpers import parse_dot

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.interop import ExportError, export
from rackdesigner.interop.dot import LEVELS
from rackdesigner.interop.units import cables, inventory
from rackdesigner.io import load_layout, save_layout
from rackdesigner.model import nvlink_domains


@pytest.fixture(scope="module")
def superpod():
    return generate("superpod", system="dgx-h100", sus=1)


def test_graphml_reads_with_networkx(superpod, tmp_path):
    out = tmp_path / "pod.graphml"
    export(superpod, "graphml", out)
    graph = nx.read_graphml(out, force_multigraph=True)
    assert graph.number_of_nodes() == superpod.device_count()
    assert graph.number_of_edges() == superpod.link_count()
    assert graph.nodes["leaf-1"]["model"] == "qm9700"
    assert graph.nodes["leaf-1"]["kind"] == "switch"
    assert graph.nodes["dgx-1.gpu0"]["unit"] == "dgx-1"
    edge = next(d for _, _, d in graph.edges("dgx-1.nic0", data=True)
                if d["protocol"] == "infiniband")
    assert edge["cable"] == "fiber-mm-ndr" and edge["length_m"] > 0
    assert edge["a_port"].startswith("dgx-1.nic0:ib")


def test_graphml_ports_name_the_link_ends_whatever_the_edge_order(superpod, tmp_path):
    """docs/interop.md: the undirected graph's source/target are networkx's order, so `a_port`
    is not always on the source end; the ports always name the link's own ends."""
    out = tmp_path / "pod.graphml"
    export(superpod, "graphml", out)
    graph = nx.read_graphml(out, force_multigraph=True)
    on_target = 0
    for u, v, data in graph.edges(data=True):
        link = superpod.link(data["link"])
        assert (data["a_port"], data["b_port"]) == (str(link.a), str(link.b))
        a_device = data["a_port"].rsplit(":", 1)[0]
        assert {a_device, data["b_port"].rsplit(":", 1)[0]} == {u, v}
        on_target += a_device == v != u
    assert on_target > 0  # what the docs warn about does happen
    # graph tools see the real structure: every GPU reaches every other GPU
    gpus = [n for n, kind in graph.nodes(data="kind") if kind == "gpu"]
    component = nx.node_connected_component(nx.Graph(graph), gpus[0])
    assert set(gpus) <= component


@pytest.mark.slow
def test_graphml_round_trip_keeps_the_design(superpod, tmp_path):
    out = tmp_path / "pod.graphml"
    export(superpod, "graphml", out)
    back = tmp_path / "back.yaml"
    assert main(["import", "graphml", str(out), "-o", str(back)]) == 0
    again = load_layout(back)
    # devices (model, place, group), ports and links (ends, count, cable, length), groups
    assert again == superpod
    assert {k.id: (k.a, k.b, k.count, k.cable) for k in again.links()} == {
        k.id: (k.a, k.b, k.count, k.cable) for k in superpod.links()}


def test_graphml_import_of_a_foreign_graph_names_what_is_missing(tmp_path, capsys):
    graph = nx.Graph()
    graph.add_edge("a", "b")
    path = tmp_path / "foreign.graphml"
    nx.write_graphml(graph, path)
    assert main(["import", "graphml", str(path), "-o", str(tmp_path / "x.yaml")]) == 2
    assert "node 'a' has no 'model' attribute" in capsys.readouterr().err
    path.write_text("<graphml><graph>")
    assert main(["import", "graphml", str(path), "-o", str(tmp_path / "x.yaml")]) == 2
    assert "not a valid GraphML file" in capsys.readouterr().err
    assert not (tmp_path / "x.yaml").exists()


def test_dot_is_valid_and_draws_boxes_and_cables(superpod, tmp_path):
    out = tmp_path / "pod.dot"
    export(superpod, "dot", out)
    kind, nodes, edges = parse_dot(out.read_text())
    inv = inventory(superpod)
    assert kind == "graph" and nodes == set(inv.units)
    assert all(a in nodes and b in nodes for a, b, _ in edges)
    # 8 rail cables from each DGX to the 8 leaves, 8 from each leaf to each spine
    labels = {(a, b): attrs["xlabel"] for a, b, attrs in edges}
    assert labels[("dgx-1", "leaf-1")] == "1 x fiber-mm-ndr"
    assert labels[("leaf-1", "spine-1")] == "8 x fiber-mm-ndr"
    total = sum(int(attrs["xlabel"].split(" x ")[0]) for _, _, attrs in edges)
    assert total == sum(1 for _ in superpod.links() if _.cable) + sum(
        k.count - 1 for k in superpod.links() if k.cable)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")
def test_dot_draws_a_superpod_in_bounded_time_and_width(tmp_path):
    """Issue 38 item 16: the unit view of a 1,024-GPU SuperPOD was one row 200,000 pt wide
    (every cable label a node in the rank between hosts and leaves). Now Graphviz's own `dot`
    lays it out within a minute, no wider than a row of its 128 DGX boxes."""
    layout = generate("superpod", system="dgx-h100", nodes=128)
    out = tmp_path / "pod.dot"
    export(layout, "dot", out)
    svg = subprocess.run(["dot", "-Tsvg", str(out)], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    width = float(re.search(r'<svg width="([0-9.]+)pt"', svg).group(1))
    hosts = sum(1 for u in inventory(layout).units.values() if u.kind == "host")
    assert hosts == 128
    assert width < 150 * hosts  # a DGX box and its gap: ~80 pt; 1,570 pt per host before


def test_dot_device_level_quotes_every_id(tmp_path):
    layout = generate("dgx-h100")
    layout.update_device("dgx-1.gpu0", name='GPU "zero"')
    out = tmp_path / "d.dot"
    export(layout, "dot", out, level="devices")
    _, nodes, edges = parse_dot(out.read_text())
    assert len(nodes) == layout.device_count() and len(edges) == layout.link_count()


def _dot_clusters(text: str) -> dict[str, set[str]]:
    """cluster label -> the node ids written inside that `cluster_` subgraph."""
    out = {}
    for body in re.findall(r'subgraph "cluster_\d+" \{\n(.*?)\n  \}', text, re.S):
        label = re.search(r'^\s*label="((?:[^"\\]|\\.)*)";', body, re.M).group(1)
        out[label] = set(re.findall(r'^\s*"((?:[^"\\]|\\.)*)" \[label=', body, re.M))
    return out


def _racks_view(layout, tmp_path):
    out = tmp_path / "racks.dot"
    report = export(layout, "dot", out, level="racks")
    text = out.read_text()
    return report, text, *parse_dot(text)


def _cable_counts(xlabel: str) -> int:
    return sum(int(n) for n in re.findall(r"^(\d+) x ", xlabel, re.M))


def test_dot_racks_level_draws_one_node_per_rack_and_every_inter_rack_cable(superpod, tmp_path):
    """Issue 38 item 16: a large design on one page needs one box per rack. Every cable between
    two racks is on the edge of that pair; cables inside a rack are counted in its label."""
    report, text, kind, nodes, edges = _racks_view(superpod, tmp_path)
    inv = inventory(superpod)
    assert kind == "graph" and nodes == set(inv.racks) and "racks" in report.summary
    pairs = [frozenset((a, b)) for a, b, _ in edges]
    assert len(pairs) == len(set(pairs)) and all(len(p) == 2 for p in pairs)
    # cables counted from the links themselves: a link of count n between devices of two racks
    rack_of = {d.id: d.rack for d in superpod.devices()}
    between = sum(k.count for k in superpod.links()
                  if rack_of[k.a.device] and rack_of[k.b.device]
                  and rack_of[k.a.device] != rack_of[k.b.device])
    assert between > 0
    assert sum(_cable_counts(attrs["xlabel"]) for _, _, attrs in edges) == between
    inside = sum(int(n) for n in re.findall(r"\\n(\d+) cables inside", text))
    assert inside + between == len(cables(inv))
    # the label is the Racks view's header: name, GPUs, power against the budget
    labels = dict(re.findall(r'^\s*"([^"]+)" \[label="([^"]*)"\];', text, re.M))
    hosts = [u for u in inv.units.values() if u.kind == "host"]
    assert sum(int(re.search(r"\\n(\d+) GPUs", lab).group(1)) for lab in labels.values()) == \
        sum(u.gpus for u in hosts) > 0
    rack = hosts[0].rack
    assert labels[rack].startswith(inv.racks[rack] + "\\n") and " max kW of " in labels[rack]
    # racks are drawn in their scalable unit's cluster; the one SU holds its compute racks
    clusters = _dot_clusters(text)
    assert {r for members in clusters.values() for r in members} <= nodes
    assert any(rack in members and len(members) > 1 for members in clusters.values())


def test_dot_racks_level_puts_unracked_units_in_one_node(tmp_path):
    layout = generate("superpod", system="dgx-h100", sus=1)
    inv = inventory(layout)
    spine_rack = next(u.rack for u in inv.units.values() if u.id == "spine-1")
    moved = [d.id for d in layout.devices() if d.rack == spine_rack and d.id != spine_rack]
    for device in moved:
        layout.update_device(device, rack=None, u=None)
    _, text, _, nodes, edges = _racks_view(layout, tmp_path)
    assert "(unracked)" in nodes and spine_rack in nodes
    assert any("(unracked)" in (a, b) for a, b, _ in edges)
    assert re.search(r'"\(unracked\)" \[label="unracked\\n0 GPUs', text)


@pytest.mark.parametrize("level", LEVELS)
def test_export_cli_takes_every_dot_level(level, tmp_path, capsys):
    src = tmp_path / "two.yaml"
    save_layout(generate("dgx-h100"), src)
    out = tmp_path / "two.dot"
    assert main(["export", str(src), "-f", "dot", "--level", level, "-o", str(out)]) == 0
    assert f"(DOT, {level})" in capsys.readouterr().out
    assert parse_dot(out.read_text())[1]


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")
@pytest.mark.parametrize("fabrics", ["compute", "compute,storage,oob"])
def test_dot_racks_level_draws_a_4_su_superpod_on_one_page(fabrics, tmp_path):
    """The unit view of a 1,016-GPU SuperPOD is one row 10,500 pt wide; its racks view is
    under a third of that, no more than 6 times as wide as tall, laid out within 30 s, with
    the spine rack above the leaf racks above the compute racks (also when one storage rack
    has cables to every compute rack: they still stack under their own leaf rack)."""
    layout = generate("superpod", system="dgx-h100", sus=4, fabrics=fabrics)
    _, _, _, nodes, _ = _racks_view(layout, tmp_path)
    out = tmp_path / "racks.dot"
    svg = subprocess.run(["dot", "-Tsvg", str(out)], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    m = re.search(r'<svg width="([0-9.]+)pt" height="([0-9.]+)pt"', svg)
    width, height = float(m.group(1)), float(m.group(2))
    assert width < 3500 and width < 6 * height
    plain = subprocess.run(["dot", "-Tplain", str(out)], capture_output=True, text=True,
                           timeout=30, check=True).stdout
    y = {}  # node -> centre height (inches, up is larger)
    for line in plain.splitlines():
        parts = line.split()
        if parts[0] == "node":
            y[parts[1].strip('"')] = float(parts[3])
    assert set(y) == nodes
    inv = inventory(layout)
    rack_of = {u.id: u.rack for u in inv.units.values()}
    spine = {rack_of[u] for u in rack_of if u.startswith("spine-")}
    leaf = {rack_of[u] for u in rack_of if u.startswith("leaf-")} - spine
    compute = {rack_of[u.id] for u in inv.units.values() if u.gpus}
    assert spine and leaf and compute
    assert min(y[r] for r in spine) > max(y[r] for r in leaf)
    assert min(y[r] for r in leaf) > max(y[r] for r in compute)


# ---- ASTRA-sim ---------------------------------------------------------------------------
def _check_network_schema(network: dict) -> None:
    """What astra-network-analytical's NetworkParser accepts (common/NetworkParser.cc)."""
    dims = len(network["topology"])
    assert dims >= 1
    assert set(network["topology"]) <= {"Ring", "FullyConnected", "Switch"}
    for key in ("npus_count", "bandwidth", "latency"):
        assert len(network[key]) == dims, key
    assert all(isinstance(n, int) and n > 1 for n in network["npus_count"])
    assert all(isinstance(b, float | int) and b > 0 for b in network["bandwidth"])
    assert all(isinstance(x, float | int) and x >= 0 for x in network["latency"])


def test_astra_sim_two_dimensions_from_a_superpod(superpod, tmp_path, catalog):
    out = tmp_path / "astra"
    export(superpod, "astra-sim", out)
    network = yaml.safe_load((out / "network.yml").read_text())
    _check_network_schema(network)
    gpus = sum(1 for d in superpod.devices() if d.model == "h100-sxm5")
    assert network["topology"] == ["Switch", "Switch"]
    assert network["npus_count"][0] * network["npus_count"][1] == gpus
    assert network["npus_count"][0] == max(len(d) for d in nvlink_domains(superpod))
    h100 = catalog.get("h100-sxm5").port("nvlink")
    assert network["bandwidth"][0] == pytest.approx(h100.total_GBps)  # 18 x NVLink4 per GPU
    nic = catalog.get("connectx-7").port("ib")
    assert network["bandwidth"][1] == pytest.approx(nic.rate_GBps)  # one NDR NIC per GPU
    assert network["latency"][1] > network["latency"][0] > 0  # fabric slower than NVLink
    system = json.loads((out / "system.json").read_text())
    for key in ("all-reduce-implementation", "all-gather-implementation",
                "reduce-scatter-implementation", "all-to-all-implementation"):
        assert len(system[key]) == 2
    assert {"scheduling-policy", "endpoint-delay", "active-chunks-per-dimension",
            "preferred-dataset-splits", "collective-optimization", "local-mem-bw"} <= set(system)
    readme = (out / "README.txt").read_text()
    assert "model assumption" in readme
    # ASTRA-sim charges local reductions to local-mem-bw: the GPU's HBM, not a tutorial's 50
    assert system["local-mem-bw"] == pytest.approx(3350.0)  # H100 SXM: 3.35 TB/s
    # the remote-memory input its command line requires, and the trace attribute without
    # which it runs nothing on two dimensions (issue 26)
    remote = json.loads((out / "remote_memory.json").read_text())
    assert remote == {"memory-type": "NO_MEMORY_EXPANSION"}
    assert "--remote-memory-configuration=remote_memory.json" in readme
    assert "involved_dim" in readme and "[true, true]" in readme


def test_astra_sim_refuses_what_it_cannot_model(tmp_path, catalog):
    from rackdesigner.model import Layout

    with pytest.raises(ExportError, match="at least 2 GPUs"):
        export(Layout(catalog), "astra-sim", tmp_path / "a")
    layout = generate("nvl72")
    export(layout, "astra-sim", tmp_path / "nvl72")
    network = yaml.safe_load((tmp_path / "nvl72" / "network.yml").read_text())
    _check_network_schema(network)
    assert network["npus_count"] == [72] and network["topology"] == ["Switch"]
    design = tmp_path / "d.yaml"
    save_layout(layout, design)
    assert main(["export", str(design), "-f", "astra-sim", "-o", str(design)]) == 2
