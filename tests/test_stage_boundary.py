"""The simulation's working structure stays inside `simulation/`: readers elsewhere read its
frozen stage values (`simulation/stages.py`) and pass the engine's structure along unread.

`Topology` is dozens of mutable maps shared by every run of a state; a reader outside
`simulation/` that imported it or read one of its maps tied the analysis, workload, serving
and UI code to how the engine stores a fact (and could change what every later run reads).
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from types import MappingProxyType

import pytest

import rackdesigner
from rackdesigner.generators import generate
from rackdesigner.simulation import stages
from rackdesigner.simulation.topology import Topology

PACKAGE_DIR = Path(rackdesigner.__file__).resolve().parent
#: what a `Topology` holds and answers: its fields and its public methods
ENGINE_NAMES = ({f.name for f in dataclasses.fields(Topology)}
                | {n for n in dir(Topology) if not n.startswith("__")
                   and callable(getattr(Topology, n))})


def _holds_engine(node: ast.expr) -> bool:
    """`topo` or `<anything>.topo`: how readers hold the engine's structure."""
    return ((isinstance(node, ast.Name) and node.id == "topo")
            or (isinstance(node, ast.Attribute) and node.attr == "topo"))


def engine_reads(source: str) -> list[str]:
    """What `source` (a module's text) imports of the engine's structure or reads of it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("rackdesigner.simulation.topology"):
                found.append(f"{node.lineno}: imports {node.module}")
            found += [f"{node.lineno}: imports Topology" for a in node.names
                      if a.name == "Topology"]
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: imports {a.name}" for a in node.names
                      if a.name.startswith("rackdesigner.simulation.topology")]
        elif (isinstance(node, ast.Attribute) and node.attr in ENGINE_NAMES
              and _holds_engine(node.value)):
            found.append(f"{node.lineno}: reads .{node.attr} of the engine topology")
    return found


def test_no_module_outside_the_simulation_reads_the_engine_topology():
    offenders = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        relative = path.relative_to(PACKAGE_DIR)
        if relative.parts[0] == "simulation":
            continue
        offenders += [f"{relative}:{hit}" for hit in engine_reads(path.read_text("utf-8"))]
    assert not offenders, offenders


@pytest.mark.parametrize("source", [
    "from rackdesigner.simulation.topology import Topology\n",
    "import rackdesigner.simulation.topology_read\n",
    "def f(groups):\n    return groups.topo.island_of\n",
    "def f(topo):\n    return topo.nic_raw('nic-1')\n",
])
def test_the_check_can_fail(source):
    assert engine_reads(source)


def test_passing_the_structure_along_is_allowed():
    assert not engine_reads("def f(groups):\n    topo = groups.topo\n    return g(topo)\n")


def test_the_stage_values_are_frozen_views_made_once_per_structure(catalog):
    layout = generate("superpod", system="dgx-h100", nodes=4, catalog=catalog)
    shape = stages.fabric_shape(layout)
    assert stages.fabric_shape(layout) is shape
    assert shape.gpus and len(shape.gpus) == len(set(shape.gpus))
    for mapping in (shape.island_of, shape.nvlink_domain_of, shape.component_of, shape.tier):
        assert isinstance(mapping, MappingProxyType)
    with pytest.raises(TypeError):
        shape.island_of["gpu-x"] = "gpu-y"  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        shape.gpus = ()  # type: ignore[misc]
    # a DGX H100 node: eight GPUs in one NVLink domain, every GPU on one fabric
    domains = {shape.nvlink_domain_of[g] for g in shape.gpus}
    assert len(domains) == 4
    assert len({shape.component_of[g] for g in shape.gpus}) == 1


def test_a_failures_capacity_starts_from_the_intact_designs_and_equals_a_fresh_one(catalog):
    from rackdesigner.model.failures import closure, degraded

    layout = generate("superpod", system="dgx-h100", nodes=4, catalog=catalog)
    whole = stages.gpu_capacity(layout)
    leaf = next(d.id for d in layout.devices() if d.id.startswith("leaf"))
    broken = degraded(layout, closure(layout, [leaf]))
    via_whole = stages.gpu_capacity(broken, whole)
    fresh = stages.gpu_capacity(broken)
    assert dict(via_whole.per_gpu) == dict(fresh.per_gpu)
    # losing a leaf lowers some GPU's NIC capacity and raises none
    assert any(fresh.per_gpu[g][1] < whole.per_gpu[g][1] for g in fresh.per_gpu)
    assert all(fresh.per_gpu[g][1] <= whole.per_gpu[g][1] for g in fresh.per_gpu)
