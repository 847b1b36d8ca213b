"""Collectives, NCCL algorithms and rank placements: the choices the engine, the CLI, the sweep
spec, the heat map and the panel offer, each listed once here."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class Collective:
    name: str  # nccl-tests' name with underscores: "all_reduce"
    label: str  # legends
    color: str  # curves in the live panel
    #: True for a collective over a whole group; False for point-to-point (send_recv)
    group: bool = True


@dataclass(frozen=True, slots=True)
class Algorithm:
    name: str  # what the user picks ("auto" lets the model choose as NCCL would)
    description: str


@dataclass(frozen=True, slots=True)
class Placement:
    name: str
    description: str


COLLECTIVES: MappingProxyType[str, Collective] = MappingProxyType({c.name: c for c in (
    Collective("all_reduce", "all_reduce", "#1f6fd1"),
    Collective("all_gather", "all_gather", "#2e9e44"),
    Collective("reduce_scatter", "reduce_scatter", "#e07b16"),
    Collective("broadcast", "broadcast", "#8e44ad"),
    Collective("reduce", "reduce", "#c0392b"),
    Collective("all_to_all", "all_to_all", "#0e9aa7"),
    Collective("send_recv", "send/recv", "#7b8794", group=False),
)})
#: every collective a user can ask for, group collectives first
COLLECTIVE_NAMES: tuple[str, ...] = tuple(COLLECTIVES)
#: the collectives over a whole group (the engine's size curves; not send_recv)
GROUP_COLLECTIVES: tuple[str, ...] = tuple(c.name for c in COLLECTIVES.values() if c.group)

ALGORITHMS: MappingProxyType[str, Algorithm] = MappingProxyType({a.name: a for a in (
    Algorithm("auto", "the fastest available, as NCCL's tuner picks"),
    Algorithm("ring", "ring"),
    Algorithm("tree", "double binary tree"),
    Algorithm("nvls", "NVLink SHARP (NVSwitch reductions)"),
    Algorithm("nvls_tree", "NVLink SHARP inside nodes, tree between them"),
    Algorithm("collnet", "CollNet (in-network SHARP reductions)"),
)})
ALGORITHM_CHOICES: tuple[str, ...] = tuple(ALGORITHMS)

PLACEMENTS: MappingProxyType[str, Placement] = MappingProxyType({p.name: p for p in (
    Placement("contiguous", "ranks fill GPUs in order (node by node)"),
    Placement("scattered", "ranks spread round-robin over nodes"),
    Placement("random", "ranks on GPUs in a seeded random order"),
)})
PLACEMENT_NAMES: tuple[str, ...] = tuple(PLACEMENTS)
