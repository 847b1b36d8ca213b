"""The NumPy passes of large designs (model/linktable.py) give exactly what the plain passes
give: carried and rejected links, islands, NVLink domains, components, NIC reach, over-wired
port groups and every link finding, in the same order, on designs broken in every way the
rules know (reused and out-of-range ports, bundles overlapping, missing port groups, self
links, protocol and rate mismatches, unknown models, cut cables, failed parts)."""

from __future__ import annotations

import random

import pytest

from rackdesigner.generators import generate
from rackdesigner.model import Device, Layout, Link, PortRef, rules
from rackdesigner.model import index as index_module
from rackdesigner.model.index import DesignIndex


def _partition(mapping: dict[str, str]) -> set[frozenset[str]]:
    sets: dict[str, set[str]] = {}
    for key, root in mapping.items():
        sets.setdefault(root, set()).add(key)
    return {frozenset(s) for s in sets.values()}


def _facets(layout: Layout, arrays: bool, monkeypatch) -> dict:
    monkeypatch.setattr(index_module, "_ARRAY_MIN_LINKS", 0 if arrays else 10**12)
    index = DesignIndex(layout.state, layout.catalog)
    assert (index.link_table() is not None) == arrays
    conn = index.connectivity()
    parts = rules.check_parts(_fresh(layout, index))
    return {
        "carried": index.carried(), "rejected": index.rejected(),
        "island_keys": list(conn.island_of), "islands": _partition(conn.island_of),
        "nvlink": _partition(conn.nvlink_domain_of), "components": _partition(conn.component_of),
        "gpus": conn.gpus, "nic_reach": index.nic_reach(), "exhausted": index.exhausted_ports(),
        "findings": parts.findings(), "links": parts.links, "by_link": list(parts.by_link.items()),
        "exhausted_findings": parts.exhausted, "models": parts.models,
    }


def _fresh(layout: Layout, index: DesignIndex) -> Layout:
    """`layout` on its state, reading `index` (the rules ask `layout.index()`)."""
    copy = layout.copy()
    copy.index = lambda: index  # type: ignore[method-assign]
    return copy


def _broken(catalog, seed: int) -> Layout:
    rng = random.Random(seed)
    layout = generate("superpod", system="dgx-h100", nodes=8, catalog=catalog)
    links = list(layout.links())
    devices = list(layout.devices())
    indexed = [lk for lk in links if lk.a.index is not None]
    serial = iter(range(10**6))

    def new_id() -> str:
        return f"bad-{next(serial)}"

    def add(a: PortRef, b: PortRef, count: int = 1) -> None:
        layout.add_link(Link(new_id(), a, b, count))

    for _ in range(rng.randint(2, 6)):  # a port another link took, or a bundle over it
        taken = rng.choice(indexed)
        other = rng.choice(devices)
        add(taken.a, PortRef(other.id, "nosuch" if rng.random() < 0.3 else "ib",
                             rng.randint(0, 3)), rng.choice((1, 1, 2, 4)))
    for _ in range(rng.randint(1, 3)):  # past the end of the group
        lk = rng.choice(indexed)
        add(PortRef(lk.a.device, lk.a.group, 60), PortRef(lk.b.device, lk.b.group, 0), 8)
    for _ in range(rng.randint(1, 3)):  # self links, same port and other ports
        d = rng.choice(indexed).a
        add(d, d if rng.random() < 0.5 else PortRef(d.device, d.group, (d.index or 0) + 1))
    gpu = next(d for d in devices if d.model == "h100-sxm5")
    nic = next(d for d in devices if d.model == "connectx-7")
    add(PortRef(gpu.id, "nvlink"), PortRef(nic.id, "ib", 0))  # protocol mismatch
    leaf = next(d for d in devices if d.model == "qm9700")
    add(PortRef(nic.id, "ib", 0), PortRef(leaf.id, "ib", 63))  # ports taken twice, both ends
    layout.add_device(Device("mystery-1", "no-such-model"))
    add(PortRef("mystery-1", "p", 0), PortRef(leaf.id, "ib", 62))  # an unknown model
    for lk in rng.sample(links, 25):  # cut cables: islands and components split
        layout.remove_link(lk.id)
    for d in rng.sample(devices, 3):
        layout.update_device(d.id, status="failed")
    return layout


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_array_passes_equal_the_plain_ones(catalog, seed, monkeypatch):
    layout = _broken(catalog, seed)
    plain = _facets(layout, False, monkeypatch)
    arrays = _facets(layout, True, monkeypatch)
    codes = {f.code for f in plain["findings"]}
    assert {"port-reused", "port-range", "self-link", "missing-port", "protocol-mismatch",
            "unknown-model", "ports-exhausted"} <= codes, codes
    for name in plain:
        assert arrays[name] == plain[name], name


def test_a_clean_generated_design_agrees_too(catalog, monkeypatch):
    layout = generate("rail-optimized", system="dgx-b200", nodes=16, switch="q3400",
                      catalog=catalog)
    plain = _facets(layout, False, monkeypatch)
    arrays = _facets(layout, True, monkeypatch)
    for name in plain:
        assert arrays[name] == plain[name], name


def test_small_designs_do_not_import_numpy():
    import subprocess
    import sys

    code = ("import sys\nfrom rackdesigner.generators import generate\n"
            "from rackdesigner.model import check_layout\n"
            "layout = generate('superpod', system='dgx-h100', nodes=16)\n"
            "check_layout(layout)\nprint('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "False", out.stderr


@pytest.mark.parametrize("seed", [4])
def test_the_topology_reads_a_large_designs_devices_as_the_plain_pass(catalog, seed,
                                                                      monkeypatch):
    from rackdesigner.simulation.topology import Topology

    layout = _broken(catalog, seed)
    layout.add_device(Device("rack-x", "rack-42u"))
    built = {}
    for arrays in (False, True):
        monkeypatch.setattr(index_module, "_ARRAY_MIN_LINKS", 0 if arrays else 10**12)
        topo = Topology.build(layout.copy())  # a fresh index per build
        built[arrays] = topo
        assert (layout.copy().index().link_table() is not None) == arrays
    plain, arrays_topo = built[False], built[True]
    for name in ("specs", "gpus", "cpu_vendor", "unknown_models",
                 "gpu_nics", "primary_nic", "tier"):
        got, want = getattr(arrays_topo, name), getattr(plain, name)
        assert got == want, name
        if isinstance(want, dict):
            assert list(got) == list(want), name  # the same order
    # islands: the same members in the same order, named by other roots
    assert list(arrays_topo.islands.values()) == list(plain.islands.values())


def test_a_status_change_shares_the_columns_and_carried_links_of_the_state_before(monkeypatch):
    """A Fail makes a new state whose index is the one before's (statuses read by no facet):
    the link columns and carried links it had not made yet are made there, once, so that
    each Fail's degraded design derives from them instead of reading the design again."""
    from rackdesigner.commands import History
    from rackdesigner.commands.failures import set_status

    monkeypatch.setattr(index_module, "_ARRAY_MIN_LINKS", 0)
    layout = generate("superpod", system="dgx-h100", sus=1)
    history = History(layout)
    intact = layout.index()
    table = intact.link_table()  # what the intact design's topology reads (no carried links)
    leaf = next(d.id for d in layout.devices() if d.id.startswith("leaf"))
    made = []
    real = DesignIndex.carried

    def counted(self):
        if self._carried is None:
            made.append(self)
        return real(self)

    monkeypatch.setattr(DesignIndex, "carried", counted)
    for _ in range(3):
        history.push(set_status(layout, [leaf], "failed"))
        failed = layout.index()
        assert failed is not intact and failed.link_table() is table
        assert failed.carried() is intact.carried()
        history.undo()
    assert sum(1 for i in made if i is intact) == 1  # made once, on the state before
