"""ibnetdiscover import, from a sample written after ibnetdiscover(8)'s documented output."""

from __future__ import annotations

from pathlib import Path

import pytest
from interop_helpers import expand_hostlist, parse_topology_conf

from rackdesigner.cli import main
from rackdesigner.interop.ibnetdiscover import IbnetdiscoverError, import_file, parse
from rackdesigner.io import load_layout
from rackdesigner.model import ERROR, check_layout

SAMPLE = Path(__file__).parent / "data" / "interop" / "ibnetdiscover-2tier.txt"


def test_sample_becomes_a_design_with_hosts_switches_and_links(tmp_path, capsys):
    out = tmp_path / "fabric.yaml"
    assert main(["import", "ibnetdiscover", str(SAMPLE), "-o", str(out)]) == 0
    printed = capsys.readouterr()
    assert "3 switches" not in printed.out  # 4: three Quantum-2 and an unknown EDR switch
    assert "4 switches, 4 hosts with 8 HCAs, 13 links" in printed.out
    assert "no catalog model for 'MF0;edge-09:SB7800/U1'" in printed.err
    assert "below their ports' rate" in printed.err
    layout = load_layout(out)
    models = {d.id: d.model for d in layout.devices()}
    assert models["leaf-01"] == models["spine-01"] == "qm9700"  # from "MQM9700" in the text
    assert models["gpu-01.mlx5_0"] == "connectx-7"  # from devid 0x1021
    assert models["edge-09"].startswith("unmatched")
    # HCAs grouped by host; a host's two HCAs on the two leaves (rails)
    assert sorted(layout.group_devices("gpu-03")) == ["gpu-03.mlx5_0", "gpu-03.mlx5_1"]
    ends = {frozenset((str(k.a), str(k.b))) for k in layout.links()}
    assert frozenset(("leaf-01:ib.0", "gpu-01.mlx5_0:ib")) in ends  # [1] <-> [1]
    assert frozenset(("spine-01:ib.0", "leaf-01:ib.32")) in ends  # [1] <-> [33]
    # readable: spines above leaves above hosts
    y = {d.id: d.pos[1] for d in layout.devices()}
    assert y["spine-01"] < y["leaf-01"] < y["gpu-01.mlx5_0"]
    # a live fabric's Slurm topology: its hosts under the leaf pair, as slurmibtopology would
    conf = tmp_path / "topology.conf"
    assert main(["export", str(out), "-f", "slurm-tree", "-o", str(conf)]) == 0
    entries = parse_topology_conf(conf.read_text())
    assert [expand_hostlist(e["nodes"]) for e in entries if "nodes" in e] == [
        ["gpu-01", "gpu-02", "gpu-03", "gpu-04"]]
    # the only design error is the unknown switch model
    errors = [f for f in check_layout(layout) if f.severity == ERROR]
    assert errors and all(f.code == "unknown-model" for f in errors)
    assert all("edge-09" in f.message for f in errors)


def test_truncated_file_is_located(tmp_path, capsys):
    lines = SAMPLE.read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if line.startswith("Ca")) + 2
    truncated = tmp_path / "cut.txt"
    truncated.write_text("\n".join(lines[:cut]) + "\n")  # the other HCA blocks are missing
    out = tmp_path / "out.yaml"
    assert main(["import", "ibnetdiscover", str(truncated), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{truncated}:" in err and "never describes" in err and "truncated" in err
    line = int(err.split(f"{truncated}:")[1].split(":")[0])
    assert lines[line - 1].startswith("[")  # points at the port line naming the lost node
    assert not out.exists()
    # cut right after a node line: its port lines are lost
    truncated.write_text("\n".join(lines[:cut - 1]) + "\n")
    with pytest.raises(IbnetdiscoverError, match=r"file ends in that block .*truncated"):
        import_file(truncated)
    # cut in the middle of a line
    half = tmp_path / "half.txt"
    text = SAMPLE.read_text()
    half.write_text(text[: text.index('"S-b83fd20300a40011"[33]') + 10])
    with pytest.raises(IbnetdiscoverError, match=r"half\.txt:\d+: expected a node line"):
        import_file(half)


def test_garbled_lines_are_located():
    good = SAMPLE.read_text().splitlines()
    bad = list(good)
    index = next(i for i, line in enumerate(bad) if line.startswith("[2]"))
    bad[index] = "[2]  garbage here"
    with pytest.raises(IbnetdiscoverError) as info:
        parse("\n".join(bad), "fabric.txt")
    assert str(info.value).startswith(f"fabric.txt:{index + 1}: expected")
    bad = list(good)
    switch = next(i for i, line in enumerate(bad) if line.startswith("Switch"))
    bad[switch] = bad[switch].replace("Switch\t64", "Switch\t2")
    with pytest.raises(IbnetdiscoverError, match=r"port 3 of S-\w+, which has 2 port"):
        parse("\n".join(bad), "fabric.txt")
    with pytest.raises(IbnetdiscoverError, match="no Switch or Ca nodes"):
        parse("# nothing\n\n", "empty.txt")


def test_any_truncation_is_an_error_or_a_smaller_fabric_never_a_crash():
    text = SAMPLE.read_text()
    lines = text.splitlines(keepends=True)
    cuts = [len("".join(lines[:n])) for n in range(len(lines))]
    cuts += list(range(0, len(text), 97))  # and mid-line
    for cut in cuts:
        try:
            nodes = parse(text[:cut], "cut.txt")
        except IbnetdiscoverError as exc:
            assert str(exc).startswith("cut.txt")
            continue
        # what parses is consistent: every link seen from both ends
        for node in nodes.values():
            for port in node.ports.values():
                assert nodes[port.peer].ports[port.peer_port].peer == node.guid


def _factory_described(tmp_path: Path) -> Path:
    """The sample as captured on hosts without rdma-ndd: every HCA keeps the description its
    firmware gives it (a real 2020 capture's 89 HCAs all read like this)."""
    import re

    text = re.sub(r'"gpu-0\d mlx5_\d"', '"MT25408 ConnectX Mellanox Technologies"',
                  SAMPLE.read_text())
    path = tmp_path / "factory.txt"
    path.write_text(text)
    return path


def test_hcas_with_the_vendors_description_become_hosts_of_their_own(tmp_path, capsys):
    """Issue 38 item 13: they were merged into one host ("1 hosts with 89 HCAs") and the
    Slurm export then had one node, silently."""
    out = tmp_path / "fabric.yaml"
    assert main(["import", "ibnetdiscover", str(_factory_described(tmp_path)), "-o",
                 str(out)]) == 0
    printed = capsys.readouterr()
    assert "8 hosts with 8 HCAs" in printed.out
    assert "8 HCAs carry their vendor's factory description" in printed.err
    assert "--host-map" in printed.err
    layout = load_layout(out)
    hosts = {g.id for g in layout.groups() if g.kind == "node"}
    assert "host-946dae0300a10000" in hosts and len(hosts) == 8
    conf = tmp_path / "topology.conf"
    assert main(["export", str(out), "-f", "slurm-tree", "-o", str(conf)]) == 0
    nodes = [n for e in parse_topology_conf(conf.read_text()) if "nodes" in e
             for n in expand_hostlist(e["nodes"])]
    assert len(nodes) == 8


def test_a_guid_map_names_the_hosts_of_factory_described_hcas(tmp_path, capsys):
    hosts = tmp_path / "hosts.txt"
    lines = [f"0x946dae0300a1{n:02x}0{k} node{n + 1:02d}  # rail {k}"
             for n in range(4) for k in range(2)]
    hosts.write_text("\n".join(lines) + "\n")
    out = tmp_path / "fabric.yaml"
    assert main(["import", "ibnetdiscover", str(_factory_described(tmp_path)), "-o", str(out),
                 "--host-map", str(hosts)]) == 0
    printed = capsys.readouterr()
    assert "4 hosts with 8 HCAs" in printed.out and "factory description" not in printed.err
    layout = load_layout(out)
    assert len(layout.group_devices("node03")) == 2
    hosts.write_text("not-a-guid node01\n")
    assert main(["import", "ibnetdiscover", str(_factory_described(tmp_path)), "-o",
                 str(tmp_path / "x.yaml"), "--host-map", str(hosts)]) == 2
    assert "'not-a-guid' is not a GUID" in capsys.readouterr().err
    assert not (tmp_path / "x.yaml").exists()


def test_many_hcas_under_one_first_word_are_reported(monkeypatch):
    import re

    from rackdesigner.interop import ibnetdiscover

    text = re.sub(r'"gpu-0\d (mlx5_\d)"', r'"cluster \1"', SAMPLE.read_text())
    nodes = parse(text, "shared.txt")
    monkeypatch.setattr(ibnetdiscover, "MAX_HCAS_PER_HOST", 4)
    report = ibnetdiscover.to_layout(nodes)
    assert report.hosts == 1
    assert any("host 'cluster' gathers" in m for m in report.messages)
