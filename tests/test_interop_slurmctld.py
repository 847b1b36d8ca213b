"""The Slurm tree export read by Slurm itself (issue 26, item 11): slurmctld (Debian 12's
`slurm-wlm`, 22.05) started on the exported topology.conf, then `scontrol show topology`.

Runs where slurmctld and scontrol are installed. The controller listens on 127.0.0.1 on a free
port with `AuthType=auth/none` (no munged needed), keeps its state in the test's folder, and
the test stops exactly the process it started.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from interop_helpers import expand_hostlist, parse_topology_conf

from rackdesigner.generators import generate
from rackdesigner.interop import export

SLURMCTLD = shutil.which("slurmctld") or ("/usr/sbin/slurmctld"
                                          if os.access("/usr/sbin/slurmctld", os.X_OK) else None)
SCONTROL = shutil.which("scontrol")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (SLURMCTLD and SCONTROL),
                                 reason="slurmctld and scontrol are not installed")]

READY_WITHIN_S = 30.0  # a bound on the wait for the controller, not a timed assertion


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _slurm_conf(folder: Path, nodes: list[str]) -> Path:
    (folder / "state").mkdir()
    (folder / "spool").mkdir()
    lines = ["ClusterName=rdtest", "SlurmctldHost=localhost(127.0.0.1)",
             f"SlurmctldPort={_free_port()}", f"SlurmdPort={_free_port()}",
             "AuthType=auth/none", "CredType=cred/none",
             f"StateSaveLocation={folder / 'state'}", f"SlurmdSpoolDir={folder / 'spool'}",
             f"SlurmctldPidFile={folder / 'slurmctld.pid'}",
             f"SlurmctldLogFile={folder / 'slurmctld.log'}", f"SlurmUser={getpass.getuser()}",
             "TopologyPlugin=topology/tree", "ProctrackType=proctrack/linuxproc",
             "ReturnToService=1"]
    lines += [f"NodeName={n} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN" for n in nodes]
    lines.append("PartitionName=all Nodes=ALL Default=YES")
    conf = folder / "slurm.conf"  # topology.conf is read from the same folder
    conf.write_text("\n".join(lines) + "\n")
    return conf


def _show_topology(conf: Path) -> list[dict[str, str]]:
    """`scontrol show topology` of a slurmctld started on `conf`, as one dict per switch."""
    env = {**os.environ, "SLURM_CONF": str(conf)}
    process = subprocess.Popen([SLURMCTLD, "-D", "-i", "-f", str(conf)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + READY_WITHIN_S
        while True:
            shown = subprocess.run([SCONTROL, "show", "topology"], capture_output=True,
                                   text=True, env=env, timeout=10)
            if shown.returncode == 0 and "SwitchName=" in shown.stdout:
                break
            if process.poll() is not None or time.monotonic() > deadline:
                log = conf.parent / "slurmctld.log"
                pytest.fail("slurmctld did not serve the topology: "
                            + (log.read_text()[-2000:] if log.exists() else shown.stderr))
            time.sleep(0.2)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    switches = []
    for line in shown.stdout.splitlines():
        fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
        if "SwitchName" in fields:
            switches.append(fields)
    return switches


def test_slurmctld_reads_no_tier_above_the_spines_for_leaves_serving_no_node(tmp_path):
    """4 GB200 NVL72 racks on a fabric built for a whole SU: 8 of its 20 leaves serve no node.
    Listed, slurmctld 22.05 made them a Level=2 tier above the spines; left out, Slurm sees the
    two tiers drawn, with every tray a node under one rail group."""
    layout = generate("superpod", system="gb200-nvl72", racks=4)
    out = tmp_path / "topology.conf"
    export(layout, "slurm-tree", out)
    entries = parse_topology_conf(out.read_text())
    nodes = sorted({n for e in entries if "nodes" in e for n in expand_hostlist(e["nodes"])})
    assert len(nodes) == 72  # 4 racks x 18 compute trays
    switches = _show_topology(_slurm_conf(tmp_path, nodes))
    levels = {s["SwitchName"]: int(s["Level"]) for s in switches}
    assert max(levels.values()) == 1
    assert not {f"leaf-{n}" for n in range(13, 21)} & set(levels)
    under_leaves = [n for s in switches if s["Level"] == "0"
                    for n in expand_hostlist(s["Nodes"])]
    assert sorted(under_leaves) == nodes
    assert {s for s, level in levels.items() if level == 1} == {
        f"spine-{n}" for n in range(1, 17)}


def test_slurmctld_reads_the_core_tier_that_joins_pods(tmp_path):
    """A core tier that joins SUs is a real third tier: Slurm sees Level=2 there."""
    layout = generate("rail-optimized", system="dgx-a100", nodes=120, switch="qm8700")
    out = tmp_path / "topology.conf"
    export(layout, "slurm-tree", out)
    entries = parse_topology_conf(out.read_text())
    nodes = sorted({n for e in entries if "nodes" in e for n in expand_hostlist(e["nodes"])})
    switches = _show_topology(_slurm_conf(tmp_path, nodes))
    levels = {s["SwitchName"]: int(s["Level"]) for s in switches}
    assert max(levels.values()) == 2
    assert {s for s, level in levels.items() if level == 2} == {
        d.id for d in layout.devices() if d.id.startswith("core-")}
