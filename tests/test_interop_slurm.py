"""Slurm exports, read back as Slurm reads topology.conf / topology.yaml."""

from __future__ import annotations

import pytest
import yaml
from interop_helpers import expand_hostlist, parse_topology_conf

from rackdesigner.cli import main
from rackdesigner.generators import generate
from rackdesigner.interop import ExportError, export
from rackdesigner.interop.hostlist import compress
from rackdesigner.io import save_layout
from rackdesigner.model import Layout, instantiate


@pytest.fixture(scope="module")
def superpod():
    return generate("superpod", system="dgx-h100", sus=2)


@pytest.fixture(scope="module")
def two_nvl72(catalog):
    layout = Layout(catalog)
    for r in (1, 2):
        parts = instantiate(catalog, "gb200-nvl72", f"nvl72-{r}", rack=f"rack-{r}", u=1)
        layout.add_all(parts.groups, parts.devices, parts.links)
    return layout


def _gpu_hosts(layout) -> set[str]:
    return {g.id for g in layout.groups() if g.template in ("dgx-h100", "gb200-compute-tray")}


def _su_of(layout, group_id: str) -> str:
    group = layout.group(group_id)
    while group.kind != "su":
        group = layout.group(group.parent)
    return group.id


def test_hostlist_round_trip_with_padding_and_gaps():
    names = ["dgx-1", "dgx-2", "dgx-3", "dgx-7", "node007", "node008", "n1.tray0", "n1.tray1",
             "spine"]
    assert sorted(expand_hostlist(compress(names))) == sorted(names)
    assert "dgx-[1-3,7]" in compress(names)


def test_tree_conf_is_a_tree_slurm_accepts(superpod, tmp_path):
    out = tmp_path / "topology.conf"
    report = export(superpod, "slurm-tree", out)
    entries = parse_topology_conf(out.read_text())
    switches = {e["switchname"]: e for e in entries}
    assert len(switches) == len(entries), "a switch is defined twice"
    for e in entries:
        assert set(e) <= {"switchname", "nodes", "switches", "linkspeed"}
        assert ("nodes" in e) != ("switches" in e)
    leaf_nodes = [n for e in entries if "nodes" in e for n in expand_hostlist(e["nodes"])]
    # every GPU system is a Slurm node, each under exactly one leaf (rails grouped)
    assert sorted(leaf_nodes) == sorted(_gpu_hosts(superpod))
    assert len(set(leaf_nodes)) == len(leaf_nodes)
    # every child switch is defined, and every leaf has a parent: one connected tree
    children = {c for e in entries if "switches" in e for c in expand_hostlist(e["switches"])}
    assert children <= set(switches)
    assert {n for n, e in switches.items() if "nodes" in e} <= children
    # two SUs: one leaf entry per SU (its 8 rail leaves serve the same nodes), holding
    # exactly that SU's nodes
    leaves = [e for e in entries if "nodes" in e]
    assert len(leaves) == 2
    for e in leaves:
        assert len({_su_of(superpod, n) for n in expand_hostlist(e["nodes"])}) == 1
    assert out.read_text().count("rail group of 8 leaves") == 2
    assert report.files == [out]


def test_tree_yaml_follows_topology_yaml_schema(superpod, tmp_path):
    out = tmp_path / "topology.yaml"
    export(superpod, "slurm-tree", out)
    doc = yaml.safe_load(out.read_text())
    assert isinstance(doc, list) and len(doc) == 1
    topo = doc[0]
    assert next(iter(topo)) == "topology"  # "Must be the first attribute"
    assert topo["cluster_default"] is True
    switches = topo["tree"]["switches"]
    for s in switches:
        assert set(s) in ({"switch", "nodes"}, {"switch", "children"})
    nodes = [n for s in switches if "nodes" in s for n in expand_hostlist(s["nodes"])]
    assert sorted(nodes) == sorted(_gpu_hosts(superpod))


def test_block_has_one_block_per_nvlink_domain(two_nvl72, tmp_path):
    out = tmp_path / "topology.conf"
    export(two_nvl72, "slurm-block", out)
    entries = parse_topology_conf(out.read_text())
    blocks = [e for e in entries if "blockname" in e]
    sizes = [e for e in entries if "blocksizes" in e]
    assert len(blocks) == 2 and len(sizes) == 1
    members = [set(expand_hostlist(b["nodes"])) for b in blocks]
    assert all(len(m) == 18 for m in members)  # 18 compute trays per NVL72
    assert not members[0] & members[1]
    assert members[0] | members[1] == _gpu_hosts(two_nvl72)
    assert int(sizes[0]["blocksizes"].split(",")[0]) == 18
    # topology.yaml form
    out_yaml = tmp_path / "topology.yaml"
    export(two_nvl72, "slurm-block", out_yaml)
    block = yaml.safe_load(out_yaml.read_text())[0]["block"]
    assert block["block_sizes"] == [18]
    assert [len(expand_hostlist(b["nodes"])) for b in block["blocks"]] == [18, 18]


def test_host_map_renames_nodes_and_reports_gaps(two_nvl72, tmp_path, capsys):
    design = tmp_path / "d.yaml"
    save_layout(two_nvl72, design)
    hosts = sorted(_gpu_hosts(two_nvl72))
    mapping = tmp_path / "hosts.txt"
    mapping.write_text("# design  host\n" + "".join(
        f"{h} gb{n:03d}\n" for n, h in enumerate(hosts, 1)))
    out = tmp_path / "topology.conf"
    assert main(["export", str(design), "-f", "slurm-block", "-o", str(out),
                 "--hosts", str(mapping)]) == 0
    nodes = [n for e in parse_topology_conf(out.read_text()) if "nodes" in e
             for n in expand_hostlist(e["nodes"])]
    assert sorted(nodes) == [f"gb{n:03d}" for n in range(1, 37)]
    mapping.write_text("".join(f"{h} gb{n:03d}\n" for n, h in enumerate(hosts[:-1], 1)))
    assert main(["export", str(design), "-f", "slurm-block", "-o", str(out),
                 "--hosts", str(mapping)]) == 2
    assert f"no host name for {hosts[-1]}" in capsys.readouterr().err
    mapping.write_text(f"{hosts[0]} gb001\nthis line has three words\n")
    assert main(["export", str(design), "-f", "slurm-block", "-o", str(out),
                 "--hosts", str(mapping)]) == 2
    assert f"{mapping}:2: expected 'design-name host-name'" in capsys.readouterr().err


def test_tree_without_switches_is_refused_plainly(catalog, tmp_path, capsys):
    layout = generate("dgx-h100")
    with pytest.raises(ExportError, match="no InfiniBand or Ethernet switches"):
        export(layout, "slurm-tree", tmp_path / "t.conf")
    assert not (tmp_path / "t.conf").exists()
    design = tmp_path / "d.yaml"
    save_layout(layout, design)
    assert main(["export", str(design), "-f", "slurm-tree", "-o", str(tmp_path / "t.conf")]) == 2
    assert "cannot export as slurm-tree" in capsys.readouterr().err


def _slurm_levels(entries: list[dict[str, str]]) -> dict[str, int]:
    """Each switch's Level as slurmctld computes it (`scontrol show topology`): 0 for a switch
    with nodes, else one more than its highest child."""
    children = {e["switchname"]: expand_hostlist(e["switches"]) for e in entries
                if "switches" in e}
    levels = {e["switchname"]: 0 for e in entries if "nodes" in e}

    def level(name: str) -> int:
        if name not in levels:
            levels[name] = 1 + max(level(c) for c in children[name])
        return levels[name]

    for name in children:
        level(name)
    return levels


def test_leaves_serving_no_node_do_not_become_a_tier_above_the_spines(catalog, tmp_path):
    # 4 NVL72 racks on a fabric built for a whole SU (8 racks): 8 of the 20 leaves serve no
    # node. slurmctld 22.05 read them as a Level=2 tier above the spines.
    layout = generate("superpod", catalog, system="gb200-nvl72", racks=4)
    out = tmp_path / "topology.conf"
    report = export(layout, "slurm-tree", out)
    entries = parse_topology_conf(out.read_text())
    levels = _slurm_levels(entries)
    assert max(levels.values()) == 1  # leaves (rail groups) and spines: two tiers, as drawn
    listed = set(levels)
    idle = {f"leaf-{n}" for n in range(13, 21)}
    assert not idle & listed
    assert any("leaf-[13-20]" in m and "left out" in m for m in report.messages)
    nodes = [n for e in entries if "nodes" in e for n in expand_hostlist(e["nodes"])]
    assert sorted(nodes) == sorted(_gpu_hosts(layout))


def test_a_core_tier_that_joins_pods_stays(catalog, tmp_path):
    # 120 DGX A100 on 40-port switches: beyond a two-level fabric, cores join the SUs' spines
    layout = generate("rail-optimized", catalog, system="dgx-a100", nodes=120, switch="qm8700")
    out = tmp_path / "topology.conf"
    report = export(layout, "slurm-tree", out)
    levels = _slurm_levels(parse_topology_conf(out.read_text()))
    assert max(levels.values()) == 2
    assert {s for s, v in levels.items() if v == 2} == {
        d.id for d in layout.devices() if d.id.startswith("core-")}
    assert not any("left out" in m for m in report.messages)


def test_topology_yaml_name_is_cut_between_words(superpod, tmp_path):
    layout = generate("superpod", system="gb200-nvl72", racks=4)
    assert layout.meta.name == "DGX SuperPOD GB200, 4 NVL72 racks (1 SU, 288 GPUs)"
    out = tmp_path / "topology.yaml"
    export(layout, "slurm-tree", out)
    name = yaml.safe_load(out.read_text())[0]["topology"]
    assert len(name) <= 40 and "dgx-superpod-gb200-4-nvl72-racks-1-su".startswith(name)
    words = ["dgx", "superpod", "gb200", "4", "nvl72", "racks", "1", "su", "288", "gpus"]
    assert name.split("-") == words[:len(name.split("-"))]
