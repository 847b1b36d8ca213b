"""The simulation's working structure stays inside `simulation/`: readers elsewhere read its
frozen stage values (`simulation/stages.py`) and ask the group figures that hold the structure
(`GroupCollectives`, its `GroupReads` methods); no module outside `simulation/` holds a
`Topology` at all.

`Topology` is dozens of mutable maps shared by every run of a state; a reader outside
`simulation/` that held one could read how the engine stores a fact (tying the analysis,
workload, serving and UI code to it) and change what every later run reads. Three checks,
each shown able to fail:

- the source: no module outside `simulation/` imports `Topology` (or a `simulation.topology*`
  module), or names a `topo` / `_topo` / `.topo` / `._topo` (how a holder spells it);
- what flows out: no function, method, property or field of the simulation that a module
  outside it imports takes or returns a `Topology` (by its annotations) or a `topo`
  parameter, and each of those functions and methods says what it returns, so what flows
  out is known;
- what is held: the objects the estimator, the job heat map, the serving model and the
  what-if analysis build on a real design, and everything they keep, reach no `Topology`
  (inside a simulation object only its public parts count: its private ones are its own).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import FunctionType, MappingProxyType, ModuleType, SimpleNamespace
from typing import Any

import pytest

import rackdesigner
from rackdesigner.generators import generate
from rackdesigner.simulation import GroupCollectives, stages
from rackdesigner.simulation.topology import Topology

PACKAGE_DIR = Path(rackdesigner.__file__).resolve().parent
#: how a holder of the engine's structure spells it
HOLDER_NAMES = {"topo", "_topo"}


def engine_reads(source: str) -> list[str]:
    """What `source` (a module's text) imports of the engine's structure, or where it holds
    it (a name or attribute spelled like a holder)."""
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
        elif isinstance(node, ast.Attribute) and node.attr in HOLDER_NAMES:
            found.append(f"{node.lineno}: holds the engine topology (.{node.attr})")
        elif isinstance(node, ast.Name) and node.id in HOLDER_NAMES:
            found.append(f"{node.lineno}: holds the engine topology ({node.id})")
        elif isinstance(node, ast.arg) and node.arg in HOLDER_NAMES:
            found.append(f"{node.lineno}: takes the engine topology ({node.arg})")
    return found


def _outside_modules() -> Iterator[tuple[Path, str]]:
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        relative = path.relative_to(PACKAGE_DIR)
        if relative.parts[0] != "simulation":
            yield relative, path.read_text("utf-8")


def test_no_module_outside_the_simulation_imports_or_holds_the_engine_topology():
    offenders = []
    for relative, source in _outside_modules():
        offenders += [f"{relative}:{hit}" for hit in engine_reads(source)]
    assert not offenders, offenders


@pytest.mark.parametrize("source", [
    "from rackdesigner.simulation.topology import Topology\n",
    "import rackdesigner.simulation.topology_read\n",
    "def f(groups):\n    return groups.topo.island_of\n",
    "def f(topo):\n    return g(topo)\n",
    "def f(groups):\n    topo = groups.topo\n    return g(topo)\n",  # passing it along
    "def f(groups):\n    return g(groups._topo)\n",
])
def test_the_source_check_can_fail(source):
    assert engine_reads(source)


# ---- what flows out of the simulation's functions read outside it ---------------------------

def simulation_imports() -> dict[tuple[str, str | None], list[str]]:
    """(simulation module, name or None for the module) -> where a module outside
    `simulation/` imports it."""
    found: dict[tuple[str, str | None], list[str]] = {}
    for relative, source in _outside_modules():
        for node in ast.walk(ast.parse(source)):
            if (isinstance(node, ast.ImportFrom) and node.module
                    and node.module.startswith("rackdesigner.simulation")):
                for a in node.names:
                    found.setdefault((node.module, a.name), []).append(
                        f"{relative}:{node.lineno}")
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("rackdesigner.simulation"):
                        found.setdefault((a.name, None), []).append(f"{relative}:{node.lineno}")
    return found


def _callable_mentions(label: str, func: Any, *, method: bool) -> list[str]:
    """Where `func`'s signature takes or returns a `Topology` (or a `topo`), or does not say
    what it returns."""
    func = inspect.unwrap(func)
    if not isinstance(func, FunctionType):
        return []
    out = []
    annotations = inspect.get_annotations(func)
    for name, annotation in annotations.items():
        if "Topology" in str(annotation):
            out.append(f"{label}: {name} is a Topology ({annotation})")
    for name in inspect.signature(func).parameters:
        if name in HOLDER_NAMES | {"topology"}:
            out.append(f"{label}: takes {name}")
    if "return" not in annotations and not (method and func.__name__ == "__init__"):
        out.append(f"{label}: does not say what it returns")
    return out


def topology_mentions(label: str, obj: Any) -> list[str]:
    """What of `obj` (a function, a class, a module of the simulation) takes, returns or
    exposes a `Topology` (see the module docstring)."""
    if isinstance(obj, ModuleType):
        return [hit for name, member in vars(obj).items()
                if not name.startswith("_") and getattr(member, "__module__", None) == obj.__name__
                for hit in topology_mentions(f"{label}.{name}", member)]
    if isinstance(obj, FunctionType):
        return _callable_mentions(label, obj, method=False)
    if not isinstance(obj, type):
        return []  # a constant (a table, a schema name)
    out = []
    for cls in obj.__mro__:
        if not cls.__module__.startswith("rackdesigner.simulation"):
            continue
        for name, annotation in inspect.get_annotations(cls).items():
            if not name.startswith("_") and "Topology" in str(annotation):
                out.append(f"{label}.{name} is a Topology ({annotation})")
        for name, member in vars(cls).items():
            if name.startswith("_") and name != "__init__":
                continue
            if isinstance(member, property):
                member = member.fget
            elif isinstance(member, classmethod | staticmethod):
                member = member.__func__
            out += _callable_mentions(f"{label}.{name}", member, method=True)
    return out


def test_nothing_read_outside_the_simulation_takes_or_returns_a_topology():
    offenders = []
    for (module, name), where in sorted(simulation_imports().items(),
                                        key=lambda kv: (kv[0][0], kv[0][1] or "")):
        obj = importlib.import_module(module)
        if name is not None:
            obj = getattr(obj, name, None) or importlib.import_module(f"{module}.{name}")
        offenders += [f"{hit} (imported at {where[0]})"
                      for hit in topology_mentions(f"{module}.{name or ''}", obj)]
    assert not offenders, offenders


def test_the_signature_check_can_fail():
    def takes(topo: Topology) -> int:
        return 0

    def returns() -> Topology:
        raise AssertionError

    def says_nothing(x: int):  # what the check refuses: no return annotation
        return x

    class Holder:
        structure: Topology

        @property
        def engine(self) -> Topology | None:
            return None

    Holder.__module__ = "rackdesigner.simulation.fake"
    assert topology_mentions("takes", takes)
    assert topology_mentions("returns", returns)
    assert topology_mentions("says_nothing", says_nothing)
    assert len(topology_mentions("Holder", Holder)) == 2
    assert not topology_mentions("GroupCollectives", GroupCollectives)
    # what the readers use is seen: the group figures and the stage values
    imports = simulation_imports()
    assert ("rackdesigner.simulation", "GroupCollectives") in imports
    assert any(module == "rackdesigner.simulation.stages" for module, _ in imports)


# ---- what readers keep, on a real design -----------------------------------------------------

_ATOMS = (str, bytes, int, float, complex, bool, type(None))


def topology_held(root: Any, label: str) -> list[str]:
    """The paths from `root` to a `Topology`: through containers, every attribute of an
    object defined outside the simulation and the public ones of a simulation object; the
    design itself (`model`, `catalog`: where a state memoises its topology) is not followed."""
    found: list[str] = []
    seen: set[int] = set()
    stack = [(root, label)]
    while stack:
        obj, path = stack.pop()
        if isinstance(obj, _ATOMS) or id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, Topology):
            found.append(path)
            continue
        module = type(obj).__module__
        if module.startswith(("rackdesigner.model", "rackdesigner.catalog", "numpy")):
            continue
        if isinstance(obj, Mapping | MappingProxyType):
            stack += [(v, f"{path}[{k!r}]") for k, v in obj.items()]
            stack += [(k, f"{path}.keys()") for k in obj]
        elif isinstance(obj, list | tuple | set | frozenset):
            stack += [(v, f"{path}[{i}]") for i, v in enumerate(obj)]
        elif isinstance(obj, type | ModuleType) or callable(obj):
            continue
        else:
            names = set(getattr(obj, "__dict__", {}))
            for cls in type(obj).__mro__:
                slots = getattr(cls, "__slots__", ())
                names.update((slots,) if isinstance(slots, str) else slots)
            public_only = module.startswith("rackdesigner.simulation")
            for name in sorted(names):
                if public_only and name.startswith("_"):
                    continue
                value = getattr(obj, name, None)
                stack.append((value, f"{path}.{name}"))
    return found


def test_the_holding_check_can_fail(catalog):
    layout = generate("superpod", system="dgx-h100", nodes=4, catalog=catalog)
    topo = Topology.of(layout)
    assert topology_held(SimpleNamespace(cache={"k": [topo]}), "x") == ["x.cache['k'][0]"]
    assert topology_held(SimpleNamespace(_kept=(1, topo)), "x") == ["x._kept[1]"]
    groups = GroupCollectives(layout)
    assert not topology_held(groups, "groups")  # holds one, privately: a simulation object's


def test_what_the_readers_keep_reaches_no_topology(catalog):
    from rackdesigner.analysis.jobheat import job_heat
    from rackdesigner.analysis.whatif import WhatIf
    from rackdesigner.serving.links import Links, domain_runs
    from rackdesigner.workload import Estimator, Job

    layout = generate("superpod", system="dgx-h100", nodes=4, catalog=catalog)
    estimator = Estimator(layout, "llama3-8b", gpus=32)
    estimate = estimator.estimate(Job(tp=8, pp=2, gbs=64), time_if_too_big=True)
    heat = job_heat(estimator, estimate)
    assert heat.loads and estimate.comm  # the job's exchanges were routed on the fabric
    links = Links(estimator.comm, 8)
    assert links.time("all_reduce", 2**20, 8) > 0 and domain_runs(estimator.comm)
    leaf = next(d.id for d in layout.devices() if d.id.startswith("leaf"))
    whatif = WhatIf(layout)
    impact = whatif.scenario([leaf])
    kept = {"estimator": estimator, "estimate": estimate, "heat": heat, "links": links,
            "whatif": whatif, "impact": impact, "shape": stages.fabric_shape(layout),
            "capacity": stages.gpu_capacity(layout)}
    assert topology_held(kept, "kept") == []


# ---- the stage values ------------------------------------------------------------------------

def test_the_stage_values_are_frozen_views_made_once_per_structure(catalog):
    layout = generate("superpod", system="dgx-h100", nodes=4, catalog=catalog)
    shape = stages.fabric_shape(layout)
    assert stages.fabric_shape(layout) is shape
    assert GroupCollectives(layout).shape() is shape
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
    assert not isinstance(whole.source, Topology)  # a token naming it, not the structure
    # losing a leaf lowers some GPU's NIC capacity and raises none
    assert any(fresh.per_gpu[g][1] < whole.per_gpu[g][1] for g in fresh.per_gpu)
    assert all(fresh.per_gpu[g][1] <= whole.per_gpu[g][1] for g in fresh.per_gpu)
