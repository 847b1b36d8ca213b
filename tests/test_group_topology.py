"""The estimator's group figures read the engine topology of the design's state that
`simulate` reads (`Topology.of`): built once per state and shared, so an estimate after a
simulation of the same design (the designer's panel, then its Workload tab; a sweep point's
simulation, then its estimate) does not build a second one — and an edit, or a failure, gives
a new state and so a topology that shows it, with the figures a topology built from nothing
gives."""

from __future__ import annotations

from rackdesigner.generators import generate
from rackdesigner.model import failures
from rackdesigner.simulation import GroupCollectives, simulate
from rackdesigner.simulation.stages import fabric_shape

GiB = 2**30


def _gpus(layout) -> list[str]:
    return [d.id for d in layout.devices() if layout.spec(d.id).kind == "gpu"]


def test_groups_share_the_topology_simulate_built(catalog):
    layout = generate("superpod", system="dgx-h100", nodes=8, catalog=catalog)
    simulate(layout)
    built = fabric_shape(layout)  # made once per topology: the same one, the same value
    assert GroupCollectives(layout).shape() is built
    assert GroupCollectives(layout).shape() is built  # and again: nothing rebuilt


def test_an_edit_gives_the_groups_a_topology_that_shows_it(catalog):
    layout = generate("superpod", system="dgx-h100", nodes=8, catalog=catalog)
    before = GroupCollectives(layout)
    spine = next(d.id for d in layout.devices() if d.id.startswith("spine"))
    for link in [lk for lk in layout.links() if spine in (lk.a.device, lk.b.device)]:
        layout.remove_link(link.id)
    layout.remove_device(spine)
    after = GroupCollectives(layout)
    assert after.shape() is not before.shape()
    assert spine in before.shape().tier and spine not in after.shape().tier
    gpus = _gpus(layout)
    # a spine fewer never makes the whole-design all_reduce faster
    assert (after.point(gpus, "all_reduce", GiB).time_us
            >= before.point(gpus, "all_reduce", GiB).time_us)


def test_a_failed_part_gives_the_figures_of_a_topology_built_from_nothing(catalog):
    layout = generate("superpod", system="dgx-h100", nodes=8, catalog=catalog)
    simulate(layout)  # the intact design's topology: the degraded one is derived from it
    leaf = next(d.id for d in layout.devices() if d.id.startswith("leaf"))
    down = failures.degraded(layout, failures.closure(layout, [leaf]))
    shared = GroupCollectives(down)
    # the same failure on a twin never simulated intact: its topology built from nothing
    twin = generate("superpod", system="dgx-h100", nodes=8, catalog=catalog)
    fresh = GroupCollectives(failures.degraded(twin, failures.closure(twin, [leaf])))
    gpus = _gpus(down)
    for collective in ("all_reduce", "all_gather", "all_to_all"):
        assert (shared.point(gpus, collective, GiB)
                == fresh.point(gpus, collective, GiB)), collective
