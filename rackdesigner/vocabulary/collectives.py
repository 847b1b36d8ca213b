"""Collectives, NCCL algorithms and rank placements: the choices the engine, the CLI, the sweep
spec, the heat map and the panel offer, each listed once here — and, for a collective, what the
engine needs to know about it.

A `Collective` carries its semantics as data, named after NCCL's and nccl-tests' own terms:

- `busbw`: nccl-tests' bus-bandwidth factor over n ranks (`BUSBW_FACTORS`, doc/PERFORMANCE.md:
  AllReduce 2(n-1)/n, AllGather/ReduceScatter/AllToAll (n-1)/n, Broadcast/Reduce/SendRecv 1);
- `ring`: the shape of its ring algorithm (`RINGS`): how many times the data goes round (steps
  and network steps of NCCL's ring latency model, tuning.cc), whether the ring plateau applies,
  and how NVLink SHARP runs it (a reduce-then-gather is the whole reduction in the switch);
- `algorithms`: the NCCL algorithms that can run it (Point.algorithm's names), in the order
  the model weighs them;
- `traffic`: what crosses the network (`TRAFFIC`): "" = the flows of the algorithm that runs
  (a ring, or NCCL's trees), "all_to_all" = every rank with every other (point-to-point, PXN
  per rail), "p2p" = one pair (send/recv).

The engine (simulation/, analysis/jobheat.py) reads these fields and never a collective's name:
`tests/test_collective_registry.py` registers a collective as data only and gets its curves,
and fails when engine code spells a collective name in a condition. Adding a collective is one
entry in `_ENTRIES` (and its published runs, if any); `table()` checks an entry's fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

from rackdesigner.vocabulary._table import entry

#: nccl-tests' busbw / algbw factor over n ranks (n >= 2), by the formula's name
BUSBW_FACTORS: MappingProxyType[str, Callable[[int], float]] = MappingProxyType({
    "2(n-1)/n": lambda n: 2.0 * (n - 1) / n,
    "(n-1)/n": lambda n: (n - 1) / n,
    "1": lambda n: 1.0,
})

#: what crosses the network: "" the algorithm's own flows (ring or tree), "all_to_all" every
#: rank to every other, "p2p" one pair
TRAFFIC = ("", "all_to_all", "p2p")

#: the algorithms NCCL reports (Point.algorithm) and a collective may list
NCCL_ALGORITHMS = ("ring", "tree", "nvls_tree", "collnet_direct", "nvls", "p2p")


@dataclass(frozen=True, slots=True)
class Ring:
    """The shape of a collective's ring algorithm."""

    name: str
    description: str
    #: times the data goes round the ring: steps = passes x (n - 1), of which passes x
    #: (nodes - 1) cross the network; 0 = a pipelined chain of n steps from or to a root
    passes: int
    #: NCCL's ring plateau: latency x RING_PLATEAU_FACTOR across nodes at large sizes (Simple)
    plateau: bool = False

    def steps(self, ranks: int) -> int:
        return self.passes * (ranks - 1) if self.passes else ranks


RINGS: MappingProxyType[str, Ring] = MappingProxyType({r.name: r for r in (
    Ring("reduce_then_gather", "reduce-scatter then all-gather round the ring (AllReduce); "
         "NVLink SHARP does both in the switch, across nodes too when SHARP reduces there",
         passes=2, plateau=True),
    Ring("one_pass", "one pass round the ring (AllGather, ReduceScatter); NVLink SHARP does "
         "the one pass, inside one NVLink domain", passes=1),
    Ring("chain", "a pipelined chain from or to a root (Broadcast, Reduce)", passes=0),
)})


@dataclass(frozen=True, slots=True)
class Collective:
    name: str  # nccl-tests' name with underscores: "all_reduce"
    label: str  # legends
    color: str  # curves in the live panel
    #: nccl-tests' busbw factor (a key of BUSBW_FACTORS)
    busbw: str = "1"
    #: the ring's shape (a key of RINGS); "" for a point-to-point exchange
    ring: str = ""
    #: NCCL algorithms that can run it, in the order the model weighs them
    algorithms: tuple[str, ...] = ("ring",)
    #: what crosses the network (one of TRAFFIC)
    traffic: str = ""

    @property
    def group(self) -> bool:
        """True for a collective over a whole group; False for one pair (send_recv)."""
        return self.traffic != "p2p"

    def busbw_factor(self, ranks: int) -> float:
        """busbw / algbw over `ranks` ranks (1 for one rank)."""
        return 1.0 if ranks <= 1 else BUSBW_FACTORS[self.busbw](ranks)


def _problem(c: Collective) -> str | None:
    if c.busbw not in BUSBW_FACTORS:
        return f"busbw {c.busbw!r} is not one of {', '.join(BUSBW_FACTORS)}"
    if c.traffic not in TRAFFIC:
        return f"traffic {c.traffic!r} is not one of {', '.join(map(repr, TRAFFIC))}"
    unknown = [a for a in c.algorithms if a not in NCCL_ALGORITHMS]
    if unknown or not c.algorithms:
        return f"algorithms {c.algorithms!r}: each one of {', '.join(NCCL_ALGORITHMS)}"
    if c.traffic:  # point-to-point: NCCL runs it as sends and receives, no ring
        if c.ring or c.algorithms != ("p2p",):
            return "a point-to-point exchange has no ring and runs as ('p2p',)"
    elif c.ring not in RINGS or c.algorithms[0] != "ring" or "p2p" in c.algorithms:
        return f"a collective runs a ring first: ring one of {', '.join(RINGS)}"
    return None


def table(*entries: Collective) -> MappingProxyType[str, Collective]:
    """A checked, immutable collective table (group collectives first, as the engine lists its
    curves); ValueError naming the entry whose fields do not fit."""
    for c in entries:
        problem = _problem(c)
        if problem is not None:
            raise ValueError(f"collective {c.name!r}: {problem}")
    ordered = sorted(entries, key=lambda c: not c.group)
    return MappingProxyType({c.name: c for c in ordered})


@dataclass(frozen=True, slots=True)
class Algorithm:
    name: str  # what the user picks ("auto" lets the model choose as NCCL would)
    description: str
    #: the NCCL algorithm it forces (Point.algorithm); "" for auto
    nccl: str = ""


@dataclass(frozen=True, slots=True)
class Placement:
    name: str
    description: str


_ENTRIES = (
    Collective("all_reduce", "all_reduce", "#1f6fd1", busbw="2(n-1)/n",
               ring="reduce_then_gather",
               algorithms=("ring", "tree", "nvls_tree", "collnet_direct", "nvls")),
    Collective("all_gather", "all_gather", "#2e9e44", busbw="(n-1)/n", ring="one_pass",
               algorithms=("ring", "nvls")),
    Collective("reduce_scatter", "reduce_scatter", "#e07b16", busbw="(n-1)/n", ring="one_pass",
               algorithms=("ring", "nvls")),
    Collective("broadcast", "broadcast", "#8e44ad", ring="chain"),
    Collective("reduce", "reduce", "#c0392b", ring="chain"),
    Collective("all_to_all", "all_to_all", "#0e9aa7", busbw="(n-1)/n", algorithms=("p2p",),
               traffic="all_to_all"),
    Collective("send_recv", "send/recv", "#7b8794", algorithms=("p2p",), traffic="p2p"),
)

COLLECTIVES: MappingProxyType[str, Collective] = table(*_ENTRIES)
#: every collective a user can ask for, group collectives first
COLLECTIVE_NAMES: tuple[str, ...] = tuple(COLLECTIVES)
#: the collectives over a whole group (the engine's size curves; not send_recv)
GROUP_COLLECTIVES: tuple[str, ...] = tuple(c.name for c in COLLECTIVES.values() if c.group)


def collective(name: str) -> Collective:
    """The entry of collective `name` in the table as it stands now (the engine looks each
    one up when it runs, so a table built with `table()` for a test is read like the shipped
    one); KeyError naming the known collectives when there is none."""
    return entry(COLLECTIVES, name, "collective")


def collective_names(group_only: bool = False) -> tuple[str, ...]:
    """The collectives of the table as it stands now, group collectives first."""
    return tuple(c.name for c in COLLECTIVES.values() if c.group or not group_only)


def first_running(nccl_algorithm: str) -> str | None:
    """The first collective (table order) that `nccl_algorithm` can run: the one a forced
    algorithm is judged on when a whole design is simulated."""
    return next((c.name for c in COLLECTIVES.values() if nccl_algorithm in c.algorithms), None)


ALGORITHMS: MappingProxyType[str, Algorithm] = MappingProxyType({a.name: a for a in (
    Algorithm("auto", "the fastest available, as NCCL's tuner picks"),
    Algorithm("ring", "ring", "ring"),
    Algorithm("tree", "double binary tree", "tree"),
    Algorithm("nvls", "NVLink SHARP (NVSwitch reductions)", "nvls"),
    Algorithm("nvls_tree", "NVLink SHARP inside nodes, tree between them", "nvls_tree"),
    Algorithm("collnet", "CollNet (in-network SHARP reductions)", "collnet_direct"),
)})
ALGORITHM_CHOICES: tuple[str, ...] = tuple(ALGORITHMS)

PLACEMENTS: MappingProxyType[str, Placement] = MappingProxyType({p.name: p for p in (
    Placement("contiguous", "ranks fill GPUs in order (node by node)"),
    Placement("scattered", "ranks spread round-robin over nodes"),
    Placement("random", "ranks on GPUs in a seeded random order"),
)})
PLACEMENT_NAMES: tuple[str, ...] = tuple(PLACEMENTS)
