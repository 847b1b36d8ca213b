"""An example RackDesigner plugin: what an installed package can add (docs/plugins.md).

- a device kind, `optical_circuit_switch`: its role is `switch`, so its traits say it forwards
  compute-fabric traffic and every engine treats it as a switch (the simulation's tiers,
  what-if's switches, the Slurm and NetBox exports) — no engine knows its name;
- a catalog pack with one model of that kind (`catalog/ocs-64.yaml`);
- an export format, `link-list`: one line per link (`linklist.py`).
"""

from __future__ import annotations

from pathlib import Path

from rackdesigner.interop.base import Exporter
from rackdesigner.vocabulary import Kind

KINDS = (
    Kind("optical_circuit_switch", "optical circuit switch", "optical circuit switches", "OCS",
         "#117a65", "InfiniBand", "switch", "switch", "ocs"),
)

EXPORTERS = (
    Exporter("link-list", "rd_ocs_plugin.linklist",
             "every link as one line: a end, b end, protocol, count (plain text)",
             (".txt",), "Link list (*.txt)", "&Link List"),
)


def catalog_folder() -> Path:
    """The folder of this plugin's device files."""
    return Path(__file__).resolve().parent / "catalog"
